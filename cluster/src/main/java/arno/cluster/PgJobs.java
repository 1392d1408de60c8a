package arno.cluster;

import arno.batch.SharedJobs;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.function.BiConsumer;
import javax.sql.DataSource;

/**
 * Batch jobs and their reports in PostgreSQL (tables {@code arno.batch_jobs}, {@code batch_report},
 * {@code batch_svrl}; migration V3): the cluster's {@link SharedJobs}.
 *
 * <p>Claims. A node claims a job with one {@code UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP
 * LOCKED LIMIT 1)}: of nodes claiming at once each gets a different job or none, never the same
 * one. The claim holds for {@link Options#lease()} by the database's clock and is renewed by each
 * {@link #save}; an unfinished job whose lease has expired (its node died, or lost the database)
 * is claimable again, and the next claimant resumes it from its report. The owner is this
 * process's token, not only the node's name: a restarted node gives back its old process's leases
 * at once ({@link #open}) rather than waiting for them to expire.
 *
 * <p>Fencing. {@link #save} locks the job's row and writes only while this process still holds
 * it, so a node that lost its lease (it stalled past it and another node claimed the job) writes
 * nothing more of the job and is told {@link Lease#LOST}. Report pieces are appended at the
 * report's length under the same lock, so the report is the pieces in order, without gaps.
 */
public final class PgJobs implements SharedJobs {
    /** Largest report piece stored in one row. */
    private static final int PIECE = 1 << 20;
    private static final String UNFINISHED = "status IN ('QUEUED', 'RUNNING')";

    /**
     * @param lease how long a claim holds without renewal: the longest a dead node's job waits
     *              before another node resumes it (default {@link #DEFAULT_LEASE}); nodes renew
     *              each second, so a few seconds is enough where pauses are short
     */
    public record Options(Duration lease) {
        public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

        public Options {
            Objects.requireNonNull(lease, "lease");
            if (lease.toMillis() < 2_000) throw new IllegalArgumentException("a batch lease must be at least 2 s: " + lease);
        }

        public static Options defaults() {
            return new Options(DEFAULT_LEASE);
        }
    }

    private final DataSource database;
    private final String node;
    private final String token = UUID.randomUUID().toString();
    private final Options options;

    private PgJobs(DataSource database, String node, Options options) {
        this.database = database;
        this.node = node;
        this.options = options;
    }

    /**
     * The jobs of the cluster's database (migrated to V3) as node {@code node} sees them; gives
     * back the leases an earlier process of the same node held (it is gone: this one replaces it).
     */
    public static PgJobs open(DataSource database, String node, Options options) {
        PgJobs jobs = new PgJobs(database, node, options);
        jobs.update("UPDATE arno.batch_jobs SET owner_node = NULL, owner_token = NULL, lease_until = NULL"
                + " WHERE owner_node = ? AND owner_token <> ?", node, jobs.token);
        return jobs;
    }

    @Override public Duration lease() {
        return options.lease();
    }

    @Override public void create(String id, int priority, Properties state, Path batch, Path report) {
        try {
            Transactions.run(database, c -> {
                try (PreparedStatement s = c.prepareStatement("INSERT INTO arno.batch_jobs (id, priority, status, state, batch)"
                        + " VALUES (?, ?, ?, ?, ?)"); InputStream in = Files.newInputStream(batch)) {
                    s.setString(1, id);
                    s.setInt(2, priority);
                    s.setString(3, state.getProperty("status"));
                    s.setString(4, text(state));
                    s.setBinaryStream(5, in, Files.size(batch));
                    s.executeUpdate();
                }
                if (report != null) {
                    long length = Files.size(report);
                    append(c, id, report, 0, length);
                    try (PreparedStatement s = c.prepareStatement("UPDATE arno.batch_jobs SET report_length = ? WHERE id = ?")) {
                        s.setLong(1, length);
                        s.setString(2, id);
                        s.executeUpdate();
                    }
                }
                return null;
            });
        } catch (SQLException e) {
            throw unreachable(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store batch job " + id, e);
        }
    }

    @Override public Properties state(String id) {
        List<Properties> found = states("WHERE id = ?", id);
        return found.isEmpty() ? null : found.get(0);
    }

    @Override public List<Properties> list() {
        return states("ORDER BY seq DESC");
    }

    @Override public int waiting() {
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT count(*) FROM arno.batch_jobs WHERE status = 'QUEUED'");
             ResultSet r = s.executeQuery()) {
            r.next();
            return r.getInt(1);
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    @Override public Properties claim(String id) {
        String sql = "UPDATE arno.batch_jobs j SET owner_node = ?, owner_token = ?,"
                + " lease_until = now() + make_interval(secs => ?)"
                + " WHERE j.id = (SELECT id FROM arno.batch_jobs WHERE " + UNFINISHED
                + " AND (owner_token IS NULL OR lease_until < now())" + (id == null ? "" : " AND id = ?")
                + " ORDER BY priority DESC, seq LIMIT 1 FOR UPDATE SKIP LOCKED)"
                + " RETURNING j.state, j.report_length, j.cancel_at";
        try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, node);
            s.setString(2, token);
            s.setDouble(3, options.lease().toMillis() / 1000.0);
            if (id != null) s.setString(4, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? properties(r.getString(1), r.getLong(2), r.getString(3)) : null;
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    @Override public InputStream batch(String id) {
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT batch FROM arno.batch_jobs WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? new java.io.ByteArrayInputStream(r.getBytes(1)) : null;
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    /** Reads the pieces one at a time as the stream is read, so a report of any size streams. */
    @Override public InputStream report(String id, long length) {
        return new InputStream() {
            private long offset;
            private byte[] piece = new byte[0];
            private int at;

            private boolean fill() {
                while (at >= piece.length) {
                    if (offset >= length) return false;
                    try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(
                            "SELECT offset_at, bytes FROM arno.batch_report WHERE job = ? AND offset_at <= ?"
                                    + " ORDER BY offset_at DESC LIMIT 1")) {
                        s.setString(1, id);
                        s.setLong(2, offset);
                        try (ResultSet r = s.executeQuery()) {
                            if (!r.next()) throw new UncheckedIOException(new IOException("the report of batch job " + id
                                    + " has no piece at byte " + offset));
                            long start = r.getLong(1);
                            byte[] bytes = r.getBytes(2);
                            at = (int) (offset - start);
                            if (at >= bytes.length) throw new UncheckedIOException(new IOException("the report of batch job "
                                    + id + " has a gap at byte " + offset));
                            piece = bytes;
                            if (start + bytes.length > length) piece = java.util.Arrays.copyOf(bytes, (int) (length - start));
                        }
                    } catch (SQLException e) {
                        throw unreachable(e);
                    }
                }
                return true;
            }

            @Override public int read() {
                if (!fill()) return -1;
                offset++;
                return piece[at++] & 0xff;
            }

            @Override public int read(byte[] b, int off, int len) {
                if (len == 0) return 0;
                if (!fill()) return -1;
                int n = Math.min(len, piece.length - at);
                System.arraycopy(piece, at, b, off, n);
                at += n;
                offset += n;
                return n;
            }
        };
    }

    @Override public InputStream svrl(String id, long index) {
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT content FROM arno.batch_svrl WHERE job = ? AND input = ?")) {
            s.setString(1, id);
            s.setLong(2, index);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? new java.io.ByteArrayInputStream(r.getBytes(1)) : null;
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    @Override public void svrls(String id, BiConsumer<Long, InputStream> each) {
        List<Long> inputs = new ArrayList<>();
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT input FROM arno.batch_svrl WHERE job = ? ORDER BY input")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) inputs.add(r.getLong(1));
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
        for (long i : inputs) {
            InputStream in = svrl(id, i);
            if (in != null) each.accept(i, in);
        }
    }

    @Override public Lease save(String id, Properties state, Path report, long from, long to, Map<Long, Path> svrl) {
        try {
            return Transactions.run(database, c -> {
                String cancel;
                try (PreparedStatement s = c.prepareStatement(
                        "SELECT owner_token, report_length, cancel_at FROM arno.batch_jobs WHERE id = ? FOR UPDATE")) {
                    s.setString(1, id);
                    try (ResultSet r = s.executeQuery()) {
                        // another owner's now: nothing written (the commit releases the row)
                        if (!r.next() || !token.equals(r.getString(1))) return Lease.LOST;
                        if (r.getLong(2) != from) {
                            throw new IllegalStateException("batch job " + id + ": its report is kept up to byte " + r.getLong(2)
                                    + ", not " + from);
                        }
                        cancel = r.getString(3);
                    }
                }
                append(c, id, report, from, to);
                for (Map.Entry<Long, Path> e : svrl.entrySet()) {
                    if (!Files.exists(e.getValue())) continue;
                    try (PreparedStatement s = c.prepareStatement("INSERT INTO arno.batch_svrl (job, input, content) VALUES (?, ?, ?)"
                            + " ON CONFLICT (job, input) DO UPDATE SET content = excluded.content")) {
                        s.setString(1, id);
                        s.setLong(2, e.getKey());
                        s.setBytes(3, Files.readAllBytes(e.getValue()));
                        s.executeUpdate();
                    }
                }
                try (PreparedStatement s = c.prepareStatement("UPDATE arno.batch_jobs SET state = ?, status = ?, report_length = ?,"
                        + " lease_until = now() + make_interval(secs => ?) WHERE id = ?")) {
                    s.setString(1, text(state));
                    s.setString(2, state.getProperty("status"));
                    s.setLong(3, to);
                    s.setDouble(4, options.lease().toMillis() / 1000.0);
                    s.setString(5, id);
                    s.executeUpdate();
                }
                return cancel != null ? Lease.CANCEL : Lease.HELD;
            });
        } catch (SQLException e) {
            throw unreachable(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the report of batch job " + id + " to save it", e);
        }
    }

    @Override public void release(String id) {
        update("UPDATE arno.batch_jobs SET owner_node = NULL, owner_token = NULL, lease_until = NULL"
                + " WHERE id = ? AND owner_token = ?", id, token);
    }

    @Override public boolean cancel(String id, Instant at) {
        return update("UPDATE arno.batch_jobs SET cancel_at = coalesce(cancel_at, ?) WHERE id = ? AND " + UNFINISHED,
                at.toString(), id) == 1;
    }

    /** Appends the report's bytes {@code [from, to)} as pieces of at most {@link #PIECE}. */
    private static void append(Connection c, String id, Path report, long from, long to) throws SQLException, IOException {
        if (to <= from) return;
        try (FileChannel in = FileChannel.open(report, StandardOpenOption.READ);
             PreparedStatement s = c.prepareStatement("INSERT INTO arno.batch_report (job, offset_at, bytes) VALUES (?, ?, ?)")) {
            for (long at = from; at < to; ) {
                int n = (int) Math.min(PIECE, to - at);
                java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(n);
                while (buffer.hasRemaining()) {
                    if (in.read(buffer, at + buffer.position()) < 0) throw new IOException("the report ends before byte " + to);
                }
                s.setString(1, id);
                s.setLong(2, at);
                s.setBytes(3, buffer.array());
                s.executeUpdate();
                at += n;
            }
        }
    }

    private List<Properties> states(String where, String... args) {
        List<Properties> out = new ArrayList<>();
        try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT state, report_length, cancel_at FROM arno.batch_jobs " + where)) {
            for (int i = 0; i < args.length; i++) s.setString(i + 1, args[i]);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) out.add(properties(r.getString(1), r.getLong(2), r.getString(3)));
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
        return out;
    }

    private int update(String sql, String... args) {
        try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) s.setString(i + 1, args[i]);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    private static Properties properties(String text, long reportLength, String cancelAt) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        p.setProperty(REPORT_LENGTH, Long.toString(reportLength));
        if (cancelAt != null) p.putIfAbsent("cancelled", cancelAt);
        return p;
    }

    private static String text(Properties state) {
        StringWriter out = new StringWriter();
        try {
            state.store(out, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static RuntimeException unreachable(SQLException e) {
        return ErrorMessage.DB_UNREACHABLE.error(e, String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
    }
}
