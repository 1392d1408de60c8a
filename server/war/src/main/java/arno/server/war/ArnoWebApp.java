package arno.server.war;

import arno.pipeline.Arno;
import arno.pipeline.ArnoConfig;
import arno.pipeline.ArnoServlet;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRegistration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts Arno inside a standalone servlet container. The packages, templates
 * and sites are unpacked under WEB-INF/arno; the data folder comes from the
 * {@code arno.data} context parameter or system property, else
 * {@code ${catalina.base}/arno-data}. An empty data folder gets the demo
 * content, as {@code ./arno serve} does.
 */
public final class ArnoWebApp implements ServletContextListener {

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext ctx = event.getServletContext();
        String real = ctx.getRealPath("/WEB-INF/arno");
        if (real == null) throw new IllegalStateException("Arno needs its WAR unpacked (unpackWARs=\"true\" in Tomcat)");
        Path root = Path.of(real);
        Path data = dataFolder(ctx);
        // Content is the operator's: the WAR never generates demo content (./arno generate does).
        boolean development = Boolean.parseBoolean(ctx.getInitParameter("arno.development"));
        ArnoConfig config = ArnoConfig.defaults(root, data).withDevelopment(development);
        Arno arno = Arno.start(config);
        ServletRegistration.Dynamic servlet = ctx.addServlet("arno",
                new ArnoServlet(arno, ArnoServlet.DEFAULT_WORKERS, ArnoServlet.DEFAULT_QUEUE));
        // Pipelines run on Arno's workers, not on the container's request threads.
        servlet.setAsyncSupported(true);
        servlet.addMapping("/");
        ctx.log("Arno: serving " + arno.siteNames() + " under " + ctx.getContextPath() + "/");
    }

    private static Path dataFolder(ServletContext ctx) {
        for (String v : List.of(nz(ctx.getInitParameter("arno.data")), nz(System.getProperty("arno.data")))) {
            if (!v.isBlank()) return Path.of(v);
        }
        return Path.of(System.getProperty("catalina.base", System.getProperty("java.io.tmpdir")), "arno-data");
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
