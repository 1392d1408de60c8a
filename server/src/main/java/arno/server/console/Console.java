package arno.server.console;

import arno.batch.BatchService;
import arno.fulltext.FtSearchLibrary;
import arno.fulltext.FulltextIndex;
import arno.http.AuthFilter;
import arno.http.Endpoint;
import arno.pipeline.ContextCacheStats;
import arno.pipeline.PageCacheStats;
import arno.pipeline.RecentErrors;
import arno.pipeline.RequestObserver;
import arno.pipeline.SiteRegistry;
import arno.pipeline.SiteSummary;
import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.server.ops.HeapAfterGc;
import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.query.StoreQuery;
import arno.xml.Access;
import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The admin console at {@code /_arno/}: server-rendered HTML pages (overview, sites and routes,
 * recent errors, caches, store, batch, plots) and three actions (clear a site's caches, run a
 * query on a snapshot, cancel a batch job).
 *
 * <p>Security: every page, the style sheet and every action need an account with the admin role
 * (HTTP Basic, checked by the {@link AuthFilter} in front of it: throttled, hashed off the request
 * thread; 401 with a challenge, 403 for another account). Actions are POST only, and a POST must
 * come from this origin: its {@code Origin} (or, without one, its {@code Referer}) must be this
 * server's scheme and host, which a cross-site form cannot forge, so a logged-in browser cannot be
 * made to act by another site (the pages send {@code Referrer-Policy: same-origin} so that the
 * Referer is there for old browsers). Everything is escaped ({@link Html}); the pages carry no
 * script, and a Content-Security-Policy forbids any, with frames and foreign forms.
 *
 * <p>The query box runs XQuery over one snapshot of the store (and {@code store:ft-search} over
 * the store's full-text index, bounded as every search is) under the server's one access
 * policy ({@link Access}): no local file at all (not the accounts, not the run file, not
 * {@code /etc/passwd}), no environment variable, URLs only by the outbound policy that pages and
 * batch jobs follow (no loopback or private address unless the configuration allows them). One
 * query at a time, on a thread of its own, within {@link Limits}: a time limit and a brake that
 * stops it when a garbage collection during the run leaves the heap fuller than its share (both
 * checked where it reads, writes and loops: {@link StoreQuery}), and a result cap. A query that
 * does not stop by its time limit and a grace period (it is inside one step Saxon cannot
 * interrupt) is abandoned: the page says so at once, and no other query runs until it ends.
 */
public final class Console implements AutoCloseable {
    /** Where it is mounted. */
    public static final String PATH = "/_arno";
    static final int CHANGES = 50;

    /**
     * The query box's limits.
     *
     * @param time        how long a query may run
     * @param grace       how long past {@code time} the page waits for a query that has not stopped
     *                    before abandoning it
     * @param resultChars characters of result kept and shown
     * @param heapShare   the share of the maximum heap that may be in use after a collection while
     *                    a query runs; beyond it the query is stopped ({@code query-memory})
     */
    record Limits(Duration time, Duration grace, int resultChars, double heapShare) {
        static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), Duration.ofSeconds(2), 256 * 1024, 0.85);
    }

    private final SiteRegistry sites;
    private final ArnoServer server;
    private final Config config;
    private final Store store;
    private final BatchService batch;
    private final Accounts accounts;
    /** This node's part of a cluster, or null for a single node. */
    private final arno.server.ops.Health.Cluster cluster;
    private final Samples samples;
    private final Semaphore querying = new Semaphore(1);
    private final String version = version();
    private final Limits limits;
    private final Access access;
    private final HeapAfterGc heap = new HeapAfterGc();
    /** The query running now (or abandoned and still running), or null. */
    private volatile Run running;
    private volatile boolean closing;

    /** {@code store} and {@code batch} may be null: the server runs without them. */
    public Console(ArnoServer server, Config config, Store store, BatchService batch, Accounts accounts) {
        this(server, config, store, batch, accounts, Limits.DEFAULT, null);
    }

    /** As {@link #Console(ArnoServer, Config, Store, BatchService, Accounts)}, for a cluster node ({@code cluster} null: a single node). */
    public Console(ArnoServer server, Config config, Store store, BatchService batch, Accounts accounts,
            arno.server.ops.Health.Cluster cluster) {
        this(server, config, store, batch, accounts, Limits.DEFAULT, cluster);
    }

    Console(ArnoServer server, Config config, Store store, BatchService batch, Accounts accounts, Limits limits) {
        this(server, config, store, batch, accounts, limits, null);
    }

    private Console(ArnoServer server, Config config, Store store, BatchService batch, Accounts accounts, Limits limits,
            arno.server.ops.Health.Cluster cluster) {
        this.cluster = cluster;
        this.limits = limits;
        // No folders: the data folder holds the accounts and the run file's loopback token.
        this.access = new Access(FileRoots.none(), FileRoots.none(), new Outbound(config.outbound()),
                new XmlPolicy(config.xmlLimits()));
        this.server = server;
        this.sites = server.sites();
        this.config = config;
        this.store = store;
        this.batch = batch;
        this.accounts = accounts;
        this.samples = new Samples(sites::cacheStats);
    }

    /** What the pipeline tells of each finished request (the plots' request rate and latency). */
    public RequestObserver observer() {
        return samples;
    }

    /**
     * What to mount at {@code /_arno/*}: the servlet behind the filter that lets admins in; its
     * refusals are the console's error page. {@code /metrics} and {@code /health} are open: when
     * their own servlets are not mounted, the console answers them 404.
     */
    public Endpoint endpoint() {
        AuthFilter filter = AuthFilter.builder(accounts, "arno-console", (req, resp, e) -> {
                    headers(resp);
                    failure(req, resp, e);
                })
                .open(AuthFilter.paths("/metrics", "/health"))
                .require(AuthFilter.any(), Accounts.Role.ADMIN, null)
                .forbidden(ErrorMessage.CONSOLE_NEEDS_ADMIN)
                .build();
        return Endpoint.of(new Servlet(), filter);
    }

    /** What every answer of the console carries, refusals included: no caching, no sniffing, no framing, no script. */
    private static void headers(HttpServletResponse resp) {
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        resp.setHeader("X-Frame-Options", "DENY");
        resp.setHeader("Referrer-Policy", "same-origin");
        resp.setHeader("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:;"
                + " form-action 'self'; frame-ancestors 'none'; base-uri 'self'");
    }

    /**
     * Stops the sampling and the query under way: its brake says the server is stopping, and this
     * waits up to the grace period for it to let go of its snapshot (the store closes after this).
     */
    @Override
    public void close() {
        closing = true;
        samples.close();
        Run r = running;
        if (r != null) r.await(limits.grace());
        heap.close();
    }

    private final class Servlet extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            headers(resp);
            String path = req.getPathInfo() == null ? "" : req.getPathInfo();
            String method = req.getMethod();
            if (path.equals("/metrics") || path.equals("/health")) {
                // Their own servlets answer them when they are on (an exact mapping wins); off, they are not here.
                resp.sendError(404);
                return;
            }
            if (!AuthFilter.admitted(req)) {
                failure(req, resp, ErrorMessage.MOUNTED_WITHOUT_FILTER.error("the console", "Console.endpoint()"));
                return;
            }
            if (path.isEmpty()) {
                resp.sendRedirect(req.getContextPath() + PATH + "/");
                return;
            }
            try {
                if (method.equals("POST")) {
                    if (!sameOrigin(req)) {
                        throw ErrorMessage.FOREIGN_CONSOLE_ACTION.error(origin(req));
                    }
                    req.setCharacterEncoding("UTF-8");
                    switch (path) {
                        case "/caches/clear" -> clear(req, resp);
                        case "/store/query" -> page(req, resp, "store", "Store", h -> store(h, req, true));
                        case "/batch/cancel" -> cancel(req, resp);
                        default -> throw ErrorMessage.NO_CONSOLE_ACTION.error(path);
                    }
                    return;
                }
                if (!method.equals("GET") && !method.equals("HEAD")) {
                    resp.setHeader("Allow", "GET, HEAD, POST");
                    throw ErrorCode.METHOD_NOT_ALLOWED.error(PATH + path, method, "GET, HEAD, POST");
                }
                switch (path) {
                    case "/" -> page(req, resp, "", "Overview", this::overview);
                    case "/sites" -> page(req, resp, "sites", "Sites and routes", this::sites);
                    case "/errors" -> page(req, resp, "errors", "Recent errors", this::errors);
                    case "/caches" -> page(req, resp, "caches", "Caches", this::caches);
                    case "/store" -> page(req, resp, "store", "Store", h -> store(h, req, false));
                    case "/batch" -> page(req, resp, "batch", "Batch jobs", h -> batch(h, req));
                    case "/plots" -> page(req, resp, "plots", "Plots", this::plots);
                    case "/console.css" -> css(resp);
                    default -> {
                        if (path.startsWith("/errors/")) {
                            String id = path.substring("/errors/".length());
                            RecentErrors.Entry e = sites.recentErrors().find(id);
                            if (e == null) throw ErrorMessage.ERROR_FORGOTTEN.error(id, RecentErrors.CAPACITY);
                            page(req, resp, "errors", "Error " + id, h -> error(h, e));
                        } else {
                            throw ErrorMessage.NO_CONSOLE_PAGE.error(path);
                        }
                    }
                }
            } catch (ArnoException e) {
                failure(req, resp, e);
            }
        }

        private void overview(Html h) {
            Duration up = Duration.ofMillis(ManagementFactory.getRuntimeMXBean().getUptime());
            h.open("table");
            row(h, "Version", version);
            row(h, "Uptime", String.format(Locale.ROOT, "%dd %02d:%02d:%02d", up.toDays(), up.toHoursPart(), up.toMinutesPart(), up.toSecondsPart()));
            row(h, "Mode", config.production() ? "production" : "development");
            boolean sitesOk;
            try {
                sites.current();
                sitesOk = true;
            } catch (RuntimeException e) {
                sitesOk = false;
            }
            row(h, "Sites", sitesOk ? "compiled" : "not compiled (the log says why)");
            row(h, "Store", store == null ? "not used" : store.isOpen() ? "open, version " + store.version() : "closed");
            row(h, "Batch", batch == null ? "not used" : batch.figures().open() ? "running" : "stopping");
            List<Samples.Point> points = samples.points();
            Samples.Point last = points.isEmpty() ? null : points.get(points.size() - 1);
            row(h, "Requests", last == null ? "no sample yet" : String.format(Locale.ROOT, "%.1f/s over the last %d s", last.perSecond(),
                    Samples.PERIOD_MILLIS / 1000));
            row(h, "Page workers", server.running() + " busy of " + server.workers() + ", " + server.waiting() + " waiting");
            if (cluster != null) {
                String notReady = cluster.notReady();
                row(h, "Cluster", "position " + cluster.position() + " of " + Math.max(cluster.position(), cluster.head())
                        + (notReady == null ? ", ready" : ", not ready: " + notReady));
            }
            h.close("table");
            if (cluster != null) nodes(h);
        }

        /** Every node of the cluster as the last heartbeat read them (docs/operations.md, "The cluster"). */
        private void nodes(Html h) {
            h.el("h2", "Cluster nodes");
            List<arno.server.ops.Health.NodeRow> rows = cluster.nodes();
            if (rows.isEmpty()) {
                h.el("p", "No node has registered yet (the first heartbeat comes when the node serves).", "class", "note");
                return;
            }
            h.open("table", "id", "nodes").raw("<tr><th>Node</th><th>Address</th><th>Position</th><th>Lag</th><th>Last apply</th>"
                    + "<th>Heartbeat</th><th>State</th></tr>");
            for (arno.server.ops.Health.NodeRow n : rows) {
                h.open("tr").el("td", n.id()).el("td", dash(n.address())).el("td", Long.toString(n.position()))
                        .el("td", n.lag() + (n.lag() == 1 ? " position" : " positions"))
                        .el("td", n.lastApply() == null ? "none yet" : n.lastApply().toString())
                        .el("td", n.heartbeat().toString()).el("td", n.state()).close("tr");
            }
            h.close("table");
        }

        private void sites(Html h) {
            for (SiteSummary s : SiteSummary.of(sites.current())) {
                h.el("h2", s.name());
                h.open("p").text("Prefix: " + (s.prefix().isEmpty() ? "/" : s.prefix()) + "; hosts: "
                        + (s.hosts().isEmpty() ? "any" : String.join(", ", s.hosts()))).close("p");
                h.open("table").raw("<tr><th>Route</th><th>Pattern</th><th>Methods</th><th>Cache</th><th>Time limit</th></tr>");
                for (SiteSummary.RouteSummary r : s.routes()) {
                    h.open("tr").el("td", r.name()).el("td", r.pattern()).el("td", String.join(" ", r.methods()))
                            .el("td", r.cache() == null ? "none" : r.cache())
                            .el("td", r.timeoutMillis() > 0 ? r.timeoutMillis() + " ms" : "none").close("tr");
                }
                h.close("table");
            }
        }

        private void errors(Html h) {
            List<RecentErrors.Entry> list = sites.recentErrors().newestFirst();
            if (list.isEmpty()) {
                h.el("p", "No errors since the server started.", "class", "note");
                return;
            }
            h.open("table").raw("<tr><th>Error id</th><th>Time</th><th>Site</th><th>Route</th><th>Status</th><th>Code</th><th>Message</th></tr>");
            for (RecentErrors.Entry e : list) {
                h.open("tr").open("td").el("a", e.id(), "href", "errors/" + e.id()).close("td").el("td", e.time())
                        .el("td", dash(e.site())).el("td", dash(e.route())).el("td", e.status()).el("td", e.code())
                        .el("td", abbreviate(e.message(), 160)).close("tr");
            }
            h.close("table");
        }

        private void error(Html h, RecentErrors.Entry e) {
            h.open("table");
            row(h, "Error id", e.id());
            row(h, "Time", e.time().toString());
            row(h, "Site", dash(e.site()));
            row(h, "Route", dash(e.route()));
            row(h, "Status", Integer.toString(e.status()));
            row(h, "Code", e.code());
            row(h, "Location", dash(e.location()));
            h.close("table");
            h.el("pre", e.message(), "id", "message");
            h.el("p", "The log has the whole error (its causes and stack) under this id.", "class", "note");
        }

        private void caches(Html h) {
            Map<String, PageCacheStats> pages = sites.cacheStats();
            Map<String, ContextCacheStats> contexts = sites.contextStats();
            java.util.Set<String> names = new java.util.TreeSet<>(pages.keySet());
            names.addAll(contexts.keySet());
            if (names.isEmpty()) {
                h.el("p", "No site caches anything.", "class", "note");
                return;
            }
            for (String site : names) {
                h.el("h2", site);
                h.open("table", "class", "cache", "data-site", site)
                        .raw("<tr><th>Tier</th><th>Hit ratio</th><th>Entries</th><th>Bytes</th><th>Evictions</th><th>ARC p</th></tr>");
                PageCacheStats p = pages.get(site);
                if (p != null) {
                    long lookups = p.memory().hits() + p.disk().hits() + p.misses();
                    tier(h, "pages-memory", lookups == 0 ? Double.NaN : (double) p.memory().hits() / lookups, p.memory().entries(),
                            p.memory().bytes(), p.memory().evictions(), p.memory().arcTarget());
                    tier(h, "pages-disk", lookups == 0 ? Double.NaN : (double) p.disk().hits() / lookups, p.disk().entries(),
                            p.disk().bytes(), p.disk().evictions(), p.disk().arcTarget());
                }
                ContextCacheStats c = contexts.get(site);
                if (c != null) {
                    part(h, "fragments", c.fragments());
                    part(h, "sources", c.sources());
                }
                h.close("table");
                h.open("form", "class", "inline", "method", "post", "action", "caches/clear")
                        .open("input", "type", "hidden", "name", "site", "value", site)
                        .open("button", "type", "submit", "id", "clear-" + site).text("Clear " + site + "'s caches").close("button")
                        .close("form");
            }
        }

        private void part(Html h, String tier, ContextCacheStats.Part p) {
            long lookups = p.hits() + p.misses();
            tier(h, tier, lookups == 0 ? Double.NaN : (double) p.hits() / lookups, p.entries(), p.bytes(), p.evictions(), p.arcTarget());
        }

        private void tier(Html h, String tier, double ratio, long entries, long bytes, long evictions, double arcP) {
            h.open("tr", "data-tier", tier).el("td", tier)
                    .el("td", Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * ratio), "class", "n")
                    .el("td", entries, "class", "n entries").el("td", bytes, "class", "n bytes").el("td", evictions, "class", "n")
                    .el("td", String.format(Locale.ROOT, "%.0f", arcP), "class", "n").close("tr");
        }

        private void clear(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            String site = req.getParameter("site");
            if (site == null || site.isBlank()) throw ErrorMessage.CLEARING_NEEDS_SITE.error();
            Map<String, Integer> dropped = sites.clearCaches(site);
            if (dropped.isEmpty()) throw ErrorMessage.NO_CACHING_SITE.error(site);
            resp.sendRedirect(req.getContextPath() + PATH + "/caches");
        }

        private void store(Html h, HttpServletRequest req, boolean run) {
            if (store == null) {
                h.el("p", "This server does not use the store (--content-from files).", "class", "note");
                return;
            }
            h.open("table");
            row(h, "Version", Long.toString(store.version()));
            long version;
            List<Change> changes;
            try (Snapshot s = store.read()) {
                version = s.version();
                row(h, "Documents", Long.toString(s.count("")));
                List<Change> recent = s.changesSince(Math.max(0, version - CHANGES), 0, 10 * CHANGES);
                changes = recent.subList(Math.max(0, recent.size() - CHANGES), recent.size());
            }
            row(h, "Size on disk", store.diskBytes() + " bytes");
            row(h, "Open snapshots", Integer.toString(store.openSnapshots()));
            h.close("table");

            String query = run ? req.getParameter("query") : null;
            String context = run ? req.getParameter("context") : null;
            h.el("h2", "Query");
            h.open("form", "method", "post", "action", "store/query")
                    .open("p").el("label", "XQuery 3.1 over one snapshot (doc('store:/…'), collection('store:/…/'),"
                            + " store:ft-search('words') over the full-text index); no local"
                            + " files; at most " + limits.time().toSeconds() + " s and " + limits.resultChars() / 1024
                            + " KB of result:", "for", "query").close("p")
                    .open("textarea", "name", "query", "id", "query", "rows", "6").text(query == null ? "count(collection('store:/'))" : query)
                    .close("textarea")
                    .open("p").el("label", "Context document (a store path, optional): ", "for", "context")
                    .open("input", "name", "context", "id", "context", "size", "60", "value", context == null ? "" : context)
                    .raw(" ").open("button", "type", "submit", "id", "run").text("Run").close("button").close("p")
                    .close("form");
            if (run) query(h, query, context);

            h.el("h2", "Last changes");
            if (changes.isEmpty()) {
                h.el("p", "No changes in the feed.", "class", "note");
            } else {
                h.open("table").raw("<tr><th>Version</th><th>Change</th><th>URI</th><th>Type</th><th>Time</th></tr>");
                for (int i = changes.size() - 1; i >= 0; i--) {
                    Change c = changes.get(i);
                    h.open("tr").el("td", c.version(), "class", "n").el("td", c.kind().name().toLowerCase(Locale.ROOT)).el("td", c.uri())
                            .el("td", dash(c.mediaType())).el("td", c.time()).close("tr");
                }
                h.close("table");
            }
        }

        private void query(Html h, String query, String context) {
            if (query == null || query.isBlank()) {
                h.el("p", "The query is empty.", "class", "error", "id", "query-error");
                return;
            }
            if (closing) {
                h.el("p", "The server is stopping.", "class", "error", "id", "query-error");
                return;
            }
            if (!querying.tryAcquire()) {
                Run r = running;
                h.el("p", r != null && r.abandoned ? "A query abandoned at its time limit is still running (inside one step"
                        + " that cannot be stopped); no other query runs until it ends." : "Another console query is running;"
                        + " try again when it has finished.", "class", "error", "id", "query-error");
                return;
            }
            Run run = new Run(query, context == null || context.isBlank() ? null : context.strip());
            running = run;
            Thread t = new Thread(run, "arno-console-query");
            t.setDaemon(true);
            t.start();
            if (!run.await(limits.time().plus(limits.grace()))) {
                run.abandoned = true;
                h.el("p", "The query did not stop at its time limit of " + limits.time().toSeconds() + " s: it is inside one"
                        + " step that cannot be interrupted (a regular expression that backtracks, say). It is abandoned: it"
                        + " stops at its next check if it reaches one, and no other query runs until it ends.",
                        "class", "error", "id", "query-error");
                return;
            }
            if (run.failure == null) {
                h.el("p", String.format(Locale.ROOT, "Done in %.1f ms.", run.nanos / 1e6), "class", "ok");
            } else if (!run.out.full) {
                h.el("p", run.failure.code().code() + ": " + run.failure.describe(), "class", "error", "id", "query-error");
            }
            if (run.out.full) h.el("p", "The result is longer than " + limits.resultChars() + " characters; its start is shown.", "class", "error");
            h.el("pre", run.out.toString(), "id", "result");
        }

        private void batch(Html h, HttpServletRequest req) {
            if (batch == null) {
                h.el("p", "This server runs no batch service.", "class", "note");
                return;
            }
            List<BatchService.JobSummary> jobs = batch.summaries();
            if (jobs.isEmpty()) {
                h.el("p", "No jobs.", "class", "note");
                return;
            }
            h.open("table").raw("<tr><th>Job</th><th>Name</th><th>Account</th><th>State</th><th>Progress</th><th>Submitted</th><th></th></tr>");
            for (BatchService.JobSummary j : jobs) {
                h.open("tr", "data-job", j.id()).open("td")
                        .el("a", j.id(), "href", req.getContextPath() + "/batch/jobs/" + j.id() + "/report?format=html").close("td")
                        .el("td", dash(j.name())).el("td", dash(j.user())).el("td", j.state(), "class", "state")
                        .open("td").open("progress", "max", Long.toString(Math.max(1, j.total())), "value", Long.toString(j.done())).close("progress")
                        .text(" " + j.done() + " of " + j.total() + (j.failed() > 0 ? ", " + j.failed() + " failed" : "")).close("td")
                        .el("td", j.submitted()).open("td");
                if (j.state().equals("queued") || j.state().equals("running")) {
                    h.open("form", "class", "inline", "method", "post", "action", "batch/cancel")
                            .open("input", "type", "hidden", "name", "id", "value", j.id())
                            .open("button", "type", "submit", "id", "cancel-" + j.id()).text("Cancel").close("button").close("form");
                }
                h.close("td").close("tr");
            }
            h.close("table");
        }

        private void cancel(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (batch == null) throw ErrorMessage.NO_BATCH_SERVICE.error();
            String id = req.getParameter("id");
            if (id == null || id.isBlank()) throw ErrorMessage.CANCEL_NEEDS_ID.error();
            batch.cancelJob(id);
            resp.sendRedirect(req.getContextPath() + PATH + "/batch");
        }

        private void plots(Html h) {
            List<Samples.Point> points = samples.points();
            long now = System.currentTimeMillis();
            Plot.draw(h, "Request rate", "/s", points, now, null, new Plot.Series("requests/s", Samples.Point::perSecond));
            Plot.draw(h, "Latency", "ms", points, now, null, new Plot.Series("p50", Samples.Point::p50Millis),
                    new Plot.Series("p99", Samples.Point::p99Millis));
            Plot.draw(h, "Page cache hit ratio", "", points, now, 1.0, new Plot.Series("hits/lookups", Samples.Point::hitRatio));
        }

        private void css(HttpServletResponse resp) throws IOException {
            resp.setContentType("text/css; charset=utf-8");
            try (InputStream in = Console.class.getResourceAsStream("console.css"); OutputStream o = resp.getOutputStream()) {
                in.transferTo(o);
            }
        }

        private interface Body {
            void write(Html h);
        }

        private void page(HttpServletRequest req, HttpServletResponse resp, String here, String title, Body body) throws IOException {
            Html h = new Html();
            String base = req.getContextPath() + PATH + "/";
            h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                    .el("title", title + " · Arno console")
                    .open("link", "rel", "icon", "href", "data:,")
                    .open("link", "rel", "stylesheet", "href", base + "console.css")
                    .open("base", "href", base)
                    .raw("</head><body><header>");
            String[][] nav = {{"", "Overview"}, {"sites", "Sites"}, {"errors", "Errors"}, {"caches", "Caches"}, {"store", "Store"},
                    {"batch", "Batch"}, {"plots", "Plots"}};
            for (String[] n : nav) h.el("a", n[1], "href", base + n[0], "class", n[0].equals(here) ? "here" : null);
            h.raw("</header><main>").el("h1", title);
            body.write(h);
            h.raw("</main></body></html>\n");
            byte[] bytes = h.toString().getBytes(StandardCharsets.UTF_8);
            resp.setContentType("text/html; charset=utf-8");
            resp.setContentLength(bytes.length);
            if (req.getMethod().equals("HEAD")) return;
            try (OutputStream o = resp.getOutputStream()) {
                o.write(bytes);
            }
        }
    }

    /** The console's error page for {@code e}, with its status. */
    private static void failure(HttpServletRequest req, HttpServletResponse resp, ArnoException e) throws IOException {
        resp.setStatus(e.status());
        Html h = new Html();
        h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\">")
                .el("title", "Error " + e.status() + " · Arno console").raw("</head><body>")
                .el("h1", "Error " + e.status()).el("p", e.getMessage(), "class", "error", "id", "failure").raw("</body></html>\n");
        byte[] bytes = h.toString().getBytes(StandardCharsets.UTF_8);
        resp.setContentType("text/html; charset=utf-8");
        resp.setContentLength(bytes.length);
        if (req.getMethod().equals("HEAD")) return;
        try (OutputStream o = resp.getOutputStream()) {
            o.write(bytes);
        }
    }

    /** Whether a POST comes from this origin: its Origin, else its Referer, names this server's scheme and host. */
    static boolean sameOrigin(HttpServletRequest req) {
        String expected = origin(req);
        String origin = req.getHeader("Origin");
        if (origin != null) return origin.equalsIgnoreCase(expected);
        String referer = req.getHeader("Referer");
        return referer != null && (referer.equalsIgnoreCase(expected) || referer.regionMatches(true, 0, expected + "/", 0, expected.length() + 1));
    }

    private static String origin(HttpServletRequest req) {
        String host = req.getHeader("Host");
        return req.getScheme() + "://" + (host == null ? req.getServerName() + ":" + req.getServerPort() : host);
    }

    private static void row(Html h, String name, String value) {
        h.open("tr").el("th", name).el("td", value).close("tr");
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static String abbreviate(String s, int n) {
        return s == null ? "-" : s.length() <= n ? s : s.substring(0, n) + "…";
    }

    private static String version() {
        Properties p = new Properties();
        try (InputStream in = Console.class.getResourceAsStream("/arno/server/version.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            // unknown
        }
        return "Arno " + p.getProperty("version", "(unknown version)") + ", Java " + System.getProperty("java.version");
    }

    /**
     * One query of the query box, compiled and run on its own thread (so that the page can answer
     * when it does not stop), releasing the query slot when it ends, however late.
     */
    private final class Run implements Runnable {
        private final String query;
        private final String context;
        private final CountDownLatch ended = new CountDownLatch(1);
        final Capped out = new Capped(limits.resultChars());
        /** Collections seen before it started: the heap figure counts only after one of its own. */
        private final long collectionsBefore = heap.collections();
        volatile boolean abandoned;
        volatile ArnoException failure;
        volatile long nanos;

        Run(String query, String context) {
            this.query = query;
            this.context = context;
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            try {
                // store:ft-search reads the server's full-text index, attached to the store (none: search-unavailable)
                StoreQuery q = StoreQuery.compile(query, Path.of("").toAbsolutePath().toUri(), "query", access,
                        FtSearchLibrary.forQueries(() -> store.attached(FulltextIndex.class)));
                q.run(store, context, out, new StoreQuery.Reporting(null, false, false, false, limits.time(), System::nanoTime,
                        this::brake));
            } catch (RuntimeException e) {
                ArnoException a = ArnoException.find(e);
                failure = a != null ? a : ErrorMessage.CONSOLE_QUERY_FAILED.error(e, e);
            } catch (OutOfMemoryError e) {
                // What it held is unreachable now that its frames are gone: the server goes on.
                failure = ErrorMessage.QUERY_OUT_OF_MEMORY.error(Runtime.getRuntime().maxMemory() / (1 << 20));
            } catch (StackOverflowError e) {
                failure = ErrorMessage.QUERY_RECURSED.error();
            } finally {
                nanos = System.nanoTime() - t0;
                // the slot is free before the page that waits for this run is answered
                running = null;
                querying.release();
                ended.countDown();
            }
        }

        /** Why the query must stop now, or null: asked at its checks. */
        private ArnoException brake() {
            if (closing) return ErrorMessage.QUERY_SERVER_STOPPING.error();
            if (abandoned) return ErrorMessage.QUERY_ABANDONED.error(limits.time().toSeconds());
            long max = Runtime.getRuntime().maxMemory();
            long after = heap.afterLast();
            if (heap.collections() > collectionsBefore && after > limits.heapShare() * max) {
                return ErrorCode.QUERY_MEMORY.error(after >> 20, 100 * limits.heapShare(), max >> 20);
            }
            return null;
        }

        /** Waits for the end of the run up to {@code d}: true if it ended. */
        boolean await(Duration d) {
            try {
                return ended.await(d.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** A writer that keeps the first {@code limit} characters and then refuses more (ending the query). */
    private static final class Capped extends Writer {
        private final StringWriter text = new StringWriter();
        private final int limit;
        private int written;
        boolean full;

        Capped(int limit) {
            this.limit = limit;
        }

        @Override
        public void write(char[] buf, int off, int len) throws IOException {
            int room = limit - written;
            if (len > room) {
                text.write(buf, off, Math.max(0, room));
                written = limit;
                full = true;
                throw new IOException("the result is longer than " + limit + " characters");
            }
            text.write(buf, off, len);
            written += len;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
