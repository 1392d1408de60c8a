package arno.pipeline;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import net.sf.saxon.Configuration;
import net.sf.saxon.lib.Feature;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XPathExecutable;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;

/**
 * The Arno engine: shared packages, sites, and the handling of one HTTP
 * request from site selection to the last byte of the response.
 *
 * <pre>
 * request ─► site (Host header, then path prefix) ─► route (URL pattern)
 *         ─► req:request events ─► filters ─► templates ─► rsp:response ─► HTTP
 * </pre>
 *
 * Everything compiled is immutable and shared by all requests; a request
 * gets a {@link RequestScope}. In development mode every request first checks
 * whether a file under the package or site folders changed; if so, packages
 * and sites are recompiled before it runs, so an edit shows on the next
 * request, and two routes help: {@code /_debug/request} shows the req:request
 * a site receives, {@code /_debug/response/PATH} the rsp:response that PATH
 * yields. Responses are buffered up to {@link #BUFFER} bytes, so an error in
 * the middle of a page can still become a proper error page.
 */
public final class Arno {
    private static final System.Logger LOG = System.getLogger("arno");
    static final int BUFFER = 64 * 1024;
    private static final String MSG = "urn:arno:message";
    private static final String ERR = "urn:arno:error";
    private static final String DEBUG_RESPONSE = "/_debug/response/";

    private final ArnoConfig config;
    private final Processor processor;
    private final XPathExecutable xmlToJson;
    private final Resources resources;
    private final String idPrefix = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    private final AtomicLong requests = new AtomicLong();
    private volatile Loaded loaded;

    private record Loaded(Packages packages, List<Site> sites, Pipeline defaultError, long fingerprint) {}

    private Arno(ArnoConfig config, arno.store.Store store) {
        this.config = config;
        Configuration c = new Configuration();
        // Stylesheets may reach the class path only through declared Java stages.
        c.setConfigurationProperty(Feature.ALLOW_EXTERNAL_FUNCTIONS, false);
        // Run-time warnings go to our log. Saxon's default makes a reporter per transformation,
        // and with it a PrintWriter and its 16 KB buffer: a tenth of an HTML page in garbage.
        c.setErrorReporterFactory(ignored -> RequestScope::warning);
        this.processor = new Processor(c);
        this.resources = new Resources(c, config.content(), config.sourceCache(), store);
        resources.install();
        try {
            this.xmlToJson = processor.newXPathCompiler().compile("xml-to-json(.)");
        } catch (SaxonApiException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Compiles the packages and every site; a bad site.xml or package fails here with its file and line. */
    public static Arno start(ArnoConfig config) {
        return start(config, null);
    }

    /**
     * As {@link #start(ArnoConfig)}, with {@code store} behind {@code store:} URIs (null for none).
     * The caller owns the store and closes it after the engine is done.
     */
    public static Arno start(ArnoConfig config, arno.store.Store store) {
        Arno arno = new Arno(config, store);
        arno.loaded = arno.load();
        return arno;
    }

    public ArnoConfig config() {
        return config;
    }

    /** The Saxon processor every stage is compiled with; documents given to stages must come from it. */
    public Processor processor() {
        return processor;
    }

    public List<String> siteNames() {
        return loaded.sites.stream().map(Site::name).toList();
    }

    private Loaded load() {
        long fingerprint = fingerprint();
        long t0 = System.nanoTime();
        Packages packages = Packages.compile(processor, config.packageFolders());
        SiteLoader loader = new SiteLoader(processor, packages, config.development(), config.timeout());
        List<Site> sites = new ArrayList<>();
        for (Path siteXml : siteFiles()) {
            Site site = loader.load(siteXml);
            for (Site other : sites) {
                if (other.name().equals(site.name())) {
                    throw new SiteException(siteXml + ": site name '" + site.name() + "' is also used by " + other.file);
                }
                if (!site.prefix().isEmpty() && site.prefix().equals(other.prefix()) && site.hosts().equals(other.hosts())) {
                    throw new SiteException(siteXml + ": prefix " + site.prefix() + " is also used by " + other.file);
                }
            }
            sites.add(site);
        }
        Pipeline defaultError = null;
        if (Files.isRegularFile(config.errorTemplate())) {
            Compiler c = new Compiler(processor, packages, config.development());
            defaultError = new Pipeline(List.of(c.xslt(config.errorTemplate(), null, "xslt " + config.errorTemplate().getFileName())));
        }
        LOG.log(System.Logger.Level.INFO, "compiled {0} shared packages and {1} sites in {2} ms",
                packages.compiled.size(), sites.size(), (System.nanoTime() - t0) / 1_000_000);
        return new Loaded(packages, List.copyOf(sites), defaultError, fingerprint);
    }

    private List<Path> siteFiles() {
        try (Stream<Path> dirs = Files.list(config.sites())) {
            return dirs.map(d -> d.resolve("site.xml")).filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new SiteException("Cannot list " + config.sites() + ": " + e.getMessage(), e);
        }
    }

    /** A cheap summary of every file's name, size and time under the package and site folders. */
    private long fingerprint() {
        long h = 17;
        List<Path> roots = new ArrayList<>(config.packageFolders());
        roots.add(config.sites());
        for (Path root : roots) {
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    if (!Files.isRegularFile(p)) continue;
                    h = h * 31 + p.hashCode();
                    h = h * 31 + Files.getLastModifiedTime(p).toMillis();
                    h = h * 31 + Files.size(p);
                }
            } catch (IOException e) {
                // A file vanished mid-walk (an editor's save): report a change, reload sorts it out.
                return h ^ System.nanoTime();
            }
        }
        return h;
    }

    private Loaded current() {
        Loaded l = loaded;
        if (!config.development() || fingerprint() == l.fingerprint) return l;
        synchronized (this) {
            if (fingerprint() != loaded.fingerprint) {
                LOG.log(System.Logger.Level.INFO, "files changed: recompiling packages and sites");
                loaded = load();
            }
            return loaded;
        }
    }

    /** Handles one request. Never throws for bad input: every failure becomes an HTTP answer. */
    public void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Loaded l;
        try {
            l = current();
        } catch (SiteException e) {
            // Development only: an edit broke a site.xml or a package. Say so until it is fixed.
            LOG.log(System.Logger.Level.ERROR, e.getMessage());
            plain(response, 500, "Site configuration error", e.getMessage());
            return;
        }
        String path = path(request);
        String host = request.getServerName();
        Site site = null;
        String sitePath = null;
        for (Site s : l.sites) {
            sitePath = sitePath(s, host, path);
            if (sitePath != null) {
                site = s;
                break;
            }
        }
        if (site == null) {
            if (path.equals("/")) {
                index(request, response, l);
            } else {
                PipelineException e = new PipelineException(Failure.NO_SITE, host, path);
                LOG.log(System.Logger.Level.INFO, e.getMessage());
                plain(response, 404, "Not found", e.getMessage());
            }
            return;
        }
        String id = idPrefix + "-" + Long.toString(requests.incrementAndGet(), 36);
        response.setBufferSize(BUFFER);
        if (config.development() && sitePath.equals("/_debug/request")) {
            debug(request, response, site, sitePath, id);
            return;
        }
        // Development: /_debug/response/PATH shows the rsp:response that PATH's pipeline yields.
        boolean showResponse = config.development() && sitePath.startsWith(DEBUG_RESPONSE);
        if (showResponse) sitePath = sitePath.substring(DEBUG_RESPONSE.length() - 1);
        Route route = null;
        Map<String, String> variables = null;
        for (Route r : site.routes) {
            variables = r.match(sitePath);
            if (variables != null) {
                route = r;
                break;
            }
        }
        RequestReader reader = new RequestReader(request, id, site, sitePath, route,
                variables == null ? Map.of() : variables, config.development(), config.bodyLimit());
        if (route == null) {
            fail(l, site, reader, request, response, new PipelineException(Failure.NO_ROUTE, site.name(), sitePath), id);
            return;
        }
        if (!route.methods.contains(request.getMethod())) {
            response.setHeader("Allow", String.join(", ", route.methods));
            fail(l, site, reader, request, response, new PipelineException(Failure.METHOD_NOT_ALLOWED,
                    route.name(), request.getMethod(), String.join(" ", route.methods)), id);
            return;
        }
        try (RequestScope scope = new RequestScope(id, route.name(), route.timeoutMillis, resources)) {
            reader.checkDeclaredLength();
            net.sf.saxon.s9api.Destination sink;
            if (showResponse) {
                response.setContentType("application/xml; charset=UTF-8");
                Serializer s = processor.newSerializer(response.getOutputStream());
                s.setOutputProperty(Serializer.Property.INDENT, "yes");
                sink = s;
            } else {
                sink = new ResponseWriter(request, response, xmlToJson);
            }
            route.pipeline.run(processor.getUnderlyingConfiguration(), scope, out -> reader.write(out, null),
                    sink);
        } catch (PipelineException e) {
            fail(l, site, reader, request, response, e, id);
        } catch (RuntimeException e) {
            fail(l, site, reader, request, response, new PipelineException(Failure.STAGE_ERROR, e, 0, "", route.name(),
                    String.valueOf(e)), id);
        }
    }

    /** Logs the failure and answers with the site's error template, or a plain page if that fails too. */
    private void fail(Loaded l, Site site, RequestReader reader, HttpServletRequest request,
                      HttpServletResponse response, PipelineException e, String id) {
        String errorId = "E-" + id;
        int status = e.status();
        String detail = e.getMessage() + (e.where().isEmpty() ? "" : " at " + e.where());
        if (status >= 500) {
            LOG.log(System.Logger.Level.ERROR, "[" + errorId + "] route=" + e.route() + " stage=" + e.stage()
                    + (e.code() != null ? " code=" + e.code() : "") + " " + detail, e.getCause());
        } else {
            LOG.log(System.Logger.Level.INFO, "[" + id + "] " + status + " " + detail);
        }
        if (response.isCommitted()) {
            // Part of the page is on the wire: the best we can do is cut the response short.
            LOG.log(System.Logger.Level.ERROR, "[" + errorId + "] response already committed; closing it incomplete");
            return;
        }
        String allow = response.getHeader("Allow");
        response.reset();
        response.setBufferSize(BUFFER);
        if (allow != null) response.setHeader("Allow", allow);
        Pipeline errorPipeline = site.errorPipeline(status);
        if (errorPipeline == null) errorPipeline = l.defaultError;
        if (errorPipeline != null && errorPipeline.compileError() == null) {
            try (RequestScope scope = new RequestScope(id, "error", config.timeout().toMillis(), resources)) {
                ResponseWriter writer = new ResponseWriter(request, response, xmlToJson);
                errorPipeline.run(processor.getUnderlyingConfiguration(), scope,
                        out -> reader.write(out, h -> errorElement(h, e, errorId)), writer);
                if (response.getStatus() != status) response.setStatus(status);
                return;
            } catch (PipelineException | RuntimeException inner) {
                LOG.log(System.Logger.Level.ERROR, "[" + errorId + "] the error template failed too: " + inner.getMessage());
                if (response.isCommitted()) return;
                response.reset();
            }
        }
        plain(response, status, "Error " + status, config.development() ? detail : shortMessage(status) + " (" + errorId + ")");
    }

    private static String shortMessage(int status) {
        return switch (status) {
            case 400 -> "Bad request";
            case 404 -> "Not found";
            case 405 -> "Method not allowed";
            case 413 -> "Request body too large";
            case 503 -> "Service unavailable";
            default -> "Internal error";
        };
    }

    /** The err:error element an error template receives, inside msg:attribute name="error". */
    private void errorElement(ContentHandler h, PipelineException e, String errorId) throws SAXException {
        AttributesImpl a = new AttributesImpl();
        a.addAttribute("", "name", "name", "CDATA", "error");
        h.startPrefixMapping("msg", MSG);
        h.startPrefixMapping("err", ERR);
        h.startElement(MSG, "attribute", "msg:attribute", a);
        AttributesImpl ea = new AttributesImpl();
        ea.addAttribute("", "status", "status", "CDATA", Integer.toString(e.status()));
        ea.addAttribute("", "id", "id", "CDATA", errorId);
        if (e.code() != null) ea.addAttribute("", "code", "code", "CDATA", e.code());
        if (e.route() != null) ea.addAttribute("", "route", "route", "CDATA", e.route());
        if (e.stage() >= 0) ea.addAttribute("", "stage", "stage", "CDATA", Integer.toString(e.stage()));
        // Locations and messages reveal server internals: development mode only.
        if (config.development() || e.status() < 500) {
            if (e.module() != null) ea.addAttribute("", "module", "module", "CDATA", e.module());
            if (e.line() > 0) ea.addAttribute("", "line", "line", "CDATA", Integer.toString(e.line()));
            if (e.column() > 0) ea.addAttribute("", "column", "column", "CDATA", Integer.toString(e.column()));
        }
        h.startElement(ERR, "error", "err:error", ea);
        h.startElement(ERR, "message", "err:message", new AttributesImpl());
        String m = config.development() || e.status() < 500 ? e.getMessage() : shortMessage(e.status());
        h.characters(m.toCharArray(), 0, m.length());
        h.endElement(ERR, "message", "err:message");
        h.endElement(ERR, "error", "err:error");
        h.endElement(MSG, "attribute", "msg:attribute");
        h.endPrefixMapping("err");
        h.endPrefixMapping("msg");
    }

    /** Development only: shows the req:request the site's pipelines receive. */
    private void debug(HttpServletRequest request, HttpServletResponse response, Site site, String sitePath, String id)
            throws IOException {
        RequestReader reader = new RequestReader(request, id, site, sitePath, null, Map.of(), true, config.bodyLimit());
        try {
            reader.checkDeclaredLength();
            response.setContentType("application/xml; charset=UTF-8");
            Serializer s = processor.newSerializer(response.getOutputStream());
            s.setOutputProperty(Serializer.Property.INDENT, "yes");
            reader.write(s.getContentHandler(), null);
        } catch (PipelineException e) {
            response.reset();
            plain(response, e.status(), "Error " + e.status(), e.getMessage());
        } catch (SaxonApiException | SAXException e) {
            throw new IOException(e);
        }
    }

    /** The server's own page at "/": which sites there are. */
    private void index(HttpServletRequest request, HttpServletResponse response, Loaded l) throws IOException {
        response.setContentType("text/html; charset=UTF-8");
        PrintWriter w = response.getWriter();
        w.println("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Arno</title></head><body><h1>Arno</h1><ul>");
        for (Site s : l.sites) {
            String href = request.getContextPath() + s.prefix() + "/";
            w.println("<li><a href=\"" + escape(href) + "\">" + escape(s.name()) + "</a>"
                    + (s.hosts().isEmpty() ? "" : " (hosts: " + escape(String.join(", ", s.hosts())) + ")") + "</li>");
        }
        w.println("</ul></body></html>");
    }

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

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** The decoded path inside the web application, always starting with '/'. */
    private static String path(HttpServletRequest request) {
        String uri = request.getRequestURI().substring(request.getContextPath().length());
        String p = URLDecoder.decode(uri.replace("+", "%2B"), StandardCharsets.UTF_8);
        return p.isEmpty() ? "/" : p;
    }

    /** The path inside the site if the site answers this host and path, else null. */
    private static String sitePath(Site s, String host, String path) {
        if (!s.hosts().isEmpty() && !s.hosts().contains(host)) return null;
        String prefix = s.prefix();
        if (prefix.isEmpty()) return path;
        if (path.equals(prefix)) return "/";
        if (path.startsWith(prefix + "/")) return path.substring(prefix.length());
        return null;
    }

}
