package arno.pipeline;

import java.util.List;

/**
 * The store's change feed as the page caches follow it ({@link SiteRegistry#followChanges}):
 * ordered, resumable from a position. The server adapts the store's own feed; a replica would
 * adapt the feed it follows. Called from the caches' one follower thread only.
 */
public interface ChangeFeed {

    /** The store's current version: where a follower that starts now begins. */
    long version();

    /**
     * At most {@code limit} changes, oldest first: those of the versions after {@code version}, and
     * with {@code seq} ≥ 1 also those of {@code version} from its {@code seq}-th change on. MAY throw
     * when those changes are no longer kept: the follower then starts again from {@link #version()}
     * (the caches' checks against the current store still hold, only eviction is late).
     */
    List<Change> since(long version, int seq, int limit);

    /**
     * The document at {@code path} was written (or deleted) by the commit {@code version}, as its
     * {@code seq}-th change.
     */
    record Change(long version, int seq, String path, boolean deleted) {}
}
