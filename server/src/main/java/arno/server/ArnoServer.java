package arno.server;

import arno.pipeline.ArnoServlet;
import arno.pipeline.PipelineConfig;
import arno.pipeline.SiteRegistry;
import arno.server.config.Config;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
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
import org.apache.catalina.valves.ErrorReportValve;

/**
 * Arno in an embedded Tomcat, from the one configuration: one connector on the configured address
 * and port, one context at "/", the Arno servlet for everything (other servlets may be
 * {@link #mount}ed beside it). {@link #start} returns once the port is open.
 *
 * <p>Tomcat's own error pages (for what it refuses before any servlet sees it: a malformed
 * request line, an encoded slash) show neither a stack trace nor Tomcat's version.
 */
public final class ArnoServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");
    /** Bytes of a response Tomcat sends per write; see where the connector is set up. */
    static final int WRITE_BUFFER = 32 * 1024;

    private final Tomcat tomcat;
    private final Connector connector;
    private final SiteRegistry registry;
    private final ArnoServlet servlet;
    private final Path work;

    private ArnoServer(Tomcat tomcat, Connector connector, SiteRegistry registry, ArnoServlet servlet, Path work) {
        this.tomcat = tomcat;
        this.connector = connector;
        this.registry = registry;
        this.servlet = servlet;
        this.work = work;
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
                config.hosts(), config.cache(), config.pageCaches());
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
     * As {@link #start(Config, DocumentStore)}, with the page caches timed by {@code clock}
     * (nanoseconds since the epoch; null for the wall clock): for tests of expiry. The sites' page
     * caches keep their disk tiers under {@code DATA/cache/SITE} and, when {@code store} is Arno's
     * store, follow its change feed to evict the pages that depend on what each commit changed.
     */
    public static ArnoServer start(Config config, DocumentStore store, arno.cache.Ticker clock) {
        ArnoServlet.check(config.workers(), config.queue()); // before compiling the sites
        Config.requireFolder(config.sites(), "sites folder");
        PipelineConfig pipeline = pipelineConfig(config);
        SiteRegistry registry = clock == null ? SiteRegistry.start(pipeline, store) : SiteRegistry.start(pipeline, store, clock);
        if (store instanceof arno.store.Store s) registry.followChanges(changeFeed(s));
        Path work;
        try {
            work = Files.createTempDirectory("arno-tomcat");
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, "cannot create Tomcat's work folder: " + e.getMessage());
        }
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.toString());
        Connector connector = new Connector();
        connector.setPort(config.port());
        connector.setProperty("address", config.bind());
        // Keep-alive connections are reused for as many requests as clients like (load tests, proxies).
        connector.setProperty("maxKeepAliveRequests", "-1");
        // Tomcat writes a response to the socket one write buffer at a time: at its default 8 KB a
        // 49 KB page took seven system calls. 32 KB per open connection (idle ones too, hence not
        // more) gave 16% more full-text pages/s (perf/RESULTS.md).
        connector.setProperty("socket.appWriteBufSize", Integer.toString(WRITE_BUFFER));
        connector.setMaxPostSize((int) Math.min(Integer.MAX_VALUE, config.bodyLimit()));
        connector.setURIEncoding("UTF-8");
        // A port in use must fail the start, not leave a server that answers nothing.
        connector.setThrowOnFailure(true);
        tomcat.setConnector(connector);
        StandardHost host = (StandardHost) tomcat.getHost();
        host.setErrorReportValveClass(QuietErrorReportValve.class.getName());
        Context context = tomcat.addContext("", null);
        ArnoServlet servlet = new ArnoServlet(registry, config.workers(), config.queue());
        Tomcat.addServlet(context, "arno", servlet).setAsyncSupported(true);
        context.addServletMappingDecoded("/", "arno");
        try {
            tomcat.start();
        } catch (LifecycleException | RuntimeException e) {
            stopQuietly(tomcat, work);
            registry.close();
            throw unavailable(config, e);
        }
        if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() < 0) {
            stopQuietly(tomcat, work);
            registry.close();
            throw unavailable(config, null);
        }
        LOG.log(System.Logger.Level.INFO, "Arno serves " + registry.current().names() + " on http://" + config.bind() + ":"
                + connector.getLocalPort() + "/ with " + config.workers() + " workers, queue " + config.queue()
                + (config.production() ? "" : " (development mode)"));
        return new ArnoServer(tomcat, connector, registry, servlet, work);
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
        return ErrorCode.PORT_UNAVAILABLE.error(cause, "cannot listen on " + config.bind() + ":" + config.port()
                + ": the port is in use or not allowed (ports below 1024 need privileges); choose another with --port,"
                + " or stop what listens there");
    }

    /** Tomcat's error page without the stack trace and without Tomcat's version. */
    public static final class QuietErrorReportValve extends ErrorReportValve {
        public QuietErrorReportValve() {
            setShowReport(false);
            setShowServerInfo(false);
        }
    }

    /** Pipelines run at once; the other requests wait in arrival order. */
    int workers() {
        return servlet.workers();
    }

    /** Requests waiting for a worker now. */
    int waiting() {
        return servlet.waiting();
    }

    /** Requests whose pipelines are running now. */
    int running() {
        return servlet.running();
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** The sites being served (reloaded on change in development). */
    public SiteRegistry sites() {
        return registry;
    }

    /**
     * Serves {@code servlet} at {@code pattern} (e.g. "/batch/*") beside the sites. Mounted
     * paths take precedence over sites, so they must not collide with a site prefix.
     */
    public void mount(String name, String pattern, jakarta.servlet.http.HttpServlet servlet) {
        Context context = (Context) tomcat.getHost().findChild("");
        Tomcat.addServlet(context, name, servlet);
        context.addServletMappingDecoded(pattern, name);
    }

    /** Stops serving, then closes the page caches (what only memory holds is written to disk). */
    @Override
    public void close() {
        stopQuietly(tomcat, work);
        registry.close();
    }

    private static void stopQuietly(Tomcat tomcat, Path work) {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            LOG.log(System.Logger.Level.WARNING, "Tomcat did not stop cleanly: " + e.getMessage());
        }
        org.apache.commons.io.FileUtils.deleteQuietly(work.toFile());
    }
}
