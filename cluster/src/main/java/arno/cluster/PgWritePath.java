package arno.cluster;

import java.io.ByteArrayOutputStream;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import arno.store.Change;
import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.store.atom.AtomStore;
import arno.store.atom.Tx;
import arno.store.atom.WritePath;
import arno.store.atom.WriteQueue;
import arno.store.atom.WriteQueue.Task;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;

/**
 * A cluster node's {@link WritePath}: every write of the Atom service commits in PostgreSQL with
 * its change-log rows, and reaches the node's LMDB copy only through the node's {@link Applier},
 * like every other node's writes. One thread takes the queued operations, a group at a time (as
 * the single node's writer does), and for each group:
 * <ol>
 * <li><b>checks</b> them against the copy: a write transaction of the copy ({@code store.write()},
 *     the lock the applier takes too, so the copy stands still meanwhile) runs each operation
 *     through a {@link Tx}, so every rule of the service (kinds, links, names, If-Match) applies
 *     unchanged; an operation refused (status &lt; 500) fails with its own error and touches nothing;</li>
 * <li><b>captures</b> what the group wrote, from the transaction's own view: each document it
 *     stored (the XML as the view serialises it, or the bytes of a binary, its media type and its
 *     references) and each it deleted, in the order of their last change; then <b>aborts</b> the
 *     transaction, since a copy changes only by applying the log;</li>
 * <li><b>commits</b> the captured writes in PostgreSQL in one {@link ChangeLog.Transaction};</li>
 * <li><b>applies</b> that commit to the copy at once, from the writes it captured, by the applier's
 *     own step (the node's applier, which hears of every commit, then finds it applied), and
 *     completes the operations: the write is then durable in PostgreSQL and visible on this node
 *     (read-your-writes for the writer), and its version is the store version the commit was
 *     applied as, which every node gives it.</li>
 * </ol>
 *
 * <h2>Conflicts between nodes</h2>
 * Two nodes may check against copies that are behind the log: both see version 7 of an entry and
 * both pass its If-Match, or both find a name free. The check ran on the copy at position P (the
 * applier's mark, read in the checking transaction), and it is valid only if nothing was committed
 * after P; so the commit is made only if the log's head is still P ({@link ChangeLog.Transaction#commitAfter},
 * a condition on the head's row, decided under its lock). Otherwise nothing is stored, and the
 * group is run again from step 1 <i>holding the head</i> ({@link ChangeLog.Transaction#lockHead}):
 * the thread takes the head's lock, waits until its copy has applied that head, checks on it (the
 * operation may now be refused, 412: someone changed the entry since, or pass) and commits in the
 * same transaction, so a group loses a race at most once: with three nodes writing at once, about
 * half the groups lost one, and many lost several in a row. No operation is ever committed against
 * a state it did not check, and none is lost. This serialises every write of the cluster on the
 * head, which writers queue for anyway;
 * a finer check (the documents an operation read and wrote, against those changed after P) would
 * let unrelated writes of two nodes through without a retry, but needs the read set of every
 * operation, which the service does not record yet.
 *
 * <p>A refusal is the copy's answer: a node behind the log may refuse what a newer copy would
 * accept (an If-Match of a version it has not applied yet); read-your-writes across nodes (the
 * minimum position a client sends, issue 23 item 5) is what makes a client's view current.
 *
 * <p>The database unreachable (or failing the write): the operations fail with
 * {@link ErrorCode#DATABASE_UNAVAILABLE} (503) and nothing is stored. If the COMMIT itself failed as
 * it ran, PostgreSQL is asked what became of the transaction ({@code pg_xact_status}): committed, the
 * write is answered as stored; aborted, it is checked and committed again; only when that cannot be
 * found out within the apply timeout does the message say the outcome is unknown (the applier
 * applies it if it did commit).
 */
public final class PgWritePath implements WritePath {

    private static final System.Logger LOG = System.getLogger("arno");

    /**
     * @param applier      the node's applier
     * @param applyTimeout how long a committed write waits for its node to apply it before it
     *                     answers 503 (saying it is committed)
     * @param maxAttempts  how many times a group is checked again after other nodes committed first
     */
    public record Options(Applier.Options applier, Duration applyTimeout, int maxAttempts) {
        public Options {
            Objects.requireNonNull(applier);
            if (applyTimeout.isNegative() || applyTimeout.isZero()) {
                throw new IllegalArgumentException("the apply timeout must be positive, not " + applyTimeout);
            }
            if (maxAttempts < 1) throw new IllegalArgumentException("at least one attempt, not " + maxAttempts);
        }

        public static Options defaults() {
            return new Options(Applier.Options.defaults(), Duration.ofSeconds(30), 100);
        }

        public Options applier(Applier.Options a) {
            return new Options(a, applyTimeout, maxAttempts);
        }

        public Options applyTimeout(Duration d) {
            return new Options(applier, d, maxAttempts);
        }
    }

    /**
     * The factory to pass to {@link AtomStore#open(Store, arno.store.atom.AtomOptions, WritePath.Factory)}:
     * opens the write path and starts the node's applier after the service has installed its
     * default documents (so every node's copy numbers its versions alike), and hands the path to
     * {@code opened} (the server needs its {@link #applier()}).
     */
    public static WritePath.Factory factory(ChangeLog log, Applier.Connector connector, Options options,
            Consumer<? super PgWritePath> opened) {
        return new WritePath.Factory() {
            @Override
            public WritePath open(AtomStore atom, arno.store.atom.AtomOptions atomOptions) {
                long model;
                try {
                    // the default model, once for the cluster through the log, never into one copy alone
                    model = log.writeOnce(arno.store.atom.Atom.MODEL_FOLDER, AtomStore.defaultDocuments());
                } catch (SQLException e) {
                    throw ErrorMessage.DB_UNREACHABLE.error(e, e.getMessage());
                }
                PgWritePath p = new PgWritePath(atom, log, new Applier(atom.store(), log, connector, options.applier()),
                        options, atomOptions.groupCommitMax());
                opened.accept(p);
                try {
                    // the service checks writes against the model: it opens once this copy holds it
                    if (!p.applier.awaitApplied(model, options.applyTimeout())) {
                        LOG.log(System.Logger.Level.WARNING, "this node has not applied the cluster's model documents (position "
                                + model + ") within " + options.applyTimeout().toMillis() + " ms: " + p.applier.problem());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return p;
            }

            @Override
            public boolean writesDefaults() {
                return true;
            }
        };
    }

    /** One document a group wrote: content null for a delete. */
    private record Write(String path, String mediaType, boolean binary, byte[] content, List<String> refs) {
    }

    /** What checking a group gave: the position checked at, the writes, the commit time of the check. */
    private record Checked(long base, List<Write> writes, Instant time) {
    }

    private final AtomStore atom;
    private final Store store;
    private final ChangeLog log;
    private final Applier applier;
    private final Options options;
    private final int groupMax;
    private final WriteQueue queue;
    /** Store version → position of the commits this path made, the last {@value Applier#REMEMBERED}. */
    private final Map<Long, Long> positions = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > Applier.REMEMBERED;
        }
    };
    private volatile long conflicts;
    /** Runs between the check and the commit in PostgreSQL (tests: another node commits there). */
    volatile Runnable beforeCommit = () -> { };

    private PgWritePath(AtomStore atom, ChangeLog log, Applier applier, Options options, int groupMax) {
        this.atom = atom;
        this.store = atom.store();
        this.log = log;
        this.applier = applier;
        this.options = options;
        this.groupMax = groupMax;
        this.queue = new WriteQueue(store.directory(), "arno-cluster-writer " + store.directory().getFileName(), this::runGroup);
    }

    /** The node's applier, which this path started and stops. */
    public Applier applier() {
        return applier;
    }

    /** Groups checked again because another commit came first. */
    public long conflicts() {
        return conflicts;
    }

    @Override
    public CompletableFuture<Done> submit(Op op) {
        return queue.submit(op);
    }

    @Override
    public java.util.OptionalLong position(long version) {
        synchronized (positions) {
            Long p = positions.get(version);
            return p == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(p);
        }
    }

    @Override
    public int queued() {
        return queue.size();
    }

    /** The copy's own change feed, which the applier writes. */
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
        // after a lost race the next attempt holds the log's head from before its check: it cannot lose again
        boolean lockFirst = false;
        for (int attempt = 1; ; attempt++) {
            ChangeLog.Transaction held = null;
            if (lockFirst) {
                held = lockedAtHead(group);
                if (held == null) return;
            }
            try {
                Checked checked = check(group, attempt == 1);
                if (checked == null) return;
                // the refused ones are answered; the rest go on together
                group.removeIf(t -> t.future.isDone());
                if (group.isEmpty()) return;
                if (checked.writes().isEmpty()) {
                    // nothing to store (operations that changed nothing): the copy as it is answers
                    for (Task t : group) t.future.complete(new Done(t.applied, store.version(), checked.time()));
                    return;
                }
                beforeCommit.run();
                Committed committed;
                try {
                    committed = commit(checked, held);
                } catch (ChangeLog.OutcomeUnknown e) {
                    ChangeLog.Outcome outcome = settle(e);
                    if (outcome == ChangeLog.Outcome.COMMITTED) {
                        complete(group, e.position(), checked.time());
                        return;
                    }
                    if (outcome == ChangeLog.Outcome.UNKNOWN) {
                        fail(group, ErrorMessage.DB_COMMIT_UNKNOWN.error(e, e.position(), cause(e)));
                        return;
                    }
                    // aborted: nothing was stored, so the group is checked and committed again
                    if (attempt == options.maxAttempts()) {
                        fail(group, ErrorMessage.DB_COMMIT_UNKNOWN.error(e, e.position(), cause(e)));
                        return;
                    }
                    continue;
                } catch (SQLException e) {
                    fail(group, unavailable(e));
                    return;
                }
                if (committed == null) {
                    conflicts++;
                    if (attempt == options.maxAttempts()) {
                        fail(group, ErrorMessage.CLUSTER_WRITE_CONFLICTS.error(attempt));
                        return;
                    }
                    lockFirst = true;
                    continue;
                }
                applyOwn(committed, checked);
                complete(group, committed.position(), checked.time());
                return;
            } finally {
                closeQuietly(held);
            }
        }
    }

    /** A commit this path made: its position and its time in the log. */
    private record Committed(long position, Instant time) {
    }

    /**
     * Applies this path's own commit to the copy at once, from the writes it captured, instead of
     * waiting for the applier to be woken and read them back from PostgreSQL: the copy is at the
     * position the commit follows (it was checked there and committed only on that head), so the
     * commit is the next the copy applies. It is the applier's own step ({@link Applier#apply}):
     * the same documents parsed the same way, version and time as every node gives them, and a
     * commit the applier got to first is found applied and left alone. If it fails, the applier
     * applies it as it would any commit.
     */
    private void applyOwn(Committed committed, Checked checked) {
        List<ChangeLog.Change> changes = new ArrayList<>(checked.writes().size());
        int seq = 0;
        for (Write w : checked.writes()) {
            changes.add(new ChangeLog.Change(++seq, w.path(), w.content() == null ? null : w.mediaType(),
                    w.binary(), w.content(), w.refs()));
        }
        try {
            applier.apply(new ChangeLog.Commit(committed.position(), committed.time(), log.node(), changes));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "this node could not apply its own commit at position " + committed.position()
                    + " at once (" + e.getMessage() + "); its applier applies it from the log", e);
        }
    }

    /**
     * A transaction of the log holding its head, with this node's copy caught up to that head; null
     * when the group failed meanwhile (the database out of reach, the copy not catching up).
     */
    private ChangeLog.Transaction lockedAtHead(List<Task> group) {
        ChangeLog.Transaction tx = null;
        try {
            tx = log.begin();
            long head = tx.lockHead();
            if (!applier.awaitApplied(head, options.applyTimeout())) {
                fail(group, ErrorMessage.DB_NOT_CAUGHT_UP.error(head, options.applyTimeout().toMillis(),
                        describe(applier.problem())));
                closeQuietly(tx);
                return null;
            }
            return tx;
        } catch (SQLException e) {
            closeQuietly(tx);
            fail(group, unavailable(e));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(tx);
            fail(group, ErrorMessage.WRITE_PATH_INTERRUPTED.error(store.directory()));
            return null;
        }
    }

    private static void closeQuietly(ChangeLog.Transaction tx) {
        if (tx == null) return;
        try {
            tx.close();
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.DEBUG, "rolling back a change log transaction failed: " + e.getMessage());
        }
    }

    /**
     * Step 1 and 2: runs the group's operations in a write transaction of the copy (taking more
     * from the queue on the first attempt, up to the group's size), refuses those that fail with
     * a 4xx, captures the writes, and aborts. Null when the group was dealt with (a failure).
     */
    private Checked check(List<Task> group, boolean takeMore) {
        Task failed = null;
        RuntimeException fatal = null;
        Checked checked = null;
        try (WriteTransaction w = store.write()) {
            try {
                Snapshot view = w.view();
                long base = view.mark(Applier.MARK).orElse(0);
                Tx tx = new Tx(w, atom);
                for (int i = 0; ; i++) {
                    Task t = group.get(i);
                    try {
                        t.applied = t.op.apply(tx);
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
                    if (i < group.size() - 1) continue;
                    // every operation of the group ran: on a first attempt, take more while there is room
                    if (!takeMore || group.size() >= groupMax) break;
                    Task next = queue.next();
                    if (next == null) break;
                    group.add(next);
                }
                if (fatal == null) checked = new Checked(base, capture(view, w.version()), w.time());
            } finally {
                // before the abort: a model read from this view must not outlive it (its version is reused)
                atom.forgetModel();
                w.abort();
            }
        } catch (RuntimeException e) {
            // opening the transaction failed (a closed store), or capturing did
            fail(group, e);
            return null;
        }
        if (fatal != null) {
            // as the single node's writer does: that operation fails, the others run again, ahead of the queue
            failed.future.completeExceptionally(fatal);
            List<Task> again = new ArrayList<>(group);
            again.removeIf(t -> t.future.isDone());
            queue.again(again);
            return null;
        }
        return checked;
    }

    /**
     * What the transaction at {@code version} wrote, from its own view: one write per document, in
     * the order of its last change. A document stored and then deleted in the group is logged as a
     * delete (the view cannot tell whether it existed before): applied to a copy that lacks it, it
     * deletes nothing, on every node alike. References are captured with each stored document; the
     * service sets them only together with a put.
     */
    private static List<Write> capture(Snapshot view, long version) {
        Map<String, Change.Kind> last = new LinkedHashMap<>();
        for (Change c : view.changesSince(version - 1, 0, Integer.MAX_VALUE)) {
            last.remove(c.uri());
            last.put(c.uri(), c.kind());
        }
        List<Write> out = new ArrayList<>(last.size());
        for (Map.Entry<String, Change.Kind> e : last.entrySet()) {
            String path = e.getKey();
            if (e.getValue() == Change.Kind.DELETE) {
                out.add(new Write(path, null, false, null, List.of()));
                continue;
            }
            DocumentInfo info = view.info(path);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            view.export(path, bytes);
            out.add(new Write(path, info.mediaType(), info.binary(), bytes.toByteArray(), view.references(path)));
        }
        return out;
    }

    /**
     * Step 3: the captured writes in one transaction of the log, committed only on the head
     * checked against; null when another commit came first. {@code held}: the transaction that
     * holds the head (a try after a lost race), else a new one. A connection that fails before the
     * COMMIT of a new one (one the pool kept across a restart of the database, say) stored nothing,
     * so the pool's connections are dropped and the transaction is tried once more on a new one.
     */
    private Committed commit(Checked checked, ChangeLog.Transaction held) throws SQLException {
        if (held != null) return commitIn(held, checked);
        for (int attempt = 1; ; attempt++) {
            try (ChangeLog.Transaction tx = log.begin()) {
                return commitIn(tx, checked);
            } catch (ChangeLog.OutcomeUnknown e) {
                throw e;
            } catch (SQLException e) {
                if (attempt == 2 || !connectionLost(e)) throw e;
                LOG.log(System.Logger.Level.INFO, "a connection to the cluster's database failed before its commit ("
                        + cause(e) + "); trying once more on a new one");
                log.evictConnections();
            }
        }
    }

    private static Committed commitIn(ChangeLog.Transaction tx, Checked checked) throws SQLException {
        for (Write w : checked.writes()) {
            if (w.content() == null) tx.delete(w.path());
            else tx.put(w.path(), w.mediaType(), w.binary(), w.content(), w.refs());
        }
        long position = tx.commitAfter(checked.base());
        return position < 0 ? null : new Committed(position, tx.committedAt());
    }

    /**
     * A COMMIT that failed as it ran is settled by asking PostgreSQL about its transaction, again
     * every {@value #SETTLE_EVERY_MS} ms while the database is out of reach or the transaction's
     * server process has not yet seen the connection go, for at most the apply timeout: a write
     * whose answer was lost is then answered as stored, and one that aborted is tried again,
     * instead of leaving its client unable to tell.
     */
    private ChangeLog.Outcome settle(ChangeLog.OutcomeUnknown unknown) {
        long deadline = System.nanoTime() + options.applyTimeout().toNanos();
        while (true) {
            try {
                ChangeLog.Outcome o = log.outcome(unknown);
                if (o != ChangeLog.Outcome.UNKNOWN) {
                    LOG.log(System.Logger.Level.INFO, "the connection was lost while committing position " + unknown.position()
                            + "; PostgreSQL says the transaction " + (o == ChangeLog.Outcome.COMMITTED ? "committed" : "aborted"));
                    return o;
                }
            } catch (SQLException e) {
                log.evictConnections();
            }
            if (System.nanoTime() - deadline > 0) return ChangeLog.Outcome.UNKNOWN;
            try {
                Thread.sleep(SETTLE_EVERY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ChangeLog.Outcome.UNKNOWN;
            }
        }
    }

    private static final long SETTLE_EVERY_MS = 100;

    /** Step 4: waits until the node has applied {@code position}, then answers with the version it got there. */
    private void complete(List<Task> group, long position, Instant checkedAt) {
        boolean applied;
        try {
            applied = applier.awaitApplied(position, options.applyTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            applied = false;
        }
        if (!applied) {
            fail(group, ErrorMessage.DB_COMMITTED_NOT_APPLIED.error(position, options.applyTimeout().toMillis(),
                    describe(applier.problem())));
            return;
        }
        Applier.AppliedAs as = applier.appliedAs(position);
        long version;
        Instant time;
        if (as != null) {
            version = as.version();
            time = as.time();
        } else {
            // applied by another applier of this store (not in a node as built): the copy's version now
            try (Snapshot s = store.read()) {
                version = s.version();
                time = s.committedAt(version);
            }
            if (time == null) time = checkedAt;
        }
        synchronized (positions) {
            positions.put(version, position);
        }
        for (Task t : group) t.future.complete(new Done(t.applied, version, time));
    }

    /** A connection that failed or was cut (SQLSTATE class 08, or 57P: the server shutting down or cutting it). */
    private static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("57P"));
    }

    private ArnoException unavailable(SQLException e) {
        boolean connection = e instanceof SQLTransientConnectionException || connectionLost(e);
        return (connection ? ErrorMessage.DB_UNREACHABLE : ErrorMessage.DB_REFUSED_WRITE).error(e, cause(e));
    }

    private static String cause(SQLException e) {
        String state = e.getSQLState();
        return (state == null ? "" : "SQLSTATE " + state + ": ") + e.getMessage();
    }

    private static String describe(String problem) {
        return problem == null ? "its applier reports no problem" : problem;
    }

    private static void fail(List<Task> group, Throwable e) {
        WriteQueue.fail(group, e);
    }

    /** Stops taking operations, lets the queued ones run, waits for them, then stops the applier. */
    @Override
    public void close() {
        queue.close();
        applier.close();
    }
}
