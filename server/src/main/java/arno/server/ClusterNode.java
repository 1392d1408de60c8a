package arno.server;

import arno.cluster.ChangeLog;
import arno.cluster.PgJobs;
import arno.cluster.PgWritePath;
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
 * applier on the node's own LMDB copy. Ready ({@link #caughtUp()}) once the applier has applied
 * the log's head as it was when the node started.
 */
public final class ClusterNode implements Health.Cluster, arno.server.ops.ReadYourWrites.Positions, AutoCloseable {
    /** The advisory lock the first node takes to load the demo once ("arnodemo" in ASCII). */
    private static final long DEMO_LOCK = 0x6172_6e6f_6465_6d6fL;
    /** Connections in the pool: the writer takes one at a time, the demo's lock one, health none, batch one or two. */
    private static final int POOL = 6;

    private final Config.Cluster settings;
    private final HikariDataSource pool;
    private final ChangeLog log;
    private final Properties listening;
    private final long headAtStart;
    private final String node;
    private volatile PgWritePath path;

    private ClusterNode(Config.Cluster settings, HikariDataSource pool, ChangeLog log, Properties listening, long headAtStart,
                        String node) {
        this.node = node;
        this.settings = settings;
        this.pool = pool;
        this.log = log;
        this.listening = listening;
        this.headAtStart = headAtStart;
    }

    /**
     * Connects to the cluster's database, migrates its schema and reads the log's head; the
     * database unreachable (or refusing the password): {@code database-unavailable} naming the
     * URL (which never holds the password) and the cause.
     */
    public static ClusterNode connect(Config.Cluster settings, String node) {
        String password = password(settings);
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(settings.database());
        if (password != null) h.setPassword(password);
        h.setMaximumPoolSize(POOL);
        h.setMinimumIdle(1);
        h.setPoolName("arno-cluster");
        h.setConnectionTimeout(5_000);
        Properties listening = new Properties();
        if (password != null) listening.setProperty("password", password);
        HikariDataSource pool = null;
        try {
            pool = new HikariDataSource(h);
            Schema.migrate(pool);
            ChangeLog log = new ChangeLog(pool, node);
            return new ClusterNode(settings, pool, log, listening, log.head(), node);
        } catch (ArnoException e) {
            if (pool != null) pool.close();
            throw e;
        } catch (SQLException | RuntimeException e) {
            if (pool != null) pool.close();
            throw ErrorMessage.CLUSTER_UNREACHABLE.error(e, settings.database(), cause(e));
        }
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

    /** The write path to open the store service with: writes commit in PostgreSQL, the applier follows the log. */
    public WritePath.Factory writePath() {
        return PgWritePath.factory(log, () -> DriverManager.getConnection(settings.database(), listening),
                PgWritePath.Options.defaults(), p -> path = p);
    }

    /**
     * Where the batch service keeps its jobs and reports in cluster mode: the cluster's database,
     * each job run by one node at a time under a lease of {@code lease}.
     */
    public arno.batch.SharedJobs batchJobs(Duration lease) {
        try {
            return PgJobs.open(pool, node, new PgJobs.Options(lease));
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

    /** The log's head when this node started. */
    @Override
    public long headAtStart() {
        return headAtStart;
    }

    /** Closes the pool; the write path and its applier are the store service's to close, before this. */
    @Override
    public void close() {
        pool.close();
    }
}
