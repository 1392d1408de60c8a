package arno.store;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.Source;
import javax.xml.transform.sax.SAXSource;
import javax.xml.transform.stream.StreamSource;

import org.xml.sax.InputSource;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.XMLFilterImpl;

import net.sf.saxon.Configuration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.Sender;
import net.sf.saxon.lib.ParseOptions;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.trans.XPathException;

/**
 * Parses untrusted XML into a {@link Receiver}: the JDK's own parser (never one found on the
 * classpath), no external DTD, no external entities (a reference to one is an error, not silently
 * skipped: the store must lose nothing), no network or file access from a DTD, and the JDK's
 * bounded entity expansion, so a "billion laughs" fails after a few thousand expansions.
 */
final class SecureXml {

    /** Entity expansions allowed per document (the JDK's secure default, stated here on purpose). */
    static final int ENTITY_EXPANSION_LIMIT = 64_000;
    /** Characters all entities of one document may expand to, together. */
    static final int TOTAL_ENTITY_SIZE_LIMIT = 10_000_000;

    private SecureXml() {
    }

    static XMLReader newReader() {
        try {
            SAXParserFactory f = SAXParserFactory.newDefaultInstance();
            f.setNamespaceAware(true);
            f.setValidating(false);
            f.setXIncludeAware(false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            SAXParser p = f.newSAXParser();
            p.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            p.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            p.setProperty("http://www.oracle.com/xml/jaxp/properties/entityExpansionLimit",
                    String.valueOf(ENTITY_EXPANSION_LIMIT));
            p.setProperty("http://www.oracle.com/xml/jaxp/properties/totalEntitySizeLimit",
                    String.valueOf(TOTAL_ENTITY_SIZE_LIMIT));
            return new Guard(p.getXMLReader());
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the JDK XML parser refuses the secure settings", e);
        }
    }

    /** Refuses what a non-loading parser would otherwise skip without a trace. */
    private static final class Guard extends XMLFilterImpl {
        private Locator locator;

        Guard(XMLReader parent) {
            super(parent);
        }

        @Override
        public void setDocumentLocator(Locator locator) {
            this.locator = locator;
            super.setDocumentLocator(locator);
        }

        @Override
        public void skippedEntity(String name) throws SAXException {
            throw new SAXParseException("entity reference &" + name + "; cannot be expanded: it is external or"
                    + " declared in an external DTD, which the store does not read", locator);
        }

        @Override
        public InputSource resolveEntity(String publicId, String systemId) throws SAXException {
            throw new SAXParseException("external entity " + systemId + " refused: the store does not read"
                    + " external entities or DTDs", locator);
        }
    }

    /** Counts the bytes the parser reads, for the XML-size statistics. */
    static final class CountingInputStream extends FilterInputStream {
        private long count;

        CountingInputStream(InputStream in) {
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

        long getByteCount() {
            return count;
        }
    }

    /**
     * Sends {@code source} to {@code out}, parsing securely when it is XML text. Returns the number
     * of XML bytes read when known, else -1.
     */
    static long send(Source source, Receiver out, Configuration config, String what) {
        CountingInputStream counter = null;
        InputStream opened = null;
        Source s = source;
        InputSource in = null;
        if (source instanceof StreamSource ss) {
            in = new InputSource();
            in.setSystemId(ss.getSystemId());
            in.setPublicId(ss.getPublicId());
            InputStream is = ss.getInputStream();
            Reader r = ss.getReader();
            if (is == null && r == null && ss.getSystemId() != null && ss.getSystemId().startsWith("file:")) {
                try {
                    is = Files.newInputStream(Path.of(URI.create(ss.getSystemId())));
                } catch (IOException | IllegalArgumentException e) {
                    throw new StoreException(StoreException.Code.IO, "cannot read " + ss.getSystemId() + ": " + e, e);
                }
                opened = is;
            }
            if (is != null) {
                counter = new CountingInputStream(is);
                in.setByteStream(counter);
            } else if (r != null) {
                in.setCharacterStream(r);
            }
        } else if (source instanceof SAXSource sax && sax.getInputSource() != null) {
            in = sax.getInputSource();
            if (in.getByteStream() != null && in.getCharacterStream() == null) {
                counter = new CountingInputStream(in.getByteStream());
                in.setByteStream(counter);
            }
        }
        if (in != null) {
            s = new SAXSource(newReader(), in);
            s.setSystemId(in.getSystemId());
        }
        try {
            ParseOptions options = new ParseOptions().withLineNumbering(true);
            out.setPipelineConfiguration(config.makePipelineConfiguration());
            Sender.send(s, out, options);
        } catch (XPathException e) {
            throw translate(e, what);
        } finally {
            if (opened != null) {
                try {
                    opened.close();
                } catch (IOException ignored) {
                    // read-only input: nothing is lost by a failed close
                }
            }
        }
        return counter == null ? -1 : counter.getByteCount();
    }

    static Source bytes(byte[] xml, String systemId) {
        StreamSource s = new StreamSource(new ByteArrayInputStream(xml));
        s.setSystemId(systemId);
        return s;
    }

    static StoreException translate(XPathException e, String what) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StoreException se) {
                return se;
            }
            if (t instanceof SAXParseException pe) {
                String msg = pe.getMessage();
                boolean unsafe = isUnsafe(msg);
                String where = where(pe.getSystemId() != null ? pe.getSystemId() : what, pe.getLineNumber(),
                        pe.getColumnNumber());
                return new StoreException(unsafe ? StoreException.Code.UNSAFE_XML : StoreException.Code.MALFORMED_XML,
                        where + ": " + msg + "; nothing was stored", pe.getSystemId() != null ? pe.getSystemId() : what,
                        pe.getLineNumber(), pe.getColumnNumber(), e);
            }
        }
        Location loc = e.getLocator();
        int line = loc == null ? -1 : loc.getLineNumber();
        int col = loc == null ? -1 : loc.getColumnNumber();
        String sys = loc != null && loc.getSystemId() != null ? loc.getSystemId() : what;
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        int cut = msg.indexOf(PARSER_PREFIX);
        if (cut >= 0) {
            msg = msg.substring(cut + PARSER_PREFIX.length());
        }
        return new StoreException(isUnsafe(msg) ? StoreException.Code.UNSAFE_XML : StoreException.Code.MALFORMED_XML,
                where(sys, line, col) + ": " + msg + "; nothing was stored", sys, line, col, e);
    }

    /** Saxon's wording in front of a parser message; the parser's own message is what the user needs. */
    private static final String PARSER_PREFIX = "Error reported by XML parser: ";

    /** The JDK's security limits (JAXP000…) and this class's refusals. */
    private static boolean isUnsafe(String msg) {
        return msg != null && (msg.contains("JAXP0") || msg.contains("cannot be expanded") || msg.contains("refused"));
    }

    static String where(String systemId, int line, int column) {
        StringBuilder b = new StringBuilder(systemId == null ? "(input)" : systemId);
        if (line > 0) {
            b.append(':').append(line);
            if (column > 0) {
                b.append(':').append(column);
            }
        }
        return b.toString();
    }
}
