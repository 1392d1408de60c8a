package arno.pipeline;

import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XdmNode;

/**
 * A server's sites, compiled: the shared packages, every site's routes and stages, the default
 * error page. The {@code XsltExecutable} of the pipeline API (after Saxon's s9api): compiled once,
 * immutable, thread-safe; each request gets a cheap, single-use {@link Exchange}.
 *
 * <pre>
 * Sites sites = Sites.compile(PipelineConfig.of(sitesFolder, contentFolder), store);   // once
 * Exchange x = sites.exchange(HttpRequest.builder("GET", "/journal-a/v1/i1").build()); // per request
 * XdmNode response = x.respond();                 // or x.respond(target): rsp:response events
 * </pre>
 *
 * A request goes: site (Host header, then path prefix; {@link Router}) ─► route (URL pattern)
 * ─► req:request events ({@code RequestReader}) ─► filters ─► templates ─► rsp:response into a
 * {@link ResponseTarget}; a failure anywhere becomes the site's error page ({@link ErrorResponses}).
 * A bad site.xml or package fails {@link #compile} with {@link ErrorCode#SITE_ERROR} naming file,
 * line and column. For development reloading see {@link SiteRegistry}.
 */
public final class Sites {
    private static final System.Logger LOG = System.getLogger("arno");

    final Engine engine;
    final Packages packages;
    final List<Site> sites;
    /** The error page of sites without one (the package urn:arno:templates:error), or null. */
    final Pipeline defaultError;
    /** Host names that sites answer: a redirect may use the request's host when it is one. */
    final List<String> siteHosts;
    /**
     * A fingerprint of the code these sites were compiled from (every file under the package and
     * site folders by name, size and time, and the class path's packages by content): every cached
     * page records it, so a page built by other code is never served, after a reload or a restart.
     */
    final String code;

    private Sites(Engine engine, Packages packages, List<Site> sites, Pipeline defaultError, String code) {
        this.engine = engine;
        this.code = code;
        this.packages = packages;
        this.sites = sites;
        this.defaultError = defaultError;
        List<String> hosts = new ArrayList<>(engine.config.hosts());
        for (Site s : sites) hosts.addAll(s.hosts());
        this.siteHosts = List.copyOf(hosts);
    }

    /**
     * Compiles the packages and every site under {@code config.sites()}, with {@code store} behind
     * {@code store:} URIs (null for none; the caller owns and closes it).
     */
    public static Sites compile(PipelineConfig config, DocumentStore store) {
        return compile(config, store, PageCaches.wallClock());
    }

    /** As {@link #compile(PipelineConfig, DocumentStore)}, with the page caches timed by {@code clock} (tests). */
    static Sites compile(PipelineConfig config, DocumentStore store, arno.cache.Ticker clock) {
        return compile(new Engine(config, store, clock));
    }

    /** A fresh compilation with the same processor, resources and source cache: a development reload. */
    Sites recompile() {
        return compile(engine);
    }

    private static Sites compile(Engine engine) {
        PipelineConfig config = engine.config;
        long t0 = System.nanoTime();
        String code = fingerprint(config);
        Packages packages = Packages.compile(engine.processor, config.packageFolders(), config.classPathPackages(), engine.policy);
        SiteLoader loader = new SiteLoader(engine.processor, packages, config.development(), config.timeout(), engine.policy);
        List<Site> sites = new ArrayList<>();
        for (Path siteXml : siteFiles(config.sites())) {
            Site site = loader.load(siteXml);
            for (Site other : sites) {
                if (other.name().equals(site.name())) {
                    throw ErrorMessage.SITE_NAME_TWICE.error(siteXml, site.name(), other.file)
                            .at(Where.at(siteXml.toString()));
                }
                if (!site.prefix().isEmpty() && site.prefix().equals(other.prefix()) && site.hosts().equals(other.hosts())) {
                    throw ErrorMessage.SITE_PREFIX_TWICE.error(siteXml, site.prefix(), other.file)
                            .at(Where.at(siteXml.toString()));
                }
            }
            sites.add(site);
        }
        Pipeline defaultError = null;
        String errorPage = packages.sources.get(ErrorResponses.ERROR_PACKAGE);
        if (errorPage != null) {
            Compiler c = new Compiler(engine.processor, packages, config.development());
            defaultError = new Pipeline(List.of(c.xslt(java.net.URI.create(errorPage), null, "xslt " + errorPage)));
        }
        LOG.log(System.Logger.Level.INFO, "compiled {0} shared packages and {1} sites in {2} ms",
                packages.compiled.size(), sites.size(), (System.nanoTime() - t0) / 1_000_000);
        engine.caches.configure(sites);
        return new Sites(engine, packages, List.copyOf(sites), defaultError, code + "-" + classPathCode(packages));
    }

    /**
     * A cheap summary of every file's name, size and time under the package and site folders: what
     * development reloading compares, and (with {@link #classPathCode}) what cached pages record.
     */
    static String fingerprint(PipelineConfig config) {
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
            } catch (IOException | java.io.UncheckedIOException e) {
                // A file vanished mid-walk (an editor's save): report a change, reload sorts it out.
                return Long.toHexString(h ^ System.nanoTime());
            }
        }
        return Long.toHexString(h);
    }

    /** The class path's packages by content (they may change with a new jar of the same name). */
    private static String classPathCode(Packages packages) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        for (String uri : new java.util.TreeSet<>(packages.sources.values())) {
            crc.update(uri.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (!uri.startsWith(Packages.CLASS_PATH)) continue;
            try (java.io.InputStream in = Packages.open(uri)) {
                crc.update(in.readAllBytes());
            } catch (IOException e) {
                crc.update(0);
            }
        }
        return Long.toHexString(crc.getValue());
    }

    private static List<Path> siteFiles(Path folder) {
        try (Stream<Path> dirs = Files.list(folder)) {
            return dirs.map(d -> d.resolve("site.xml")).filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw ErrorMessage.SITES_FOLDER_UNLISTED.error(e, folder, e.getMessage());
        }
    }

    public PipelineConfig config() {
        return engine.config;
    }

    /** The processor every stage is compiled with; trees given to {@link #exchange(XdmNode)} must come from it. */
    public Processor processor() {
        return engine.processor;
    }

    /** The folder of files shared by every site, served at {@value #STATIC}/ (CSS, fonts, scripts). */
    public static final String STATIC = "/static";

    /**
     * The folders of static files to serve, by the path they are served at: {@code SITES/static}
     * at {@value #STATIC} for every site, and each site's {@code static} folder beside its
     * site.xml at {@code PREFIX/static}; only those that exist. Fixed when the server starts (a
     * static folder added later is served after a restart). Fails with SITE_ERROR when two
     * folders would be served at one path (a site at the root with a folder of its own).
     */
    public java.util.Map<String, Path> staticFolders() {
        java.util.Map<String, Path> folders = new java.util.LinkedHashMap<>();
        Path shared = engine.config.sites().resolve("static");
        if (Files.isDirectory(shared)) folders.put(STATIC, shared);
        for (Site site : sites) {
            Path own = site.file.getParent().resolve("static");
            if (!Files.isDirectory(own)) continue;
            Path before = folders.putIfAbsent(site.prefix() + STATIC, own);
            if (before != null) {
                throw ErrorMessage.STATIC_FOLDER_CLASH.error(site.name(), own, site.prefix() + STATIC, before)
                        .at(arno.xml.Where.at(site.file.toUri().toString()));
            }
        }
        return folders;
    }

    /** The sites' names, in the order they are tried. */
    public List<String> names() {
        return sites.stream().map(Site::name).toList();
    }

    /** One run of an HTTP request. Cheap; use it once, on one thread. */
    public Exchange exchange(HttpRequest request) {
        return new Exchange(this, request, null);
    }

    /**
     * One run of a {@code req:request} document (schema {@code arno/schema/request.xsd}) instead of
     * an HTTP request: the site is {@code req:site/@name}, the route {@code req:route/@name} or else
     * the one that matches {@code req:path/@value}. A request that carries
     * {@code msg:attribute name="error"} with an {@code err:error} and names no route is answered
     * by the site's error page, as the server calls it.
     */
    public Exchange exchange(XdmNode request) {
        return new Exchange(this, null, request);
    }

    Site site(String name) {
        for (Site s : sites) if (s.name().equals(name)) return s;
        return null;
    }
}
