package arno.batch;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorXml;
import arno.xml.XmlWriter;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Locale;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * The service's own XML documents (namespace {@code urn:arno:batch}): a job's
 * status and progress, the list of jobs, and errors in the shared error
 * vocabulary ({@code urn:arno:error}, schema {@code arno/schema/error.xsd}).
 */
final class Views {
    private Views() {}

    /** {@code <job>}: settings, status, progress and links. {@code href} is the job's URL (relative unless the Host is a configured one). */
    static void status(XmlWriter x, Job job, String href, boolean root) {
        long now = System.nanoTime();
        x.start("job");
        if (root) x.attr("xmlns", Batch.NS);
        x.attr("id", job.id).attr("href", href).attr("status", job.status.lower()).attr("name", job.name)
                .attr("kind", job.kind.name().toLowerCase(Locale.ROOT)).attr("stylesheet", job.stylesheet)
                .attr("priority", job.priority).attr("parallelism", job.parallelism).attr("user", job.user)
                .attr("submitted", job.submitted).attr("started", job.started).attr("finished", job.finishedAt)
                .attr("cancelled", job.cancelledAt).newline();
        long done = job.done();
        double rate = job.status == Job.Status.RUNNING ? job.rate(now) : 0;
        long remaining = job.remaining();
        x.start("progress").attr("total", job.total).attr("done", done).attr("succeeded", job.succeeded.get())
                .attr("failed", job.failed.get()).attr("not-run", job.notRun.get())
                .attr("running", job.status == Job.Status.RUNNING ? job.running.get() : 0)
                .attr("remaining", remaining)
                .attr("percent", job.total == 0 ? "100.0" : String.format(Locale.ROOT, "%.1f", 100.0 * done / job.total))
                .attr("rate", String.format(Locale.ROOT, "%.1f", rate))
                .attr("eta-seconds", rate > 0 ? String.format(Locale.ROOT, "%.1f", remaining / rate) : null)
                .end().newline();
        if (job.failure != null) x.element("failure", job.failure).newline();
        link(x, "report", href + "/report");
        link(x, "report-html", href + "/report?format=html");
        link(x, "batch", href + "/batch");
        x.end().newline();
    }

    private static void link(XmlWriter x, String rel, String href) {
        x.start("link").attr("rel", rel).attr("href", href).end().newline();
    }

    static void list(XmlWriter x, List<Job> jobs, String jobsHref) {
        x.declaration().start("jobs").attr("xmlns", Batch.NS).attr("href", jobsHref).attr("count", jobs.size()).newline();
        for (Job job : jobs) status(x, job, jobsHref + "/" + job.id, false);
        x.end().newline();
    }

    /**
     * The {@code err:error} answer (written by {@link ErrorXml}, as every error in Arno); for a
     * job that was created and failed at once, a {@code <job href="..."/>} (namespace
     * {@code urn:arno:batch}) inside it names the job whose report holds the reasons.
     */
    static byte[] error(Processor processor, ArnoException e, String jobHref) {
        if (jobHref == null) return ErrorXml.toBytes(e, null, e.code() != ErrorCode.INTERNAL);
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try {
            ContentHandler serializer = processor.newSerializer(out).getContentHandler();
            XMLFilterImpl withJob = new XMLFilterImpl() {
                private int depth;

                @Override public void startElement(String uri, String local, String qName, Attributes atts) throws SAXException {
                    depth++;
                    super.startElement(uri, local, qName, atts);
                }

                @Override public void endElement(String uri, String local, String qName) throws SAXException {
                    if (--depth == 0) {
                        AttributesImpl a = new AttributesImpl();
                        a.addAttribute("", "href", "href", "CDATA", jobHref);
                        super.startPrefixMapping("", Batch.NS);
                        super.startElement(Batch.NS, "job", "job", a);
                        super.endElement(Batch.NS, "job", "job");
                        super.endPrefixMapping("");
                    }
                    super.endElement(uri, local, qName);
                }
            };
            withJob.setContentHandler(serializer);
            withJob.startDocument();
            ErrorXml.write(withJob, e, null, true);
            withJob.endDocument();
        } catch (SaxonApiException | SAXException x) {
            throw new IllegalStateException("an error document cannot be serialized", x);
        }
        return out.toByteArray();
    }
}
