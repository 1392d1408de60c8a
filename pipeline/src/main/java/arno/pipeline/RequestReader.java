package arno.pipeline;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.xml.sax.ContentHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * Writes the whole servlet request as req:request SAX events, straight from
 * the servlet API into the first stage, with no intermediate tree. The schema
 * is {@code arno/schema/request.xsd}.
 *
 * <p>An XML body is parsed securely ({@link SecureXml}) and inlined; a form
 * body becomes parameters; any other body is left unread and referenced by
 * {@code href="request:body"}.
 */
final class RequestReader {
    static final String NS = "urn:arno:request";
    static final String BODY_URI = "request:body";

    private final HttpServletRequest request;
    private final String id;
    private final Site site;
    private final String sitePath;
    private final Route route;
    private final Map<String, String> variables;
    private final boolean development;
    private final long bodyLimit;
    private final Instant time = Instant.now();
    private boolean bodyConsumed;

    RequestReader(HttpServletRequest request, String id, Site site, String sitePath, Route route,
                  Map<String, String> variables, boolean development, long bodyLimit) {
        this.request = request;
        this.id = id;
        this.site = site;
        this.sitePath = sitePath;
        this.route = route;
        this.variables = variables;
        this.development = development;
        this.bodyLimit = bodyLimit;
    }

    /** Refuses a declared body over the limit before anything is read. */
    void checkDeclaredLength() throws PipelineException {
        long length = request.getContentLengthLong();
        if (length > bodyLimit) throw new PipelineException(Failure.BODY_TOO_LARGE, length, bodyLimit);
    }

    /**
     * Writes req:request. {@code extra} writes more children at the end (the
     * error template's msg:attribute); it may be null. The body is inlined
     * only the first time and never for an error pipeline: there it is
     * described by reference.
     */
    void write(ContentHandler out, Extra extra) throws SAXException, PipelineException {
        // An error pipeline (extra != null) never reads the body: it may be what failed.
        if (extra != null) bodyConsumed = true;
        Events e = new Events(out);
        out.startDocument();
        out.startPrefixMapping("req", NS);
        e.start("request",
                "id", id,
                "method", request.getMethod(),
                "scheme", request.getScheme(),
                "host", request.getServerName(),
                "port", Integer.toString(request.getServerPort()),
                "protocol", request.getProtocol(),
                "remote-address", request.getRemoteAddr(),
                "time", time.toString(),
                "url", url(),
                "development", Boolean.toString(development));

        e.start("site", "name", site.name(), "base", request.getContextPath() + site.prefix());
        for (Map.Entry<String, String> p : site.params().entrySet()) {
            e.leaf("param", p.getValue(), "name", p.getKey());
        }
        e.end("site");

        e.start("path", "value", sitePath);
        for (String segment : sitePath.split("/")) {
            if (!segment.isEmpty()) e.leaf("segment", segment);
        }
        e.end("path");

        if (route != null) {
            e.start("route", "name", route.name(), "pattern", route.pattern());
            for (Map.Entry<String, String> v : variables.entrySet()) e.leaf("variable", v.getValue(), "name", v.getKey());
            e.end("route");
        }
        if (request.getQueryString() != null) e.leaf("query", request.getQueryString());

        String contentType = request.getContentType();
        boolean xmlBody = isXml(contentType);
        e.start("parameters");
        // Reading parameters consumes a form body, never an XML one.
        for (Map.Entry<String, String[]> p : parameters(xmlBody).entrySet()) {
            e.start("parameter", "name", p.getKey());
            for (String value : p.getValue()) e.leaf("value", value);
            e.end("parameter");
        }
        e.end("parameters");

        e.start("headers");
        for (String name : Collections.list(request.getHeaderNames())) {
            String lower = name.toLowerCase(Locale.ROOT);
            for (String value : Collections.list(request.getHeaders(name))) e.leaf("header", value, "name", lower);
        }
        e.end("headers");

        e.start("cookies");
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) e.leaf("cookie", c.getValue(), "name", c.getName());
        }
        e.end("cookies");

        writeBody(e, out, contentType, xmlBody);
        if (extra != null) extra.write(out);
        e.end("request");
        out.endPrefixMapping("req");
        out.endDocument();
    }

    private void writeBody(Events e, ContentHandler out, String contentType, boolean xmlBody)
            throws SAXException, PipelineException {
        long length = request.getContentLengthLong();
        boolean hasBody = length > 0 || request.getHeader("transfer-encoding") != null;
        if (!hasBody || contentType == null && length <= 0) return;
        String type = contentType == null ? "application/octet-stream" : contentType;
        String len = Long.toString(Math.max(length, 0));
        if (isForm(type)) {
            e.leaf("body", "", "kind", "form", "content-type", type, "length", len);
        } else if (xmlBody && !bodyConsumed) {
            bodyConsumed = true;
            e.start("body", "kind", "xml", "content-type", type, "length", len);
            inlineXml(out);
            e.end("body");
        } else {
            e.leaf("body", "", "kind", "reference", "content-type", type, "length", len, "href", BODY_URI);
        }
    }

    private void inlineXml(ContentHandler out) throws SAXException, PipelineException {
        XMLReader reader = SecureXml.newReader();
        // Forward the body's elements into req:body, dropping its document events.
        XMLFilterImpl body = new XMLFilterImpl(reader) {
            @Override public void startDocument() {}
            @Override public void endDocument() {}
        };
        body.setContentHandler(out);
        try (InputStream in = new Limited(request.getInputStream(), bodyLimit)) {
            body.parse(new InputSource(in));
        } catch (SAXParseException x) {
            Failure f = SecureXml.isHostile(x) ? Failure.HOSTILE_BODY : Failure.MALFORMED_BODY;
            throw new PipelineException(f, x, x.getLineNumber(), x.getColumnNumber(), rootMessage(x));
        } catch (SAXException x) {
            if (SecureXml.isHostile(x)) throw new PipelineException(Failure.HOSTILE_BODY, x, 0, 0, rootMessage(x));
            throw x;
        } catch (Limited.TooLarge x) {
            throw new PipelineException(Failure.BODY_TOO_LARGE, x, "more than " + bodyLimit, bodyLimit);
        } catch (IOException x) {
            throw new PipelineException(Failure.MALFORMED_BODY, x, 0, 0, "cannot read the body: " + x.getMessage());
        }
    }

    private static String rootMessage(SAXException x) {
        Throwable t = x.getException() != null ? x.getException() : x;
        return t.getMessage();
    }

    private Map<String, String[]> parameters(boolean xmlBody) {
        if (!xmlBody) return request.getParameterMap();
        // For an XML body the servlet API would still parse only the query string; be explicit.
        return QueryString.parse(request.getQueryString());
    }

    private String url() {
        StringBuffer url = request.getRequestURL();
        if (request.getQueryString() != null) url.append('?').append(request.getQueryString());
        return url.toString();
    }

    static boolean isXml(String contentType) {
        if (contentType == null) return false;
        String t = mediaType(contentType);
        return t.equals("application/xml") || t.equals("text/xml") || t.endsWith("+xml");
    }

    private static boolean isForm(String contentType) {
        return mediaType(contentType).equals("application/x-www-form-urlencoded");
    }

    private static String mediaType(String contentType) {
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    /** Appends more children to req:request. */
    interface Extra {
        void write(ContentHandler out) throws SAXException;
    }

    /** Small helper over ContentHandler for req: elements. */
    static final class Events {
        private final ContentHandler out;

        Events(ContentHandler out) {
            this.out = out;
        }

        void start(String name, String... attributes) throws SAXException {
            AttributesImpl a = new AttributesImpl();
            for (int i = 0; i < attributes.length; i += 2) {
                if (attributes[i + 1] != null) a.addAttribute("", attributes[i], attributes[i], "CDATA", attributes[i + 1]);
            }
            out.startElement(NS, name, "req:" + name, a);
        }

        void end(String name) throws SAXException {
            out.endElement(NS, name, "req:" + name);
        }

        void leaf(String name, String text, String... attributes) throws SAXException {
            start(name, attributes);
            if (!text.isEmpty()) out.characters(text.toCharArray(), 0, text.length());
            end(name);
        }
    }

    /** Counts bytes of a body without a declared length and stops at the limit. */
    static final class Limited extends FilterInputStream {
        private final long limit;
        private long count;

        Limited(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) count(1);
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) count(n);
            return n;
        }

        private void count(int n) throws TooLarge {
            count += n;
            if (count > limit) throw new TooLarge();
        }

        static final class TooLarge extends IOException {
            TooLarge() {
                super("body exceeds the limit");
            }
        }
    }

    /** Query-string parsing for requests whose body is not a form. */
    static final class QueryString {
        static Map<String, String[]> parse(String query) {
            Map<String, List<String>> m = new java.util.LinkedHashMap<>();
            if (query != null) {
                for (String pair : query.split("&")) {
                    if (pair.isEmpty()) continue;
                    int eq = pair.indexOf('=');
                    String k = decode(eq < 0 ? pair : pair.substring(0, eq));
                    String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
                    m.computeIfAbsent(k, x -> new java.util.ArrayList<>()).add(v);
                }
            }
            Map<String, String[]> r = new java.util.LinkedHashMap<>();
            m.forEach((k, v) -> r.put(k, v.toArray(String[]::new)));
            return r;
        }

        private static String decode(String s) {
            try {
                return java.net.URLDecoder.decode(s, java.nio.charset.StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return s;
            }
        }
    }
}
