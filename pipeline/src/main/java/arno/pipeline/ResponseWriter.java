package arno.pipeline;

import arno.http.Conditional;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.stream.StreamResult;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.lib.SaxonOutputKeys;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.s9api.AbstractDestination;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.serialize.SerializationProperties;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.tree.tiny.TinyBuilder;
import net.sf.saxon.type.SchemaType;

/**
 * Turns rsp:response events into the HTTP response: the elements before
 * rsp:body become the status, headers and cookies, which are committed when
 * rsp:body starts; the body's content is then serialized straight into the
 * servlet's output stream as its events arrive. The schema is
 * {@code arno/schema/response.xsd}.
 *
 * <p>Conditional GET: when the response declares validators and the request's
 * If-None-Match or If-Modified-Since matches them, the answer is 304 and the
 * body events are discarded unserialized. HEAD serializes nothing either.
 *
 * <p>A redirect's absolute URL names the request's host only when that host is configured (a
 * site's host or one of the configuration's hosts); otherwise it names the address the request
 * came in on, so a client cannot make the server write a Location of its choosing.
 *
 * <p>A write that fails because the client went away ends the run as any failure does, but is
 * marked as reported, so that Saxon does not log it as a stage's fatal error on its way out:
 * {@link ErrorResponses} logs it once, as a client abort.
 */
final class ResponseWriter extends AbstractDestination {
    static final String NS = "urn:arno:response";
    private static final String FN = "http://www.w3.org/2005/xpath-functions";

    private final HttpRequest request;
    private final HttpServletResponse response;
    private final net.sf.saxon.s9api.XPathExecutable xmlToJson;
    private final java.util.List<String> trustedHosts;
    private final int defaultStatus;
    private boolean started;
    /** The request writing here, or null (a built-in error page runs no pipeline). */
    private RequestScope scope;

    /**
     * {@code xmlToJson} is the compiled expression {@code xml-to-json(.)}, shared by all requests;
     * {@code trustedHosts} the host names a redirect may use; {@code defaultStatus} the status when
     * rsp:response names none.
     */
    ResponseWriter(HttpRequest request, HttpServletResponse response, net.sf.saxon.s9api.XPathExecutable xmlToJson,
                   java.util.List<String> trustedHosts, int defaultStatus) {
        this.request = request;
        this.response = response;
        this.xmlToJson = xmlToJson;
        this.trustedHosts = trustedHosts;
        this.defaultStatus = defaultStatus;
    }

    /** Given by the request that runs its pipeline into this writer: {@code rsp:body src} reads through its view. */
    void scope(RequestScope scope) {
        this.scope = scope;
    }

    /** The request's URL with a host the server trusts: the redirect base. */
    private String base() {
        String authority;
        // Host names are case-insensitive (RFC 9110 4.2.3).
        if (request.host() != null && trustedHosts.stream().anyMatch(request.host()::equalsIgnoreCase)) {
            int port = request.port();
            boolean standard = port == 80 && request.scheme().equals("http") || port == 443 && request.scheme().equals("https");
            authority = request.host() + (standard ? "" : ":" + port);
        } else {
            authority = request.localAuthority();
        }
        return request.scheme() + "://" + authority + request.contextPath() + request.path();
    }

    /**
     * Whether this writer checks {@code scope}'s deadline itself as events arrive, so that the
     * pipeline puts no {@link Stage.Guard} in front of it: a guard is one more call through an
     * interface for every event of the page.
     */
    boolean guardedBy(RequestScope scope) {
        return scope != null && this.scope == scope;
    }

    /** True once the pipeline has produced an rsp:response element. */
    boolean started() {
        return started;
    }

    @Override
    public Receiver getReceiver(PipelineConfiguration pipe, SerializationProperties params) {
        return new Events(pipe);
    }

    @Override
    public void close() {}

    private final class Events implements Receiver {
        private PipelineConfiguration pipe;
        private int depth;
        private int events;
        private int status = defaultStatus;
        private String redirectTo;
        private final List<String[]> headers = new ArrayList<>();
        private final List<Cookie> cookies = new ArrayList<>();
        private String etag;
        private String lastModified;
        private long lastModifiedMillis = -1;
        private StringBuilder headerText;
        private String headerName;
        /** While inside rsp:body: where its content goes (a serializer, a JSON buffer, or nothing). */
        private Receiver body;
        private TinyBuilder jsonTree;
        private boolean bodyDone;
        private NamespaceMap lastIn;
        private NamespaceMap lastOut;

        Events(PipelineConfiguration pipe) {
            this.pipe = pipe;
        }

        @Override public void setPipelineConfiguration(PipelineConfiguration pipe) { this.pipe = pipe; }
        @Override public PipelineConfiguration getPipelineConfiguration() { return pipe; }
        @Override public void setSystemId(String systemId) {}
        @Override public String getSystemId() { return null; }
        @Override public void open() {}
        @Override public void setUnparsedEntity(String name, String systemID, String publicID) {}

        @Override
        public void startDocument(int properties) throws XPathException {
            if (body != null) body.startDocument(properties);
        }

        @Override
        public void endDocument() throws XPathException {
            if (scope != null) scope.checkDeadline();
            if (body != null) body.endDocument();
        }

        /** The deadline, every {@link Stage.Guard#CHECK_EVERY} events, as the Guard a sink has (see {@link #guardedBy}). */
        private void tick() {
            if (++events % Stage.Guard.CHECK_EVERY == 0 && scope != null) scope.checkDeadline();
        }

        @Override
        public void startElement(NodeName name, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                                 Location location, int properties) throws XPathException {
            tick();
            depth++;
            if (body != null) {
                // Arno's namespaces are in scope in every page; only Arno's own elements (the debug
                // routes show req:request and rsp:response) keep them.
                NamespaceMap ns = name.hasURI(net.sf.saxon.om.NamespaceUri.NULL) || !name.getURI().toString().startsWith("urn:arno:")
                        ? withoutArno(namespaces) : namespaces;
                body.startElement(name, type, attributes, ns, location, properties);
                return;
            }
            if (depth == 1) {
                if (!NS.equals(name.getURI().toString()) || !name.getLocalPart().equals("response")) {
                    throw bad("the result's root element is " + name.getDisplayName() + ", not rsp:response");
                }
                started = true;
                String s = attr(attributes, "status");
                if (s != null) status = parseStatus(s);
                return;
            }
            if (depth > 2 || !NS.equals(name.getURI().toString())) {
                throw bad("unexpected element " + name.getDisplayName() + " in rsp:response");
            }
            switch (name.getLocalPart()) {
                case "header" -> {
                    headerName = required(attributes, "name", "rsp:header");
                    headerText = new StringBuilder();
                }
                case "cookie" -> cookies.add(cookie(attributes));
                case "validators" -> {
                    etag = attr(attributes, "etag");
                    String lm = attr(attributes, "last-modified");
                    if (lm != null) {
                        OffsetDateTime t = parseDateTime(lm);
                        lastModifiedMillis = t.toInstant().toEpochMilli() / 1000 * 1000;
                        lastModified = DateTimeFormatter.RFC_1123_DATE_TIME.format(t.atZoneSameInstant(ZoneOffset.UTC));
                    }
                }
                case "redirect" -> {
                    String target = required(attributes, "location", "rsp:redirect");
                    try {
                        redirectTo = URI.create(base()).resolve(target).toString();
                    } catch (IllegalArgumentException e) {
                        throw bad("rsp:redirect location '" + target + "' is not a URI reference");
                    }
                    if (status == 200) status = 302;
                }
                case "body" -> startBody(attributes);
                default -> throw bad("unknown element rsp:" + name.getLocalPart());
            }
        }

        private void startBody(AttributeMap a) throws XPathException {
            String src = attr(a, "src");
            if (src != null) {
                startBinary(a, src);
                return;
            }
            String method = valueOr(a, "method", "html");
            String encoding = valueOr(a, "encoding", "UTF-8");
            String mediaType = valueOr(a, "media-type", switch (method) {
                case "html" -> "text/html";
                case "xhtml" -> "application/xhtml+xml";
                case "xml" -> "application/xml";
                case "text" -> "text/plain";
                case "json" -> "application/json";
                default -> throw bad("unknown serialization method '" + method + "' on rsp:body");
            });
            int answer = conditional();
            commit(answer);
            if (answer != status || request.method().equals("HEAD") || status == 204) {
                body = new Discard(pipe);
                return;
            }
            response.setContentType(mediaType + "; charset=" + encoding);
            OutputStream out;
            try {
                out = response.getOutputStream();
            } catch (IOException e) {
                throw new XPathException("cannot open the response stream: " + e.getMessage());
            }
            if (method.equals("html") && encoding.equalsIgnoreCase("UTF-8") && !"true".equals(attr(a, "indent"))
                    && attr(a, "doctype-public") == null && attr(a, "doctype-system") == null) {
                // The common case, written without Saxon's serializer, and not behind AbortAware (HtmlWriter marks
                // a client's abort itself): called straight from Events, the writer's methods are inlined there
                // (async-profiler, large pages: the output path took 70 µs a page more behind the proxy).
                body = new HtmlWriter(out, pipe);
                body.open();
                body.startDocument(0);
                return;
            }
            Properties p = new Properties();
            p.setProperty(OutputKeys.ENCODING, encoding);
            p.setProperty(OutputKeys.MEDIA_TYPE, mediaType);
            p.setProperty(OutputKeys.INDENT, "true".equals(attr(a, "indent")) ? "yes" : "no");
            copy(a, "omit-xml-declaration", p, OutputKeys.OMIT_XML_DECLARATION);
            copy(a, "doctype-public", p, OutputKeys.DOCTYPE_PUBLIC);
            copy(a, "doctype-system", p, OutputKeys.DOCTYPE_SYSTEM);
            switch (method) {
                case "html" -> {
                    p.setProperty(OutputKeys.METHOD, "html");
                    p.setProperty(SaxonOutputKeys.HTML_VERSION, "5");
                }
                case "xhtml" -> {
                    p.setProperty(OutputKeys.METHOD, "xhtml");
                    p.setProperty(SaxonOutputKeys.HTML_VERSION, "5");
                }
                case "json" -> p.setProperty(OutputKeys.METHOD, "text");
                default -> p.setProperty(OutputKeys.METHOD, method);
            }
            StreamResult result = new StreamResult(out);
            Receiver serializer = new AbortAware(pipe.getConfiguration().getSerializerFactory()
                    .getReceiver(result, new SerializationProperties(p), pipe));
            if (method.equals("json")) {
                // JSON may come as the fn: vocabulary of xml-to-json(): collect it, convert at the end.
                jsonTree = new TinyBuilder(pipe);
                body = jsonTree;
                jsonSink = serializer;
            } else {
                body = serializer;
            }
            body.open();
            body.startDocument(0);
        }

        private Receiver jsonSink;

        /**
         * {@code <rsp:body src="…"/>}: the bytes {@link BinaryBody} finds, streamed to the client
         * after the status and headers; 304 and HEAD send none. A page cache holding this response
         * lets it through at once: the bytes are already kept where they come from.
         */
        private void startBinary(AttributeMap a, String src) throws XPathException {
            if (scope == null) throw bad("rsp:body src='" + src + "' outside a request");
            BinaryBody found = scope.resources.binary(scope, src);
            if (etag == null) etag = found.etag;
            if (lastModified == null) {
                lastModifiedMillis = found.modifiedMillis;
                lastModified = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                        java.time.Instant.ofEpochMilli(found.modifiedMillis).atZone(ZoneOffset.UTC));
            }
            int answer = conditional();
            body = new NoContent(pipe, src);
            if (response instanceof Capture capture) {
                try {
                    capture.release("a body by reference streams from where it is");
                } catch (IOException e) {
                    throw new XPathException("cannot start the response: " + e.getMessage());
                }
            }
            commit(answer);
            if (answer != status || request.method().equals("HEAD") || status == 204) {
                if (answer == status) {
                    response.setContentType(valueOr(a, "media-type", found.mediaType));
                    response.setContentLengthLong(found.length);
                }
                return;
            }
            response.setContentType(valueOr(a, "media-type", found.mediaType));
            response.setContentLengthLong(found.length);
            try (java.io.InputStream in = found.open()) {
                in.transferTo(response.getOutputStream());
            } catch (IOException e) {
                throw ErrorResponses.quietIfClientGone(new XPathException("cannot send " + src + ": " + e.getMessage()), e);
            }
        }

        private void endBody() throws XPathException {
            body.endDocument();
            body.close();
            if (jsonTree != null) {
                NodeInfo doc = jsonTree.getCurrentRoot();
                String text = json(doc);
                jsonSink.open();
                jsonSink.startDocument(0);
                jsonSink.characters(net.sf.saxon.str.StringView.of(text), Loc.NONE, 0);
                jsonSink.endDocument();
                jsonSink.close();
            }
            body = null;
            bodyDone = true;
        }

        /**
         * The status to answer with: 304 or 412 when the request's conditions say so
         * ({@link Conditional}, with the page's validators), else the page's. Only for a GET or HEAD
         * answered 200: the pipeline has run by now, which a read may do whatever its conditions say,
         * but another method's conditions had to hold before it acted.
         */
        private int conditional() {
            String method = request.method();
            if (!method.equals("GET") && !method.equals("HEAD") || status != 200) return status;
            return switch (Conditional.evaluate(method, request::headers, etag == null ? null : quoted(etag), lastModifiedMillis)) {
                case NOT_MODIFIED -> 304;
                case FAILED -> 412;
                case PROCEED -> status;
            };
        }

        /** Sets status, headers and cookies; after this only the body remains. */
        private void commit(int code) {
            response.setStatus(code);
            for (String[] h : headers) response.addHeader(h[0], h[1]);
            for (Cookie c : cookies) response.addCookie(c);
            if (etag != null) response.setHeader("ETag", quoted(etag));
            if (lastModified != null) response.setHeader("Last-Modified", lastModified);
            if (redirectTo != null) response.setHeader("Location", redirectTo);
        }

        @Override
        public void endElement() throws XPathException {
            if (body != null) {
                if (depth == 2) {
                    endBody();
                } else {
                    body.endElement();
                }
            } else if (depth == 2 && headerText != null) {
                headers.add(new String[] {headerName, headerText.toString().trim()});
                headerText = null;
            } else if (depth == 1 && !bodyDone) {
                commit(status);
            }
            depth--;
        }

        @Override
        public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
            tick();
            if (body != null) {
                body.characters(chars, location, properties);
            } else if (headerText != null) {
                headerText.append(chars);
            } else if (!isWhitespace(chars)) {
                throw bad("text '" + chars + "' outside rsp:body");
            }
        }

        @Override
        public void processingInstruction(String name, UnicodeString data, Location location, int properties) throws XPathException {
            if (body != null) body.processingInstruction(name, data, location, properties);
        }

        @Override
        public void comment(UnicodeString content, Location location, int properties) throws XPathException {
            if (body != null) body.comment(content, location, properties);
        }

        @Override
        public void append(Item item, Location location, int properties) throws XPathException {
            throw bad("the result is a sequence containing " + item + ", not an rsp:response document");
        }

        @Override
        public void close() {}

        /** Serialized pages should not carry Arno's own namespace declarations. */
        private NamespaceMap withoutArno(NamespaceMap ns) {
            if (ns == lastIn) return lastOut;
            NamespaceMap out = ns;
            for (String prefix : ns.getPrefixArray()) {
                if (ns.getURIForPrefix(prefix, false).toString().startsWith("urn:arno:")) out = out.remove(prefix);
            }
            lastIn = ns;
            lastOut = out;
            return out;
        }
    }

    private static String attr(AttributeMap a, String name) {
        return a.getValue(net.sf.saxon.om.NamespaceUri.NULL, name);
    }

    private static String quoted(String etag) {
        return etag.startsWith("\"") || etag.startsWith("W/") ? etag : '"' + etag + '"';
    }

    private static int parseStatus(String s) throws XPathException {
        try {
            int code = Integer.parseInt(s.trim());
            if (code >= 100 && code <= 599) return code;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw bad("status '" + s + "' is not an HTTP status code");
    }

    private static OffsetDateTime parseDateTime(String s) throws XPathException {
        try {
            String t = s.trim();
            return t.endsWith("Z") || t.matches(".*[+-]\\d\\d:\\d\\d$")
                    ? OffsetDateTime.parse(t) : OffsetDateTime.parse(t + "Z");
        } catch (java.time.format.DateTimeParseException e) {
            throw bad("last-modified '" + s + "' is not an xs:dateTime");
        }
    }

    private static Cookie cookie(AttributeMap a) throws XPathException {
        Cookie c = new Cookie(required(a, "name", "rsp:cookie"), required(a, "value", "rsp:cookie"));
        if (attr(a, "path") != null) c.setPath(attr(a, "path"));
        if (attr(a, "domain") != null) c.setDomain(attr(a, "domain"));
        if (attr(a, "max-age") != null) c.setMaxAge(Integer.parseInt(attr(a, "max-age").trim()));
        c.setSecure("true".equals(attr(a, "secure")));
        c.setHttpOnly("true".equals(attr(a, "http-only")));
        if (attr(a, "same-site") != null) c.setAttribute("SameSite", attr(a, "same-site"));
        return c;
    }

    private static String required(AttributeMap a, String name, String element) throws XPathException {
        String v = attr(a, name);
        if (v == null) throw bad(element + " lacks its " + name + " attribute");
        return v;
    }

    private static String valueOr(AttributeMap a, String name, String fallback) {
        String v = attr(a, name);
        return v == null ? fallback : v.trim();
    }

    private static void copy(AttributeMap a, String name, Properties p, String key) {
        String v = attr(a, name);
        if (v != null) p.setProperty(key, v.equals("true") ? "yes" : v.equals("false") ? "no" : v);
    }

    private static boolean isWhitespace(UnicodeString s) {
        for (long i = 0; i < s.length(); i++) {
            int c = s.codePointAt(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
        }
        return true;
    }

    static XPathException bad(String message) {
        XPathException e = new XPathException(message);
        e.setErrorCode("ARNO0001");
        e.setIsStaticError(false);
        return e;
    }

    /**
     * Passes body events on; a failure to write because the client went away is marked as reported
     * (see the class comment).
     */
    private static final class AbortAware extends net.sf.saxon.event.ProxyReceiver {
        AbortAware(Receiver next) {
            super(next);
        }

        private static XPathException seen(XPathException e) {
            return ErrorResponses.quietIfClientGone(e, e);
        }

        @Override
        public void startDocument(int properties) throws XPathException {
            try { super.startDocument(properties); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void endDocument() throws XPathException {
            try { super.endDocument(); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void startElement(NodeName name, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                                 Location location, int properties) throws XPathException {
            try { super.startElement(name, type, attributes, namespaces, location, properties); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void endElement() throws XPathException {
            try { super.endElement(); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
            try { super.characters(chars, location, properties); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void processingInstruction(String target, UnicodeString data, Location location, int properties) throws XPathException {
            try { super.processingInstruction(target, data, location, properties); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void comment(UnicodeString content, Location location, int properties) throws XPathException {
            try { super.comment(content, location, properties); } catch (XPathException e) { throw seen(e); }
        }

        @Override
        public void close() throws XPathException {
            try { super.close(); } catch (XPathException e) { throw seen(e); }
        }
    }

    /** Swallows events: the body of a 304 or a HEAD. */
    private static final class Discard extends net.sf.saxon.event.Sink {
        Discard(PipelineConfiguration pipe) {
            super(pipe);
        }
    }

    /** The content of an rsp:body given by reference, which must have none (whitespace aside). */
    private static final class NoContent extends net.sf.saxon.event.ProxyReceiver {
        private final String src;

        NoContent(PipelineConfiguration pipe, String src) {
            super(new Discard(pipe));
            this.src = src;
        }

        @Override
        public void startElement(NodeName name, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                                 Location location, int properties) throws XPathException {
            throw bad("rsp:body src='" + src + "' has content: a body given by reference has none");
        }

        @Override
        public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
            if (!chars.toString().isBlank()) throw bad("rsp:body src='" + src + "' has text: a body given by reference has none");
        }
    }

    private static final class Loc {
        static final Location NONE = net.sf.saxon.expr.parser.Loc.NONE;
    }

    /** JSON bodies: the fn: vocabulary goes through xml-to-json(); anything else is sent as text. */
    private String json(NodeInfo doc) throws XPathException {
        NodeInfo root = null;
        for (NodeInfo child : doc.children()) {
            if (child.getNodeKind() == net.sf.saxon.type.Type.ELEMENT) {
                root = child;
                break;
            }
        }
        if (root == null || !FN.equals(root.getURI().toString())) return doc.getStringValue();
        try {
            net.sf.saxon.s9api.XPathSelector s = xmlToJson.load();
            s.setContextItem(new net.sf.saxon.s9api.XdmNode(root));
            return s.evaluateSingle().getStringValue();
        } catch (net.sf.saxon.s9api.SaxonApiException e) {
            throw bad("the JSON body is not valid fn: JSON vocabulary: " + e.getMessage());
        }
    }
}
