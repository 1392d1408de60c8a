package arno.server;

import arno.http.Conditional;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.catalina.Context;
import org.apache.catalina.Globals;
import org.apache.catalina.WebResource;
import org.apache.catalina.WebResourceRoot;
import org.apache.catalina.webresources.DirResourceSet;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * A folder of static files (CSS, scripts, fonts, images) served at a path by Tomcat's default
 * servlet, in a context of its own so the sites' servlet never sees these requests: ETag and
 * Last-Modified with conditional requests, {@code Range}, the connector's compression for text,
 * no listings, nothing outside the folder. Tomcat's, not ours: it is what every Tomcat serves
 * files with, and it streams from the file without copying it into the heap.
 *
 * <p>No dot-files: a path with a segment that starts with '.' ({@code .env}, {@code .git/config},
 * {@code .htpasswd}, an editor's {@code .site.css.swp}) answers 404 as a missing file does. Such
 * files are an author's or a tool's, never an asset a page links, and they are where secrets
 * leak from. {@code .well-known} is no exception: RFC 8615 puts it at the root of a host, and a
 * static folder is only ever served below it ({@code /static/}, {@code PREFIX/static/}), so a
 * {@code .well-known} folder there could never be the real one.
 *
 * <p>{@code Cache-Control}: a fingerprinted name ({@code site.3f9a2c1e.css}: a dot or dash, then
 * at least eight hex digits, before the extension) never changes, so browsers and proxies keep
 * it for a year without asking again ({@code immutable}); any other name may change under the
 * same URL, so it is revalidated on each use ({@code no-cache}: a 304 when unchanged).
 *
 * <p>Conditional requests are answered by {@link Conditional}, as pages and the store API answer
 * theirs, with the validators the default servlet sends (its weak ETag, the file's time); the
 * default servlet then sees no conditions, so they are evaluated once, one way, everywhere.
 */
final class StaticFiles {
    static final String IMMUTABLE = "public, max-age=31536000, immutable";
    static final String REVALIDATE = "no-cache";
    private static final Pattern FINGERPRINTED = Pattern.compile(".*[.-][0-9a-fA-F]{8,}\\.[A-Za-z0-9]+");

    private StaticFiles() {
    }

    /** Serves {@code folder} at {@code path} (e.g. "/journal-a/static") in {@code tomcat}. */
    static void mount(Tomcat tomcat, String path, Path folder) {
        Context files = tomcat.addContext(path, folder.toAbsolutePath().toString());
        Tomcat.addDefaultMimeTypeMappings(files);
        Tomcat.addServlet(files, "files", new DefaultServlet());
        files.addServletMappingDecoded("/", "files");
        FilterDef def = new FilterDef();
        def.setFilterName("static-guard");
        def.setFilter(new Guard());
        files.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("static-guard");
        map.addURLPattern("/*");
        files.addFilterMap(map);
    }

    /**
     * Serves {@code folder} at {@code path} under the context path of {@code ctx}, a context of a
     * standalone Tomcat being initialised (the WAR cannot add contexts of its own): the folder is
     * mounted into the context's resources at {@code path} (before the WAR's own files), and the same
     * default servlet and Cache-Control filter are mapped to {@code path/*}. The default servlet
     * resolves a request by its servlet path and path info together, so
     * {@code /journal-a/static/site.css} is the mounted folder's {@code site.css}.
     */
    static void mount(ServletContext ctx, String path, Path folder) {
        if (!(ctx.getAttribute(Globals.RESOURCES_ATTR) instanceof WebResourceRoot resources)) {
            throw ErrorMessage.STATIC_NEEDS_TOMCAT.error(folder, path, Globals.RESOURCES_ATTR);
        }
        resources.addPreResources(new DirResourceSet(resources, path, folder.toAbsolutePath().toString(), "/"));
        String name = "files:" + path;
        ctx.addServlet(name, new DefaultServlet()).addMapping(path + "/*");
        ctx.addFilter("static-guard:" + path, new Guard()).addMappingForServletNames(null, false, name);
    }

    /** The Cache-Control of a file's name. */
    static String cacheControl(String name) {
        return FINGERPRINTED.matcher(name).matches() ? IMMUTABLE : REVALIDATE;
    }

    /** Whether the decoded path within the static context names a dot-file or a file in a dot-folder. */
    static boolean hidden(String path) {
        for (String segment : path.split("/")) if (segment.startsWith(".")) return true;
        return false;
    }

    /** The conditional headers {@link Conditional} answers; If-Range stays the default servlet's (it serves the ranges). */
    private static final Set<String> CONDITIONS = Set.of("if-match", "if-none-match", "if-modified-since", "if-unmodified-since");

    /**
     * Before the default servlet: dot-files refused as missing, the Cache-Control of the rest, the
     * conditions of a GET or HEAD of a file answered ({@link Conditional}) and hidden from the servlet.
     */
    private static final class Guard extends HttpFilter {
        @Override
        protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
                throws IOException, ServletException {
            // Decoded and normalised by Tomcat, as the default servlet looks the file up: %2e is a dot here too.
            String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
            if (hidden(path)) {
                resp.sendError(HttpServletResponse.SC_NOT_FOUND);
                return;
            }
            String uri = req.getRequestURI();
            resp.setHeader("Cache-Control", cacheControl(uri.substring(uri.lastIndexOf('/') + 1)));
            WebResource file = file(req, path);
            if (file == null) {
                chain.doFilter(req, resp);
                return;
            }
            // The default servlet's validators: its ETag is the resource's (weak: length and time).
            String etag = file.getETag();
            switch (Conditional.evaluate(req, etag, file.getLastModified())) {
                case NOT_MODIFIED -> {
                    resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                    resp.setHeader("ETag", etag);
                }
                case FAILED -> resp.sendError(HttpServletResponse.SC_PRECONDITION_FAILED);
                default -> chain.doFilter(new HttpServletRequestWrapper(req) {
                    @Override
                    public String getHeader(String name) {
                        return CONDITIONS.contains(name.toLowerCase(Locale.ROOT)) ? null : super.getHeader(name);
                    }

                    @Override
                    public Enumeration<String> getHeaders(String name) {
                        return CONDITIONS.contains(name.toLowerCase(Locale.ROOT)) ? Collections.emptyEnumeration() : super.getHeaders(name);
                    }

                    @Override
                    public long getDateHeader(String name) {
                        return CONDITIONS.contains(name.toLowerCase(Locale.ROOT)) ? -1 : super.getDateHeader(name);
                    }
                }, resp);
            }
        }

        /** The file a GET or HEAD asks for, or null (another method, a folder, nothing there: no condition applies). */
        private static WebResource file(HttpServletRequest req, String path) {
            if (!req.getMethod().equals("GET") && !req.getMethod().equals("HEAD")) return null;
            if (!(req.getServletContext().getAttribute(Globals.RESOURCES_ATTR) instanceof WebResourceRoot resources)) return null;
            WebResource r = resources.getResource(path);
            return r != null && r.isFile() ? r : null;
        }
    }
}
