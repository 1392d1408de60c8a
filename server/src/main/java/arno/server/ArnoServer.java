package arno.server;

import arno.http.Endpoint;
import arno.pipeline.ArnoServlet;
import arno.pipeline.PipelineConfig;
import arno.pipeline.SiteRegistry;
import arno.server.config.Config;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.AccessLogValve;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.catalina.valves.RemoteIpValve;

/**
 * Arno in an embedded Tomcat, from the one configuration: one connector on the configured address
 * and port, one context at "/", the Arno servlet for everything (other servlets may be
 * {@link #mount}ed beside it). The same sites' servlet, body rate and static folders can instead
 * be put into a servlet container's context ({@link #host}, the WAR); {@link Parts} adds the
 * store, batch and operating parts to either.
 *
 * <p>Starting is two steps, so that no request is answered by a half-mounted server: {@link #bind}
 * compiles the sites and binds the port (so a port in use fails first, and the port is known) but
 * answers nothing; the caller {@link #mount}s every part; {@link #serve} then starts Tomcat, whose
 * connector accepts only after every context has started. A client that connects in between waits
 * in the listen backlog and is answered by the whole server: never a 404 from a part that was not
 * there yet, never a health check that says ready before the store API answers (issue 21).
 * {@link #start} is both steps at once, for servers with nothing to mount.
 *
 * <p>Tomcat's own error pages (for what it refuses before any servlet sees it: a malformed
 * request line, an encoded slash) show neither a stack trace nor Tomcat's version.
 *
 * <p>Operating: text responses are gzipped by the connector ({@link Compression}); behind
 * configured trusted proxies, Tomcat's RemoteIpValve makes the request carry the client's
 * address, scheme, host and port from X-Forwarded-For, -Proto, -Host and -Port, so req:request,
 * redirects, site routing by host and the access log all see the client; the access log is
 * Tomcat's AccessLogValve with {@link #ACCESS_LOG_PATTERN}.
 */
public final class ArnoServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");
    /** Bytes of a response Tomcat sends per write; see where the connector is set up. */
    static final int WRITE_BUFFER = 32 * 1024;
    /**
     * The access log's line: Apache's combined format (client address, identity "-", user, time,
     * request line, status, body bytes sent or "-", Referer, User-Agent), then the request id (the
     * one in req:request/@id, in log lines and error ids; "-" for what no site answered) and the
     * time taken in microseconds. Behind a trusted proxy the address is the client's.
     */
    public static final String ACCESS_LOG_PATTERN = "%h %l %u %t \"%r\" %s %b \"%{Referer}i\" \"%{User-Agent}i\" %{"
            + ArnoServlet.REQUEST_ID + "}r %D";

    /** The embedded Tomcat, its connector and work folder; null when hosted by a container. */
    private final Tomcat tomcat;
    private final Connector connector;
    private final Path work;
    /** The container's context this server's servlets are added to; null when embedded. */
    private final jakarta.servlet.ServletContext hosted;
    private final SiteRegistry registry;
    private final ArnoServlet servlet;
    private final Config config;

    private ArnoServer(Tomcat tomcat, Connector connector, Path work, jakarta.servlet.ServletContext hosted,
            SiteRegistry registry, ArnoServlet servlet, Config config) {
        this.tomcat = tomcat;
        this.connector = connector;
        this.work = work;
        this.hosted = hosted;
        this.registry = registry;
        this.servlet = servlet;
        this.config = config;
    }

    /**
     * The pipeline's settings from the server's configuration: the shared packages from the
     * checkout's folders under {@code config.home()} when they are there (so development reloads
     * edits), else from the jars on the class path.
     */
    public static PipelineConfig pipelineConfig(Config config) {
        List<Path> folders = new ArrayList<>();
        for (String f : List.of("templates/xsl", "stylesheets/packages")) {
            Path folder = config.home().resolve(f);
            if (Files.isDirectory(folder)) folders.add(folder);
        }
        return new PipelineConfig(config.content(), folders, true, config.sites(), !config.production(),
                config.bodyLimit(), config.routeTimeout(), config.sourceCache(), config.xmlLimits(), config.outbound(),
                config.hosts(), config.cache(), config.pageCaches(), config.pageCacheMemory());
    }

    /**
     * Compiles the sites and starts serving them. {@code store} is behind {@code store:} URIs (null
     * for none; the caller owns and closes it). Fails with {@link ErrorCode#SITE_ERROR} (file,
     * line, column) when a site or package is broken, {@link ErrorCode#BAD_CONFIGURATION} for a
     * setting that cannot be used, {@link ErrorCode#PORT_UNAVAILABLE} when the port cannot be
     * listened on.
     */
    public static ArnoServer start(Config config, DocumentStore store) {
        return start(config, store, null);
    }

    /**
     * As {@link #start(Config, DocumentStore, arno.cache.Ticker)}, but serving nothing yet: the
     * sites are compiled and the port is bound ({@link #port()} is known, and a port in use has
     * failed with {@link ErrorCode#PORT_UNAVAILABLE}), and requests wait until {@link #serve}. What
     * is {@link #mount}ed in between answers from the first request on.
     */
    public static ArnoServer bind(Config config, DocumentStore store) {
        return bind(config, store, null);
    }

    /**
     * As {@link #start(Config, DocumentStore)}, with the page caches timed by {@code clock}
     * (nanoseconds since the epoch; null for the wall clock): for tests of expiry. The sites' page
     * caches keep their disk tiers under {@code DATA/cache/SITE} and, when {@code store} is Arno's
     * store, follow its change feed to evict the pages that depend on what each commit changed.
     */
    public static ArnoServer start(Config config, DocumentStore store, arno.cache.Ticker clock) {
        ArnoServer server = bind(config, store, clock);
        try {
            server.serve();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private static ArnoServer bind(Config config, DocumentStore store, arno.cache.Ticker clock) {
        arno.server.config.Logging.apply(config.logLevel(), config.logFile());
        SiteRegistry registry = sites(config, store, clock);
        Path work;
        try {
            // Tomcat's own folder (it needs one to start; Arno keeps nothing in it) beside the node's data
            // when there is a data folder, not in /tmp: a temporary-files cleaner there (tmpwatch,
            // systemd-tmpfiles, or a CI machine's) removed one between its creation and Tomcat's start.
            work = Files.isDirectory(config.data()) ? Files.createTempDirectory(config.data(), ".tomcat-")
                    : Files.createTempDirectory("arno-tomcat");
        } catch (IOException e) {
            throw ErrorMessage.WORK_FOLDER_NOT_CREATED.error(e, e.getMessage());
        }
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.toString());
        Connector connector = new Connector(new Compression.Protocol());
        connector.setPort(config.port());
        connector.setProperty("address", config.bind());
        // Keep-alive connections are reused for as many requests as clients like (load tests, proxies).
        connector.setProperty("maxKeepAliveRequests", "-1");
        // Tomcat writes a response to the socket one write buffer at a time: at its default 8 KB a
        // 49 KB page took seven system calls. 32 KB per open connection (idle ones too, hence not
        // more) gave 16% more full-text pages/s (perf/RESULTS.md).
        connector.setProperty("socket.appWriteBufSize", Integer.toString(WRITE_BUFFER));
        connector.setMaxPostSize((int) Math.min(Integer.MAX_VALUE, config.bodyLimit()));
        // Bounded bodies (issue 14). Pages read theirs before a worker takes them (ArnoServlet); the
        // servlets mounted beside them read on Tomcat's threads and are held to the same rate by
        // BodyDeadline. A read that waits for bytes that do not come is Tomcat's to end: while a body
        // is read the socket's time-out is connectionUploadTimeout (the body time limit), not the
        // keep-alive one. A body a servlet left unread is never swallowed (maxSwallowSize 0): the
        // connection is closed instead, so draining a trickle holds no thread either.
        connector.setProperty("disableUploadTimeout", "false");
        connector.setProperty("connectionUploadTimeout", Long.toString(Math.min(Integer.MAX_VALUE,
                config.bodyRate().timeLimit().toMillis())));
        connector.setProperty("maxSwallowSize", "0");
        connector.setURIEncoding("UTF-8");
        // A port in use must fail the start, not leave a server that answers nothing.
        connector.setThrowOnFailure(true);
        if (config.compression()) {
            connector.setProperty("compression", "on");
            connector.setProperty("compressibleMimeType", Compression.TYPES);
            connector.setProperty("compressionMinSize", Integer.toString(Compression.MIN_SIZE));
        }
        tomcat.setConnector(connector);
        if (!config.trustedProxies().isEmpty()) tomcat.getEngine().getPipeline().addValve(proxies(config.trustedProxies()));
        if (config.accessLog() != null) tomcat.getEngine().getPipeline().addValve(accessLog(config.accessLog()));
        StandardHost host = (StandardHost) tomcat.getHost();
        host.setErrorReportValveClass(QuietErrorReportValve.class.getName());
        Context context = tomcat.addContext("", null);
        ArnoServlet servlet = sitesServlet(config, registry);
        Tomcat.addServlet(context, SITES_SERVLET, servlet).setAsyncSupported(true);
        context.addServletMappingDecoded("/", SITES_SERVLET);
        // Before the start: a filter added to a started context is never called.
        filterEverything(context, "body-deadline", new BodyDeadline(config.bodyRate(), SITES_SERVLET));
        // Static files: SITES/static at /static, each site's static folder at PREFIX/static (Tomcat
        // maps a request to the longest matching context path, so these never reach the sites).
        try {
            registry.current().staticFolders().forEach((path, folder) -> StaticFiles.mount(tomcat, path, folder));
        } catch (RuntimeException e) {
            stopQuietly(tomcat, work);
            registry.close();
            throw e;
        }
        try {
            // Binds the port (the connector binds on init) without accepting: nothing is answered before serve().
            tomcat.init();
        } catch (LifecycleException | RuntimeException e) {
            stopQuietly(tomcat, work);
            registry.close();
            throw unavailable(config, e);
        }
        if (connector.getState() != LifecycleState.INITIALIZED || connector.getLocalPort() < 0) {
            stopQuietly(tomcat, work);
            registry.close();
            throw unavailable(config, null);
        }
        return new ArnoServer(tomcat, connector, work, null, registry, servlet, config);
    }

    /**
     * Starts answering on the port {@link #bind} bound, with everything {@link #mount}ed so far:
     * Tomcat starts the contexts, then the connector. Once only; a hosted server is the container's.
     */
    public void serve() {
        if (tomcat == null) throw new IllegalStateException("a hosted server is started by its container");
        // The port is bound already: what fails here is Tomcat itself, not the user's choice of port.
        try {
            tomcat.start();
        } catch (LifecycleException | RuntimeException e) {
            throw ErrorMessage.TOMCAT_NOT_SERVING.error(e, config.bind(), port(), e.getMessage());
        }
        if (connector.getState() != LifecycleState.STARTED) {
            throw ErrorMessage.TOMCAT_NOT_SERVING_LOG.error(config.bind(), port());
        }
        // Tomcat made its contexts' work folders (empty: nothing here uploads) under the umask; what is in the
        // data folder is the owner's alone
        try (java.util.stream.Stream<Path> made = Files.walk(work)) {
            for (Path p : made.toList()) arno.xml.OwnerOnly.restrict(p);
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot make Tomcat's folder " + work + " its owner's only: " + e.getMessage());
        }
        LOG.log(System.Logger.Level.INFO, "Arno serves " + registry.current().names() + " on http://" + config.bind() + ":"
                + connector.getLocalPort() + "/ with " + config.workers() + " workers, queue " + config.queue()
                + (config.production() ? "" : " (development mode)"));
    }

    /**
     * Arno inside a servlet container that runs {@code ctx} (the WAR): the same sites' servlet at
     * "/", the same body rate for the servlets {@link #mount}ed beside it, the sites' static folders
     * at the same paths under the context path; what belongs to a connector or an engine (the port,
     * compression, trusted proxies, the access log, log files) is the container's. Must be called
     * while {@code ctx} initialises (a listener's contextInitialized), as must {@link #mount}.
     * {@code store} as for {@link #start(Config, DocumentStore)}.
     */
    public static ArnoServer host(jakarta.servlet.ServletContext ctx, Config config, DocumentStore store) {
        SiteRegistry registry = sites(config, store, null);
        try {
            ArnoServlet servlet = sitesServlet(config, registry);
            jakarta.servlet.ServletRegistration.Dynamic pages = ctx.addServlet(SITES_SERVLET, servlet);
            // Pipelines run on Arno's workers, not on the container's request threads.
            pages.setAsyncSupported(true);
            pages.addMapping("/");
            jakarta.servlet.FilterRegistration.Dynamic bodies = ctx.addFilter("body-deadline",
                    new BodyDeadline(config.bodyRate(), SITES_SERVLET));
            bodies.setAsyncSupported(true);
            bodies.addMappingForUrlPatterns(null, false, "/*");
            ArnoServer server = new ArnoServer(null, null, null, ctx, registry, servlet, config);
            registry.current().staticFolders().forEach(server::mountFiles);
            return server;
        } catch (RuntimeException e) {
            registry.close();
            throw e;
        }
    }

    /** The servlet name of the sites' servlet (exempt from {@link BodyDeadline}: it reads bodies itself). */
    private static final String SITES_SERVLET = "arno";

    /**
     * The sites compiled from {@code config}, their page caches following the store's change feed
     * when {@code store} is Arno's store.
     */
    private static SiteRegistry sites(Config config, DocumentStore store, arno.cache.Ticker clock) {
        ArnoServlet.check(config.workers(), config.queue()); // before compiling the sites
        Config.requireFolder(config.sites(), "sites folder");
        PipelineConfig pipeline = pipelineConfig(config);
        SiteRegistry registry = clock == null ? SiteRegistry.start(pipeline, store) : SiteRegistry.start(pipeline, store, clock);
        if (store instanceof arno.store.Store s) registry.followChanges(changeFeed(s));
        return registry;
    }

    private static ArnoServlet sitesServlet(Config config, SiteRegistry registry) {
        return new ArnoServlet(registry, config.workers(), config.queue(), config.bodyRate());
    }

    /**
     * Tomcat's RemoteIpValve trusting {@code trusted} (addresses and CIDR blocks, checked by
     * {@link Config}) and no one else: a bare address becomes a /32 or /128 block, since the valve
     * reads the list as CIDR blocks only when each has a prefix (else as one regular expression).
     * The client is the rightmost X-Forwarded-For entry that is not a trusted proxy.
     */
    static RemoteIpValve proxies(List<String> trusted) {
        List<String> blocks = new ArrayList<>();
        for (String t : trusted) blocks.add(t.indexOf('/') >= 0 ? t : t + (t.indexOf(':') >= 0 ? "/128" : "/32"));
        RemoteIpValve v = new RemoteIpValve();
        v.setInternalProxies(String.join(",", blocks));
        v.setTrustedProxies("");
        v.setRemoteIpHeader("X-Forwarded-For");
        v.setProtocolHeader("X-Forwarded-Proto");
        v.setHostHeader("X-Forwarded-Host");
        v.setPortHeader("X-Forwarded-Port");
        // The access log is written after the valve has put the proxy's values back: it reads the client's from attributes.
        v.setRequestAttributesEnabled(true);
        return v;
    }

    /** The access log in {@code file} (appended to, never rotated by date: logrotate's copytruncate rotates it). */
    static AccessLogValve accessLog(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw ErrorMessage.ACCESS_LOG_UNWRITABLE.error(e, file, e);
        }
        if (Files.exists(file) && !Files.isWritable(file)) {
            throw ErrorMessage.ACCESS_LOG_NOT_WRITABLE.error(file);
        }
        AccessLogValve v = new AccessLogValve();
        v.setDirectory(parent.toString());
        v.setPrefix(file.getFileName().toString());
        v.setSuffix("");
        v.setRotatable(false);
        v.setEncoding("UTF-8");
        v.setPattern(ACCESS_LOG_PATTERN);
        v.setRequestAttributesEnabled(true);
        // Each line written when its request ends, not kept in a buffer until a flush: a crash or a
        // kill loses no line, and a request answered just before a stop is still logged.
        v.setBuffered(false);
        return v;
    }

    /** The store's change feed as the page caches follow it: one read snapshot per poll. */
    static arno.pipeline.ChangeFeed changeFeed(arno.store.Store store) {
        return new arno.pipeline.ChangeFeed() {
            @Override
            public long version() {
                try (arno.store.Snapshot s = store.read()) {
                    return s.version();
                }
            }

            @Override
            public List<Change> since(long version, int seq, int limit) {
                try (arno.store.Snapshot s = store.read()) {
                    List<Change> out = new ArrayList<>();
                    for (arno.store.Change c : s.changesSince(version, seq, limit)) {
                        out.add(new Change(c.version(), c.seq(), c.uri(), c.kind() == arno.store.Change.Kind.DELETE));
                    }
                    return out;
                }
            }
        };
    }

    private static RuntimeException unavailable(Config config, Throwable cause) {
        return ErrorCode.PORT_UNAVAILABLE.error(cause, config.bind(), config.port());
    }

    /**
     * Tomcat's error page without the stack trace and without Tomcat's version; or, where a servlet
     * left the error it could not write ({@link arno.xml.ErrorXml#UNSENT}: Tomcat takes the response
     * when reading a body fails, e.g. an upload that breaks off), that error as {@code err:error}.
     */
    public static final class QuietErrorReportValve extends ErrorReportValve {
        public QuietErrorReportValve() {
            setShowReport(false);
            setShowServerInfo(false);
        }

        @Override
        protected void report(org.apache.catalina.connector.Request request, org.apache.catalina.connector.Response response,
                              Throwable throwable) {
            Object unsent = request.getAttribute(arno.xml.ErrorXml.UNSENT);
            // A request line or headers past the connector's limit (a 10,000-character search in the
            // URL): Tomcat refuses it before any servlet, and its page would not say why.
            if (unsent == null && response.getStatus() == 400 && throwable != null
                    && String.valueOf(throwable.getMessage()).contains("too large")) {
                unsent = arno.xml.ErrorMessage.REQUEST_HEAD_TOO_LARGE.error(throwable, throwable.getMessage());
            }
            if (!(unsent instanceof arno.xml.ArnoException e) || response.getContentWritten() > 0) {
                super.report(request, response, throwable);
                return;
            }
            if (!response.setErrorReported()) return;
            byte[] body = arno.xml.ErrorXml.toBytes(e, null, false);
            try {
                response.setStatus(e.status());
                response.setContentType("application/xml;charset=UTF-8");
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
                response.finishResponse();
            } catch (IOException | IllegalStateException gone) {
                // The client closed its side too: there is no one to answer.
            }
        }
    }

    /** Pipelines run at once; the other requests wait in arrival order. */
    public int workers() {
        return servlet.workers();
    }

    /** Requests waiting for a worker now. */
    public int waiting() {
        return servlet.waiting();
    }

    /** Requests whose pipelines are running now. */
    public int running() {
        return servlet.running();
    }

    /**
     * Whether page requests are waiting: some queue for a worker, or every worker runs one. Batch
     * workers give way while it is true (page work comes first). Two reads of the worker pool's state
     * (its queue's count, its active count under the pool's own lock, held briefly): cheap beside the
     * 256 template or function calls between a transformation's checkpoints.
     */
    public boolean pagesWaiting() {
        return servlet.waiting() > 0 || servlet.running() >= servlet.workers();
    }

    /** Tells {@code observer} of every request the sites answer (the metrics). */
    public void observe(arno.pipeline.RequestObserver observer) {
        servlet.observe(observer);
    }

    /** The port the embedded server listens on; -1 when a container hosts it. */
    public int port() {
        return connector == null ? -1 : connector.getLocalPort();
    }

    /** The sites being served (reloaded on change in development). */
    public SiteRegistry sites() {
        return registry;
    }

    /**
     * Serves {@code servlet} at {@code pattern} (e.g. "/batch/*") beside the sites. Mounted
     * paths take precedence over sites, so they must not collide with a site prefix. Request
     * bodies reach the servlet held to the configured body rate ({@link BodyDeadline}). Mount
     * between {@link #bind} and {@link #serve} (or while a container initialises the context), so
     * the servlet answers from the first request; mounted later, the path answers 404 until then.
     */
    public void mount(String name, String pattern, jakarta.servlet.http.HttpServlet servlet) {
        mount(name, pattern, Endpoint.of(servlet));
    }

    /**
     * As {@link #mount(String, String, jakarta.servlet.http.HttpServlet)}, the servlet behind its
     * filters (its {@link arno.http.AuthFilter}, the production write gate), which see only its requests.
     */
    public void mount(String name, String pattern, Endpoint endpoint) {
        if (hosted != null) endpoint.mount(hosted, name, pattern);
        else endpoint.mount((Context) tomcat.getHost().findChild(""), name, pattern);
    }

    /**
     * Puts {@code filter} in front of every request of the server's context (pages and every part
     * mounted there), after the body deadline. Before {@link #serve} (or while the WAR's context
     * initialises), as {@link #mount}: Tomcat never calls a filter added to a started context.
     */
    public void filterEverything(String name, jakarta.servlet.Filter filter) {
        if (hosted != null) {
            jakarta.servlet.FilterRegistration.Dynamic f = hosted.addFilter(name, filter);
            f.setAsyncSupported(true);
            f.addMappingForUrlPatterns(null, true, "/*");
            return;
        }
        Context context = (Context) tomcat.getHost().findChild("");
        if (context.getState().isAvailable()) {
            throw new IllegalStateException("the filter " + name + " must be added before the server serves");
        }
        filterEverything(context, name, filter);
    }

    /** {@code filter} for "/*" of the embedded {@code context}, after those added before it. */
    private static void filterEverything(Context context, String name, jakarta.servlet.Filter filter) {
        org.apache.tomcat.util.descriptor.web.FilterDef def = new org.apache.tomcat.util.descriptor.web.FilterDef();
        def.setFilterName(name);
        def.setFilter(filter);
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        org.apache.tomcat.util.descriptor.web.FilterMap map = new org.apache.tomcat.util.descriptor.web.FilterMap();
        map.setFilterName(name);
        map.addURLPatternDecoded("/*");
        context.addFilterMap(map);
    }

    /**
     * Serves the files under {@code folder} at the context path {@code path} (e.g. "/static")
     * as the sites' static folders are served ({@link StaticFiles}).
     */
    public void mountFiles(String path, Path folder) {
        if (hosted != null) StaticFiles.mount(hosted, path, folder);
        else StaticFiles.mount(tomcat, path, folder);
    }

    /**
     * Stops serving, then closes the page caches (what only memory holds is written to disk).
     * Hosted, the container has stopped serving (it destroys the servlets before the context's
     * listeners hear of the end), so only the page caches are closed.
     */
    @Override
    public void close() {
        if (tomcat != null) stopQuietly(tomcat, work);
        registry.close();
    }

    private static void stopQuietly(Tomcat tomcat, Path work) {
        try {
            // Bound but never served: there is nothing to stop, only the port to release.
            if (tomcat.getServer().getState() != LifecycleState.INITIALIZED) tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            LOG.log(System.Logger.Level.WARNING, "Tomcat did not stop cleanly: " + e.getMessage());
        }
        org.apache.commons.io.FileUtils.deleteQuietly(work.toFile());
    }
}
