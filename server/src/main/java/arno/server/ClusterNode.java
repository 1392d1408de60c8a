package arno.server;

import arno.cluster.ChangeLog;
import arno.cluster.PgAccounts;
import arno.cluster.PgJobs;
import arno.cluster.PgWritePath;
import arno.cluster.Resync;
import arno.cluster.Schema;
import arno.server.config.Config;
import arno.server.ops.Health;
import arno.store.atom.WritePath;
import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/**
 * This node's part of a cluster ({@code --cluster URL}, issue 23): a small pool of connections to
 * the shared PostgreSQL database, its schema migrated at start-up, the change log, and the write
 * path ({@link PgWritePath}) that the store service is opened with, which starts the node's
 * applier on the node's own LMDB copy. A copy that cannot follow the log is rebuilt from the
 * database before the store opens ({@link #prepareCopy}). Heartbeats ({@code <cluster heartbeat>})
 * register the node in {@code arno.nodes}, check its copy against the log (a database that lost
 * commits the copy applied stops the applier: {@code resync-needed}, rebuilt at the next start) and
 * prune the log. Ready ({@link #state()}) once the applier has applied the log's head as it was
 * when the node started, and while it lags no more than {@code max-lag-positions} and {@code max-lag}.
 */
public final class ClusterNode implements Health.Cluster, arno.server.ops.ReadYourWrites.Positions, AutoCloseable {
    /** The advisory lock the first node takes to load the demo once ("arnodemo" in ASCII). */
    private static final long DEMO_LOCK = 0x6172_6e6f_6465_6d6fL;
    /**
     * Connections in the pool: the writer takes one at a time, the demo's lock one, health none, a
     * login one for each of its short queries (the accounts' change counter, the throttle), batch
     * one or two (claims, progress).
     */
    private static final int POOL = 10;

    private static final System.Logger LOG = System.getLogger("arno");

    private final Config.Cluster settings;
    private final HikariDataSource pool;
    private final ChangeLog log;
    private final Properties listening;
    private final String id;
    private volatile long headAtStart;
    private volatile PgWritePath path;
    /** Heartbeats: the node's row, its copy checked against the log, pruning. */
    private final java.util.concurrent.ScheduledExecutorService beats;
    private volatile boolean resynchronising;
    private volatile String address = "";
    /** What the last heartbeat read: the log's head, the time of the oldest commit not applied, the nodes. */
    private volatile long head;
    private volatile java.time.Instant oldestUnapplied;
    private volatile java.util.List<Health.NodeRow> nodes = java.util.List.of();
    private volatile String beatProblem;

    private ClusterNode(Config.Cluster settings, HikariDataSource pool, ChangeLog log, Properties listening, String id,
            long headAtStart) {
        this.settings = settings;
        this.pool = pool;
        this.log = log;
        this.listening = listening;
        this.id = id;
        this.headAtStart = headAtStart;
        this.head = headAtStart;
        this.beats = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "arno-cluster-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Connects to the cluster's database, migrates its schema and reads the log's head; the
     * database unreachable (or refusing the password): {@code database-unavailable} naming the
     * URL (which never holds the password) and the cause.
     */
    public static ClusterNode connect(Config.Cluster settings, String node) {
        String password = password(settings);
        Properties listening = new Properties();
        if (password != null) listening.setProperty("password", password);
        // the applier's listening connection: a dead peer found by the system's keep-alive (polling goes on meanwhile)
        listening.setProperty("tcpKeepAlive", "true");
        HikariDataSource pool = database(settings, password, POOL);
        try {
            ChangeLog log = new ChangeLog(pool, node);
            return new ClusterNode(settings, pool, log, listening, node, log.head());
        } catch (ArnoException e) {
            pool.close();
            throw e;
        } catch (SQLException | RuntimeException e) {
            pool.close();
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
    }

    /**
     * A pool of connections to the cluster's database, its schema migrated, for a command that
     * works on the cluster without serving ({@code ./arno accounts --cluster URL}); the caller closes it.
     */
    public static HikariDataSource database(Config.Cluster settings) {
        return database(settings, password(settings), 2);
    }

    private static HikariDataSource database(Config.Cluster settings, String password, int size) {
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(settings.database());
        if (password != null) h.setPassword(password);
        h.setMaximumPoolSize(size);
        h.setMinimumIdle(1);
        h.setPoolName("arno-cluster");
        h.setConnectionTimeout(5_000);
        // A database that vanishes without closing the connection (a partition, a host gone) would
        // leave a statement waiting for ever, and with it the node's one write thread: every write
        // would hang instead of answering 503. Arno's statements take milliseconds (a rebuild reads
        // through a cursor, a few hundred rows a round trip), so a round trip of 30 s is a dead one.
        h.addDataSourceProperty("socketTimeout", "30");
        h.addDataSourceProperty("tcpKeepAlive", "true");
        HikariDataSource pool = null;
        try {
            pool = new HikariDataSource(h);
            Schema.migrate(pool);
            return pool;
        } catch (ArnoException e) {
            if (pool != null) pool.close();
            throw e;
        } catch (SQLException | RuntimeException e) {
            if (pool != null) pool.close();
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
    }

    /**
     * The cluster's accounts ({@link PgAccounts}), shared by every node, checked on this node's pool;
     * the first time, when the cluster has none, those of this node's accounts file {@code file}.
     */
    public PgAccounts accounts(java.nio.file.Path file) {
        PgAccounts accounts = new PgAccounts(pool, settings.database());
        accounts.importOnce(file);
        return accounts;
    }

    private static String password(Config.Cluster settings) {
        if (settings.passwordFile() == null) return System.getenv(Config.Cluster.PASSWORD_VARIABLE);
        try {
            return Files.readString(settings.passwordFile(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw ErrorMessage.CLUSTER_PASSWORD_FILE.error(e, settings.passwordFile(), e.getMessage());
        }
    }

    /** The innermost message: Hikari wraps the driver's, which says what is wrong (refused, authentication). */
    private static String cause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return String.valueOf(t.getMessage()).lines().findFirst().orElse("");
    }

    /**
     * Makes the node's copy in {@code dir} (closed) one that can follow the log: a copy that is
     * new or wiped while the log has commits, older than the log's retention, holding commits the
     * database does not (restored, or a replica promoted without them), or open without flushing
     * when its machine stopped ({@link arno.cluster.UnsyncedCopy}) is rebuilt from the
     * database ({@link Resync}), the log showing progress; the node is not ready meanwhile.
     */
    public void prepareCopy(java.nio.file.Path dir, arno.store.StoreOptions options) {
        // a copy the machine stopped under while it was written without flushing is not even opened
        String reason = arno.cluster.UnsyncedCopy.reason(dir);
        if (reason == null) {
            try (arno.store.Store s = arno.store.Store.open(dir, options)) {
                reason = Resync.reason(s, log);
            } catch (SQLException e) {
                throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
            }
        }
        if (reason == null) return;
        LOG.log(System.Logger.Level.WARNING, "resync: " + reason + "; rebuilding it from the database");
        resynchronising = true;
        try {
            Resync.rebuild(pool, dir, options);
            headAtStart = Math.max(headAtStart, log.head());
        } catch (SQLException e) {
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        } finally {
            resynchronising = false;
        }
    }

    /** The write path to open the store service with: writes commit in PostgreSQL, the applier follows the log. */
    public WritePath.Factory writePath() {
        return PgWritePath.factory(log, () -> DriverManager.getConnection(settings.database(), listening),
                PgWritePath.Options.defaults(), p -> {
                    path = p;
                    long every = settings.nodes().heartbeat().toMillis();
                    beats.scheduleWithFixedDelay(this::beat, 0, every, java.util.concurrent.TimeUnit.MILLISECONDS);
                });
    }

    /** Where peers and the console reach this node, once it serves ({@code http://host:port}). */
    public void serving(String address) {
        this.address = address;
        beats.execute(this::beat);
    }

    /**
     * One heartbeat: the copy checked against the log (a database that lost commits since the node
     * applied them makes it resynchronise), the log's head and the lag read, the node's row written
     * and every node's read, the log pruned (by whichever node gets the lock). The database
     * unreachable: said once in the log, and the node keeps serving its copy.
     */
    private void beat() {
        PgWritePath p = path;
        if (p == null) return;
        arno.cluster.Applier a = p.applier();
        try {
            if (!a.needsResync()) a.checkAgainstLog();
            long h = log.head();
            long applied = a.applied();
            oldestUnapplied = applied < h ? log.commitTime(applied + 1) : null;
            head = h;
            String state = state();
            try (Connection c = pool.getConnection()) {
                try (PreparedStatement u = c.prepareStatement("INSERT INTO arno.nodes (id, address, position, heartbeat, last_apply,"
                        + " ready, state) VALUES (?, ?, ?, now(), ?, ?, ?) ON CONFLICT (id) DO UPDATE SET address = excluded.address,"
                        + " position = excluded.position, heartbeat = now(), last_apply = coalesce(excluded.last_apply,"
                        + " arno.nodes.last_apply), ready = excluded.ready, state = excluded.state")) {
                    u.setString(1, id);
                    u.setString(2, address);
                    u.setLong(3, applied);
                    java.time.Instant last = a.lastApply();
                    u.setTimestamp(4, last == null ? null : java.sql.Timestamp.from(last));
                    u.setBoolean(5, state.equals("ready"));
                    u.setString(6, state);
                    u.executeUpdate();
                }
                java.util.List<Health.NodeRow> rows = new java.util.ArrayList<>();
                try (PreparedStatement q = c.prepareStatement("SELECT id, address, position, last_apply, heartbeat, ready, state,"
                        + " (SELECT position FROM arno.log_head) FROM arno.nodes ORDER BY id");
                     java.sql.ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        rows.add(new Health.NodeRow(r.getString(1), r.getString(2), r.getLong(3), Math.max(0, r.getLong(8) - r.getLong(3)),
                                r.getTimestamp(4) == null ? null : r.getTimestamp(4).toInstant(), r.getTimestamp(5).toInstant(),
                                r.getBoolean(6), r.getString(7)));
                    }
                }
                nodes = java.util.List.copyOf(rows);
            }
            Config.Nodes n = settings.nodes();
            log.prune(n.retainPositions(), n.retain().isZero() ? null : n.retain());
            if (beatProblem != null) LOG.log(System.Logger.Level.INFO, "the cluster's heartbeat reaches the database again");
            beatProblem = null;
        } catch (SQLException | RuntimeException e) {
            String m = "the cluster's heartbeat cannot reach the database (" + cause(e) + "); this node serves its copy meanwhile";
            if (!m.equals(beatProblem)) LOG.log(System.Logger.Level.WARNING, m);
            beatProblem = m;
        }
    }

    /**
     * Where the batch service keeps its jobs and reports in cluster mode: the cluster's database,
     * each job run by one node at a time under a lease of {@code lease}.
     */
    public arno.batch.SharedJobs batchJobs(Duration lease) {
        try {
            return PgJobs.open(pool, id, new PgJobs.Options(lease));
        } catch (ArnoException e) {
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
    }

    /**
     * Waits until this node has applied the log's head as it is now, at most {@code timeout}:
     * then the node's copy holds whatever any node committed before.
     */
    public void catchUp(Duration timeout) {
        long head;
        try {
            head = log.head();
        } catch (SQLException e) {
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
        try {
            if (path.applier().awaitApplied(head, timeout)) return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw ErrorMessage.CLUSTER_NOT_CAUGHT_UP.error(head, timeout.toSeconds(), String.valueOf(path.applier().problem()));
    }

    /**
     * Takes the cluster's demo lock (a PostgreSQL advisory lock, held by one connection until
     * closed), so that of nodes starting together one loads the demo and the others find it there.
     */
    public Held demoLock() {
        try {
            Connection c = pool.getConnection();
            try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
                s.setLong(1, DEMO_LOCK);
                s.execute();
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return () -> {
                try (c; PreparedStatement s = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                    s.setLong(1, DEMO_LOCK);
                    s.execute();
                } catch (SQLException e) {
                    // the session's end releases it too
                    System.getLogger("arno").log(System.Logger.Level.WARNING, "cannot release the cluster's demo lock: " + e.getMessage());
                }
            };
        } catch (SQLException e) {
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
    }

    /**
     * Writes the XML document {@code xml} at {@code path} through the cluster's log unless the
     * cluster has a document there ({@link ChangeLog#writeOnce}): what every copy must hold alike,
     * such as the demo's index definitions, which each node's store builds its indexes from as it
     * applies them. Returns the position that wrote it (or the one that had).
     */
    public long writeOnce(String path, byte[] xml) {
        try {
            return log.writeOnce(path, java.util.Map.of(path, xml));
        } catch (SQLException e) {
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
    }

    /** A lock held until closed. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /** The position of the log this node's copy has applied (0 before the store service opened). */
    @Override
    public long position() {
        PgWritePath p = path;
        return p == null ? 0 : p.applier().applied();
    }

    /** Waits until this node's copy has applied {@code position}, at most {@code timeout}; false if it has not. */
    @Override
    public boolean awaitApplied(long position, Duration timeout) throws InterruptedException {
        PgWritePath p = path;
        return p != null && p.applier().awaitApplied(position, timeout);
    }

    /** Whether the node has applied the log's head as it was at start. */
    @Override
    public boolean caughtUp() {
        PgWritePath p = path;
        return p != null && p.applier().applied() >= headAtStart && !p.applier().needsResync();
    }

    @Override
    public String state() {
        if (resynchronising) return "resynchronising";
        PgWritePath p = path;
        if (p == null) return "starting";
        if (p.applier().needsResync()) return "resync-needed";
        if (p.applier().applied() < headAtStart) return "starting";
        Config.Nodes n = settings.nodes();
        if (head() - position() > n.maxLagPositions() || lagMillis() > n.maxLag().toMillis()) return "lagging";
        return "ready";
    }

    /** Why this node is not ready, in a sentence for the console and the log; null when it is ready. */
    @Override
    public String notReady() {
        String state = state();
        PgWritePath p = path;
        return switch (state) {
            case "ready" -> null;
            case "resynchronising" -> "rebuilding its copy from the database";
            case "resync-needed" -> p.applier().problem() + "; the node rebuilds its copy from the database (serve does it by itself within a second; a node embedded otherwise: restart it)";
            case "lagging" -> "lagging " + (head() - position()) + " positions and " + lagMillis() + " ms behind the log (bounds: "
                    + settings.nodes().maxLagPositions() + " positions, " + settings.nodes().maxLag().toMillis() + " ms)";
            default -> "applying the log up to position " + headAtStart + " (at " + position() + ")";
        };
    }

    @Override
    public long head() {
        return Math.max(head, position());
    }

    @Override
    public long lagMillis() {
        java.time.Instant oldest = oldestUnapplied;
        PgWritePath p = path;
        if (oldest == null || p == null || p.applier().applied() >= head) return 0;
        return Math.max(0, java.time.Duration.between(oldest, java.time.Instant.now()).toMillis());
    }

    @Override
    public java.util.List<Health.NodeRow> nodes() {
        return nodes;
    }

    /** This node's id in {@code arno.nodes} (its name in the log). */
    public String id() {
        return id;
    }

    /** How long a request naming a position waits for it ({@code cluster/@read-your-writes-wait}). */
    public Duration readYourWritesWait() {
        return settings.nodes().readYourWritesWait();
    }

    /** The log's head when this node started. */
    @Override
    public long headAtStart() {
        return headAtStart;
    }

    /** Closes the pool; the write path and its applier are the store service's to close, before this. */
    @Override
    public void close() {
        beats.shutdownNow();
        try {
            beats.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pool.close();
    }
}
