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
}
