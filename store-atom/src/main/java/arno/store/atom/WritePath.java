package arno.store.atom;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import arno.store.Change;

/**
 * Where the Atom service's writes go, and where their changes are read back in commit order: the
 * seam between the service and what makes a write durable. {@link AtomStore} builds every write
 * as an {@link Op} and never commits itself, and the store API and the page caches read the change
 * feed through {@link #changesSince}, so a second implementation changes no caller.
 *
 * <p>The first implementation is the single node's: {@code Writer}, one thread applying queued
 * operations in one LMDB write transaction per group (group commit). A cluster node's (the issue
 * "Scale-out") runs the same operations against its own copy to check them, commits their writes
 * in PostgreSQL with the change-log rows, and completes an operation when its node has applied
 * that commit; its change feed is the log it applies.
 */
public interface WritePath extends AutoCloseable {

    /** One operation: reads and checks through {@code tx}, then writes through it. */
    interface Op {
        Applied apply(Tx tx);
    }

    /** What an operation did, before the commit gives it a version. */
    record Applied(ResourcePath path, String document, List<String> documents, int linksRemoved) {
        static Applied of(ResourcePath path, String document) {
            return new Applied(path, document, List.of(), 0);
        }
    }

    /** What an operation did, committed: the version and time of the commit that holds it. */
    record Done(Applied applied, long version, Instant time) {
    }

    /** Opens a write path for {@code atom} (called once, by {@link AtomStore#open}). */
    interface Factory {
        WritePath open(AtomStore atom, AtomOptions options);

        /**
         * Whether the path writes the default model documents ({@link AtomStore#defaultDocuments})
         * itself, once for every copy (a cluster's, through its log), rather than the service
         * installing them in its own store.
         */
        default boolean writesDefaults() {
            return false;
        }
    }

    /** The single node's: LMDB group commit on the service's own store. */
    Factory LOCAL = (atom, options) -> new Writer(atom.store(), atom, options.groupCommitMax());

    /**
     * Queues {@code op}; its future completes after the commit that holds it (and only then: the
     * write is durable), or with the operation's own error.
     */
    CompletableFuture<Done> submit(Op op);

    /**
     * At most {@code limit} changes, oldest first: those of the versions after {@code version}, and
     * with {@code seq} ≥ 1 also those of {@code version} from its {@code seq}-th change on.
     */
    List<Change> changesSince(long version, int seq, int limit);

    /** The version of the last commit applied: where a follower that starts now begins. */
    long version();

    /**
     * The position in the cluster's log of the commit that made store version {@code version},
     * when this path committed it recently (what a writer is told, to read its write on another
     * node); empty on a single node.
     */
    default java.util.OptionalLong position(long version) {
        return java.util.OptionalLong.empty();
    }

    /** Operations waiting to be applied. */
    int queued();

    /** Stops taking operations, lets the queued ones finish, and waits for them. */
    @Override
    void close();

    /** Waits for {@code f} and returns its result; the operation's own error is rethrown as it is. */
    static Done await(CompletableFuture<Done> f) {
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error r) throw r;
            throw e;
        }
    }
}
