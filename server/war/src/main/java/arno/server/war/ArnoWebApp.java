package arno.server.war;

import arno.batch.BatchOptions;
import arno.server.ArnoServer;
import arno.server.Parts;
import arno.server.config.Config;
import arno.server.config.ConfigFile;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;

/**
 * Arno inside a standalone servlet container (Tomcat 11), with what {@code ./arno serve} has: the
 * sites ({@link ArnoServer#host}: the sites' servlet, page caches with their disk tier following
 * the store's change feed, the body rate, the static folders) and beside them ({@link Parts}) the
 * store and its API at {@code /store/}, the batch service at {@code /batch/},
 * {@code /_arno/health}, {@code /_arno/metrics}, the accounts and the production write gate. The
 * same classes as the embedded server, mounted on the container's context instead of Tomcat's own.
 *
 * <p>The configuration is the one configuration ({@link Config}): the defaults, with the
 * installation being the WAR's {@code WEB-INF/arno} (its {@code sites/}; the shared packages come
 * from the jars in {@code WEB-INF/lib}), the data folder {@code ${catalina.base}/arno-data} and
 * production mode; then the XML file named by {@code arno.config}; then {@code arno.data} and
 * {@code arno.development}. Each is a context parameter or else a system property. What belongs
 * to the container (port, compression, trusted proxies, access log, log files) is set there.
 * The WAR never generates or loads content ({@code ./arno generate} and {@code ./arno store load}
 * with the same data folder, before deploying, do).
 */
public final class ArnoWebApp implements ServletContextListener {
    private Parts parts;
    private ArnoServer server;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext ctx = event.getServletContext();
        String real = ctx.getRealPath("/WEB-INF/arno");
        if (real == null) throw new IllegalStateException("Arno needs its WAR unpacked (unpackWARs=\"true\" in Tomcat)");
        Config config = configuration(ctx, Path.of(real));
        PrintWriter log = new PrintWriter(new ContextLog(ctx), true);
        try {
            BatchOptions batch = Parts.batchOptions(config);
            Parts.secureData(config);
            parts = Parts.open(config, batch, ctx.getContextPath());
            server = ArnoServer.host(ctx, config, parts.store());
            parts.mount(server, log);
        } catch (RuntimeException e) {
            close(ctx);
            throw e;
        }
        ctx.log("Arno: serving " + server.sites().current().names() + " under " + ctx.getContextPath() + "/ from "
                + config.data() + (config.production() ? "" : " (development mode)"));
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        close(event.getServletContext());
        event.getServletContext().log("Arno: stopped; the store is closed");
    }

    /**
     * The page caches first (the container has stopped the servlets), then batch (with its accounts,
     * whose login threads end with it) and the store: no thread of this application's classes is left.
     */
    private void close(ServletContext ctx) {
        try {
            if (server != null) server.close();
        } catch (RuntimeException e) {
            ctx.log("Arno: closing the page caches failed: " + e.getMessage(), e);
        }
        try {
            if (parts != null) parts.close();
        } catch (Exception e) {
            ctx.log("Arno: closing the store or the batch service failed: " + e.getMessage(), e);
        }
        server = null;
        parts = null;
    }

    /** Defaults for a deployed WAR, then the file named by {@code arno.config}, then {@code arno.data} and {@code arno.development}. */
    static Config configuration(ServletContext ctx, Path installation) {
        Config.Builder b = Config.defaults(installation).toBuilder();
        b.data = Path.of(System.getProperty("catalina.base", System.getProperty("java.io.tmpdir")), "arno-data");
        b.production = true;
        Config base = b.build();
        String file = setting(ctx, "arno.config");
        if (!file.isBlank()) base = ConfigFile.read(Path.of(file), base);
        b = base.toBuilder();
        String data = setting(ctx, "arno.data");
        if (!data.isBlank()) b.data = Path.of(data);
        String development = setting(ctx, "arno.development");
        if (!development.isBlank()) b.production = !Boolean.parseBoolean(development.strip());
        return b.build();
    }

    /** The context parameter {@code name} if set, else the system property, else "". */
    private static String setting(ServletContext ctx, String name) {
        String v = ctx.getInitParameter(name);
        if (v == null || v.isBlank()) v = System.getProperty(name);
        return v == null ? "" : v;
    }

    /** What {@link Parts} says to an operator, as lines of the container's log. */
    private static final class ContextLog extends Writer {
        private final ServletContext ctx;
        private final StringBuilder line = new StringBuilder();

        ContextLog(ServletContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public synchronized void write(char[] buf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                if (buf[i] == '\n') {
                    ctx.log(line.toString());
                    line.setLength(0);
                } else if (buf[i] != '\r') {
                    line.append(buf[i]);
                }
            }
        }

        @Override
        public synchronized void flush() {
            // lines are logged whole, at their end
        }

        @Override
        public synchronized void close() {
            if (!line.isEmpty()) ctx.log(line.toString());
            line.setLength(0);
        }
    }
}
