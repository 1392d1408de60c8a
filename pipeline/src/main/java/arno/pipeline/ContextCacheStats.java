package arno.pipeline;

/**
 * One site's context caches in figures, beside its {@link PageCacheStats}: what {@link
 * SiteRegistry#contextStats()} gives per site. Counts are since the site's caches were opened.
 *
 * @param site         the site's name
 * @param fragments    the fragments kept by {@code cache:fragment} (all zero when the site keeps none)
 * @param sources      the parsed external sources (a hit may still be due for a conditional GET)
 * @param sourceFetches     whole external documents fetched (first uses, and changed ones)
 * @param sourceNotModified conditional GETs answered 304: the kept copy confirmed, nothing parsed
 * @param files        files whose state the site's caches remember now
 * @param fileCapacity the most they remember (ARC; one evicted costs a stat at its next check)
 */
public record ContextCacheStats(String site, Part fragments, Part sources, long sourceFetches, long sourceNotModified,
                                int files, int fileCapacity) {

    /**
     * One context cache.
     *
     * @param hits          lookups that found an entry
     * @param misses        lookups that found none (absent or stale)
     * @param stale         entries a lookup's check found outdated and dropped (fragments)
     * @param invalidations entries dropped by the store's change feed (fragments)
     * @param evictions     entries dropped for room
     * @param entries       entries held now
     * @param bytes         bytes held now (estimated for trees)
     * @param arcTarget     ARC's target size for its list of entries seen once (the paper's p)
     */
    public record Part(long hits, long misses, long stale, long invalidations, long evictions, int entries, long bytes,
                       double arcTarget) {
        static final Part NONE = new Part(0, 0, 0, 0, 0, 0, 0, 0);
    }
}
