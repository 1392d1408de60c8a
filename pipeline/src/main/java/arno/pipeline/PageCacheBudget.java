package arno.pipeline;

/**
 * The server's one memory budget for every site's cached pages, in figures (what {@link
 * SiteRegistry#cacheBudget()} gives): the sites' memory tiers are one ARC bounded by it, and each
 * site's share is in its {@link PageCacheStats} ({@code memory().bytes()}, at most its {@code memoryCap()}).
 *
 * @param budget    the most bytes of pages all sites keep in memory together ({@code pages/@page-cache-memory})
 * @param bytes     bytes of pages held now, of every site
 * @param entries   pages held now, of every site
 * @param arcTarget the shared ARC's target size for pages seen once (the paper's p), in bytes
 */
public record PageCacheBudget(long budget, long bytes, int entries, double arcTarget) {}
