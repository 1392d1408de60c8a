package arno.pipeline;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How an Arno engine is set up. Defaults live in {@link #defaults(Path, Path)};
 * a wrong value is refused here, at start-up, with the reason.
 *
 * @param content        folder behind the {@code content:} URI scheme
 * @param packageFolders folders whose xsl:package files are shared by all sites
 * @param sites          folder with one sub-folder per site, each with a site.xml
 * @param errorTemplate  stylesheet for errors of sites without their own error template (may not exist)
 * @param development    reload changed stylesheets, show error details and /_debug/request
 * @param bodyLimit      largest request body accepted, in bytes
 * @param timeout        a route's time limit unless site.xml sets one
 * @param sourceCache    bytes of parsed content documents kept between requests (0: none)
 */
public record ArnoConfig(Path content, List<Path> packageFolders, Path sites, Path errorTemplate,
                         boolean development, long bodyLimit, Duration timeout, long sourceCache) {

    public static final long DEFAULT_BODY_LIMIT = 10L << 20;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * A quarter of the heap, at least 16 MB: parsed trees take about three times their XML, so
     * a fixed 128 MB held three quarters of the 1,000-article demo (60 MB of XML, 172 MB of
     * trees) and one full-text page in four parsed its article again (perf/RESULTS.md).
     */
    public static final long DEFAULT_SOURCE_CACHE = Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 4);

    public ArnoConfig {
        packageFolders = List.copyOf(packageFolders);
        if (!Files.isDirectory(sites)) throw new IllegalArgumentException("sites folder " + sites + " does not exist");
        if (bodyLimit <= 0) throw new IllegalArgumentException("body limit must be positive, not " + bodyLimit);
        if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout must be positive, not " + timeout);
        if (sourceCache < 0) throw new IllegalArgumentException("source cache size must not be negative, not " + sourceCache);
    }

    /**
     * The layout of an Arno checkout: {@code root/templates/xsl} and
     * {@code root/stylesheets/packages} hold the shared packages,
     * {@code root/sites} the sites, {@code data/content} the content.
     */
    public static ArnoConfig defaults(Path root, Path data) {
        return new ArnoConfig(data.resolve("content"),
                List.of(root.resolve("templates/xsl"), root.resolve("stylesheets/packages")),
                root.resolve("sites"), root.resolve("templates/xsl/error.xsl"),
                true, DEFAULT_BODY_LIMIT, DEFAULT_TIMEOUT, DEFAULT_SOURCE_CACHE);
    }

    public ArnoConfig withDevelopment(boolean on) {
        return new ArnoConfig(content, packageFolders, sites, errorTemplate, on, bodyLimit, timeout, sourceCache);
    }

    public ArnoConfig withSites(Path folder) {
        return new ArnoConfig(content, packageFolders, folder, errorTemplate, development, bodyLimit, timeout, sourceCache);
    }

    public ArnoConfig withContent(Path folder) {
        return new ArnoConfig(folder, packageFolders, sites, errorTemplate, development, bodyLimit, timeout, sourceCache);
    }

    public ArnoConfig withBodyLimit(long bytes) {
        return new ArnoConfig(content, packageFolders, sites, errorTemplate, development, bytes, timeout, sourceCache);
    }

    public ArnoConfig withSourceCache(long bytes) {
        return new ArnoConfig(content, packageFolders, sites, errorTemplate, development, bodyLimit, timeout, bytes);
    }

    public ArnoConfig withTimeout(Duration limit) {
        return new ArnoConfig(content, packageFolders, sites, errorTemplate, development, bodyLimit, limit, sourceCache);
    }
}
