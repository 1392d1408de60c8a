package arno.store;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.transform.Source;
import javax.xml.transform.sax.SAXSource;
import javax.xml.transform.stream.StreamSource;

import org.lmdbjava.LmdbException;
import org.xml.sax.InputSource;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import net.sf.saxon.Configuration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.Sender;
import net.sf.saxon.lib.ParseOptions;
import net.sf.saxon.trans.UncheckedXPathException;
import net.sf.saxon.trans.XPathException;

/**
 * Sends what a caller wants stored into the document writer. XML text (a {@link StreamSource},
 * or a {@link SAXSource} with an {@link InputSource}) is always parsed by a reader of the store's
 * {@link XmlPolicy}, whatever parser the source names, and its bytes are counted for the size
 * statistics; a tree (a Saxon node, a DOMSource) or an event source (a SAXSource with only a
 * reader) is copied as it is. The store reads bytes it is given and files it is pointed at, and
 * never fetches a URL: a source that names only an http URI is refused.
 *
 * <p>Failures leave as {@link StoreException}: parse failures translated by
 * {@link XmlPolicy#translate} (REFUSED_XML with the policy's reason, MALFORMED_XML with line and
 * column), LMDB failures by {@link Engine#translate}.
 */
final class XmlInput {

    private XmlInput() {
    }

    /** Sends {@code source} to {@code out}; returns the XML bytes read when known, else -1. */
    static long send(Source source, Receiver out, Configuration config, XmlPolicy policy, String what) {
        Counting counter = null;
        InputStream opened = null;
        Source s = source;
        InputSource in = null;
        if (source instanceof StreamSource ss) {
            in = new InputSource();
            in.setSystemId(ss.getSystemId());
            in.setPublicId(ss.getPublicId());
            if (ss.getInputStream() != null) {
                in.setByteStream(ss.getInputStream());
            } else if (ss.getReader() != null) {
                in.setCharacterStream(ss.getReader());
            }
        } else if (source instanceof SAXSource sax && sax.getInputSource() != null) {
            in = sax.getInputSource();
        }
        try {
            if (in != null) {
                if (in.getByteStream() == null && in.getCharacterStream() == null) {
                    opened = openFile(in.getSystemId(), what);
                    in.setByteStream(opened);
                }
                if (in.getCharacterStream() == null) {
                    counter = new Counting(in.getByteStream());
                    in.setByteStream(counter);
                }
                // The thread's idle reader: building one costs more than parsing a small document.
                s = new SAXSource(policy.borrowReader(), in);
                s.setSystemId(in.getSystemId());
            }
            out.setPipelineConfiguration(config.makePipelineConfiguration());
            // Saxon's own reporter would print the parser's complaint on System.err besides the error we raise.
            Sender.send(s, out, new ParseOptions().withLineNumbering(true).withErrorReporter(error -> { }));
        } catch (XPathException | RuntimeException e) {
            throw failure(e, what);
        } finally {
            if (opened != null) {
                try {
                    opened.close();
                } catch (IOException ignored) {
                    // read-only input: nothing is lost by a failed close
                }
            }
        }
        return counter == null ? -1 : counter.count;
    }

    /** The file a source names only by its URI; any other scheme is refused, never fetched. */
    private static InputStream openFile(String systemId, String what) {
        if (systemId == null) {
            throw new StoreException(ErrorMessage.SOURCE_EMPTY, what);
        }
        URI uri;
        try {
            uri = URI.create(systemId);
        } catch (IllegalArgumentException e) {
            throw new StoreException(ErrorMessage.SYSTEM_ID_NOT_URI, systemId, e.getMessage());
        }
        if (!"file".equalsIgnoreCase(uri.getScheme())) {
            throw new StoreException(ErrorMessage.STORE_FETCHES_NOTHING, systemId);
        }
        try {
            return Files.newInputStream(Path.of(uri));
        } catch (IOException | IllegalArgumentException e) {
            StoreException x = new StoreException(ErrorCode.IO, e, systemId, e.getMessage());
            x.at(Where.at(systemId));
            throw x;
        }
    }

    /** One place where whatever stopped a document becomes a store error. */
    private static StoreException failure(Exception e, String what) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof LmdbException l) {
                return StoreFailures.of(l, what);
            }
        }
        ArnoException found = ArnoException.find(e);
        if (found != null) {
            return StoreException.nothingStored(found);
        }
        if (e instanceof RuntimeException r && !(e instanceof UncheckedXPathException)) {
            throw r;  // a bug, not bad input: let it show as one
        }
        return StoreException.nothingStored(XmlPolicy.translate(e, what));
    }

    /** Counts the bytes the parser reads, for the XML-size statistics. */
    private static final class Counting extends FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long k = super.skip(n);
            count += k;
            return k;
        }
    }
}
