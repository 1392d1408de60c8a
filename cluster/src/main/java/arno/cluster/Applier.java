package arno.cluster;

import java.io.ByteArrayInputStream;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.xml.transform.stream.StreamSource;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;

/**
 * A node's follower of the change log: applies each PostgreSQL commit, in position order, to the
 * node's own LMDB store, in one LMDB write transaction per commit that also stores the position
 * applied (the store's mark {@value #MARK}). So the copy is always some commit of the log, never
 * half of one; a restart goes on from the position the copy holds; and a commit delivered twice
 * (two appliers, a restart, a re-read) is applied once, because the position is checked inside
 * the same write transaction that would apply it.
 *
 * <p>How it learns of commits: the log notifies {@value ChangeLog#CHANNEL} at each commit, and the
 * applier waits on a listening connection of its own for a notification <i>or</i> the poll
 * interval, whichever comes first, then reads what follows its position. A notification is only
 * a hint (PostgreSQL drops it when no one listens, as while the listening connection is being
 * replaced); the read after each wait is the guarantee, so no commit waits longer than the poll
 * interval. A listening connection that fails is replaced at the next wait; until then the applier
 * sleeps the poll interval between reads. A database that cannot be read, or a commit that
 * cannot be applied, is reported ({@link #problem}) and retried each interval: the applier never
 * skips a commit.
 *
 * <p>What a change becomes: XML content is parsed into the stored form by the store's XML policy
 * ({@link WriteTransaction#put}), binary content stored as bytes ({@link WriteTransaction#putBinary}),
 * as the Atom service stores XML and binary variants; then the document's references are set to
 * those the log recorded. A delete deletes.
 *
 * <p>Threads: one thread of its own; {@link #applied} and {@link #awaitApplied} from any thread.
 */
public final class Applier implements AutoCloseable {

    /** The store mark that holds the position of the last commit applied. */
    public static final String MARK = "cluster.position";
    /**
     * The store mark that identifies the commit at {@link #MARK}: its time in the log
     * ({@code commits.committed_at}) in microseconds. A database restored from an older copy, or a
     * replica promoted without the last commits, may hold a different commit at that position (or
     * none): the copy then holds commits the cluster no longer has and must resynchronise.
     */
    public static final String COMMIT_MARK = "cluster.commit";
    /**
     * The store mark that holds the store version the copy had before it applied position 1:
     * position P is applied as store version base + P, so that every copy of the cluster (those
     * that applied the whole log and those rebuilt from the current documents, {@link Resync})
     * gives a document the same version, its ETag.
     */
    public static final String BASE_MARK = "cluster.base";
    /** The name the listening connection gives itself ({@code pg_stat_activity.application_name}). */
    public static final String LISTENER_NAME = "arno-applier";

    private static final System.Logger LOG = System.getLogger("arno");

    /** Opens the applier's own listening connection (never one of a pool: it is held for good). */
    @FunctionalInterface
    public interface Connector {
        Connection connect() throws SQLException;
    }

    /**
     * @param pollInterval the longest a commit waits without a notification (default 1 s)
     * @param batch        commits read per query (default 100)
     */
    public record Options(Duration pollInterval, int batch) {
        public Options {
            if (pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("the applier's poll interval must be positive, not " + pollInterval);
            }
            if (batch < 1) throw new IllegalArgumentException("the applier's batch must be at least 1, not " + batch);
        }

        public static Options defaults() {
            return new Options(Duration.ofSeconds(1), 100);
        }

        public Options pollInterval(Duration d) {
            return new Options(d, batch);
        }

        public Options batch(int n) {
            return new Options(pollInterval, n);
        }
    }

    private final Store store;
    private final ChangeLog log;
    private final Connector connector;
    private final Options options;
    private final Thread thread;
    private final Object progress = new Object();
    private final Object applying = new Object();
    static final int REMEMBERED = 10_000;
    private final Map<Long, AppliedAs> recent = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, AppliedAs> eldest) {
            return size() > REMEMBERED;
        }
    };
    private volatile boolean running = true;
    private volatile long applied;
    private volatile String problem;
    private volatile boolean needsResync;
    private volatile Connection listening;
    /** Written by the applier's thread and by the node's write path applying its own commits. */
    private final java.util.concurrent.atomic.AtomicLong commitsApplied = new java.util.concurrent.atomic.AtomicLong();
    private volatile Instant lastApply;
    private volatile long notified;

    /**
     * Starts following {@code log} into {@code store} from the position the store holds (0 for a
     * store that never applied any).
     */
    public Applier(Store store, ChangeLog log, Connector connector, Options options) {
        this.store = Objects.requireNonNull(store);
        this.log = Objects.requireNonNull(log);
        this.connector = Objects.requireNonNull(connector);
        this.options = Objects.requireNonNull(options);
        try (Snapshot s = store.read()) {
            this.applied = s.mark(MARK).orElse(0);
        }
        this.thread = new Thread(this::run, "arno-applier " + store.directory().getFileName());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** The position of the last commit applied to the store. */
    public long applied() {
        return applied;
    }

    /**
     * Waits until {@code position} is applied, at most {@code timeout}; whether it is. Returns false
     * at once when the copy must resynchronise ({@link #needsResync}): it will never apply more,
     * and a node starting on a pruned log waited out the whole time-out (20 s) before it said so.
     */
    public boolean awaitApplied(long position, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            while (applied < position) {
                if (needsResync) return false;
                long left = end - System.nanoTime();
                if (left <= 0) return false;
                progress.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /** The store version and commit time a position of the log was applied as. */
    public record AppliedAs(long version, Instant time) {
    }

    /**
     * What this applier applied the commit at {@code position} as, if it did so recently (the
     * last {@value #REMEMBERED} commits), else null: how the node that wrote a commit learns the
     * store version (the ETag) its write got.
     */
    public AppliedAs appliedAs(long position) {
        synchronized (recent) {
            return recent.get(position);
        }
    }

    private void remember(long position, AppliedAs as) {
        synchronized (recent) {
            recent.put(position, as);
        }
    }

    /** What keeps the applier from going on (it retries), or null when it follows the log. */
    public String problem() {
        return problem;
    }

    /** Whether the log no longer holds the commits after the store's position: the node must resynchronise. */
    public boolean needsResync() {
        return needsResync;
    }

    /**
     * Stops applying: the copy holds what the log no longer has or no longer agrees with (a
     * database rewound, a replica promoted without the last commits), and must be rebuilt.
     */
    public void requireResync(String reason) {
        if (!needsResync) LOG.log(Level.ERROR, reason);
        // the problem first: whoever sees the flag finds its reason
        problem = reason;
        needsResync = true;
        synchronized (progress) {
            progress.notifyAll(); // waiters for a position stop waiting (awaitApplied)
        }
    }

    /**
     * Checks the copy against the log ({@link Resync#reason}): a database that lost commits this
     * copy applied (its position beyond the head, or a different commit there), or a log pruned
     * past the copy, stops the applier ({@link #requireResync}). The nodes call it periodically.
     */
    public void checkAgainstLog() throws SQLException {
        if (!running || needsResync) return;
        String why = Resync.reason(store, log, false);
        if (why != null && running) requireResync(why + ": the node must resynchronise");
    }

    /** When this applier last applied a commit (this node's clock), or null if it has not yet. */
    public Instant lastApply() {
        return lastApply;
    }

    /** Commits this applier has applied (not those it found applied already). */
    public long commitsApplied() {
        return commitsApplied.get();
    }

    /** Wake-ups by a notification (the others are by the poll interval). */
    public long notified() {
        return notified;
    }

    /** Stops: the commit being applied is finished (or not begun), the listening connection closed. */
    @Override
    public void close() {
        running = false;
        Connection c = listening;
        if (c != null) {
            try {
                // unblocks the wait for notifications at once; abort is meant to be called from another thread
                c.abort(Runnable::run);
            } catch (SQLException ignored) {
                // it is closed below or already gone
            }
        }
        thread.interrupt();
        try {
            thread.join(options.pollInterval().toMillis() + 30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeListening();
    }

    private void run() {
        while (running) {
            boolean more = false;
            try {
                more = applyAvailable();
                recovered();
            } catch (SQLException e) {
                report("cannot read the change log: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                report("cannot apply position " + (applied + 1) + " of the change log to " + store.directory() + ": "
                        + e.getMessage(), e);
            }
            if (!more && running) waitForHint();
        }
    }

    /** Applies the next batch of commits; whether there may be more right away. */
    private boolean applyAvailable() throws SQLException {
        if (needsResync) return false;
        List<ChangeLog.Commit> commits = log.read(applied, options.batch());
        for (ChangeLog.Commit c : commits) {
            if (!running) return false;
            apply(c);
        }
        return commits.size() == options.batch();
    }

    /**
     * Applies one commit in one LMDB write transaction with its position; nothing when the store
     * has it already. Package-private: the node's write path applies its own commits with it, and
     * the tests deliver commits twice. Any thread, one at a time (below).
     */
    void apply(ChangeLog.Commit commit) {
        // One at a time from the version read to the commit: the applier's thread and the node's write
        // path both apply, and a version read before the other's commit was refused by the store as
        // taken ("a transaction cannot commit as version N"), a warning and a poll interval's delay each.
        synchronized (applying) {
            applyAlone(commit);
        }
    }

    private void applyAlone(ChangeLog.Commit commit) {
        long base;
        try (Snapshot s = store.read()) {
            base = s.mark(BASE_MARK).orElse(s.mark(MARK).orElse(0) == 0 ? s.version() : -1);
        }
        // a copy from before the version rule (base -1) or one written locally since: the next version
        long version = Math.max(base < 0 ? 0 : base + commit.position(), store.version() + 1);
        try (WriteTransaction w = store.write(version, commit.time())) {
            long at = w.view().mark(MARK).orElse(0);
            if (commit.position() <= at) {
                advance(at);
                return;
            }
            if (commit.position() != at + 1) {
                String message = "the change log no longer holds positions " + (at + 1) + " to " + (commit.position() - 1)
                        + ", which the store " + store.directory() + " has not applied: the node must resynchronise";
                requireResync(message);
                return;
            }
            for (ChangeLog.Change ch : commit.changes()) {
                if (ch.isDelete()) {
                    w.delete(ch.path());
                    continue;
                }
                if (ch.binary()) {
                    w.putBinary(ch.path(), ch.mediaType(), new ByteArrayInputStream(ch.content()));
                } else {
                    w.put(ch.path(), new StreamSource(new ByteArrayInputStream(ch.content()), Store.SCHEME + ch.path()),
                            ch.mediaType());
                }
                w.setReferences(ch.path(), ch.refs());
            }
            w.setMark(MARK, commit.position());
            w.setMark(COMMIT_MARK, identity(commit.time()));
            if (base >= 0) w.setMark(BASE_MARK, base);
            Instant time = w.time();
            remember(commit.position(), new AppliedAs(w.commit(), time));
        }
        commitsApplied.incrementAndGet();
        lastApply = Instant.now();
        recovered();
        advance(commit.position());
    }

    /** A commit's identity as {@link #COMMIT_MARK} keeps it: its time in the log, in microseconds. */
    public static long identity(Instant committedAt) {
        return Math.addExact(Math.multiplyExact(committedAt.getEpochSecond(), 1_000_000L), committedAt.getNano() / 1_000);
    }

    /** The log was read or a commit applied: a problem reported before is over (a resync is not). */
    private void recovered() {
        if (problem != null && !needsResync) {
            LOG.log(Level.INFO, "the applier of " + store.directory() + " follows the log again");
            problem = null;
        }
    }

    private void advance(long position) {
        synchronized (progress) {
            if (position > applied) {
                applied = position;
                progress.notifyAll();
            }
        }
    }

    /**
     * Waits for a notification or the poll interval. Without a listening connection it opens one
     * and returns at once (commits made while there was none were notified to no one), or, if it
     * cannot, sleeps the interval.
     */
    private void waitForHint() {
        long interval = options.pollInterval().toMillis();
        if (listening == null) {
            try {
                listening = listen();
                return;
            } catch (SQLException e) {
                report("cannot listen for commits (polling every " + interval + " ms meanwhile): " + e.getMessage(), e);
                sleep(interval);
                return;
            }
        }
        try {
            PGNotification[] n = listening.unwrap(PGConnection.class).getNotifications((int) Math.min(interval, Integer.MAX_VALUE));
            if (n != null && n.length > 0) notified++;
        } catch (SQLException e) {
            if (running) {
                LOG.log(Level.WARNING, "the applier of " + store.directory() + " lost its listening connection ("
                        + e.getMessage() + "); it polls and listens again");
            }
            closeListening();
        }
    }

    private Connection listen() throws SQLException {
        Connection c = connector.connect();
        try (Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("LISTEN " + ChangeLog.CHANNEL);
            // named once it listens, so that whoever sees the name knows it hears every commit from now on
            s.execute("SET application_name = '" + LISTENER_NAME + "'");
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void closeListening() {
        Connection c = listening;
        listening = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // a connection that failed may not close cleanly; it is gone either way
            }
        }
    }

    private void report(String message, Exception e) {
        if (!running) return;
        if (!message.equals(problem)) LOG.log(Level.WARNING, message, e);
        problem = message;
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            // close() interrupts: the loop looks at running
        }
    }
}
