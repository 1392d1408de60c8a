package arno.pipeline;

import arno.xml.DocumentStore;

/**
 * The server's current {@link Sites}, and their reloading in development mode: before a request,
 * {@link #current()} compares a cheap fingerprint (name, size and time of every file under the
 * package and site folders) with the one the sites were compiled from and, when anything changed,
 * recompiles everything (a change to a shared package must reach every site that uses it; a
 * whole recompilation is the simplest correct dependency tracking and takes well under a second).
 * In production {@link #current()} returns the same object for ever and reads no file.
 *
 * <p>Thread-safe: requests read a volatile reference; one reloads at a time.
 */
public final class SiteRegistry implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");

    private volatile Sites sites;
    private volatile long fingerprint;

    private SiteRegistry(Sites sites, long fingerprint) {
        this.sites = sites;
        this.fingerprint = fingerprint;
    }

    /** Compiles the sites; a bad site.xml or package fails here ({@code ErrorCode.SITE_ERROR}). */
    public static SiteRegistry start(PipelineConfig config, DocumentStore store) {
        return start(config, store, PageCaches.wallClock());
    }

    /**
     * As {@link #start(PipelineConfig, DocumentStore)}, with the page caches timed by {@code clock}:
     * nanoseconds since the epoch (a page's ttl outlives the process). For tests of expiry.
     */
    public static SiteRegistry start(PipelineConfig config, DocumentStore store, arno.cache.Ticker clock) {
        long f = config.development() ? fingerprint(config) : 0;
        return new SiteRegistry(Sites.compile(config, store, clock), f);
    }

    /**
     * Follows {@code feed} on one thread, evicting the cached pages that depend on what each change
     * touched. Without it pages are still never served stale (every hit is checked against the
     * current store), but they stay in memory until looked up.
     */
    public void followChanges(ChangeFeed feed) {
        sites.engine.caches.follow(feed);
    }

    /** Each caching site's page cache in figures, by site name. */
    public java.util.Map<String, PageCacheStats> cacheStats() {
        return sites.engine.caches.stats();
    }

    /** The memory budget every site's cached pages share, in figures; null when the caches are off or each site has its own. */
    public PageCacheBudget cacheBudget() {
        return sites.engine.caches.budget();
    }

    /**
     * Each site's context caches in figures (cached fragments, external sources, its table of
     * files), by site name; empty when the caches are off.
     */
    public java.util.Map<String, ContextCacheStats> contextStats() {
        return sites.engine.caches.contextStats();
    }

    /**
     * Drops every cached page, fragment and external source of {@code site}, or of every site
     * when it is null; returns how many entries each site dropped. A site that is not there (or
     * the caches being off) gives an empty map.
     */
    public java.util.Map<String, Integer> clearCaches(String site) {
        return sites.engine.caches.clear(site);
    }

    /**
     * Stops following the change feed and closes the page caches, writing what only memory holds to
     * their disk tiers so that the next start is warm. Call it once the servlet takes no more requests.
     */
    @Override
    public void close() {
        sites.engine.caches.close();
    }

    /** The last failures the sites answered (kept across development reloads). */
    public RecentErrors recentErrors() {
        return sites.engine.recentErrors;
    }

    public PipelineConfig config() {
        return sites.engine.config;
    }

    /**
     * The sites to answer the next request with. In development mode, recompiled first if a file
     * changed; a broken edit fails here with {@code SITE_ERROR} until it is fixed (the servlet
     * answers it with a plain error page).
     */
    public Sites current() {
        Sites s = sites;
        PipelineConfig config = s.engine.config;
        if (!config.development()) return s;
        long now = fingerprint(config);
        if (now == fingerprint) return s;
        synchronized (this) {
            if (fingerprint(config) != fingerprint) {
                LOG.log(System.Logger.Level.INFO, "files changed: recompiling packages and sites");
                long f = fingerprint(config);
                sites = sites.recompile();
                fingerprint = f;
            }
            return sites;
        }
    }

    /** A cheap summary of every file's name, size and time under the package and site folders. */
    private static long fingerprint(PipelineConfig config) {
        return Long.parseUnsignedLong(Sites.fingerprint(config), 16);
    }
}
