package arno.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;

/**
 * The applier (issue 23, item 4) against a real PostgreSQL and the real LMDB store: one LMDB
 * transaction per commit with its position, restart from that position, a commit delivered twice
 * applied once, notifications as hints and polling as the guarantee.
 */
class ApplierTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path dir;

    String database;
    HikariDataSource pool;
    ChangeLog log;
    Store store;
    final List<Applier> appliers = new ArrayList<>();

    @BeforeEach
    void setUp() throws SQLException {
        database = PG.newDatabase();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PG.url(database));
        config.setMaximumPoolSize(4);
        config.setPoolName("test " + database);
        pool = new HikariDataSource(config);
        Schema.migrate(pool);
        log = new ChangeLog(pool, "test");
        store = openStore();
    }

    @AfterEach
    void tearDown() {
        appliers.forEach(Applier::close);
        if (store != null) store.close();
        pool.close();
    }

    Store openStore() {
        return Store.open(dir.resolve("store"), StoreOptions.defaults().mapSize(256L << 20));
    }

    Applier applier(Duration poll) {
        Applier a = new Applier(store, log, () -> DriverManager.getConnection(PG.url(database)),
                Applier.Options.defaults().pollInterval(poll));
        appliers.add(a);
        return a;
    }

    interface Writes {
        void to(ChangeLog.Transaction t) throws SQLException;
    }

    static long write(ChangeLog log, Writes w) throws SQLException {
        try (ChangeLog.Transaction t = log.begin()) {
            w.to(t);
            return t.commit();
        }
    }

    static void putXml(ChangeLog.Transaction t, String path, String xml, String... refs) throws SQLException {
        t.put(path, "application/xml", false, xml.getBytes(UTF_8), List.of(refs));
    }

    @Test
    void eachCommitIsAppliedInOneLmdbTransactionWithItsPosition() throws Exception {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0};
        Applier a = applier(Duration.ofSeconds(1));
        write(log, t -> {
            putXml(t, "/j/a.xml", "<article xmlns='urn:x'><title>A</title></article>");
            t.put("/j/fig.png", "image/png", true, png, List.of());
        });
        assertThat(a.awaitApplied(1, Duration.ofSeconds(10))).isTrue();
        try (Snapshot s = store.read()) {
            assertThat(s.version()).isEqualTo(1);
            assertThat(s.mark(Applier.MARK)).isEqualTo(OptionalLong.of(1));
            NodeInfo root = s.document("/j/a.xml", new Configuration()).getRootNode();
            assertThat(root.getStringValue()).isEqualTo("A");
            assertThat(s.info("/j/a.xml").binary()).isFalse();
            try (InputStream in = s.binary("/j/fig.png").open()) {
                assertThat(in.readAllBytes()).isEqualTo(png);
            }
            assertThat(s.info("/j/fig.png").mediaType()).isEqualTo("image/png");
        }
        write(log, t -> {
            t.put("/j/e.atom", "application/atom+xml", false, "<entry xmlns='http://www.w3.org/2005/Atom'/>".getBytes(UTF_8),
                    List.of("/j/a.xml"));
            t.delete("/j/fig.png");
        });
        assertThat(a.awaitApplied(2, Duration.ofSeconds(10))).isTrue();
        try (Snapshot s = store.read()) {
            assertThat(s.version()).isEqualTo(2);
            assertThat(s.exists("/j/fig.png")).isFalse();
            assertThat(s.referrers("/j/a.xml")).containsExactly("/j/e.atom");
            assertThat(s.info("/j/e.atom").mediaType()).isEqualTo("application/atom+xml");
        }
        // one store version per PostgreSQL commit, holding exactly its changes
        assertThat(store.changesSince(0)).extracting(c -> c.version() + " " + c.kind() + " " + c.uri())
                .containsExactly("1 PUT /j/a.xml", "1 PUT /j/fig.png", "2 PUT /j/e.atom", "2 DELETE /j/fig.png");
        assertThat(a.commitsApplied()).isEqualTo(2);
        assertThat(a.problem()).isNull();
        assertThat(store.check()).isEmpty();
    }

    @Test
    void aRestartGoesOnFromThePositionTheStoreHolds() throws Exception {
        for (int i = 1; i <= 3; i++) {
            int n = i;
            write(log, t -> putXml(t, "/d/" + n + ".xml", "<d n='" + n + "'/>"));
        }
        Applier first = applier(Duration.ofSeconds(1));
        assertThat(first.awaitApplied(3, Duration.ofSeconds(10))).isTrue();
        first.close();
        appliers.remove(first);
        store.close();
        for (int i = 4; i <= 5; i++) {
            int n = i;
            write(log, t -> putXml(t, "/d/" + n + ".xml", "<d n='" + n + "'/>"));
        }
        store = openStore();
        Applier second = applier(Duration.ofSeconds(1));
        assertThat(second.applied()).isEqualTo(3);
        assertThat(second.awaitApplied(5, Duration.ofSeconds(10))).isTrue();
        assertThat(second.commitsApplied()).isEqualTo(2);
        assertThat(store.version()).isEqualTo(5);
        assertThat(store.changesSince(0)).extracting(Change::uri)
                .containsExactly("/d/1.xml", "/d/2.xml", "/d/3.xml", "/d/4.xml", "/d/5.xml");
    }

    /** A commit delivered again (read again, or by a second applier) changes nothing. */
    @Test
    void aCommitDeliveredTwiceIsAppliedOnce() throws Exception {
        write(log, t -> putXml(t, "/a.xml", "<a/>"));
        write(log, t -> putXml(t, "/b.xml", "<b/>"));
        Applier a = applier(Duration.ofSeconds(1));
        assertThat(a.awaitApplied(2, Duration.ofSeconds(10))).isTrue();
        for (ChangeLog.Commit c : log.read(0, 10)) a.apply(c);
        assertThat(store.version()).isEqualTo(2);
        assertThat(a.commitsApplied()).isEqualTo(2);
        assertThat(store.changesSince(0)).hasSize(2);
    }

    /** Two appliers on one store, each delivered every commit while the log grows: each commit lands once. */
    @Test
    void twoAppliersOnOneStoreApplyEachCommitOnce() throws Exception {
        Applier a = applier(Duration.ofMillis(200));
        Applier b = applier(Duration.ofMillis(200));
        int commits = 40;
        for (int i = 1; i <= commits; i++) {
            int n = i;
            write(log, t -> putXml(t, "/c/" + n + ".xml", "<c n='" + n + "'/>"));
        }
        assertThat(a.awaitApplied(commits, Duration.ofSeconds(20))).isTrue();
        assertThat(b.awaitApplied(commits, Duration.ofSeconds(20))).isTrue();
        assertThat(store.version()).isEqualTo(commits);
        assertThat(a.commitsApplied() + b.commitsApplied()).isEqualTo(commits);
        assertThat(store.changesSince(0)).extracting(Change::uri).doesNotHaveDuplicates().hasSize(commits);
    }

    /**
     * The node's write path applies its own commits while the applier's thread applies the log: the
     * same commits delivered at once from three threads are each applied once, and none of them is
     * refused (a version read before another thread's commit once made the store refuse it).
     */
    @Test
    void commitsDeliveredFromThreeThreadsAtOnceAreAppliedOnceWithoutARefusal() throws Exception {
        Applier a = applier(Duration.ofMillis(50));
        int commits = 60;
        List<Throwable> refused = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> deliverers = new ArrayList<>();
        for (int i = 1; i <= commits; i++) {
            int n = i;
            write(log, t -> putXml(t, "/r/" + n + ".xml", "<r n='" + n + "'/>"));
        }
        List<ChangeLog.Commit> all = log.read(0, commits);
        for (int d = 0; d < 2; d++) {
            Thread t = new Thread(() -> {
                for (ChangeLog.Commit c : all) {
                    try {
                        a.apply(c);
                    } catch (RuntimeException e) {
                        refused.add(e);
                    }
                }
            });
            deliverers.add(t);
            t.start();
        }
        for (Thread t : deliverers) t.join(60_000);
        assertThat(a.awaitApplied(commits, Duration.ofSeconds(20))).isTrue();
        assertThat(refused).isEmpty();
        assertThat(a.problem()).isNull();
        assertThat(store.version()).isEqualTo(commits);
        assertThat(a.commitsApplied()).isEqualTo(commits);
        assertThat(store.changesSince(0)).extracting(Change::uri).doesNotHaveDuplicates().hasSize(commits);
    }

    /** A commit whose notification is lost (nobody hears it) is applied by the next poll. */
    @Test
    void aLostNotificationIsMadeUpForByPolling() throws Exception {
        Duration poll = Duration.ofMillis(500);
        Applier a = applier(poll);
        awaitListener(null);
        ChangeLog quiet = new ChangeLog(pool, "test", false);
        write(quiet, t -> putXml(t, "/quiet.xml", "<quiet/>"));
        assertThat(a.awaitApplied(1, poll.plusSeconds(3))).isTrue();
        assertThat(a.notified()).isZero();
    }

    /** With a long poll interval, a notification is what wakes the applier. */
    @Test
    void aNotificationWakesTheApplierBeforeThePoll() throws Exception {
        Applier a = applier(Duration.ofSeconds(60));
        awaitListener(null);
        write(log, t -> putXml(t, "/n.xml", "<n/>"));
        assertThat(a.awaitApplied(1, Duration.ofSeconds(10))).isTrue();
        assertThat(a.notified()).isEqualTo(1);
    }

    /**
     * The listening connection killed by the server ({@code pg_terminate_backend}): the next
     * commit is still applied within the poll interval, and the applier listens again.
     */
    @Test
    void aKilledListeningConnectionRecoversWithinThePollInterval() throws Exception {
        Duration poll = Duration.ofSeconds(1);
        Applier a = applier(poll);
        long killed = awaitListener(null);
        SchemaTest.exec(pool, "SELECT pg_terminate_backend(" + killed + ")");
        write(log, t -> putXml(t, "/after-kill.xml", "<k/>"));
        assertThat(a.awaitApplied(1, poll.plusSeconds(2))).as("applied within the poll interval").isTrue();
        long again = awaitListener(killed);
        assertThat(again).isNotEqualTo(killed);
        long heard = a.notified();
        write(log, t -> putXml(t, "/heard.xml", "<h/>"));
        assertThat(a.awaitApplied(2, poll.plusSeconds(2))).isTrue();
        await(() -> a.notified() > heard, Duration.ofSeconds(5), "the new listening connection hears the commit");
        assertThat(a.problem()).isNull();
    }

    /** A commit that cannot be applied is reported and retried; nothing after it is applied before it. */
    @Test
    void aCommitThatCannotBeAppliedHoldsTheApplierUntilItCan() throws Exception {
        write(log, t -> putXml(t, "/bad.xml", "<unclosed>"));
        write(log, t -> putXml(t, "/good.xml", "<good/>"));
        Applier a = applier(Duration.ofMillis(300));
        await(() -> a.problem() != null, Duration.ofSeconds(10), "a problem reported");
        assertThat(a.problem()).contains("position 1").contains("/bad.xml");
        Thread.sleep(700); // a few more polls: still held
        assertThat(a.applied()).isZero();
        try (Snapshot s = store.read()) {
            assertThat(s.exists("/good.xml")).isFalse();
        }
        // an operator repairs the stored version (as a fixed XML policy would let it through)
        SchemaTest.exec(pool, "UPDATE arno.document_versions SET content = convert_to('<fixed/>', 'UTF8')"
                + " WHERE path = '/bad.xml'");
        assertThat(a.awaitApplied(2, Duration.ofSeconds(10))).isTrue();
        assertThat(a.problem()).isNull();
        try (Snapshot s = store.read()) {
            assertThat(s.exists("/bad.xml")).isTrue();
            assertThat(s.exists("/good.xml")).isTrue();
        }
    }

    /** Commits pruned from the log before the store applied them: the node must resynchronise, and says so. */
    @Test
    void aStoreBehindTheLogsRetentionNeedsResync() throws Exception {
        for (int i = 1; i <= 3; i++) {
            int n = i;
            write(log, t -> putXml(t, "/p/" + n + ".xml", "<p/>"));
        }
        SchemaTest.exec(pool, "DELETE FROM arno.changes WHERE position <= 2");
        SchemaTest.exec(pool, "DELETE FROM arno.commits WHERE position <= 2");
        Applier a = applier(Duration.ofMillis(200));
        await(a::needsResync, Duration.ofSeconds(10), "resync needed");
        assertThat(a.problem()).contains("positions 1 to 2").contains("resynchronise");
        assertThat(a.applied()).isZero();
        assertThat(store.version()).isZero();
    }

    /** The pid of the applier's listening backend once there is one (other than {@code not}). */
    private long awaitListener(Long not) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < end) {
            List<String> pids = SchemaTest.rows(pool, "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND application_name = '" + Applier.LISTENER_NAME + "'");
            for (String p : pids) {
                if (not == null || Long.parseLong(p) != not) return Long.parseLong(p);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no listening connection of the applier appeared");
    }

    private static void await(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("not within " + timeout + ": " + what);
            Thread.sleep(20);
        }
    }
}
