package arno.cluster;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import javax.sql.DataSource;

/**
 * The cluster's writes and its change log in PostgreSQL: a commit stores document versions and
 * deletions, takes the next <b>position</b>, and writes its change rows with that position, all in
 * one transaction; nodes read the log back in position order ({@link #read}).
 *
 * <h2>Commit order without gaps</h2>
 * A follower remembers the last position it applied and asks for {@code position > last}. That
 * is only right if positions become visible in their order: no commit may show up later with a
 * smaller position. A sequence does not give that: {@code nextval()} is taken while the transaction
 * runs, so writer A takes 1, writer B takes 2 and commits first, a follower reads 2 and moves on,
 * and A's 1 commits behind it, never to be read. Sequences also never give a number back, so an
 * aborted write leaves a hole that a reader cannot tell from a commit still on its way.
 *
 * <p>Here the position comes from one counter row, {@code arno.log_head}, incremented by the
 * transaction's <i>last</i> statements, just before COMMIT ({@link Transaction#commit}):
 * {@code UPDATE arno.log_head SET position = position + 1 RETURNING position}. The UPDATE takes
 * the row's lock and keeps it until the transaction ends, so a second writer's UPDATE waits, and
 * under READ COMMITTED then reads the first one's committed value and adds one to it. Hence:
 * <ul>
 * <li>positions are given out in commit order: position n+1 is taken only after n's transaction
 *     has committed, and PostgreSQL makes a commit visible before it releases its locks, so any
 *     snapshot that sees n+1 sees n;</li>
 * <li>without gaps: an aborted transaction's UPDATE is undone with it, and the next writer takes
 *     the same number; every commit writes at least one change row, so a position missing below
 *     the head can only mean the log was pruned there;</li>
 * <li>writers queue only for that moment: the content of the versions (the big rows) is inserted
 *     before, while the transaction runs, and only the small rows (commit, changes, the current
 *     document of each path) and the notification are written under the lock.</li>
 * </ul>
 * The other ordering the issue names, transaction-id snapshots ({@code pg_current_xact_id()} with
 * {@code pg_snapshot_xmin}), lets writers commit in parallel, but a follower then has to keep a
 * window of transactions still in progress and positions are neither dense nor in commit order;
 * the counter row gives a follower one number to keep, and its cost (commits are serialised for a
 * few small inserts) is to be measured against the goal of 1,000 entries/s (perf).
 *
 * <p>A commit notifies {@value #CHANNEL} with its position as payload: a hint for the nodes'
 * appliers, delivered at commit, lost when no one listens; polling is what guarantees progress.
 *
 * <p>Threads: a {@code ChangeLog} is thread-safe (each call takes its own connection from the
 * data source); a {@link Transaction} belongs to one thread.
 */
public final class ChangeLog {

    /** The channel of the commit notifications; the payload is the position, in decimal. */
    public static final String CHANNEL = "arno_log";

    private final DataSource database;
    private final String node;
    private final boolean notify;

    /**
     * The log of {@code database} (migrated by {@link Schema#migrate}), written by the node
     * {@code node} (recorded with each commit).
     */
    public ChangeLog(DataSource database, String node) {
        this(database, node, true);
    }

    /** Without notifications when {@code notify} is false: for the tests of polling. */
    ChangeLog(DataSource database, String node, boolean notify) {
        this.database = database;
        this.node = node;
        this.notify = notify;
    }

    /** The node this log writes as (recorded with each commit). */
    public String node() {
        return node;
    }

    /** One commit as the log holds it, its changes in their order. */
    public record Commit(long position, Instant time, String node, List<Change> changes) {
    }

    /**
     * One change of a commit: the document at {@code path} stored (with its media type, whether it
     * is stored as bytes rather than as an XML tree, its content and the paths it refers to) or,
     * when {@code mediaType} is null, deleted.
     */
    public record Change(int seq, String path, String mediaType, boolean binary, byte[] content, List<String> refs) {
        public boolean isDelete() {
            return mediaType == null;
        }

        @Override
        public String toString() {
            return seq + ":" + (isDelete() ? "delete " + path : "put " + path + " (" + mediaType + ", "
                    + (content == null ? 0 : content.length) + " bytes)");
        }
    }

    /**
     * The COMMIT of a write failed as it ran (typically the connection was lost): PostgreSQL may
     * have committed it or not; {@link #position()} is the position it would have.
     */
    public static final class OutcomeUnknown extends SQLException {
        private final long position;
        private final String transaction;

        OutcomeUnknown(long position, String transaction, SQLException cause) {
            super("the commit of position " + position + " failed as it ran (" + cause.getMessage()
                    + "), so whether it is in the log is unknown", cause.getSQLState(), cause);
            this.position = position;
            this.transaction = transaction;
        }

        /** The transaction's id ({@code pg_current_xact_id()}), by which {@link ChangeLog#outcome} finds out. */
        public String transaction() {
            return transaction;
        }

        public long position() {
            return position;
        }
    }

    /** Begins a write: the caller puts and deletes, then commits (or closes, which rolls back). */
    public Transaction begin() throws SQLException {
        return new Transaction(database.getConnection());
    }

    /**
     * Closes the pool's idle connections (those in use when they are given back), after one was
     * found cut: a restart of the database or {@code pg_terminate_backend} cuts them all, and a
     * pool hands out a connection used within the last moments without checking it. A data source
     * that is not a HikariCP pool opens a new connection each time anyway.
     */
    public void evictConnections() {
        if (database instanceof com.zaxxer.hikari.HikariDataSource h && !h.isClosed()) {
            com.zaxxer.hikari.HikariPoolMXBean pool = h.getHikariPoolMXBean();
            if (pool != null) pool.softEvictConnections();
        }
    }

    /** The position of the last commit (0 when there is none). */
    public long head() throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT position FROM arno.log_head")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** What became of a write whose COMMIT failed as it ran. */
    public enum Outcome {
        /** In the log at its position: it committed. */
        COMMITTED,
        /** Nothing of it is stored. */
        ABORTED,
        /** Not settled yet (its server process has not noticed the lost connection), or no longer known. */
        UNKNOWN
    }

    /**
     * Asks PostgreSQL what became of a write whose COMMIT failed as it ran, by its transaction id
     * ({@code pg_xact_status}, made for exactly this: a client that lost its connection during
     * COMMIT). A transaction still in progress is one whose server process has not yet seen its
     * client go: that is soon, and the caller asks again.
     */
    public Outcome outcome(OutcomeUnknown unknown) throws SQLException {
        if (unknown.transaction() == null) return Outcome.UNKNOWN;
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT pg_xact_status(?::xid8)")) {
            s.setString(1, unknown.transaction());
            try (ResultSet r = s.executeQuery()) {
                String status = r.next() ? r.getString(1) : null;
                if ("committed".equals(status)) return Outcome.COMMITTED;
                if ("aborted".equals(status)) return Outcome.ABORTED;
                return Outcome.UNKNOWN;
            }
        }
    }

    /** The oldest position the log still holds, or 0 when it holds none. */
    public long oldest() throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT coalesce(min(position), 0) FROM arno.commits")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** Content read per {@link #read} before it stops at a commit's end: a node's heap, not the log's size, bounds it. */
    static final long READ_BUDGET = 64L << 20;

    /**
     * The position up to which the log has been pruned ({@link #prune}): a copy older than that
     * cannot follow the log any more. 0 when nothing was pruned.
     */
    public long pruned() throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pruned FROM arno.log_head")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** The time of the commit at {@code position}, or null when the log has no such commit (pruned, or never made). */
    public Instant commitTime(long position) throws SQLException {
        try (Connection c = database.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT committed_at FROM arno.commits WHERE position = ?")) {
            p.setLong(1, position);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? r.getTimestamp(1).toInstant() : null;
            }
        }
    }

    /** The advisory lock of {@link #writeOnce} ("arnoonce" in ASCII). */
    static final long ONCE_LOCK = 0x6172_6e6f_6f6e_6365L;

    /**
     * Commits {@code documents} (path → XML, application/xml) unless the store already holds a
     * document under {@code folder}: what every copy must start with (the default model), written
     * once for the cluster by the first node to look, under an advisory lock so that nodes starting
     * together write it once. Returns the position that wrote them (or, when they were there,
     * the latest position that wrote a document under {@code folder}).
     */
    public long writeOnce(String folder, java.util.Map<String, byte[]> documents) throws SQLException {
        try (Transaction t = begin()) {
            try (Statement s = t.c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(" + ONCE_LOCK + ")");
            }
            // READ COMMITTED: this statement sees what a node that held the lock before committed
            try (PreparedStatement p = t.c.prepareStatement("SELECT max(position) FROM arno.documents WHERE starts_with(path, ?)")) {
                p.setString(1, folder);
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    long at = r.getLong(1);
                    if (!r.wasNull()) return at;
                }
            }
            for (java.util.Map.Entry<String, byte[]> d : documents.entrySet()) {
                t.put(d.getKey(), "application/xml", false, d.getValue(), List.of());
            }
            return t.commit();
        }
    }

    /** The advisory lock of pruning ("arnoprun" in ASCII): one node prunes at a time, the others skip. */
    static final long PRUNE_LOCK = 0x6172_6e6f_7072_756eL;

    /**
     * Prunes the log: the changes of every commit but the last {@code keepPositions} and those
     * younger than {@code keepFor} (null: by count only), and the document versions only they named.
     * The commits rows that current documents name are kept (their time is the documents'
     * Last-Modified in a rebuilt copy). Any node may call it: under an advisory lock, a node that
     * finds another pruning skips. Returns the position pruned to, or -1 when it skipped.
     */
    public long prune(long keepPositions, java.time.Duration keepFor) throws SQLException {
        if (keepPositions < 1) throw new IllegalArgumentException("the log keeps at least its last commit, not " + keepPositions);
        return Transactions.run(database, c -> {
            try (Statement s = c.createStatement()) {
                try (ResultSet r = s.executeQuery("SELECT pg_try_advisory_xact_lock(" + PRUNE_LOCK + ")")) {
                    r.next();
                    if (!r.getBoolean(1)) return -1L; // another node prunes
                }
                long head;
                long pruned;
                try (ResultSet r = s.executeQuery("SELECT position, pruned FROM arno.log_head")) {
                    r.next();
                    head = r.getLong(1);
                    pruned = r.getLong(2);
                }
                long cutoff = head - keepPositions;
                if (keepFor != null) {
                    // times grow with positions (ChangeLog's commits), so the index on the time finds it at once
                    try (PreparedStatement p = c.prepareStatement("SELECT position FROM arno.commits"
                            + " WHERE committed_at < clock_timestamp() - ? * interval '1 millisecond'"
                            + " ORDER BY committed_at DESC, position DESC LIMIT 1")) {
                        p.setLong(1, keepFor.toMillis());
                        try (ResultSet r = p.executeQuery()) {
                            cutoff = Math.min(cutoff, r.next() ? r.getLong(1) : 0);
                        }
                    }
                }
                if (cutoff <= pruned) return pruned;
                s.execute("CREATE TEMP TABLE arno_pruned_versions ON COMMIT DROP AS SELECT DISTINCT version_id AS id"
                        + " FROM arno.changes WHERE position <= " + cutoff + " AND version_id IS NOT NULL");
                s.executeUpdate("DELETE FROM arno.changes WHERE position <= " + cutoff);
                s.executeUpdate("DELETE FROM arno.commits m WHERE position <= " + cutoff
                        + " AND NOT EXISTS (SELECT 1 FROM arno.documents d WHERE d.position = m.position)");
                s.executeUpdate("DELETE FROM arno.document_versions v USING arno_pruned_versions g WHERE v.id = g.id"
                        + " AND NOT EXISTS (SELECT 1 FROM arno.documents d WHERE d.version_id = v.id)"
                        + " AND NOT EXISTS (SELECT 1 FROM arno.changes ch WHERE ch.version_id = v.id)");
                s.executeUpdate("UPDATE arno.log_head SET pruned = " + cutoff);
                return cutoff;
            }
        });
    }

    /**
     * The next commits after position {@code after}, at most {@code max} of them, oldest first,
     * each whole. Fewer (or none) when no more have committed; a first position above
     * {@code after + 1} means the log no longer holds the ones between (pruned). Fewer too once
     * {@value #READ_BUDGET} bytes of content were read (at least one commit, however big).
     */
    public List<Commit> read(long after, int max) throws SQLException {
        return read(after, max, READ_BUDGET);
    }

    /** As {@link #read(long, int)} with a budget of {@code budget} bytes of content. */
    List<Commit> read(long after, int max, long budget) throws SQLException {
        List<Commit> out = new ArrayList<>();
        try (Connection c = database.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            // in a transaction, with a fetch size, the driver reads through a cursor, a few rows at a
            // time, so what is not taken (past the budget) is never held in memory
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT c.position, m.committed_at, m.node, c.seq, c.path, v.media_type, v.is_binary, v.content, v.refs"
                            + " FROM arno.changes c JOIN arno.commits m ON m.position = c.position"
                            + " LEFT JOIN arno.document_versions v ON v.id = c.version_id"
                            // positions up to the pruned one may keep a commits row without changes (V4)
                            + " WHERE c.position IN (SELECT position FROM arno.commits"
                            + " WHERE position > greatest(?, (SELECT pruned FROM arno.log_head))"
                            + " ORDER BY position LIMIT ?) ORDER BY c.position, c.seq")) {
                p.setLong(1, after);
                p.setInt(2, max);
                // few rows a round trip: a row may hold a binary of many megabytes
                p.setFetchSize(8);
                try (ResultSet r = p.executeQuery()) {
                    List<Change> changes = null;
                    long bytes = 0;
                    while (r.next()) {
                        long position = r.getLong(1);
                        if (out.isEmpty() || out.get(out.size() - 1).position() != position) {
                            if (bytes >= budget) break;
                            changes = new ArrayList<>();
                            out.add(new Commit(position, r.getTimestamp(2).toInstant(), r.getString(3), changes));
                        }
                        String mediaType = r.getString(6);
                        Array refs = r.getArray(9);
                        byte[] content = r.getBytes(8);
                        if (content != null) bytes += content.length;
                        changes.add(new Change(r.getInt(4), r.getString(5), mediaType, mediaType != null && r.getBoolean(7),
                                content, refs == null ? List.of() : List.of((String[]) refs.getArray())));
                    }
                }
            } finally {
                c.rollback();
                c.setAutoCommit(autoCommit);
            }
        }
        return out;
    }

    /**
     * One write transaction. Puts insert their content at once (before the position is taken, so
     * big rows never hold up other writers); {@link #commit} takes the position and writes the
     * rest. Close without commit rolls back.
     */
    public final class Transaction implements AutoCloseable {
        private final Connection c;
        private final boolean autoCommit;
        /** Each write in order: its path and the id of the version it stored, or null for a delete. */
        private final List<Object[]> writes = new ArrayList<>();
        private long position = -1;
        /** The transaction's id once it took its position: what {@link ChangeLog#outcome} asks about. */
        private String xid;
        /** The commit's time in the log, once it took its position. */
        private Instant committedAt;
        private boolean done;

        private Transaction(Connection c) throws SQLException {
            this.c = c;
            try {
                this.autoCommit = c.getAutoCommit();
                c.setAutoCommit(false);
                // the counter row's argument needs READ COMMITTED: a waiting UPDATE then reads the
                // committed value (under REPEATABLE READ it would fail with a serialisation error)
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
        }

        /**
         * Stores a version of the document at {@code path}: {@code content} is XML text (UTF-8)
         * when {@code binary} is false, else the document's bytes; {@code refs} the store paths it
         * refers to.
         */
        public void put(String path, String mediaType, boolean binary, byte[] content, Collection<String> refs)
                throws SQLException {
            checkOpen();
            try (PreparedStatement p = c.prepareStatement("INSERT INTO arno.document_versions"
                    + " (path, media_type, is_binary, content, refs) VALUES (?, ?, ?, ?, ?) RETURNING id")) {
                p.setString(1, path);
                p.setString(2, mediaType);
                p.setBoolean(3, binary);
                p.setBytes(4, content);
                p.setArray(5, c.createArrayOf("text", refs.toArray(new String[0])));
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    writes.add(new Object[] {path, r.getLong(1)});
                }
            }
        }

        /**
         * Takes the lock of the log's head (the row every commit updates) and returns the head: until
         * this transaction ends no other writer of the cluster commits, so a writer that lost a race
         * checks its writes against a head that stands still and commits after it at the next try.
         */
        public long lockHead() throws SQLException {
            checkOpen();
            try (PreparedStatement s = c.prepareStatement("SELECT position FROM arno.log_head FOR UPDATE");
                 ResultSet r = s.executeQuery()) {
                if (!r.next()) throw new SQLException("the change log has no head row (arno.log_head is empty)");
                return r.getLong(1);
            }
        }

        /** The commit's time in the log ({@code commits.committed_at}), once it took its position; else null. */
        public Instant committedAt() {
            return committedAt;
        }

        /** Deletes the document at {@code path}. */
        public void delete(String path) {
            checkOpen();
            writes.add(new Object[] {path, null});
        }

        /**
         * Takes the next position, writes the change rows and the current documents, notifies,
         * and commits; returns the position. With nothing written it takes no position, rolls
         * back and returns -1. If the commit fails the transaction is rolled back and the position
         * given back.
         */
        public long commit() throws SQLException {
            checkOpen();
            if (writes.isEmpty()) {
                close();
                return -1;
            }
            long p = position();
            try {
                c.commit();
            } finally {
                close();
            }
            return p;
        }

        /**
         * Commits only if the log's head is still at position {@code base}, i.e. no commit came
         * after the state a writer checked its writes against; returns the position ({@code base + 1}),
         * or -1 when another commit came first (then it rolls back: nothing is stored and no
         * position taken). A writer that checked its operations against a node's copy at position
         * {@code base} so knows that nothing it read changed before its own commit: writes of the
         * cluster are serialised by the log's head, which they queue for anyway (see the class).
         * With nothing written it rolls back and returns -1.
         *
         * @throws OutcomeUnknown when the COMMIT itself failed (the connection lost while it ran):
         *                        the write may or may not be in the log
         */
        public long commitAfter(long base) throws SQLException {
            checkOpen();
            if (base < 0) throw new IllegalArgumentException("a base position is at least 0, not " + base);
            if (writes.isEmpty() || position(base) < 0) {
                close();
                return -1;
            }
            try {
                c.commit();
            } catch (SQLException e) {
                throw new OutcomeUnknown(position, xid, e);
            } finally {
                close();
            }
            return position;
        }

        /**
         * The first half of {@link #commit}: takes the position (and with it the lock of the log's
         * head) and writes the small rows, leaving the transaction open. Separate for the tests,
         * which hold a writer here.
         */
        long position() throws SQLException {
            return position(-1);
        }

        /**
         * As {@link #position()}; with {@code base} ≥ 0 only if the head is at {@code base}, else -1
         * (nothing written). The UPDATE's condition is evaluated again, under READ COMMITTED, on
         * the row as the writer it waited for left it, so a commit that came first is always seen.
         */
        private long position(long base) throws SQLException {
            checkOpen();
            if (position >= 0) return position;
            try (PreparedStatement s = c.prepareStatement(base < 0
                    ? "UPDATE arno.log_head SET position = position + 1 RETURNING position, pg_current_xact_id()::text"
                    : "UPDATE arno.log_head SET position = position + 1 WHERE position = ? RETURNING position, pg_current_xact_id()::text")) {
                if (base >= 0) s.setLong(1, base);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) return -1;
                    position = r.getLong(1);
                    xid = r.getString(2);
                }
            }
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO arno.commits (position, committed_at, node) VALUES (?, greatest(clock_timestamp(),"
                            // never before the last commit's time: copies rebuilt from the documents agree with those that applied the log
                            + " (SELECT committed_at FROM arno.commits WHERE position = ?)), ?) RETURNING committed_at")) {
                p.setLong(1, position);
                p.setLong(2, position - 1);
                p.setString(3, node);
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    // read as read() reads it, so that a commit applied from either is the same
                    committedAt = r.getTimestamp(1).toInstant();
                }
            }
            try (PreparedStatement change = c.prepareStatement(
                    "INSERT INTO arno.changes (position, seq, path, version_id) VALUES (?, ?, ?, ?)");
                 PreparedStatement current = c.prepareStatement("INSERT INTO arno.documents (path, version_id, position)"
                         + " VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET version_id = excluded.version_id,"
                         + " position = excluded.position");
                 PreparedStatement gone = c.prepareStatement("DELETE FROM arno.documents WHERE path = ?")) {
                int seq = 0;
                for (Object[] w : writes) {
                    String path = (String) w[0];
                    Long version = (Long) w[1];
                    change.setLong(1, position);
                    change.setInt(2, ++seq);
                    change.setString(3, path);
                    change.setObject(4, version, java.sql.Types.BIGINT);
                    change.addBatch();
                    // one path written twice in a commit: its rows in order, so the last one wins
                    if (version != null) {
                        current.setString(1, path);
                        current.setLong(2, version);
                        current.setLong(3, position);
                        current.executeUpdate();
                    } else {
                        gone.setString(1, path);
                        gone.executeUpdate();
                    }
                }
                change.executeBatch();
            }
            if (notify) {
                try (PreparedStatement n = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                    n.setString(1, CHANNEL);
                    n.setString(2, Long.toString(position));
                    n.execute();
                }
            }
            return position;
        }

        /** Rolls back unless committed, and gives the connection back. */
        @Override
        public void close() throws SQLException {
            if (done) return;
            done = true;
            try {
                // a connection lost on the way (its pool closed it) has nothing to roll back or
                // restore, and a failure here must not hide the one that lost it (a COMMIT whose
                // outcome is unknown would read as "nothing stored")
                if (c.isClosed()) return;
                if (!c.getAutoCommit()) c.rollback();
                c.setAutoCommit(autoCommit);
            } finally {
                c.close();
            }
        }

        private void checkOpen() {
            if (done) throw new IllegalStateException("this transaction of the change log is committed or rolled back");
        }

        @Override
        public String toString() {
            return "change log transaction of " + node + ": " + Arrays.deepToString(writes.toArray());
        }
    }
}
