package arno.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * The cluster's write path (issue 23, item 2): two nodes, each an {@link AtomStore} on its own
 * LMDB store with its own applier and {@link PgWritePath}, sharing one real PostgreSQL. Writes
 * commit there and reach both copies through the appliers; a node checking against a stale copy
 * never commits what it did not check; a refused write and an unreachable database store nothing.
 */
class PgWritePathTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path dir;

    String database;
    final List<Node> nodes = new ArrayList<>();

    /** One node: its pool, its log, its copy, its service. */
    final class Node implements AutoCloseable {
        final HikariDataSource pool;
        final ChangeLog log;
        final Store store;
        final AtomStore atom;
        PgWritePath path;

        Node(String name, boolean notify, Duration poll) {
            this(name, notify, poll, AtomOptions.defaults());
        }

        Node(String name, boolean notify, Duration poll, AtomOptions atomOptions) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(PG.url(database));
            config.setMaximumPoolSize(4);
            config.setConnectionTimeout(1000);
            config.setPoolName("node " + name);
            pool = new HikariDataSource(config);
            log = new ChangeLog(pool, name, notify);
            store = Store.open(dir.resolve(name), StoreOptions.defaults().mapSize(256L << 20));
            PgWritePath.Options options = PgWritePath.Options.defaults()
                    .applier(Applier.Options.defaults().pollInterval(poll)).applyTimeout(Duration.ofSeconds(20));
            atom = AtomStore.open(store, atomOptions, PgWritePath.factory(log,
                    () -> DriverManager.getConnection(PG.url(database)), options, p -> path = p));
        }

        Applier applier() {
            return path.applier();
        }

        /** Waits until this node has applied everything committed so far. */
        void catchUp() throws Exception {
            assertThat(applier().awaitApplied(log.head(), Duration.ofSeconds(20))).isTrue();
        }

        String export(String uri) {
            try (Snapshot s = store.read()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                s.export(uri, out);
                return out.toString(UTF_8);
            }
        }

        /** Every document of the copy with its version and content. */
        Map<String, String> contents() {
            Map<String, String> out = new LinkedHashMap<>();
            try (Snapshot s = store.read()) {
                for (String uri : s.uris("/")) {
                    ByteArrayOutputStream b = new ByteArrayOutputStream();
                    s.export(uri, b);
                    out.put(uri, s.info(uri).version() + " " + s.references(uri) + " " + b.toString(UTF_8));
                }
            }
            return out;
        }

        long documentVersion(String uri) {
            try (Snapshot s = store.read()) {
                return s.documentVersion(uri);
            }
        }

        @Override
        public void close() {
            atom.close();
            store.close();
            pool.close();
        }
    }

    @BeforeEach
    void setUp() throws SQLException {
        database = PG.newDatabase();
        Schema.migrate(PG.dataSource(database));
    }

    @AfterEach
    void tearDown() {
        for (Node n : nodes) n.close();
    }

    Node node(String name) {
        return node(name, true, Duration.ofSeconds(1));
    }

    Node node(String name, boolean notify, Duration poll) {
        Node n = new Node(name, notify, poll);
        nodes.add(n);
        return n;
    }

    static byte[] entry(String kind, String title) {
        return ("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>" + title + "</title>"
                + "<category scheme=\"urn:arno:kind\" term=\"" + kind + "\"/></entry>").getBytes(UTF_8);
    }

    /** Whether the thread {@code name} waits in {@link Store#write()} (for the lock another holds). */
    static boolean waitingForTheLock(String name) {
        for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
            if (!t.getKey().getName().equals(name)) continue;
            for (StackTraceElement e : t.getValue()) {
                if (e.getClassName().equals(Store.class.getName()) && e.getMethodName().equals("write")) return true;
            }
        }
        return false;
    }

    static List<String> feed(Node n) {
        return n.atom.changesSince(0, 0, 1000).stream()
                .map(c -> c.version() + "." + c.seq() + " " + c.kind() + " " + c.uri() + " " + c.mediaType()).toList();
    }

    long count(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG.url(database)); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    @Test
    void whatOneNodeWritesTheOtherReadsOnceItHasApplied() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written journals = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed");
        assertThat(a.log.head()).isEqualTo(2); // position 1: the default model documents, written once for the cluster
        b.catchUp();
        assertThat(b.export(journals.document())).isEqualTo(a.export(journals.document())).contains("Journals");
        // every node gives the commit the same version: the ETag a client got from one holds on the other
        assertThat(b.documentVersion(journals.document())).isEqualTo(journals.version())
                .isEqualTo(a.documentVersion(journals.document()));

        // and the other way, with a variant (bytes) and a child whose parent is the first node's entry
        AtomStore.Written ja = b.atom.createEntry(journals.path(), null, "ja", entry("journal", "Journal A"), "ed");
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 1, 2, 3};
        b.atom.putVariant(ja.path(), "png", "image/png", -1, new ByteArrayInputStream(png), "ed");
        a.catchUp();
        assertThat(a.contents()).isEqualTo(b.contents()).containsKeys("/journals/ja.atom", "/journals/ja.png");
        try (Snapshot s = a.store.read()) {
            assertThat(s.binary("/journals/ja.png").open().readAllBytes()).isEqualTo(png);
            assertThat(s.referrers("/journals.atom")).containsExactly("/journals/ja.atom");
        }
        // the same feed, change for change (each node still stamps its own clock: the README's "Not yet")
        assertThat(feed(a)).isEqualTo(feed(b)).hasSize(12);
        assertThat(a.atom.version()).isEqualTo(b.atom.version());
        assertThat(a.path.conflicts() + b.path.conflicts()).isZero();
    }

    @Test
    void aDeleteOnOneNodeTakesTheWholeTreeOffTheOther() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written top = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed");
        AtomStore.Written ja = a.atom.createEntry(top.path(), null, "ja", entry("journal", "A"), "ed");
        a.atom.putVariant(ja.path(), "png", "image/png", -1, new ByteArrayInputStream(new byte[] {1, 2}), "ed");
        a.atom.createEntry(ja.path(), null, null, entry("volume", "V1"), "ed");
        b.catchUp();
        assertThat(b.contents()).containsKeys("/journals/ja.png", "/journals/ja/v1.atom");
        AtomStore.Deleted d = b.atom.delete(ja.path(), b.documentVersion(ja.document()), "ed");
        assertThat(d.documents()).contains("/journals/ja.png", "/journals/ja/v1.atom");
        a.catchUp();
        assertThat(a.contents()).isEqualTo(b.contents()).containsKey("/journals.atom");
        assertThat(a.contents().keySet()).noneMatch(k -> k.startsWith("/journals/"));
        assertThat(count("SELECT count(*) FROM arno.documents WHERE path LIKE '/journals/%'")).isZero();
    }

    /** The model is a set of store documents: a kind changed on one node rules the other's writes once applied. */
    @Test
    void aModelChangedOnOneNodeRulesTheOthersWrites() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written top = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed");
        AtomStore.Written ja = a.atom.createEntry(top.path(), null, "ja", entry("journal", "A"), "ed");
        b.catchUp();
        byte[] pdf = "%PDF-1.4".getBytes(UTF_8);
        // b knows the journal kind without a pdf variant (and has read its model)
        assertThatThrownBy(() -> b.atom.putVariant(ja.path(), "pdf", "application/pdf", -1, new ByteArrayInputStream(pdf), "ed"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.status()).isBetween(400, 499));
        a.atom.putModel("journal", -1, ("<kind xmlns=\"urn:arno:introspection\" xmlns:atom=\"http://www.w3.org/2005/Atom\""
                + " name=\"journal\"><title>Journal</title><require element=\"atom:title\"/>"
                + "<variant role=\"cover\" media-type=\"image/png\" extension=\"png\"/>"
                + "<variant role=\"pdf\" media-type=\"application/pdf\" extension=\"pdf\"/>"
                + "<collection name=\"volumes\" kinds=\"volume\" naming=\"pattern\" pattern=\"v{n}\"/></kind>").getBytes(UTF_8), "ed");
        b.catchUp();
        b.atom.putVariant(ja.path(), "pdf", "application/pdf", -1, new ByteArrayInputStream(pdf), "ed");
        a.catchUp();
        assertThat(a.contents()).isEqualTo(b.contents()).containsKey("/journals/ja.pdf");
    }

    @Test
    void aWriteIsAnsweredOnlyOnceItsOwnNodeHasAppliedIt() throws Exception {
        // no notifications and a slow poll: the applier applies up to 400 ms after a commit
        Node a = node("a", false, Duration.ofMillis(400));
        for (int i = 0; i < 3; i++) {
            AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "j" + i, entry("journals", "J" + i), "ed");
            // read right after the answer, without waiting: the write is there, at the version answered
            try (Snapshot s = a.store.read()) {
                assertThat(s.exists(w.document())).isTrue();
                assertThat(s.documentVersion(w.document())).isEqualTo(w.version());
                assertThat(s.mark(Applier.MARK).orElse(0)).isEqualTo(i + 2);
            }
            assertThat(a.applier().applied()).isEqualTo(a.log.head());
        }
    }

    @Test
    void anIfMatchCheckedOnAStaleCopyIsCheckedAgainAndRefused() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "First"), "ed");
        b.catchUp();
        long version = w.version();
        // b checks its If-Match against its copy; before b commits, a replaces the entry (same If-Match)
        AtomicBoolean once = new AtomicBoolean();
        b.path.beforeCommit = () -> {
            if (once.compareAndSet(false, true)) a.atom.replaceEntry(w.path(), version, entry("journals", "By A"), "ed");
        };
        assertThatThrownBy(() -> b.atom.replaceEntry(w.path(), version, entry("journals", "By B"), "ed"))
                .isInstanceOfSatisfying(ArnoException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.PRECONDITION_FAILED);
                    assertThat(e.getMessage()).contains("not " + version);
                });
        assertThat(b.path.conflicts()).isEqualTo(1);
        // a's write holds, on both copies; b's was never committed
        assertThat(a.log.head()).isEqualTo(3);
        a.catchUp();
        b.catchUp();
        assertThat(b.export(w.document())).contains("By A").doesNotContain("By B");
        assertThat(a.contents()).isEqualTo(b.contents());
        assertThat(count("SELECT count(*) FROM arno.document_versions WHERE convert_from(content, 'UTF8') LIKE '%By B%'"))
                .isZero();
    }

    @Test
    void aWriteCheckedOnAStaleCopyThatStillHoldsIsCommittedAfterTheOther() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "First"), "ed");
        b.catchUp();
        AtomicBoolean once = new AtomicBoolean();
        b.path.beforeCommit = () -> {
            if (once.compareAndSet(false, true)) a.atom.createEntry(w.path(), null, "ja", entry("journal", "By A"), "ed");
        };
        AtomStore.Written jb = b.atom.createEntry(w.path(), null, "jb", entry("journal", "By B"), "ed");
        assertThat(b.path.conflicts()).isEqualTo(1);
        assertThat(a.log.head()).isEqualTo(4);
        a.catchUp();
        assertThat(a.contents()).isEqualTo(b.contents()).containsKeys("/journals/ja.atom", "/journals/jb.atom");
        assertThat(a.documentVersion(jb.document())).isEqualTo(jb.version());
    }

    /**
     * A group that lost a race checks again holding the log's head: another node writing before
     * every one of its commits cannot make it lose twice (before, each try could lose again, up to
     * the attempts' bound).
     */
    @Test
    void aGroupThatLostARaceHoldsTheHeadAtItsNextTry() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written top = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed");
        b.catchUp();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        List<Future<AtomStore.Written>> byA = new ArrayList<>();
        try {
            b.path.beforeCommit = () -> {
                int n = byA.size();
                Future<AtomStore.Written> f = pool.submit(() -> a.atom.createEntry(top.path(), null, "ja" + n, entry("journal", "A" + n), "ed"));
                byA.add(f);
                try {
                    f.get(500, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException heldBack) {
                    // b holds the head: a's commit waits for b's
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            AtomStore.Written jb = b.atom.createEntry(top.path(), null, "jb", entry("journal", "By B"), "ed");
            assertThat(b.path.conflicts()).isEqualTo(1);
            assertThat(byA).hasSize(2);
            AtomStore.Written held = byA.get(1).get();
            // a's first write came before b's, its second (held back) after it
            assertThat(a.path.position(byA.get(0).get().version()).orElseThrow()).isEqualTo(3);
            assertThat(b.path.position(jb.version()).orElseThrow()).isEqualTo(4);
            assertThat(a.path.position(held.version()).orElseThrow()).isEqualTo(5);
        } finally {
            pool.shutdown();
        }
        a.catchUp();
        b.catchUp();
        assertThat(a.contents()).isEqualTo(b.contents()).containsKeys("/journals/ja0.atom", "/journals/ja1.atom", "/journals/jb.atom");
    }

    /**
     * A node applies its own commit as it makes it, without waiting for its applier to hear of it:
     * here the applier is never notified and polls once an hour, and the write still answers at once.
     */
    @Test
    void aNodeAppliesItsOwnCommitWithoutWaitingForItsApplier() throws Exception {
        Node a = node("a", false, Duration.ofHours(1));
        Node b = node("b");
        // waiting for the applier, it would fail after the apply timeout (20 s) with 503 committed-not-applied
        AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Mine"), "ed");
        assertThat(a.applier().applied()).isEqualTo(a.log.head());
        assertThat(a.documentVersion(w.document())).isEqualTo(w.version());
        b.catchUp();
        // applied from the captured writes, the copy is what the other node made of the log
        assertThat(a.contents()).isEqualTo(b.contents());
        try (Snapshot s = a.store.read(); Snapshot t = b.store.read()) {
            assertThat(s.committedAt(w.version())).isEqualTo(t.committedAt(w.version()));
            assertThat(s.mark(Applier.COMMIT_MARK)).isEqualTo(t.mark(Applier.COMMIT_MARK));
        }
    }

    /** A whole group checked again after a conflict: every operation of it, not only the first. */
    @Test
    void aGroupCheckedAgainRunsEveryOperationOfIt() throws Exception {
        Node a = node("a");
        AtomStore.Written top = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed");
        Node b = new Node("b", true, Duration.ofSeconds(1), AtomOptions.defaults().groupCommitMax(2));
        nodes.add(b);
        b.catchUp();
        AtomicBoolean once = new AtomicBoolean();
        b.path.beforeCommit = () -> {
            if (once.compareAndSet(false, true)) a.atom.createEntry(top.path(), null, "ja", entry("journal", "By A"), "ed");
        };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<AtomStore.Written> first;
            Future<AtomStore.Written> second;
            // b's writer takes the first operation and waits for its copy's lock, held here, while the second is queued
            try (var held = b.store.write()) {
                first = pool.submit(() -> b.atom.createEntry(top.path(), null, "jb", entry("journal", "B1"), "ed"));
                while (!waitingForTheLock("arno-cluster-writer b")) Thread.sleep(5);
                second = pool.submit(() -> b.atom.createEntry(top.path(), null, "jc", entry("journal", "B2"), "ed"));
                while (b.path.queued() < 1) Thread.sleep(5);
            }
            first.get();
            second.get();
        } finally {
            pool.shutdown();
        }
        assertThat(b.path.conflicts()).isEqualTo(1);
        a.catchUp();
        b.catchUp();
        assertThat(b.contents()).isEqualTo(a.contents())
                .containsKeys("/journals/ja.atom", "/journals/jb.atom", "/journals/jc.atom");
        // the two of b in one commit, after a's
        assertThat(count("SELECT position FROM arno.log_head")).isEqualTo(4);
    }

    @Test
    void twoNodesWritingAtOnceLoseNothingAndTheirCopiesAgree() throws Exception {
        Node a = node("a");
        Node b = node("b");
        AtomStore.Written top = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed");
        b.catchUp();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<AtomStore.Written>> done = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                for (Node n : List.of(a, b)) {
                    String name = (n == a ? "a" : "b") + i;
                    done.add(pool.submit(() -> n.atom.createEntry(top.path(), null, name, entry("journal", name), "ed")));
                }
            }
            for (Future<AtomStore.Written> f : done) f.get();
        } finally {
            pool.shutdown();
        }
        a.catchUp();
        b.catchUp();
        Map<String, String> copy = a.contents();
        assertThat(copy).isEqualTo(b.contents());
        for (int i = 0; i < 20; i++) assertThat(copy).containsKeys("/journals/a" + i + ".atom", "/journals/b" + i + ".atom");
        assertThat(count("SELECT count(*) FROM arno.documents WHERE path LIKE '/journals/%'")).isEqualTo(40);
    }

    @Test
    void aRefusedWriteLeavesTheDatabaseUnchanged() throws Exception {
        Node a = node("a");
        AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "First"), "ed");
        long head = a.log.head();
        long versions = count("SELECT count(*) FROM arno.document_versions");
        long storeVersion = a.store.version();
        assertThatThrownBy(() -> a.atom.replaceEntry(w.path(), w.version() + 5, entry("journals", "Again"), "ed"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.status()).isEqualTo(412));
        byte[] untitled = "<entry xmlns=\"http://www.w3.org/2005/Atom\"><category scheme=\"urn:arno:kind\" term=\"journal\"/></entry>"
                .getBytes(UTF_8);
        assertThatThrownBy(() -> a.atom.createEntry(w.path(), null, "ja", untitled, "ed"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNPROCESSABLE));
        assertThatThrownBy(() -> a.atom.createEntry(w.path(), null, "ja", entry("no-such-kind", "X"), "ed"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.status()).isBetween(400, 499));
        assertThat(a.log.head()).isEqualTo(head);
        assertThat(count("SELECT count(*) FROM arno.document_versions")).isEqualTo(versions);
        assertThat(a.store.version()).isEqualTo(storeVersion);
        assertThat(a.export(w.document())).contains("First");
    }

    /**
     * The pool's connections cut (as by a restart of the database) just before a write: the one the
     * pool hands out first is dead, which fails before anything is stored, so the write goes on
     * on another connection instead of failing.
     */
    @Test
    void aConnectionCutBeforeTheCommitIsReplacedAndTheWriteStored() throws Exception {
        Node a = node("a");
        AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "First"), "ed");
        AtomicBoolean once = new AtomicBoolean();
        a.path.beforeCommit = () -> {
            if (!once.compareAndSet(false, true)) return;
            String pool = "pid <> pg_backend_pid() AND datname = '" + database + "' AND application_name <> '"
                    + Applier.LISTENER_NAME + "'";
            try {
                // until the backends cut are gone (not until none is left: the applier's next read makes the pool open new ones)
                String cut;
                try (Connection c = DriverManager.getConnection(PG.url(database)); Statement st = c.createStatement();
                     ResultSet r = st.executeQuery("SELECT coalesce(array_agg(pid), '{}')::text FROM pg_stat_activity WHERE " + pool)) {
                    r.next();
                    cut = "pid = ANY('" + r.getString(1) + "'::int[])";
                }
                PG.execute("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE " + cut);
                while (count("SELECT count(*) FROM pg_stat_activity WHERE " + cut) > 0) Thread.sleep(10);
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        AtomStore.Written ja = a.atom.createEntry(w.path(), null, "ja", entry("journal", "After the cut"), "ed");
        assertThat(once).isTrue();
        assertThat(a.export(ja.document())).contains("After the cut");
        assertThat(count("SELECT position FROM arno.log_head")).isEqualTo(3);
    }

    @Test
    void anUnreachableDatabaseFailsTheWriteClearlyAndStoresNothing() throws Exception {
        Node a = node("a");
        AtomStore.Written w = a.atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "First"), "ed");
        long head = a.log.head();
        long versions = count("SELECT count(*) FROM arno.document_versions");
        long storeVersion = a.store.version();
        // the database refuses every connection, and those it had are cut
        PG.execute("postgres", "ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
        PG.execute("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
        try {
            assertThatThrownBy(() -> a.atom.createEntry(w.path(), null, "ja", entry("journal", "Lost"), "ed"))
                    .isInstanceOfSatisfying(ArnoException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.getMessage()).contains("cannot reach the cluster's database", "nothing of the write was stored");
                    });
            assertThat(a.store.version()).isEqualTo(storeVersion);
        } finally {
            PG.execute("postgres", "ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
        }
        assertThat(count("SELECT position FROM arno.log_head")).isEqualTo(head);
        assertThat(count("SELECT count(*) FROM arno.document_versions")).isEqualTo(versions);
        // the database back: writes go on (on a new connection if the pool's was cut), the applier follows again
        AtomStore.Written ja = a.atom.createEntry(w.path(), null, "ja", entry("journal", "Back"), "ed");
        assertThat(a.export(ja.document())).contains("Back");
        assertThat(count("SELECT position FROM arno.log_head")).isEqualTo(head + 1);
    }
}
