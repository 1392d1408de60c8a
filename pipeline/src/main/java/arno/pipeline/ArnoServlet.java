package arno.pipeline;

import arno.xml.ErrorCode;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.sf.saxon.s9api.Destination;

/**
 * The servlet: a thin adapter from the servlet API to the pipeline API. It views the container's
 * request as an {@link HttpRequest} (nothing copied), and the response as a {@link ResponseTarget}
 * whose destination is the {@link ResponseWriter}; everything else (sites, routes, errors) is
 * {@link SiteRegistry}'s and {@link Exchange}'s.
 *
 * <p>A route whose pages are cached is looked up in its site's page cache first, on the container's
 * thread: a valid page is written from there, without a worker or a pipeline ({@link PageCaches}).
 * On a miss the page is built on a worker into a {@link Capture} and kept when it may be.
 *
 * <p>The container's thread only reads the request; the pipeline runs on one of a fixed number of
 * worker threads, in the order requests arrived (see {@link Workers} for why). When the queue is
 * full the answer is 503 at once, with Retry-After, and nothing waiting is dropped. Needs
 * asynchronous support in its registration.
 */
public final class ArnoServlet extends HttpServlet {
    private static final System.Logger LOG = System.getLogger("arno");
    /** Workers by default: one per core. A page is CPU work; more workers only slice the cores finer (see {@link Workers}). */
    public static final int DEFAULT_WORKERS = Runtime.getRuntime().availableProcessors();
    /** Requests that may wait for a worker by default: about half a second of full-text pages on two cores. */
    public static final int DEFAULT_QUEUE = 1000;
    /** Responses are buffered up to this many bytes, so an error in a page's first part can still become an error page. */
    static final int BUFFER = 64 * 1024;
    /**
     * The request attribute holding the request id (the one in req:request/@id and in log lines),
     * for the access log; also set on a page cache hit, which runs no pipeline but is a request.
     */
    public static final String REQUEST_ID = "arno.request-id";
    /**
     * Appended to a strong ETag when its response is sent gzipped (Jetty's choice, so proxies and
     * tools recognise it): the two forms differ in bytes, so they must not share a strong tag.
     */
    public static final String GZIP_ETAG_SUFFIX = "--gzip";

    /** {@code "x"} as the ETag of its gzipped form: {@code "x--gzip"}. */
    public static String gzipEtag(String etag) {
        String t = etag.trim();
        return t.endsWith("\"") ? t.substring(0, t.length() - 1) + GZIP_ETAG_SUFFIX + "\"" : t + GZIP_ETAG_SUFFIX;
    }

    private final transient SiteRegistry registry;
    private final transient Workers workers;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong lastRefusalLog = new AtomicLong();
    private volatile RequestObserver observer = RequestObserver.IGNORE;

    /** Runs pipelines on {@code workers} threads, with at most {@code queue} requests waiting for one. */
    public ArnoServlet(SiteRegistry registry, int workers, int queue) {
        this.registry = registry;
        this.workers = new Workers(workers, queue);
    }

    /** Fails with {@link ErrorCode#BAD_CONFIGURATION} unless {@code workers} and {@code queue} would make a servlet. */
    public static void check(int workers, int queue) {
        Workers.check(workers, queue);
    }

    public int workers() {
        return workers.threads();
    }

    /** Requests waiting for a worker now. */
    public int waiting() {
        return workers.waiting();
    }

    /** Requests whose pipelines are running now. */
    public int running() {
        return workers.running();
    }

    /** Tells {@code o} of every request from now on (metrics); one observer, replacing the last. */
    public void observe(RequestObserver o) {
        observer = o == null ? RequestObserver.IGNORE : o;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) {
        long start = System.nanoTime();
        Sites sites = null;
        PageCaches.Lookup lookup = null;
        try {
            sites = registry.current();
            HttpRequest view = new View(request);
            lookup = sites.engine.caches.lookup(sites, view);
            if (lookup != null && lookup.page() != null) {
                request.setAttribute(REQUEST_ID, sites.engine.nextId());
                lookup.page().write(view, response);
                observer.done(lookup.cache().site, lookup.route().name(), response.getStatus(), System.nanoTime() - start);
                return;
            }
        } catch (arno.xml.ArnoException e) {
            sites = null; // a broken site in development: the worker reports it
        } catch (IOException e) {
            return; // the client went away
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "page cache lookup failed on " + request.getRequestURI() + "; building the page", e);
            lookup = null;
        }
        AsyncContext async = request.startAsync();
        // No container time-out: the route's time limit bounds a pipeline, and a time-out would
        // dispatch an error to this request while a worker still writes its response.
        async.setTimeout(0);
        Sites given = sites;
        PageCaches.Lookup miss = lookup;
        if (!workers.submit(() -> run(async, given, miss, start))) {
            busy(response);
            observer.done(RequestObserver.NONE, RequestObserver.NONE, 503, System.nanoTime() - start);
            async.complete();
        }
    }

    /** Builds the page on a worker; {@code sites} may be null (then read again), {@code miss} is where to keep it, or null. */
    private void run(AsyncContext async, Sites given, PageCaches.Lookup miss, long start) {
        HttpServletRequest request = (HttpServletRequest) async.getRequest();
        HttpServletResponse response = (HttpServletResponse) async.getResponse();
        Exchange exchange = null;
        try {
            response.setBufferSize(BUFFER);
            Sites sites = given != null ? given : registry.current();
            HttpRequest view = new View(request);
            exchange = sites.exchange(view);
            request.setAttribute(REQUEST_ID, exchange.id());
            if (miss == null || !view.method().equals("GET")) {
                exchange.respond(new Target(view, response, sites));
                return;
            }
            Capture capture = new Capture(response, miss.route().cache.maxSize());
            Reads reads = new Reads();
            exchange.record(reads);
            exchange.respond(new Target(view, capture, sites));
            sites.engine.caches.store(miss, sites, view, exchange, reads, capture, response);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "writing " + request.getRequestURI() + " failed: " + e);
        } catch (arno.xml.ArnoException e) {
            // Development: an edit broke a site.xml or a package. Say so until it is fixed.
            LOG.log(System.Logger.Level.ERROR, e.describe());
            if (!response.isCommitted()) {
                response.resetBuffer();
                plain(response, 500, "Site configuration error", e.describe());
            }
        } catch (RuntimeException | Error e) {
            if (ErrorResponses.clientAbort(e) != null) {
                LOG.log(System.Logger.Level.INFO, "client went away from " + request.getRequestURI() + ": "
                        + ErrorResponses.clientAbort(e));
                return;
            }
            LOG.log(System.Logger.Level.ERROR, "unexpected failure on " + request.getRequestURI(), e);
            if (!response.isCommitted()) {
                response.resetBuffer();
                plain(response, 500, "Internal error", "Unexpected failure; the server log has the details.");
            }
        } finally {
            // The one place a built page (or its failure) is finished: what the metrics count.
            Site site = exchange == null ? null : exchange.site();
            String route = exchange == null ? null : exchange.routeName();
            observer.done(site == null ? RequestObserver.NONE : site.name(), route == null ? RequestObserver.NONE : route,
                    response.getStatus(), System.nanoTime() - start);
            async.complete();
        }
    }

    private void busy(HttpServletResponse response) {
        long n = refused.incrementAndGet();
        long now = System.nanoTime();
        long last = lastRefusalLog.get();
        // At most one log line a second: an overload must not also flood the log.
        if (now - last > 1_000_000_000L && lastRefusalLog.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, "busy: " + workers.queueLimit() + " requests waiting for "
                    + workers.threads() + " workers; " + n + " refused with 503 since start");
        }
        response.setHeader("Retry-After", "1");
        plain(response, 503, "Busy", "All " + workers.threads() + " workers are busy and "
                + workers.queueLimit() + " requests are waiting; try again in a moment.");
    }

    /** A page written without the pipeline: for when there is no pipeline to run (busy, broken). */
    static void plain(HttpServletResponse response, int status, String title, String message) {
        try {
            response.setStatus(status);
            response.setContentType("text/html; charset=UTF-8");
            PrintWriter w = response.getWriter();
            w.println("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title></head>"
                    + "<body><h1>" + escape(title) + "</h1><pre>" + escape(message) + "</pre></body></html>");
        } catch (IOException | IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot write error page: " + e);
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    @Override
    public void destroy() {
        workers.close(30);
    }

    /** The HTTP response as a response target: reset while nothing is committed. */
    private static final class Target implements ResponseTarget {
        private final HttpRequest request;
        private final HttpServletResponse response;
        private final Sites sites;

        Target(HttpRequest request, HttpServletResponse response, Sites sites) {
            this.request = request;
            this.response = response;
            this.sites = sites;
        }

        @Override
        public Destination open(int defaultStatus) {
            return new ResponseWriter(request, response, sites.engine.xmlToJson, sites.siteHosts, defaultStatus);
        }

        @Override
        public boolean reset() {
            if (response.isCommitted()) return false;
            response.reset();
            response.setBufferSize(BUFFER);
            return true;
        }
    }

    /** The container's request seen as an {@link HttpRequest}; nothing is copied. */
    private static final class View implements HttpRequest {
        private final HttpServletRequest r;

        View(HttpServletRequest r) {
            this.r = r;
        }

        @Override public String method() { return r.getMethod(); }
        @Override public String scheme() { return r.getScheme(); }
        @Override public String host() { return r.getServerName(); }
        @Override public int port() { return r.getServerPort(); }
        @Override public String protocol() { return r.getProtocol(); }
        @Override public String contextPath() { return r.getContextPath(); }
        @Override public String query() { return r.getQueryString(); }
        @Override public String remoteAddress() { return r.getRemoteAddr(); }
        @Override public long contentLength() { return r.getContentLengthLong(); }
        @Override public InputStream body() throws IOException { return r.getInputStream(); }
        @Override public String header(String name) { return r.getHeader(name); }

        @Override
        public String path() {
            String uri = r.getRequestURI();
            String p = uri.substring(r.getContextPath().length());
            return p.isEmpty() ? "/" : p;
        }

        @Override
        public List<String> headerNames() {
            return Collections.list(r.getHeaderNames());
        }

        @Override
        public List<String> headers(String name) {
            return Collections.list(r.getHeaders(name));
        }

        @Override
        public String localAuthority() {
            String address = r.getLocalAddr();
            return (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + r.getLocalPort();
        }
    }
}
