package arno.pipeline;

import arno.http.HeaderValues;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.XmlPolicy;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.xml.sax.ContentHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * Writes the whole request as req:request SAX events, straight from the {@link HttpRequest} into
 * the first stage, with no intermediate tree. The schema is {@code arno/schema/request.xsd}.
 *
 * <p>An XML body is parsed by the one security policy ({@link XmlPolicy}: a JATS DOCTYPE is
 * accepted and not fetched, external entities and bombs are refused) and inlined; a form body
 * becomes parameters; any other body is left unread and referenced by {@code href="request:body"}.
 * The query string and a form body are decoded strictly: a bad percent-encoding is a 400.
 */
final class RequestReader implements Exchange.RequestSource {
    static final String NS = "urn:arno:request";
    static final String BODY_URI = "request:body";
    private static final String FORM = "application/x-www-form-urlencoded";

    private final HttpRequest request;
    private final String id;
    private final Site site;
    private final String sitePath;
    private final Route route;
    private final Map<String, String> variables;
    private final boolean development;
    private final long bodyLimit;
    private final XmlPolicy policy;
    private final Instant time = Instant.now();
    private Map<String, List<String>> parameters;
    private boolean bodyConsumed;

    /** {@code site} may be null (no site answers): req:site is then empty. */
    RequestReader(HttpRequest request, String id, Site site, String sitePath, Route route,
                  Map<String, String> variables, boolean development, long bodyLimit, XmlPolicy policy) {
        this.request = request;
        this.id = id;
        this.site = site;
        this.sitePath = sitePath;
        this.route = route;
        this.variables = variables;
        this.development = development;
        this.bodyLimit = bodyLimit;
        this.policy = policy;
    }

    /**
     * Checks what can be checked before a stage runs: a declared body over the limit
     * ({@link ErrorCode#BODY_TOO_LARGE}), the query string and a form body
     * ({@link ErrorCode#BAD_REQUEST} for a bad encoding). After a failure the reader still writes
     * a req:request (without parameters), for the error page.
     */
    void prepare() {
        parameters = Map.of();
        long length = request.contentLength();
        if (length > bodyLimit) throw ErrorCode.BODY_TOO_LARGE.error(length, bodyLimit);
        Map<String, List<String>> p = new LinkedHashMap<>();
        parse(request.query(), StandardCharsets.UTF_8, p, "the query string");
        String type = request.header("Content-Type");
        if (type != null && mediaType(type).equals(FORM) && hasBody()) {
            bodyConsumed = true;
            byte[] form;
            try (InputStream in = new Limited(request.body(), bodyLimit)) {
                form = in.readAllBytes();
            } catch (Limited.TooLarge e) {
                throw ErrorMessage.BODY_OVER_LIMIT.error(e, bodyLimit);
            } catch (IOException e) {
                throw ErrorMessage.FORM_UNREADABLE.error(e, e.getMessage());
            }
            Charset charset = charset(type);
            parse(new String(form, charset), charset, p, "the form body");
        }
        parameters = p;
    }

    /**
     * Writes req:request. {@code extra} writes more children at the end (the error template's
     * msg:attribute); it may be null. The body is inlined only the first time and never for an
     * error pipeline: there it is described by reference.
     */
    @Override
    public void write(ContentHandler out, Extra extra) throws SAXException {
        // An error pipeline (extra != null) never reads the body: it may be what failed.
        if (extra != null) bodyConsumed = true;
        if (parameters == null) prepare();
        Events e = new Events(out);
        out.startDocument();
        out.startPrefixMapping("req", NS);
        e.start("request",
                "id", id,
                "method", request.method(),
                "scheme", request.scheme(),
                "host", request.host(),
                "port", Integer.toString(request.port()),
                "protocol", request.protocol(),
                "remote-address", request.remoteAddress(),
                "time", time.toString(),
                "url", url(),
                "development", Boolean.toString(development));

        if (site == null) {
            e.leaf("site", "", "name", "", "base", request.contextPath());
        } else {
            e.start("site", "name", site.name(), "base", request.contextPath() + site.prefix());
            for (Map.Entry<String, String> p : site.params().entrySet()) {
                e.leaf("param", p.getValue(), "name", p.getKey());
            }
            e.end("site");
        }

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
        if (request.query() != null) e.leaf("query", request.query());

        e.start("parameters");
        for (Map.Entry<String, List<String>> p : parameters.entrySet()) {
            e.start("parameter", "name", p.getKey());
            for (String value : p.getValue()) e.leaf("value", value);
            e.end("parameter");
        }
        e.end("parameters");

        e.start("headers");
        for (String name : request.headerNames()) {
            String lower = name.toLowerCase(Locale.ROOT);
            for (String value : request.headers(name)) e.leaf("header", value, "name", lower);
        }
        e.end("headers");

        e.start("cookies");
        for (String[] cookie : cookies(request)) e.leaf("cookie", cookie[1], "name", cookie[0]);
        e.end("cookies");

        writeBody(e, out);
        if (extra != null) extra.write(out);
        e.end("request");
        out.endPrefixMapping("req");
        out.endDocument();
    }

    /** The request's cookies as name and value pairs, in the order sent: what req:cookies holds. */
    static List<String[]> cookies(HttpRequest request) {
        List<String> headers = request.headers("Cookie");
        if (headers.isEmpty()) return List.of();
        List<String[]> cookies = new ArrayList<>();
        for (String header : headers) {
            for (String pair : header.split(";")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) continue;
                String value = pair.substring(eq + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) value = value.substring(1, value.length() - 1);
                cookies.add(new String[] {pair.substring(0, eq).trim(), value});
            }
        }
        return cookies;
    }

    /**
     * The query string's parameters by name, each with its values, in the order they first
     * appear: what req:parameters holds for a request without a form body. A bad percent-encoding
     * is {@link ErrorCode#BAD_REQUEST}.
     */
    static Map<String, List<String>> parameters(String query) {
        Map<String, List<String>> p = new LinkedHashMap<>();
        parse(query, StandardCharsets.UTF_8, p, "the query string");
        return p;
    }

    private boolean hasBody() {
        return request.contentLength() > 0 || request.header("Transfer-Encoding") != null;
    }

    private void writeBody(Events e, ContentHandler out) throws SAXException {
        String contentType = request.header("Content-Type");
        long length = request.contentLength();
        if (!hasBody() || contentType == null && length <= 0) return;
        String type = contentType == null ? "application/octet-stream" : contentType;
        String len = Long.toString(Math.max(length, 0));
        if (mediaType(type).equals(FORM)) {
            e.leaf("body", "", "kind", "form", "content-type", type, "length", len);
        } else if (isXml(type) && !bodyConsumed) {
            bodyConsumed = true;
            e.start("body", "kind", "xml", "content-type", type, "length", len);
            inlineXml(out);
            e.end("body");
        } else {
            e.leaf("body", "", "kind", "reference", "content-type", type, "length", len, "href", BODY_URI);
        }
    }

    private void inlineXml(ContentHandler out) throws SAXException {
        XMLReader reader = policy.borrowReader();
        // Forward the body's elements into req:body, dropping its document events.
        XMLFilterImpl body = new XMLFilterImpl(reader) {
            @Override public void startDocument() {}
            @Override public void endDocument() {}
        };
        body.setContentHandler(out);
        try (InputStream in = new Limited(request.body(), bodyLimit)) {
            InputSource source = new InputSource(in);
            source.setSystemId(BODY_URI);
            body.parse(source);
        } catch (Limited.TooLarge x) {
            throw ErrorMessage.BODY_OVER_LIMIT.error(x, bodyLimit);
        } catch (SAXException | IOException x) {
            if (tooLarge(x) != null) throw ErrorMessage.BODY_OVER_LIMIT.error(x, bodyLimit);
            // The parser's own failures are the body's fault; anything else failed downstream (a stage).
            if (XmlPolicy.refusal(x) != null || x instanceof org.xml.sax.SAXParseException || x instanceof IOException) {
                arno.xml.ArnoException e = XmlPolicy.translate(x, "the request body");
                // Bytes that stopped coming (a client gone, broken chunking) are the request's fault too.
                if (e.code() == ErrorCode.IO) throw ErrorMessage.BODY_UNREADABLE.error(x, x.getMessage());
                throw e;
            }
            throw (SAXException) x;
        }
    }

    private static Limited.TooLarge tooLarge(Throwable t) {
        for (int depth = 0; t != null && depth < 16; depth++) {
            if (t instanceof Limited.TooLarge l) return l;
            t = t instanceof SAXException s && s.getException() != null ? s.getException() : t.getCause();
        }
        return null;
    }

    /** Decodes "a=1&b=x%20y" into {@code into}; a bad encoding is a 400 naming {@code what}. */
    private static void parse(String text, Charset charset, Map<String, List<String>> into, String what) {
        if (text == null || text.isEmpty()) return;
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq), charset, what);
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1), charset, what);
            into.computeIfAbsent(k, x -> new ArrayList<>(1)).add(v);
        }
    }

    private static String decode(String s, Charset charset, String what) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
        try {
            return java.net.URLDecoder.decode(s, charset);
        } catch (IllegalArgumentException e) {
            throw ErrorMessage.BAD_PERCENT_ENCODING.error(what, s, e.getMessage());
        }
    }

    private static Charset charset(String contentType) {
        String name = HeaderValues.parameter(contentType, "charset");
        if (name == null) return StandardCharsets.UTF_8;
        try {
            return Charset.forName(name);
        } catch (IllegalArgumentException e) {
            throw ErrorMessage.UNKNOWN_CHARSET.error(name, contentType);
        }
    }

    private String url() {
        return url(request);
    }

    /** The URL as the client asked for it (so with the host it named): req:request/@url. */
    static String url(HttpRequest request) {
        StringBuilder url = new StringBuilder(64).append(request.scheme()).append("://").append(request.host());
        int port = request.port();
        if (!(port == 80 && request.scheme().equals("http") || port == 443 && request.scheme().equals("https"))) {
            url.append(':').append(port);
        }
        url.append(request.contextPath()).append(request.path());
        if (request.query() != null) url.append('?').append(request.query());
        return url.toString();
    }

    static boolean isXml(String contentType) {
        if (contentType == null) return false;
        String t = mediaType(contentType);
        return t.equals("application/xml") || t.equals("text/xml") || t.endsWith("+xml");
    }

    private static String mediaType(String contentType) {
        return java.util.Objects.requireNonNullElse(HeaderValues.mediaType(contentType), "");
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
}
