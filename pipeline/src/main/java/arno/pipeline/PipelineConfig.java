package arno.pipeline;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What {@link Sites#compile} needs to know: where sites, shared packages and content are, and the
 * limits of a request. The server builds it from its one configuration ({@code arno.server.config.Config});
 * tests build it from {@link #of(Path, Path)} and the {@code with} methods. A wrong value is
 * refused here, with {@link ErrorCode#BAD_CONFIGURATION} naming it.
 *
 * @param content            folder behind the {@code content:} URI scheme; the only folder documents are read from
 * @param packageFolders     folders whose {@code xsl:package} files are shared by all sites (a checkout's
 *                           {@code templates/xsl} and {@code stylesheets/packages}); edits reload in development
 * @param classPathPackages  also the packages that jars on the class path list in {@code arno/packages.list}
 *                           (the shipped templates and stylesheets); a folder's package of the same name wins
 * @param sites              folder with one sub-folder per site, each with a site.xml
 * @param development        reload changed stylesheets, show error details and the /_debug routes
 * @param bodyLimit          largest request body accepted, in bytes
 * @param timeout            a route's time limit unless site.xml sets one
 * @param sourceCache        bytes of parsed content documents kept between requests (0: none)
 * @param xmlLimits          the XML security policy's limits for request bodies, site.xml and every document read
 * @param outbound           which URLs doc() and unparsed-text() may fetch
 * @param hosts              host names the server answers as; a redirect's absolute URL uses the request's
 *                           Host only when it is one of these or a site's host, else the server address
 *                           the request came in on
 * @param pageCaches         whether routes whose site.xml says so cache their pages (off: every page built afresh)
 * @param cacheFolder        folder of the page caches' disk tiers, one sub-folder per site (the server's
 *                           {@code DATA/cache}); null keeps cached pages in memory only
 * @param pageCacheMemory    bytes of pages all sites' page caches keep in memory together (one ARC; a
 *                           site's {@code memory} is its cap within it); 0: each site its own memory
 *                           tier of its {@code memory}, their sum unbounded (only to compare the two)
 */
public record PipelineConfig(Path content, List<Path> packageFolders, boolean classPathPackages, Path sites,
                             boolean development, long bodyLimit, Duration timeout, long sourceCache,
                             XmlPolicy.Limits xmlLimits, Outbound.Policy outbound, List<String> hosts, Path cacheFolder,
                             boolean pageCaches, long pageCacheMemory) {

    public static final long DEFAULT_BODY_LIMIT = 10L << 20;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * A quarter of the heap, at least 16 MB: parsed trees take about three times their XML, so
     * a fixed 128 MB held three quarters of the 1,000-article demo (60 MB of XML, 172 MB of
     * trees) and one full-text page in four parsed its article again (perf/RESULTS.md).
     */
    public static final long DEFAULT_SOURCE_CACHE = Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 4);

    /**
     * A quarter of the heap, at least 16 MB, for the pages of every site together: a cached byte
     * takes about 1.07 bytes of heap (perf/RESULTS.md), and with the source cache's quarter half
     * the heap is left for building pages. Per-site tiers of 64 MB each ran 60 sites out of a
     * 256 MB heap (issue 25).
     */
    public static final long DEFAULT_PAGE_CACHE_MEMORY = Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 4);

    public PipelineConfig {
        packageFolders = List.copyOf(packageFolders);
        hosts = List.copyOf(hosts);
        if (sites == null || !Files.isDirectory(sites)) {
            throw ErrorMessage.SITES_FOLDER_MISSING.error(sites);
        }
        if (bodyLimit <= 0) throw ErrorMessage.BODY_LIMIT.error(bodyLimit);
        if (timeout.isNegative() || timeout.isZero()) {
            throw ErrorMessage.ROUTE_TIME_LIMIT.error(timeout);
        }
        if (sourceCache < 0) throw ErrorMessage.SOURCE_CACHE_NEGATIVE.error(sourceCache);
        if (pageCacheMemory < 0) throw ErrorMessage.PAGE_CACHE_MEMORY_NEGATIVE.error(pageCacheMemory);
    }

    /**
     * Sites in {@code sites}, content in {@code content}, the shipped packages from the class path,
     * development mode, the default limits.
     */
    public static PipelineConfig of(Path sites, Path content) {
        return new PipelineConfig(content, List.of(), true, sites, true, DEFAULT_BODY_LIMIT, DEFAULT_TIMEOUT,
                DEFAULT_SOURCE_CACHE, XmlPolicy.Limits.DEFAULT, Outbound.Policy.DEFAULT, List.of(), null, true, DEFAULT_PAGE_CACHE_MEMORY);
    }

    public PipelineConfig withDevelopment(boolean on) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, on, bodyLimit, timeout, sourceCache,
                xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withContent(Path folder) {
        return new PipelineConfig(folder, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withSites(Path folder) {
        return new PipelineConfig(content, packageFolders, classPathPackages, folder, development, bodyLimit, timeout,
                sourceCache, xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    /** Package folders, and whether the class path's packages are added to them. */
    public PipelineConfig withPackages(List<Path> folders, boolean classPath) {
        return new PipelineConfig(content, folders, classPath, sites, development, bodyLimit, timeout, sourceCache,
                xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withBodyLimit(long bytes) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bytes, timeout,
                sourceCache, xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withTimeout(Duration limit) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, limit,
                sourceCache, xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withSourceCache(long bytes) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                bytes, xmlLimits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withXmlLimits(XmlPolicy.Limits limits) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, limits, outbound, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    public PipelineConfig withOutbound(Outbound.Policy policy) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, xmlLimits, policy, hosts, cacheFolder, pageCaches, pageCacheMemory);
    }

    /** Page caches with disk tiers under {@code folder} (null: memory only). */
    /** With page caching on (the routes whose site.xml says so cache) or off (every page built afresh). */
    public PipelineConfig withPageCaches(boolean on) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, xmlLimits, outbound, hosts, cacheFolder, on, pageCacheMemory);
    }

    public PipelineConfig withCacheFolder(Path folder) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, xmlLimits, outbound, hosts, folder, pageCaches, pageCacheMemory);
    }

    /** One memory budget of {@code bytes} for every site's cached pages (0: each site its own tier, unbounded in sum). */
    public PipelineConfig withPageCacheMemory(long bytes) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, xmlLimits, outbound, hosts, cacheFolder, pageCaches, bytes);
    }

    public PipelineConfig withHosts(List<String> names) {
        return new PipelineConfig(content, packageFolders, classPathPackages, sites, development, bodyLimit, timeout,
                sourceCache, xmlLimits, outbound, names, cacheFolder, pageCaches, pageCacheMemory);
    }
}
