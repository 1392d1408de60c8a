package arno.pipeline;

/**
 * One site's page cache in figures, for metrics and an admin page: what {@link
 * SiteRegistry#cacheStats()} gives per site. Counts are since the server started; a lookup is a
 * memory hit, a disk hit or a miss.
 *
 * @param site          the site's name
 * @param misses        lookups that ran the pipeline (absent, stale, expired or unreadable)
 * @param stale         entries found outdated by a lookup's check (a dependency changed, the ttl passed) and dropped
 * @param invalidations entries dropped by the store's change feed
 * @param corrupt       disk files that failed their checksums or did not decode, deleted
 * @param ioErrors      disk reads or writes that failed (the entry was treated as absent)
 * @param memory        the memory tier
 * @param disk          the disk tier (all zero when the site caches in memory only)
 * @param diskFailure   why the disk tier takes no entries (it could not be opened, or a write failed: the
 *                      cache runs in memory only until a restart), or null
 * @param memoryCap     the most bytes of pages the site keeps in memory: its site.xml's {@code memory}, within
 *                      the server's budget for every site's pages ({@link PageCacheBudget}) when there is one
 */
public record PageCacheStats(String site, long misses, long stale, long invalidations, long corrupt, long ioErrors,
                             Tier memory, Tier disk, String diskFailure, long memoryCap) {

    /** Without a cap (0), as before the shared budget. */
    public PageCacheStats(String site, long misses, long stale, long invalidations, long corrupt, long ioErrors,
                          Tier memory, Tier disk, String diskFailure) {
        this(site, misses, stale, invalidations, corrupt, ioErrors, memory, disk, diskFailure, 0);
    }

    /**
     * One tier.
     *
     * @param hits      lookups answered from this tier
     * @param evictions entries this tier dropped for room (memory's go to disk when there is one)
     * @param writes    entries written to this tier (disk only: memory's evictions demoted)
     * @param entries   entries held now
     * @param bytes     bytes held now
     * @param arcTarget ARC's target size for its list of entries seen once (the paper's p), in bytes (the tiers are bounded by bytes)
     */
    public record Tier(long hits, long evictions, long writes, int entries, long bytes, double arcTarget) {}

    /** Hits of both tiers over lookups, or 0 before the first lookup. */
    public double hitRatio() {
        long hits = memory.hits + disk.hits;
        return hits + misses == 0 ? 0 : (double) hits / (hits + misses);
    }
}
