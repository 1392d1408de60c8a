package arno.cluster;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import javax.sql.DataSource;
import javax.xml.transform.stream.StreamSource;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;

/**
 * Bootstrap and resynchronisation of a node's copy: a consistent LMDB copy rebuilt from
 * PostgreSQL, the system of record. The current documents ({@code arno.documents}) and the log's
 * head are read in one REPEATABLE READ snapshot, written into a fresh store beside the copy, with
 * the head as the copy's position ({@link Applier#MARK}) in the last write transaction; the fresh
 * store then replaces the copy (two renames) and the applier replays the log from that position.
 *
 * <p>When ({@link #reason}): a copy that has never applied anything while the log has commits (a
 * new or wiped node: rebuilding is faster than replaying the whole log, and the log may be
 * pruned); a copy older than the log's retention ({@link ChangeLog#prune}); a copy that holds
 * commits the database does not (its position beyond the head, or a different commit at its
 * position: a database restored from an older copy, an asynchronous replica promoted without the
 * last commits).
 *
 * <p>Each document gets the store version and time its commit got on every other node
 * ({@code base + position}, {@link Applier#BASE_MARK}, at {@code commits.committed_at}), so ETags
 * and Last-Modified agree across the cluster; that needs one LMDB transaction per position that
 * current documents name (written without fsync: a half-built copy is thrown away and built again;
 * the last transaction, on the store opened normally, makes the whole file durable).
 *
 * <p>Not from a peer's live copy over HTTP ({@code mdb_env_copy}): PostgreSQL already holds every
 * document, read in one snapshot that is consistent by construction, with no node-to-node endpoint
 * that would need the cluster's own credentials to keep a whole-store copy from the public, and no
 * dependence on a healthy peer (the node that needs a copy may be the only one). So nodes serve
 * nothing to each other. A peer's copy would save parsing the XML again; {@code ResyncBench} in
 * {@code perf/} measures what that costs.
 */
public final class Resync {

    private static final System.Logger LOG = System.getLogger("arno");
    /** Rows fetched per round trip from the database's cursor. */
    static final int FETCH = 500;
    /** How often the log shows progress. */
    private static final long PROGRESS_NANOS = 2_000_000_000L;

    private Resync() {
    }

    /**
     * Why the copy {@code store} must be rebuilt rather than follow the log, or null when it can
     * follow it.
     */
    public static String reason(Store store, ChangeLog log) throws SQLException {
        return reason(store, log, true);
    }

    /** As {@link #reason(Store, ChangeLog)}; a copy that has applied nothing counts only when {@code empty}. */
    static String reason(Store store, ChangeLog log, boolean empty) throws SQLException {
        long position;
        long identity;
        try (Snapshot s = store.read()) {
            position = s.mark(Applier.MARK).orElse(0);
            identity = s.mark(Applier.COMMIT_MARK).orElse(0);
        }
        long head = log.head();
        if (position == 0) {
            return head == 0 || !empty ? null : "the copy " + store.directory() + " is new (or wiped) and the log holds " + head + " positions";
        }
        if (position > head) {
            return "the copy " + store.directory() + " has applied position " + position + ", beyond the log's head " + head
                    + ": the database lost commits (restored from an older copy, or a replica promoted without them)";
        }
        Instant time = log.commitTime(position);
        if (time != null && identity != 0 && Applier.identity(time) != identity) {
            return "the copy " + store.directory() + " has applied a position " + position
                    + " that differs from the log's (committed at " + time + "): the database lost commits and made others"
                    + " (restored from an older copy, or a replica promoted without them)";
        }
        long pruned = log.pruned();
        if (position < pruned) {
            return "the copy " + store.directory() + " is at position " + position + ", older than the log's retention (pruned to "
                    + pruned + ")";
        }
        return null;
    }

    /** What a rebuild did. */
    public record Result(long position, long documents, long millis) {
    }

    /**
     * Replaces the copy in {@code dir} (closed) by one rebuilt from {@code database}:
     * built in {@code dir} + ".resync" (a leftover of a failed attempt deleted first), then swapped
     * in. The fresh copy holds nothing but the log's documents (their index definitions among them,
     * which build the value indexes as they are written), so it numbers its versions as every copy
     * that applied the log does.
     */
    public static Result rebuild(DataSource database, Path dir, StoreOptions options) throws SQLException {
        Path fresh = dir.resolveSibling(dir.getFileName() + ".resync");
        Path old = dir.resolveSibling(dir.getFileName() + ".old");
        delete(fresh);
        delete(old);
        long start = System.nanoTime();
        Result r;
        try (Store s = Store.open(fresh, options.noSync(true))) {
            r = fill(database, s, start);
        }
        // opened as a copy is; closing flushes what the unsynced commits wrote
        try (Store s = Store.open(fresh, options); WriteTransaction w = s.write()) {
            w.setMark(Applier.MARK, r.position);
            w.commit();
        }
        try {
            if (Files.exists(dir)) Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
            Files.move(fresh, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot swap the rebuilt copy " + fresh + " in for " + dir + ": " + e.getMessage(), e);
        }
        delete(old);
        Result done = new Result(r.position, r.documents, (System.nanoTime() - start) / 1_000_000);
        LOG.log(Level.INFO, "resync: " + dir + " rebuilt at position " + done.position + ", " + done.documents
                + " documents in " + done.millis + " ms");
        return done;
    }

    /**
     * Writes the current documents of {@code database} into {@code store} (one that has applied
     * nothing), read in one snapshot with the log's head, which becomes the store's position.
     */
    public static Result fill(DataSource database, Store store, long start) throws SQLException {
        try (Connection c = database.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            c.setAutoCommit(false); // a cursor: pgjdbc fetches FETCH rows at a time only inside a transaction
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            try {
                Result r = fill(c, store, start);
                c.commit();
                return r;
            } finally {
                c.rollback();
                c.setReadOnly(false);
                c.setTransactionIsolation(isolation);
                c.setAutoCommit(auto);
            }
        }
    }

    private static Result fill(Connection c, Store store, long start) throws SQLException {
        long head;
        long total;
        Instant headTime = null;
        try (PreparedStatement p = c.prepareStatement("SELECT h.position, m.committed_at, (SELECT count(*) FROM arno.documents)"
                + " FROM arno.log_head h LEFT JOIN arno.commits m ON m.position = h.position");
             ResultSet r = p.executeQuery()) {
            r.next();
            head = r.getLong(1);
            if (r.getTimestamp(2) != null) headTime = r.getTimestamp(2).toInstant();
            total = r.getLong(3);
        }
        long base = store.version();
        LOG.log(Level.INFO, "resync: rebuilding " + store.directory() + " from the database: " + total
                + " documents at position " + head);
        long done = 0;
        long lastShown = System.nanoTime();
        try (PreparedStatement p = c.prepareStatement("SELECT d.position, m.committed_at, d.path, v.media_type, v.is_binary,"
                + " v.content, v.refs FROM arno.documents d JOIN arno.document_versions v ON v.id = d.version_id"
                + " JOIN arno.commits m ON m.position = d.position ORDER BY d.position, d.path")) {
            p.setFetchSize(FETCH);
            try (ResultSet r = p.executeQuery()) {
                WriteTransaction w = null;
                long at = -1;
                long reading = 0;
                try {
                    while (true) {
                        long before = System.nanoTime();
                        if (!r.next()) break;
                        reading += System.nanoTime() - before;
                        long position = r.getLong(1);
                        if (position != at) {
                            if (w != null) w.commit();
                            w = null;
                            // one transaction per position: its documents get that commit's version and time
                            w = store.write(base + position, r.getTimestamp(2).toInstant());
                            at = position;
                        }
                        String path = r.getString(3);
                        byte[] content = r.getBytes(6);
                        if (r.getBoolean(5)) {
                            w.putBinary(path, r.getString(4), new ByteArrayInputStream(content));
                        } else {
                            w.put(path, new StreamSource(new ByteArrayInputStream(content), Store.SCHEME + path), r.getString(4));
                        }
                        Array refs = r.getArray(7);
                        w.setReferences(path, refs == null ? List.of() : List.of((String[]) refs.getArray()));
                        done++;
                        if (System.nanoTime() - lastShown > PROGRESS_NANOS) {
                            lastShown = System.nanoTime();
                            long ms = Math.max(1, (lastShown - start) / 1_000_000);
                            LOG.log(Level.INFO, "resync: " + done + " of " + total + " documents (" + (done * 1000 / ms) + "/s)");
                        }
                    }
                    LOG.log(Level.INFO, "resync: " + done + " documents, " + reading / 1_000_000 + " ms of it waiting for the database");
                    if (w == null) w = store.write();
                    w.setMark(Applier.MARK, head);
                    w.setMark(Applier.COMMIT_MARK, headTime == null ? 0 : Applier.identity(headTime));
                    w.setMark(Applier.BASE_MARK, base);
                    w.commit();
                    w = null;
                } finally {
                    if (w != null) w.close();
                }
            }
        }
        return new Result(head, done, (System.nanoTime() - start) / 1_000_000);
    }

    private static void delete(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir + ": " + e.getMessage(), e);
        }
    }
}
