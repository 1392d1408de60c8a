package arno.server.war;

import arno.pipeline.ArnoServlet;
import arno.pipeline.PipelineConfig;
import arno.pipeline.SiteRegistry;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRegistration;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts Arno inside a standalone servlet container. The sites are unpacked under
 * WEB-INF/arno/sites; the shared packages (templates and stylesheets) are read from the jars in
 * WEB-INF/lib, so the WAR needs no checkout. The data folder comes from the {@code arno.data}
 * context parameter or system property, else {@code ${catalina.base}/arno-data}; content is read
 * from its {@code content} folder, as {@code ./arno serve} reads it. The WAR never generates
 * content ({@code ./arno generate} does).
 */
public final class ArnoWebApp implements ServletContextListener {

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext ctx = event.getServletContext();
        String real = ctx.getRealPath("/WEB-INF/arno/sites");
        if (real == null) throw new IllegalStateException("Arno needs its WAR unpacked (unpackWARs=\"true\" in Tomcat)");
        Path data = dataFolder(ctx);
        boolean development = Boolean.parseBoolean(ctx.getInitParameter("arno.development"));
        PipelineConfig config = PipelineConfig.of(Path.of(real), data.resolve("content"))
                .withPackages(List.of(), true).withDevelopment(development);
        SiteRegistry registry = SiteRegistry.start(config, null);
        ServletRegistration.Dynamic servlet = ctx.addServlet("arno",
                new ArnoServlet(registry, ArnoServlet.DEFAULT_WORKERS, ArnoServlet.DEFAULT_QUEUE));
        // Pipelines run on Arno's workers, not on the container's request threads.
        servlet.setAsyncSupported(true);
        servlet.addMapping("/");
        ctx.log("Arno: serving " + registry.current().names() + " under " + ctx.getContextPath() + "/ from " + data);
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
