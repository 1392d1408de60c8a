package arno.pipeline;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What site.xml says about page caching. A site's bounds ({@code <cache memory="64M" disk="1G"
 * revalidate="2s"><sources items="1000" memory="64M" revalidate="30m"/><fragments items="10000"
 * memory="16M"/></cache>} after its parameters: every part optional) and, per route, whether and how its pages are cached
 * ({@code <route …><cache ttl="10m" max-size="1M" params="page" vary="Accept-Language"
 * max-age="60s"/>…}). Sizes are bytes with an optional K, M or G (powers of 1024); times are a
 * number with ms, s, m, h or d. The schema checks their form; the loader checks their range.
 */
final class CachePolicy {
    private CachePolicy() {}

    /** Memory for a site's cached pages unless site.xml says otherwise: about a thousand full-text pages. */
    static final long DEFAULT_MEMORY = 64L << 20;
    /** Disk for a site's cached pages unless site.xml says otherwise. */
    static final long DEFAULT_DISK = 1L << 30;
    /**
     * How long a file a page read is trusted before it is looked at again (a stat), so that a hot
     * page does not stat its files on every hit. Development mode uses zero: edits show at once.
     */
    static final Duration DEFAULT_REVALIDATE = Duration.ofSeconds(2);
    /** The largest page a route caches unless it says otherwise. */
    static final long DEFAULT_MAX_SIZE = 1L << 20;

    /** Parsed external sources (doc() of http and https URIs) a site keeps, like the modelled platform: 1,000. */
    static final int DEFAULT_SOURCE_ITEMS = 1000;
    /** How long a kept external source is used before a conditional GET asks its server again: 30 minutes. */
    static final Duration DEFAULT_SOURCE_REVALIDATE = Duration.ofMinutes(30);
    /** Memory for a site's parsed external sources (a TinyTree weighs about three times its XML). */
    static final long DEFAULT_SOURCE_MEMORY = 64L << 20;
    /** Fragments (cache:fragment) a site keeps at most. */
    static final int DEFAULT_FRAGMENT_ITEMS = 10_000;
    /** Memory for a site's cached fragments. */
    static final long DEFAULT_FRAGMENT_MEMORY = 16L << 20;
    /**
     * Files whose state (time and size) a site's caches remember between checks: a file evicted
     * from this table costs one stat at its next check. About 200 bytes each: 13 MB at most.
     */
    static final int FILE_STATES = 65_536;

    /**
     * A site's page cache bounds and its context caches.
     *
     * @param memory     bytes of pages kept in memory (ARC)
     * @param disk       bytes of pages kept on disk under DATA/cache/SITE (0: memory only)
     * @param revalidate how long a file dependency is trusted before it is looked at again
     * @param sources    the parsed external sources kept
     * @param fragments  the fragments kept that pipelines mark with {@code cache:fragment}
     */
    record Site(long memory, long disk, Duration revalidate, Sources sources, Fragments fragments) {
        static Site defaults(boolean development) {
            return new Site(DEFAULT_MEMORY, DEFAULT_DISK, development ? Duration.ZERO : DEFAULT_REVALIDATE,
                    Sources.DEFAULT, Fragments.DEFAULT);
        }
    }

    /**
     * External sources ({@code doc()} of http and https URIs), parsed once and kept in memory.
     *
     * @param items      how many are kept (ARC)
     * @param memory     bytes they may take in memory (estimated as three times their XML)
     * @param revalidate how long one is used before its server is asked again (If-None-Match /
     *                   If-Modified-Since); the pages built from it are checked the same way
     */
    record Sources(int items, long memory, Duration revalidate) {
        static final Sources DEFAULT = new Sources(DEFAULT_SOURCE_ITEMS, DEFAULT_SOURCE_MEMORY, DEFAULT_SOURCE_REVALIDATE);
    }

    /**
     * Fragments that pipelines mark cacheable with {@code cache:fragment($key, $build)}, kept in
     * memory while what their building read is unchanged.
     *
     * @param items  how many are kept (ARC); 0: none, every call builds
     * @param memory bytes they may take
     */
    record Fragments(int items, long memory) {
        static final Fragments DEFAULT = new Fragments(DEFAULT_FRAGMENT_ITEMS, DEFAULT_FRAGMENT_MEMORY);
    }

    /**
     * One route's caching.
     *
     * @param ttl     how long a page is served after it was built, or null for as long as what it read is unchanged
     * @param maxSize the largest page kept, in bytes (uncompressed)
     * @param params  the query parameters that make a different page (others are ignored)
     * @param vary    the request headers that make a different page (sent back as Vary)
     * @param maxAge  Cache-Control max-age for clients and proxies, or null for no-cache (they revalidate with the ETag)
     */
    record Route(Duration ttl, long maxSize, List<String> params, List<String> vary, Duration maxAge) {
        Route {
            params = List.copyOf(params);
            vary = List.copyOf(vary);
        }

        String cacheControl() {
            return maxAge == null ? "no-cache" : "max-age=" + maxAge.toSeconds();
        }
    }

    private static final Pattern SIZE = Pattern.compile("([0-9]{1,12})([KMG]?)");
    private static final Pattern TIME = Pattern.compile("([0-9]{1,9})(ms|s|m|h|d)");

    /** "64M" → bytes; null if the form is wrong (the schema has refused it already). */
    static Long size(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) return null;
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "K" -> n << 10;
            case "M" -> n << 20;
            case "G" -> n << 30;
            default -> n;
        };
    }

    /** "10m" → a duration; null if the form is wrong. */
    static Duration time(String text) {
        Matcher m = TIME.matcher(text.trim());
        if (!m.matches()) return null;
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
