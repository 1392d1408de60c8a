package arno.server;

import arno.pipeline.Arno;
import arno.pipeline.ArnoConfig;
import arno.pipeline.ArnoServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * Arno in an embedded Tomcat: one connector, one context at "/", the Arno
 * servlet for everything. {@link #start} returns once the port is open.
 */
public final class ArnoServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");
    /** Bytes of a response Tomcat sends per write; see where the connector is set up. */
    static final int WRITE_BUFFER = 32 * 1024;

    private final Tomcat tomcat;
    private final Connector connector;
    private final Arno arno;
    private final ArnoServlet servlet;
    private final Path work;

    private ArnoServer(Tomcat tomcat, Connector connector, Arno arno, ArnoServlet servlet, Path work) {
        this.tomcat = tomcat;
        this.connector = connector;
        this.arno = arno;
        this.servlet = servlet;
        this.work = work;
    }

    /**
     * Starts Arno on {@code address:port} (port 0 picks a free one).
     * Fails with {@link arno.pipeline.SiteException} when a site or package is broken.
     */
    public static ArnoServer start(ArnoConfig config, String address, int port) throws IOException {
        return start(config, null, address, port);
    }

    /** As {@link #start(ArnoConfig, String, int)}, with a store behind {@code store:} URIs (the caller closes it). */
    public static ArnoServer start(ArnoConfig config, arno.store.Store store, String address, int port) throws IOException {
        return start(config, store, address, port, ArnoServlet.DEFAULT_WORKERS, ArnoServlet.DEFAULT_QUEUE);
    }

    /**
     * As {@link #start(ArnoConfig, arno.store.Store, String, int)}, with pipelines run on
     * {@code workers} threads and at most {@code queue} requests waiting for one (see
     * {@link ArnoServlet}). Tomcat's own threads only read requests and serve mounted servlets.
     */
    public static ArnoServer start(ArnoConfig config, arno.store.Store store, String address, int port, int workers,
            int queue) throws IOException {
        ArnoServlet.check(workers, queue); // before compiling the sites
        Arno arno = Arno.start(config, store);
        Path work = Files.createTempDirectory("arno-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.toString());
        Connector connector = new Connector();
        connector.setPort(port);
        connector.setProperty("address", address);
        // Keep-alive connections are reused for as many requests as clients like (load tests, proxies).
        connector.setProperty("maxKeepAliveRequests", "-1");
        // Tomcat writes a response to the socket one write buffer at a time: at its default 8 KB a
        // 49 KB page took seven system calls. 32 KB per open connection (idle ones too, hence not
        // more) gave 16% more full-text pages/s (perf/RESULTS.md).
        connector.setProperty("socket.appWriteBufSize", Integer.toString(WRITE_BUFFER));
        connector.setMaxPostSize((int) Math.min(Integer.MAX_VALUE, config.bodyLimit()));
        connector.setURIEncoding("UTF-8");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        ArnoServlet servlet = new ArnoServlet(arno, workers, queue);
        Tomcat.addServlet(context, "arno", servlet).setAsyncSupported(true);
        context.addServletMappingDecoded("/", "arno");
        try {
            tomcat.start();
        } catch (LifecycleException e) {
            throw new IOException("Tomcat did not start: " + e.getMessage(), e);
        }
        if (connector.getLocalPort() < 0) {
            stopQuietly(tomcat);
            throw new IOException("Cannot listen on " + address + ":" + port + " (in use, or not allowed)");
        }
        LOG.log(System.Logger.Level.INFO, "Arno serves " + arno.siteNames() + " on http://" + address + ":"
                + connector.getLocalPort() + "/ with " + workers + " workers, queue " + queue
                + (config.development() ? " (development mode)" : ""));
        return new ArnoServer(tomcat, connector, arno, servlet, work);
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

    public Arno arno() {
        return arno;
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

    @Override
    public void close() {
        stopQuietly(tomcat);
        org.apache.commons.io.FileUtils.deleteQuietly(work.toFile());
    }

    private static void stopQuietly(Tomcat tomcat) {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            LOG.log(System.Logger.Level.WARNING, "Tomcat did not stop cleanly: " + e.getMessage());
        }
    }
}
