package arno.pipeline;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
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
 *
 * <p>Bodies are read before a worker takes the request. The workers are few (one per core) because
 * a page is CPU work; a worker that reads a body from the network waits on the client instead, so
 * two clients trickling a body at a byte a second once held both workers of a two-core server and
 * stalled every other page for the whole trickle (issue 14). So a request with a body is first read
 * into memory on the container's side with Servlet non-blocking IO ({@link BodyRead}: a read
 * listener, no thread waits while nothing arrives), bounded by the body size limit and by a
 * {@link BodyRate} (a least rate after a grace, and a time limit); only a complete body goes to
 * the worker queue, and the pipeline reads it from memory. A body that is too slow is answered
 * 408 {@code body-too-slow}, one over the limit 413 {@code body-too-large}, both with the
 * connection closed and no worker touched (a body declared over the limit is refused before it is
 * read, then {@link Linger}ed over for two seconds so that a client still writing it reads the 413
 * rather than a reset). The alternatives were worse: Tomcat's
 * {@code connectionUploadTimeout} bounds each read, not the whole body (a byte a second never
 * trips it); reading on more threads moves the stall to them; and holding bodies in memory costs
 * at most the size limit per request being read, which the limit already allows a pipeline.
 *
 * <p>GET and HEAD carry no body here: routes whose methods are GET and HEAD read none, and a body
 * on them has no meaning (RFC 9110, 9.3.1). Such a request is refused at once, 400
 * {@code bad-request} with the connection closed, without reading the body: ignoring it would
 * mean draining it on a container thread, at whatever rate the client likes, or leaving it in
 * the connection to be taken for the next request.
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
     * Set on a request whose page failed after its response was committed (a time limit passed
     * while the page was being sent, say). The Servlet API has no way to end a response as
     * incomplete: completed, it ends as if whole, and a client or a cache in front takes a cut
     * page for the page. An exception from a servlet on a container thread makes the container
     * close the connection instead (Tomcat: without the last chunk, short of the length); so the
     * worker dispatches the request back to the container and {@link #service} throws. Tomcat
     * logs the throw twice (SEVERE, with the error's id), after Arno's own line on the failure.
     */
    private static final String CUT = "arno.cut-short";

    /** What the servlet throws to have the container end a committed response as incomplete; the cause is logged before. */
    private static final class CutShort extends RuntimeException {
        CutShort(String message) {
            super(message, null, false, false);
        }
    }

    private final transient SiteRegistry registry;
    private final transient Workers workers;
    private final transient BodyRate bodyRate;
    /** Checks the rate of the bodies being read; one daemon thread, idle but for a few checks a second per body. */
    private final transient java.util.concurrent.ScheduledThreadPoolExecutor timer;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong lastRefusalLog = new AtomicLong();
    private volatile RequestObserver observer = RequestObserver.IGNORE;

    /**
     * Runs pipelines on {@code workers} threads, with at most {@code queue} requests waiting for one;
     * bodies arrive at {@link BodyRate#DEFAULT}.
     */
    public ArnoServlet(SiteRegistry registry, int workers, int queue) {
        this(registry, workers, queue, BodyRate.DEFAULT);
    }

    /** As {@link #ArnoServlet(SiteRegistry, int, int)}, with request bodies held to {@code bodyRate}. */
    public ArnoServlet(SiteRegistry registry, int workers, int queue, BodyRate bodyRate) {
        this.registry = registry;
        this.workers = new Workers(workers, queue);
        this.bodyRate = java.util.Objects.requireNonNull(bodyRate, "bodyRate");
        this.timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "arno-body-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
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
        if (request.getDispatcherType() == DispatcherType.ASYNC && request.getAttribute(CUT) != null) {
            throw new CutShort("[E-" + request.getAttribute(CUT) + "] the page failed after part of it was sent: its response"
                    + " is closed incomplete");
        }
        long start = System.nanoTime();
        boolean hasBody = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        String method = request.getMethod();
        if (hasBody && (method.equals("GET") || method.equals("HEAD"))) {
            refuse(response, ErrorMessage.BODY_NOT_ACCEPTED.error(method));
            observer.done(RequestObserver.NONE, RequestObserver.NONE, response.getStatus(), System.nanoTime() - start);
            return;
        }
        Sites sites = null;
        PageCaches.Lookup lookup = null;
        try {
            sites = registry.current();
            HttpRequest view = new View(request, null);
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
        long limit = registry.config().bodyLimit();
        if (request.getContentLengthLong() > limit) {
            refuse(response, ErrorCode.BODY_TOO_LARGE.error(request.getContentLengthLong(), limit));
            // Not closed at once: a client still writing its body would get a reset, not the 413.
            Linger.start(request, response, timer);
            return;
        }
        AsyncContext async = request.startAsync();
        // No container time-out: the route's time limit bounds a pipeline, the body rate its body,
        // and a time-out would dispatch an error to this request while a worker still writes its response.
        async.setTimeout(0);
        Sites given = sites;
        PageCaches.Lookup miss = lookup;
        if (!hasBody) {
            submit(async, given, miss, null, start);
            return;
        }
        try {
            BodyRead.start(async, limit, bodyRate, timer, body -> submit(async, given, miss, body, start), error -> {
                if (error != null) {
                    LOG.log(System.Logger.Level.INFO, "refused " + method + " " + request.getRequestURI() + " from "
                            + request.getRemoteAddr() + ": " + error.getMessage());
                    refuse((HttpServletResponse) async.getResponse(), error);
                    observer.done(RequestObserver.NONE, RequestObserver.NONE, error.status(), System.nanoTime() - start);
                }
            });
        } catch (IOException | IllegalStateException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot read the body of " + request.getRequestURI() + ": " + e);
            async.complete();
        }
    }

    /** Queues the page for a worker, with its {@code body} read already (null when it has none); 503 when the queue is full. */
    private void submit(AsyncContext async, Sites given, PageCaches.Lookup miss, byte[] body, long start) {
        if (!workers.submit(() -> run(async, given, miss, body, start))) {
            busy((HttpServletResponse) async.getResponse());
            observer.done(RequestObserver.NONE, RequestObserver.NONE, 503, System.nanoTime() - start);
            async.complete();
        }
    }

    /**
     * Answers {@code error} without a pipeline and closes the connection: what the client sent
     * (or is still sending) is not read, and must not be taken for its next request.
     */
    private static void refuse(HttpServletResponse response, arno.xml.ArnoException error) {
        if (response.isCommitted()) return;
        response.resetBuffer();
        response.setHeader("Connection", "close");
        plain(response, error.status(), ErrorCode.statusText(error.status()), error.code().code() + ": " + error.getMessage());
    }

    /** Builds the page on a worker; {@code sites} may be null (then read again), {@code miss} is where to keep it, or null. */
    private void run(AsyncContext async, Sites given, PageCaches.Lookup miss, byte[] body, long start) {
        HttpServletRequest request = (HttpServletRequest) async.getRequest();
        HttpServletResponse response = (HttpServletResponse) async.getResponse();
        String uri = request.getRequestURI(); // read now: a recycled request has none
        Exchange exchange = null;
        Target target = null;
        try {
            response.setBufferSize(BUFFER);
            Sites sites = given != null ? given : registry.current();
            HttpRequest view = new View(request, body);
            // A miss was routed by its lookup: the exchange runs that route (routing is not free).
            exchange = miss == null ? sites.exchange(view) : Exchange.routed(sites, view, miss.match());
            request.setAttribute(REQUEST_ID, exchange.id());
            if (miss == null || !view.method().equals("GET")) {
                target = new Target(view, response, sites);
                exchange.respond(target);
                return;
            }
            Capture capture = new Capture(response, miss.route().cache.maxSize());
            Reads reads = new Reads();
            exchange.record(reads);
            target = new Target(view, capture, sites);
            exchange.respond(target);
            if (target.cut) return;
            sites.engine.caches.store(miss, sites, view, exchange, reads, capture, response);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "writing " + uri + " failed: " + e);
        } catch (arno.xml.ArnoException e) {
            // Development: an edit broke a site.xml or a package. Say so until it is fixed.
            LOG.log(System.Logger.Level.ERROR, e.describe());
            if (!recycled(response) && !response.isCommitted()) {
                response.resetBuffer();
                plain(response, 500, "Site configuration error", e.describe());
            }
        } catch (RuntimeException | Error e) {
            String abort = ErrorResponses.clientAbort(e);
            if (abort != null || recycled(response)) {
                LOG.log(System.Logger.Level.INFO, "client went away from " + uri + ": "
                        + (abort != null ? abort : "the exchange was closed"));
                return;
            }
            LOG.log(System.Logger.Level.ERROR, "unexpected failure on " + uri, e);
            if (!response.isCommitted()) {
                response.resetBuffer();
                plain(response, 500, "Internal error", "Unexpected failure; the server log has the details.");
            }
        } finally {
            // The one place a built page (or its failure) is finished: what the metrics count.
            // Nothing here may throw: the worker's thread would die of it (and a new one be made).
            Site site = exchange == null ? null : exchange.site();
            String route = exchange == null ? null : exchange.routeName();
            int status = recycled(response) ? CLIENT_GONE : response.getStatus();
            observer.done(site == null ? RequestObserver.NONE : site.name(), route == null ? RequestObserver.NONE : route,
                    status, System.nanoTime() - start);
            if (status != CLIENT_GONE) {
                try {
                    if (target != null && target.cut) {
                        // Completed, the response would end as if whole (chunked: with its last chunk). Back
                        // on a container thread, the servlet throws, and the container closes the connection.
                        request.setAttribute(CUT, exchange.id());
                        async.dispatch();
                    } else {
                        async.complete();
                    }
                } catch (IllegalStateException e) {
                    LOG.log(System.Logger.Level.DEBUG, "the container completed " + uri + " first: " + e.getMessage());
                }
            }
        }
    }

    /**
     * The status a request is counted with when its client went away while its page was being
     * written and the container, seeing the broken connection on its own thread, had already
     * finished the exchange (nginx's "client closed request"): nothing was answered.
     */
    public static final int CLIENT_GONE = 499;

    /**
     * Whether the container has finished this response and handed its object to another request:
     * a client that goes away while a worker writes its page makes the container close the
     * exchange on a thread of its own, and every later call on the response then throws.
     */
    private static boolean recycled(HttpServletResponse response) {
        try {
            response.isCommitted();
            return false;
        } catch (IllegalStateException e) {
            return true;
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
            String page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title></head>"
                    + "<body><h1>" + escape(title) + "</h1><pre>" + escape(message) + "</pre></body></html>\n";
            // Its length up front: a refusal sent before the connection lingers (Linger) is then
            // whole to a client at once, rather than ending only when the connection closes.
            response.setContentLength(page.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
            PrintWriter w = response.getWriter();
            w.print(page);
        } catch (IOException | IllegalStateException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot write error page: " + e);
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
        workers.close(30);
    }

    /** The HTTP response as a response target: reset while nothing is committed. */
    private static final class Target implements ResponseTarget {
        private final HttpRequest request;
        private final HttpServletResponse response;
        private final Sites sites;
        /** The page failed once part of it was on the wire: the response must end as incomplete (see {@link #CUT}). */
        boolean cut;

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
            if (response.isCommitted()) {
                cut = true;
                return false;
            }
            response.reset();
            response.setBufferSize(BUFFER);
            return true;
        }
    }

    /** The container's request seen as an {@link HttpRequest}; nothing is copied but the body, read before. */
    private static final class View implements HttpRequest {
        private final HttpServletRequest r;
        /** The body as read by {@link BodyRead}, or null when there is none. */
        private final byte[] body;

        View(HttpServletRequest r, byte[] body) {
            this.r = r;
            this.body = body;
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
        @Override public InputStream body() { return new java.io.ByteArrayInputStream(body == null ? new byte[0] : body); }
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
