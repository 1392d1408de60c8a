package arno.store.atom;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.store.atom.WriteQueue.Task;
import arno.xml.ArnoException;

/**
 * The single node's {@link WritePath}, the one writer of the service: a thread that takes queued operations and applies them in one
 * LMDB write transaction until the queue is empty or {@link AtomOptions#groupCommitMax()} is
 * reached, commits once, then completes each caller's future (group commit: one fsync for many
 * writes, and the store's write lock is never held while a client sends a body, since bodies
 * are read before they are queued).
 *
 * <p>Isolation inside a group: an operation checks everything before it writes anything, and
 * the engine removes what a failed put had written, so an operation that is refused (any 4xx:
 * validation, 409, 412, a malformed variant) leaves nothing of itself and the others commit. An
 * operation that fails otherwise (a bug, the map full) may have left half its writes: the group is
 * aborted, that operation fails, and the others are put back at the head of the queue to run
 * again in a new transaction, in their order.
 *
 * <p>Operations are applied in the order they were queued, so one caller's operations (a parent,
 * then its child) take effect in its order, and an operation sees every earlier one.
 */
final class Writer implements WritePath {

    private final Store store;
    private final AtomStore atom;
    private final int groupMax;
    private final WriteQueue queue;

    Writer(Store store, AtomStore atom, int groupMax) {
        this.store = store;
        this.atom = atom;
        this.groupMax = groupMax;
        this.queue = new WriteQueue(store.directory(), "arno-store-writer " + store.directory().getFileName(), this::runGroup);
    }

    @Override
    public CompletableFuture<Done> submit(Op op) {
        return queue.submit(op);
    }

    @Override
    public int queued() {
        return queue.size();
    }

    /** The store's own change feed: one read snapshot per call. */
    @Override
    public List<Change> changesSince(long version, int seq, int limit) {
        try (Snapshot s = store.read()) {
            return s.changesSince(version, seq, limit);
        }
    }

    @Override
    public long version() {
        return store.version();
    }

    private void runGroup(List<Task> group) {
        List<Task> committed = new ArrayList<>();
        Task failed = null;
        RuntimeException fatal = null;
        long version = 0;
        Instant time = null;
        try (WriteTransaction w = store.write()) {
            Tx tx = new Tx(w, atom);
            for (int i = 0; ; i++) {
                Task t = group.get(i);
                try {
                    t.applied = t.op.apply(tx);
                    committed.add(t);
                } catch (RuntimeException e) {
                    ArnoException a = ArnoException.find(e);
                    if (a != null && a.status() < 500) {
                        t.future.completeExceptionally(a);
                    } else {
                        failed = t;
                        fatal = e;
                        break;
                    }
                }
                if (group.size() >= groupMax) break;
                if (i == group.size() - 1) {
                    Task next = queue.next();
                    if (next == null) break;
                    group.add(next);
                }
            }
            if (fatal == null) {
                time = w.time();
                version = w.commit();
            }
        } catch (RuntimeException e) {
            // the commit failed, or opening the transaction did (a closed store): nothing of the group is stored
            atom.forgetModel();
            for (Task t : group) {
                if (!t.future.isDone()) t.future.completeExceptionally(e);
            }
            return;
        }
        if (fatal != null) {
            atom.forgetModel();
            failed.future.completeExceptionally(fatal);
            // the others run again, in their order, ahead of anything queued since
            List<Task> again = new ArrayList<>(committed);
            again.addAll(group.subList(group.indexOf(failed) + 1, group.size()));
            queue.again(again);
            return;
        }
        for (Task t : committed) t.future.complete(new Done(t.applied, version, time));
    }

    /** Stops taking operations, lets the queued ones run, and waits for the thread to end. */
    @Override
    public void close() {
        queue.close();
    }
}
