package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.util.Map;
import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SAXDestination;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * One request's run through compiled {@link Sites}: the {@code Xslt30Transformer} of the pipeline
 * API. Made by {@link Sites#exchange}; cheap; used once, on one thread.
 *
 * <p>{@link #respond(ResponseTarget)} always answers: a page, the index at "/", a development
 * debug route, or, after any failure (a malformed request, no site or route, a stage that failed,
 * the time limit), the error page; it never throws for bad input. What went wrong, if anything, is
 * {@link #error()} afterwards.
 */
public final class Exchange {
    private static final String ARNO_MSG = ErrorResponses.MSG;
    private static final String ERR = arno.xml.ErrorXml.NS;
    private static final String REQ = RequestReader.NS;

    private final Sites sites;
    private final HttpRequest http;
    private final XdmNode document;
    private final String id;
    private Site site;
    /** The route that matched, for the metrics; null when none did. */
    private Route route;
    private RequestSource source;
    private String allow;
    private ArnoException error;
    /** Where the request's reads are recorded for the page cache, or null. */
    private Reads reads;
    /** Where the request was routed before (a page cache's lookup), or null: route it here. */
    private final Router.Match routed;

    /** Writes req:request, with {@code extra} appended to it (the error page's msg:attribute) when not null. */
    interface RequestSource {
        void write(ContentHandler out, RequestReader.Extra extra) throws SAXException;
    }

    Exchange(Sites sites, HttpRequest http, XdmNode document) {
        this(sites, http, document, null);
    }

    /** For {@code http} routed already to {@code routed} by {@link Router#route} over {@code sites} (a page cache's lookup). */
    static Exchange routed(Sites sites, HttpRequest http, Router.Match routed) {
        return new Exchange(sites, http, null, routed);
    }

    private Exchange(Sites sites, HttpRequest http, XdmNode document, Router.Match routed) {
        this.sites = sites;
        this.http = http;
        this.document = document;
        this.routed = routed;
        this.id = sites.engine.nextId();
    }

    /** The request id: in req:request/@id, in log lines, and (with "E-") in error pages. */
    public String id() {
        return id;
    }

    /** Records what the pipeline reads into {@code into} (for the page cache). */
    void record(Reads into) {
        this.reads = into;
    }

    /** The failure the answer reports, or null when the page was answered as asked. */
    public ArnoException error() {
        return error;
    }

    /** Runs the request and returns the rsp:response document, the error page's on failure. */
    public XdmNode respond() {
        Tree tree = new Tree();
        respond(tree);
        return tree.current.getXdmNode();
    }

    /** Runs the request into {@code target}; never throws for bad input (see the class comment). */
    public void respond(ResponseTarget target) {
        Engine engine = sites.engine;
        try {
            if (document != null) {
                respondToDocument(target);
                return;
            }
            boolean development = engine.config.development();
            Router.Match m = routed;
            if (m == null) {
                String path = Router.decode(http.path());
                m = Router.route(sites.sites, http.host(), path);
                if (m == null) {
                    source = reader(null, path, null, Map.of());
                    if (path.equals("/")) {
                        IndexPage.write(sites, http, target.open(200));
                        return;
                    }
                    throw ErrorCode.NO_SITE.error(http.host(), path);
                }
            }
            site = m.site();
            if (development && m.sitePath().equals(DebugRoutes.REQUEST)) {
                RequestReader reader = reader(site, m.sitePath(), null, Map.of());
                source = reader;
                reader.prepare();
                DebugRoutes.request(sites, reader, target.open(200));
                return;
            }
            // Development: /_debug/response/PATH shows the rsp:response that PATH's pipeline yields.
            boolean showResponse = development && m.sitePath().startsWith(DebugRoutes.RESPONSE);
            if (showResponse) m = Router.route(site, m.sitePath().substring(DebugRoutes.RESPONSE.length() - 1));
            Route route = m.route();
            this.route = route;
            RequestReader reader = reader(site, m.sitePath(), route, m.variables());
            source = reader;
            if (route == null) throw ErrorCode.NO_ROUTE.error(site.name(), m.sitePath());
            if (!route.methods.contains(http.method())) {
                allow = String.join(", ", route.methods);
                throw ErrorMessage.ROUTE_METHOD_NOT_ALLOWED.error(route.name(), http.method(), allow);
            }
            reader.prepare();
            if (showResponse) {
                XdmDestination inner = new XdmDestination();
                run(route.pipeline, route.name(), route.timeoutMillis, out -> reader.write(out, null), inner);
                DebugRoutes.response(sites, inner.getXdmNode(), target.open(200));
                return;
            }
            run(route.pipeline, route.name(), route.timeoutMillis, out -> reader.write(out, null), target.open(200));
        } catch (ArnoException e) {
            fail(e, target);
        } catch (RuntimeException e) {
            fail(ErrorCode.INTERNAL.error(e, e), target);
        }
    }

    private RequestReader reader(Site s, String sitePath, Route route, Map<String, String> variables) {
        PipelineConfig c = sites.engine.config;
        return new RequestReader(http, id, s, sitePath, route, variables, c.development(), c.bodyLimit(), sites.engine.policy);
    }

    private void fail(ArnoException e, ResponseTarget target) {
        error = e;
        if (source == null) {
            source = http != null ? reader(null, http.path(), null, Map.of()) : (out, extra) -> writeDocument(out, extra);
        }
        sites.engine.errors.answer(this, e, target);
    }

    /** Runs {@code pipeline} in a request scope of its own. */
    void run(Pipeline pipeline, String route, long timeoutMillis, Pipeline.Source input, Destination sink) {
        ContextCache context = site == null ? null : sites.engine.caches.context(site.name());
        // With the site's caches on, every request records what it reads: its fragments depend on it.
        Reads recording = reads != null ? reads : context != null ? new Reads() : null;
        // A page built for the page cache also records which parts of the HTTP request it read: they join its key.
        try (RequestScope scope = new RequestScope(id, route, timeoutMillis, sites.engine.resources, recording, context,
                sites.code, reads != null)) {
            // A body by reference (rsp:body src=) is read through the request's view, as its stages read.
            if (sink instanceof ResponseWriter w) w.scope(scope);
            pipeline.run(sites.engine.processor.getUnderlyingConfiguration(), scope, input, sink);
        }
    }

    // ---- A req:request document as input

    private void respondToDocument(ResponseTarget target) {
        source = this::writeDocument;
        XdmNode root = root(document);
        if (root == null || !root.getNodeName().equals(new QName(REQ, "request"))) {
            throw ErrorMessage.REQUEST_ROOT.error();
        }
        String siteName = attribute(root, "site", "name");
        String path = attribute(root, "path", "value");
        site = siteName == null ? null : sites.site(siteName);
        if (site == null) throw ErrorCode.NO_SITE.error(siteName, path);
        String routeName = attribute(root, "route", "name");
        XdmNode givenError = givenError(root);
        if (givenError != null && routeName == null) {
            // The error page, as the server calls it: the request already carries the error.
            int status = status(givenError.attribute("status"));
            Pipeline page = site.errorPipeline(status);
            if (page == null) page = sites.defaultError;
            if (page == null) throw ErrorMessage.NO_ERROR_PAGE.error(site.name());
            run(page, "error", sites.engine.config.timeout().toMillis(), out -> writeDocument(out, null), target.open(status));
            return;
        }
        Route route = null;
        for (Route r : site.routes) {
            if (routeName != null ? r.name().equals(routeName) : path != null && r.match(path) != null) {
                route = r;
                break;
            }
        }
        if (route == null) throw (routeName != null ? ErrorMessage.NO_ROUTE_NAMED.error(site.name(), routeName) : ErrorCode.NO_ROUTE.error(site.name(), path));
        run(route.pipeline, route.name(), route.timeoutMillis, out -> writeDocument(out, null), target.open(200));
    }

    private void writeDocument(ContentHandler out, RequestReader.Extra extra) throws SAXException {
        XMLFilterImpl f = new XMLFilterImpl() {
            private int depth;

            @Override
            public void startElement(String uri, String local, String qName, org.xml.sax.Attributes atts) throws SAXException {
                depth++;
                super.startElement(uri, local, qName, atts);
            }

            @Override
            public void endElement(String uri, String local, String qName) throws SAXException {
                if (--depth == 0 && extra != null) extra.write(getContentHandler());
                super.endElement(uri, local, qName);
            }
        };
        f.setContentHandler(out);
        try {
            sites.engine.processor.writeXdmValue(document, new SAXDestination(f));
        } catch (SaxonApiException e) {
            throw new SAXException(e);
        }
    }

    private static XdmNode root(XdmNode doc) {
        if (doc.getNodeKind() == XdmNodeKind.ELEMENT) return doc;
        for (XdmNode n : doc.children()) if (n.getNodeKind() == XdmNodeKind.ELEMENT) return n;
        return null;
    }

    private static String attribute(XdmNode request, String child, String name) {
        for (XdmNode n : request.children(n -> n.getNodeKind() == XdmNodeKind.ELEMENT && n.getNodeName().equals(new QName(REQ, child)))) return n.attribute(name);
        return null;
    }

    private static XdmNode givenError(XdmNode request) {
        for (XdmNode a : request.children(n -> n.getNodeKind() == XdmNodeKind.ELEMENT && n.getNodeName().equals(new QName(ARNO_MSG, "attribute")))) {
            if ("error".equals(a.attribute("name"))) {
                for (XdmNode e : a.children(n -> n.getNodeKind() == XdmNodeKind.ELEMENT && n.getNodeName().equals(new QName(ERR, "error")))) return e;
            }
        }
        return null;
    }

    // ---- For ErrorResponses

    Sites sites() {
        return sites;
    }

    Site site() {
        return site;
    }

    /** The matched route's name, or null. */
    String routeName() {
        return route == null ? null : route.name();
    }

    RequestSource source() {
        return source;
    }

    String allow() {
        return allow;
    }

    /** A fresh tree per attempt: the error page replaces a failed page. */
    private static final class Tree implements ResponseTarget {
        XdmDestination current;

        @Override
        public Destination open(int defaultStatus) {
            current = new XdmDestination();
            return current;
        }

        @Override
        public boolean reset() {
            current = null;
            return true;
        }
    }

    /** An error's HTTP status as given in a req:request document; anything but an error status is 500, as error.xsl reads it. */
    private static int status(String given) {
        try {
            int n = given == null ? 500 : Integer.parseInt(given.strip());
            return n >= 400 && n <= 599 ? n : 500;
        } catch (NumberFormatException e) {
            return 500;
        }
    }
}
