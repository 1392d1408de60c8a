package arno.cache;

/**
 * Tells whether a source is still at the version an entry recorded. The two-tier cache asks
 * it about every dependency of an entry found by {@link TwoTierCache#get(Object, Validator)},
 * several at once on the validation executor.
 *
 * <p>An implementation MUST be thread-safe and SHOULD bound its own time (a network check
 * needs a timeout: the lookup waits for it). It MAY throw: any exception counts as "not
 * current", so the entry is rebuilt and whoever rebuilds it meets the real error.
 */
@FunctionalInterface
public interface Validator {

    boolean isCurrent(Dependencies.Dependency dependency) throws Exception;

    /**
     * Called once per validated lookup, on the calling thread, before any {@link #isCurrent}:
     * checks at once what can be checked at once, and returns the dependencies that still need a
     * check one by one (possibly in parallel, on other threads), or null when one is already
     * known to be stale. The default checks nothing here.
     *
     * <p>For checks that are cheap in bulk or bound to the calling thread: the page cache answers
     * every store dependency here from one read view (an LMDB read transaction belongs to its
     * thread), in O(1) in total when the store has not changed since the entry was built, and
     * leaves only files to the parallel checks. Any exception counts as stale.
     */
    default Dependencies screen(Dependencies dependencies) throws Exception {
        return dependencies;
    }
}
