package arno.cluster;

import static arno.cluster.PgWritePathOutageTest.entry;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;

/**
 * A writer's connection cut at its COMMIT (issue 23, item 2): whether PostgreSQL committed or not,
 * the write path finds out ({@code pg_xact_status}) and answers as it happened, stored exactly
 * once, instead of "it may or may not be stored". The cut is a real one, by a proxy on loopback.
 */
class PgWritePathCutTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path dir;

    @Test
    void aCommitWhoseAnswerIsLostIsAnsweredAsStoredAndStoredOnce() throws Exception {
        written(CuttingProxy.Cut.AFTER_COMMIT);
    }

    @Test
    void aCommitThatNeverArrivedIsTriedAgainAndStoredOnce() throws Exception {
        written(CuttingProxy.Cut.BEFORE_COMMIT);
    }

    /**
     * The COMMIT's answer lost and the database out of reach from then on: the writer asks what
     * became of it for the apply timeout, then answers 503 saying the write may or may not be
     * stored, in bounded time (a client waits that long, no longer: the cluster's HAProxy guide
     * gives the server 60 s). Once the database is back, the commit it made is applied, once.
     */
    @Test
    void aCommitLostWithTheDatabaseIsAnsweredUnknownWithinTheApplyTimeoutAndAppliedOnceLater() throws Exception {
        String db = newDatabase();
        Duration applyTimeout = Duration.ofSeconds(3);
        try (CuttingProxy proxy = new CuttingProxy(PG.port()); Node node = new Node(proxy, db, "gone", 1000, applyTimeout)) {
            AtomStore.Written root = node.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("Journals"), "ed");
            ChangeLog log = new ChangeLog(PG.dataSource(db), "reader");
            long head = log.head();

            proxy.armAndGo(CuttingProxy.Cut.AFTER_COMMIT);
            CompletableFuture<AtomStore.Written> write = CompletableFuture.supplyAsync(() -> node.atom.createEntry(root.path(),
                    null, "ja", "<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>Coastal Studies</title></entry>".getBytes(UTF_8),
                    "ed"));
            // bounded: the apply timeout, one more wait of the pool, and room for a slow machine
            assertThatThrownBy(() -> write.get(applyTimeout.toSeconds() + 20, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(ArnoException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.getMessage()).contains("lost the connection while committing the write at position "
                                + (head + 1)).contains("it may or may not be stored");
                    });
            assertThat(proxy.cuts()).as("the connection was cut at its COMMIT").isEqualTo(1);

            proxy.reachable();
            assertThat(log.head()).as("PostgreSQL committed it, once").isEqualTo(head + 1);
            assertThat(node.path.applier().awaitApplied(head + 1, Duration.ofSeconds(10))).as("applied once back").isTrue();
            try (Snapshot s = node.store.read()) {
                assertThat(s.uris("/")).as("one entry made, not two").filteredOn(u -> u.endsWith(".atom")).hasSize(2);
            }
        }
    }

    private void written(CuttingProxy.Cut cut) throws Exception {
        String db = newDatabase();
        try (CuttingProxy proxy = new CuttingProxy(PG.port());
             Node node = new Node(proxy, db, cut.name(), 2000, PgWritePath.Options.defaults().applyTimeout())) {
            AtomStore.Written root = node.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("Journals"), "ed");
            ChangeLog log = new ChangeLog(PG.dataSource(db), "reader");
            long head = log.head();

            proxy.arm(cut);
            AtomStore.Written w = node.atom.createEntry(root.path(), null, "ja",
                    "<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>Coastal Studies</title></entry>".getBytes(UTF_8), "ed");

            assertThat(proxy.cuts()).as("the connection was cut at its COMMIT").isEqualTo(1);
            assertThat(log.head()).as("one commit, not two").isEqualTo(head + 1);
            assertThat(log.read(head, 10)).singleElement().satisfies(c -> assertThat(c.changes())
                    .anyMatch(ch -> ch.path().equals(w.document()) && !ch.isDelete()));
            assertThat(node.path.applier().applied()).isEqualTo(head + 1);
            try (Snapshot s = node.store.read()) {
                assertThat(s.uris("/")).contains(w.document())
                        .as("one entry made, not two").filteredOn(u -> u.endsWith(".atom")).hasSize(2);
            }
        }
    }

    private static String newDatabase() throws Exception {
        String db = PG.newDatabase();
        Schema.migrate(PG.dataSource(db));
        return db;
    }

    /**
     * A node whose writes go through the proxy (its pool's connections), while its applier reads
     * the log directly, so it goes on while the writer's way is cut.
     */
    private final class Node implements AutoCloseable {
        final HikariDataSource pool;
        final Store store;
        final AtomStore atom;
        PgWritePath path;

        Node(CuttingProxy proxy, String db, String name, long poolWaitMs, Duration applyTimeout) {
            HikariConfig config = new HikariConfig();
            // no named server-side statements, so that every COMMIT goes with its text, which the proxy looks for
            config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + db + "?user=postgres&prepareThreshold=0");
            config.setMaximumPoolSize(2);
            config.setConnectionTimeout(poolWaitMs);
            pool = new HikariDataSource(config);
            store = Store.open(dir.resolve(name), StoreOptions.defaults().mapSize(256L << 20));
            atom = AtomStore.open(store, AtomOptions.defaults(), PgWritePath.factory(new ChangeLog(pool, "a"),
                    () -> DriverManager.getConnection(PG.url(db)), PgWritePath.Options.defaults().applyTimeout(applyTimeout)
                            .applier(Applier.Options.defaults().pollInterval(Duration.ofMillis(200))), p -> path = p));
        }

        @Override
        public void close() {
            atom.close();
            store.close();
            pool.close();
        }
    }
}
