package arno.batch;

import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.apache.commons.io.input.BoundedInputStream;

/**
 * Rebuilds a resuming job's state from its report: which inputs are done
 * (a bit per input: 12.5 kB for 100,000) and how many succeeded or failed.
 * The report is the single record of progress, so nothing can disagree with
 * it. Reads the committed prefix as a stream.
 */
final class ReportScan {
    final BitSet done = new BitSet();
    long succeeded;
    long failed;
    boolean cancelled;

    static ReportScan scan(Path reportFile, long length) {
        ReportScan scan = new ReportScan();
        if (length == 0) return scan;
        try (InputStream in = prefix(reportFile, length, false)) {
            XMLStreamReader reader = arno.xml.XmlPolicy.streamOwn(in);
            int depth = 0;
            while (reader.hasNext()) {
                int event = reader.next();
                if (event == XMLStreamConstants.START_ELEMENT) {
                    depth++;
                    if (depth == 2 && "transformation".equals(reader.getLocalName())) {
                        long index = Long.parseLong(reader.getAttributeValue(null, "index"));
                        scan.done.set(Math.toIntExact(index));
                        String status = reader.getAttributeValue(null, "status");
                        // A cancelled entry is accounted for (not listed as not run) but counts as neither.
                        if ("ok".equals(status)) scan.succeeded++;
                        else if (!"cancelled".equals(status)) scan.failed++;
                    } else if (depth == 2 && "cancelled".equals(reader.getLocalName())) {
                        scan.cancelled = true;
                    }
                } else if (event == XMLStreamConstants.END_ELEMENT) {
                    depth--;
                }
            }
            reader.close();
        } catch (IOException | XMLStreamException e) {
            throw new IllegalStateException("the report " + reportFile + " cannot be read back to resume: " + e, e);
        }
        return scan;
    }

    /**
     * The first {@code length} bytes of a report, followed by the end tag of
     * its root unless {@code complete} (a running report is a good prefix whose
     * root is still open).
     */
    static InputStream prefix(Path reportFile, long length, boolean complete) throws IOException {
        InputStream body = BoundedInputStream.builder()
                .setInputStream(new java.io.BufferedInputStream(Files.newInputStream(reportFile), 1 << 16))
                .setMaxCount(length).get();
        return complete ? body : new SequenceInputStream(body,
                new java.io.ByteArrayInputStream("</report>\n".getBytes(StandardCharsets.UTF_8)));
    }
}
