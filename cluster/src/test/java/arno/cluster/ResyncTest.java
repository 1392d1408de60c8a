package arno.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import arno.store.IndexConfig;
import arno.store.IndexDefinition;
import arno.store.IndexHit;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;

/**
 * Bootstrap and resynchronisation (issue 23, item 6): a copy rebuilt from PostgreSQL is the same
 * as a copy that applied the whole log (every document, its version, references, content and
 * time), and follows the log from there; a wiped copy, one older than the log's retention and one
 * ahead of a rewound database are each found out ({@link Resync#reason}) and rebuilt.
 */
class ResyncTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    static final StoreOptions OPTIONS = StoreOptions.defaults().mapSize(256L << 20);

    @TempDir
    Path dir;

    String database;
    final List<Node> open = new ArrayList<>();

    /** One node: its pool, its log, its copy in {@code dir/name}, its service. */
    final class Node implements AutoCloseable {
        final String name;
        final HikariDataSource pool;
        final ChangeLog log;
        final Store store;
        final AtomStore atom;
        PgWritePath path;

        Node(String name) {
            this(name, Duration.ofSeconds(20));
        }

        /** {@code applyTimeout}: how long opening waits for the copy to hold the cluster's model documents. */
        Node(String name, Duration applyTimeout) {
            this.name = name;
            pool = pool(name);
            log = new ChangeLog(pool, name);
            store = Store.open(dir.resolve(name), OPTIONS);
            PgWritePath.Options options = PgWritePath.Options.defaults()
                    .applier(Applier.Options.defaults().pollInterval(Duration.ofMillis(200))).applyTimeout(applyTimeout);
            atom = AtomStore.open(store, AtomOptions.defaults(), PgWritePath.factory(log,
                    () -> DriverManager.getConnection(PG.url(database)), options, p -> path = p));
            open.add(this);
        }

        void catchUp() throws Exception {
            assertThat(path.applier().awaitApplied(log.head(), Duration.ofSeconds(20))).isTrue();
        }

        /** Every document: version (the ETag), time (Last-Modified), media type, references, content. */
        Map<String, String> contents() {
            Map<String, String> out = new LinkedHashMap<>();
            try (Snapshot s = store.read()) {
                for (String uri : s.uris("/")) {
                    ByteArrayOutputStream b = new ByteArrayOutputStream();
                    s.export(uri, b);
                    out.put(uri, s.info(uri).version() + " " + s.info(uri).modified() + " " + s.info(uri).mediaType() + " "
                            + s.references(uri) + " " + b.toString(UTF_8));
                }
            }
            return out;
        }

        @Override
        public void close() {
            if (!open.remove(this)) return;
            atom.close();
            store.close();
            pool.close();
        }
    }

    HikariDataSource pool(String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PG.url(database));
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(2000);
        config.setPoolName("node " + name);
        return new HikariDataSource(config);
    }

    @BeforeEach
    void setUp() throws SQLException {
        database = PG.newDatabase();
        Schema.migrate(PG.dataSource(database));
    }

    @AfterEach
    void tearDown() {
        for (Node n : List.copyOf(open)) n.close();
    }

    static byte[] entry(String kind, String title) {
        return ("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>" + title + "</title>"
                + "<category scheme=\"urn:arno:kind\" term=\"" + kind + "\"/></entry>").getBytes(UTF_8);
    }

    /** Journals with journals in them, one retitled, one deleted: commits that write, rewrite, link and delete. */
    static void write(Node n, String prefix, int count) {
        AtomStore.Written root = n.atom.createEntry(ResourcePath.ROOT, null, prefix, entry("journals", prefix), "ed");
        for (int i = 0; i < count; i++) {
            n.atom.createEntry(root.path(), null, prefix + i, entry("journal", prefix + " " + i), "ed");
        }
        AtomStore.Written first = n.atom.createEntry(root.path(), null, prefix + "x", entry("journal", "to retitle"), "ed");
        n.atom.replaceEntry(first.path(), first.version(), entry("journal", "retitled"), "ed");
        AtomStore.Written gone = n.atom.createEntry(root.path(), null, prefix + "y", entry("journal", "to delete"), "ed");
        n.atom.delete(gone.path(), gone.version(), "ed");
    }

    /** Closes the node, rebuilds its copy from the database, opens it again. */
    Node rebuilt(Node n) throws SQLException {
        n.close();
        try (HikariDataSource pool = pool("rebuild")) {
            Resync.Result r = Resync.rebuild(pool, dir.resolve(n.name), OPTIONS);
            assertThat(r.position()).isEqualTo(new ChangeLog(pool, "t").head());
        }
        assertThat(reason(n.name)).isNull(); // it can follow the log now
        return new Node(n.name);
    }

    String reason(String name) throws SQLException {
        try (HikariDataSource pool = pool("check"); Store s = Store.open(dir.resolve(name), OPTIONS)) {
            return Resync.reason(s, new ChangeLog(pool, "check"));
        }
    }

    @Test
    void aWipedCopyIsRebuiltAsTheOthersHaveItAndFollowsTheLog() throws Exception {
        Node a = new Node("a");
        Node b = new Node("b");
        write(a, "j", 5);
        b.catchUp();
        assertThat(b.contents()).isEqualTo(a.contents());
        b.close();
        wipe(dir.resolve("b"));
        assertThat(reason("b")).contains("new (or wiped)");
        b = rebuilt(b);
        // the same documents at the same versions and times: ETags and Last-Modified agree across the nodes
        assertThat(b.contents()).isEqualTo(a.contents()).hasSizeGreaterThan(10);
        try (Snapshot s = b.store.read()) {
            assertThat(s.mark(Applier.MARK).orElse(0)).isEqualTo(a.log.head());
        }
        // and it follows the log from there, its own writes included
        write(a, "k", 2);
        write(b, "m", 2);
        a.catchUp();
        b.catchUp();
        assertThat(b.contents()).isEqualTo(a.contents());
    }

    /**
     * Index definitions are documents of the log like any other: written once through it, they
     * build the value indexes of a copy that applies them and of one rebuilt later, over the
     * documents written before them and those after, and every copy holds the same commits.
     */
    @Test
    void indexDefinitionsWrittenOnceThroughTheLogBuildTheIndexesOfEveryCopy() throws Exception {
        Node a = new Node("a");
        Node b = new Node("b");
        write(a, "j", 2);
        byte[] config = ("<indexes xmlns='urn:arno:indexes' xmlns:atom='http://www.w3.org/2005/Atom'>"
                + "<index name='title' match='atom:entry' value='atom:title'/></indexes>").getBytes(UTF_8);
        long at = a.log.writeOnce(IndexConfig.URI, Map.of(IndexConfig.URI, config));
        // once: a second node's attempt finds them there and writes nothing
        assertThat(b.log.writeOnce(IndexConfig.URI, Map.of(IndexConfig.URI, "<indexes xmlns='urn:arno:indexes'/>".getBytes(UTF_8))))
                .isEqualTo(at);
        write(a, "k", 2);
        a.catchUp();
        b.catchUp();
        // a node joining later: its new copy rebuilt from the database
        try (HikariDataSource pool = pool("rebuild")) {
            Resync.rebuild(pool, dir.resolve("c"), OPTIONS);
        }
        Node c = new Node("c");
        c.catchUp();
        for (Node n : List.of(a, b, c)) {
            try (Snapshot s = n.store.read()) {
                assertThat(s.indexes().indexes()).as(n.name).extracting(IndexDefinition::name).containsExactly("title");
                // written before the definitions and after them
                assertThat(s.lookup("title", "j 0")).as(n.name).extracting(IndexHit::uri).containsExactly("/j/j0.atom");
                assertThat(s.lookup("title", "k 1")).as(n.name).extracting(IndexHit::uri).containsExactly("/k/k1.atom");
                assertThat(s.lookup("title", "retitled")).as(n.name).hasSize(2);
            }
            // the indexes agree with their definitions (a rebuilt copy skips the versions of positions no current
            // document names, which the check reports apart: not this test's subject)
            assertThat(n.store.check()).as(n.name).filteredOn(p -> !p.startsWith("commit times: version")).isEmpty();
        }
        // the same documents at the same versions: no copy holds a commit of its own
        assertThat(b.contents()).isEqualTo(a.contents()).containsKey(IndexConfig.URI);
        assertThat(c.contents()).isEqualTo(a.contents());
    }

    @Test
    void aCopyOlderThanTheLogsRetentionIsRebuilt() throws Exception {
        Node a = new Node("a");
        Node b = new Node("b");
        write(a, "j", 3);
        b.catchUp();
        b.close();
        write(a, "k", 3);
        assertThat(reason("b")).isNull(); // the log still holds what b lacks
        long head = a.log.head();
        assertThat(a.log.prune(2, null)).isEqualTo(head - 2);
        assertThat(a.log.pruned()).isEqualTo(head - 2);
        assertThat(count("SELECT count(*) FROM arno.changes")).isPositive();
        assertThat(count("SELECT min(position) FROM arno.changes")).isEqualTo(head - 1);
        // versions no current document and no kept change names are gone
        assertThat(count("SELECT count(*) FROM arno.document_versions v WHERE NOT EXISTS (SELECT 1 FROM arno.documents d"
                + " WHERE d.version_id = v.id) AND NOT EXISTS (SELECT 1 FROM arno.changes c WHERE c.version_id = v.id)")).isZero();
        assertThat(reason("b")).contains("older than the log's retention");
        // an applier on it stops and asks for a resync rather than skip what was pruned
        Node stale = new Node("b");
        Thread.sleep(600);
        assertThat(stale.path.applier().needsResync()).isTrue();
        b = rebuilt(stale);
        assertThat(b.contents()).isEqualTo(a.contents());
        write(a, "m", 1);
        b.catchUp();
        assertThat(b.contents()).isEqualTo(a.contents());
    }

    @Test
    void pruningKeepsWhatIsYoungerThanTheRetentionAndWhatANewNodeNeeds() throws Exception {
        Node a = new Node("a");
        write(a, "j", 3);
        long head = a.log.head();
        assertThat(a.log.prune(1, Duration.ofDays(1))).isZero(); // all younger than a day: nothing pruned
        assertThat(count("SELECT count(*) FROM arno.commits")).isEqualTo(head);
        assertThat(a.log.prune(1, null)).isEqualTo(head - 1);
        // a node that joins now finds at once that it must resynchronise (opening waited out its
        // whole apply time-out before), and is rebuilt from the documents, with each document's commit time
        Node c = assertTimeoutPreemptively(Duration.ofMinutes(1), () -> new Node("c", Duration.ofMinutes(10)));
        assertThat(c.path.applier().needsResync()).isTrue();
        assertThat(c.path.applier().problem()).contains("no longer holds positions 1 to");
        c.close();
        wipe(dir.resolve("c"));
        c = rebuilt(c);
        assertThat(c.contents()).isEqualTo(a.contents());
    }

    @Test
    void aCopyAheadOfARewoundDatabaseIsRebuilt() throws Exception {
        Node a = new Node("a");
        write(a, "j", 2);
        a.close();
        // the database as a backup (or an asynchronous replica) has it now
        PG.execute("postgres", "CREATE DATABASE " + database + "_then TEMPLATE " + database);
        a = new Node("a");
        write(a, "k", 2);
        long ahead = a.log.head();
        a.close();
        // restored from that copy: the commits after it are gone
        PG.execute("postgres", "DROP DATABASE " + database);
        PG.execute("postgres", "CREATE DATABASE " + database + " TEMPLATE " + database + "_then");
        assertThat(reason("a")).contains("beyond the log's head");
        // and once the restored database has made as many commits of its own, the positions exist again but differ
        try (HikariDataSource pool = pool("other")) {
            ChangeLog other = new ChangeLog(pool, "other");
            while (other.head() < ahead) {
                try (ChangeLog.Transaction t = other.begin()) {
                    t.put("/other" + other.head() + ".xml", "application/xml", false, "<o/>".getBytes(UTF_8),
                            List.of("/bin" + other.head() + ".png"));
                    t.put("/bin" + other.head() + ".png", "image/png", true, new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2},
                            List.of());
                    t.commit();
                }
            }
        }
        assertThat(reason("a")).contains("differs from the log's");
        // a running node finds it out at its next check, stops applying and asks for a resync
        Node stale = new Node("a");
        assertThat(stale.path.applier().needsResync()).isFalse();
        stale.path.applier().checkAgainstLog();
        assertThat(stale.path.applier().needsResync()).isTrue();
        assertThat(stale.path.applier().problem()).contains("differs from the log's");
        Node b = new Node("b");
        b.catchUp();
        a = rebuilt(stale);
        assertThat(a.contents()).isEqualTo(b.contents()).containsKey("/other" + (ahead - 1) + ".xml")
                .doesNotContainKey("/k.atom");
    }

    long count(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG.url(database)); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    static void wipe(Path folder) throws Exception {
        try (Stream<Path> all = Files.walk(folder)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
