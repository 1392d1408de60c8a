package arno.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;

/** The schema, created and migrated by the nodes against a real PostgreSQL. */
class SchemaTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @Test
    void anEmptyDatabaseIsMigratedOnceToTheLatestVersion() throws Exception {
        DataSource db = PG.dataSource(PG.newDatabase());
        assertThat(Schema.version(db)).isZero();
        assertThat(Schema.migrate(db)).isZero();
        assertThat(Schema.version(db)).isEqualTo(Schema.latest());
        assertThat(rows(db, "SELECT version || ' ' || file FROM arno.schema_version ORDER BY version"))
                .containsExactlyElementsOf(Schema.MIGRATIONS.stream().map(f -> Schema.number(f) + " " + f).toList());
        // each version's tables (V1: store and log; V2: accounts; V3: batch)
        assertThat(rows(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'arno' ORDER BY 1"))
                .containsExactly("accounts", "accounts_head", "batch_jobs", "batch_report", "batch_svrl", "changes", "commits",
                        "document_versions", "documents", "log_head", "login_failures", "nodes", "schema_version");
        assertThat(rows(db, "SELECT position FROM arno.log_head")).containsExactly("0");
        // a second start finds the work done
        assertThat(Schema.migrate(db)).isEqualTo(Schema.latest());
        assertThat(rows(db, "SELECT count(*) FROM arno.schema_version")).containsExactly(String.valueOf(Schema.MIGRATIONS.size()));
    }

    /** Nodes starting together queue on the advisory lock: one migrates, none fails. */
    @Test
    void nodesStartingTogetherMigrateOnce() throws Exception {
        DataSource db = PG.dataSource(PG.newDatabase());
        int nodes = 4;
        CyclicBarrier together = new CyclicBarrier(nodes);
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            List<Future<Integer>> before = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                before.add(pool.submit(() -> {
                    together.await();
                    return Schema.migrate(db);
                }));
            }
            List<Integer> found = new ArrayList<>();
            for (Future<Integer> f : before) found.add(f.get());
            // exactly one found the database empty
            assertThat(found).containsOnlyOnce(0).filteredOn(v -> v != 0).allMatch(v -> v == Schema.latest());
        } finally {
            pool.shutdownNow();
        }
        assertThat(rows(db, "SELECT count(*) FROM arno.schema_version")).containsExactly(String.valueOf(Schema.MIGRATIONS.size()));
        assertThat(rows(db, "SELECT count(*) FROM arno.log_head")).containsExactly("1");
    }

    @Test
    void aDatabaseNewerThanTheCodeIsRefused() throws Exception {
        DataSource db = PG.dataSource(PG.newDatabase());
        Schema.migrate(db);
        exec(db, "INSERT INTO arno.schema_version (version, file, sha256) VALUES (" + (Schema.latest() + 1)
                + ", 'V" + (Schema.latest() + 1) + "__future.sql', 'x')");
        assertThatThrownBy(() -> Schema.migrate(db))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORE_FORMAT))
                .hasMessageContaining("has schema version " + (Schema.latest() + 1))
                .hasMessageContaining("newer than this Arno's " + Schema.latest())
                .hasMessageContaining("never migrated back");
        assertThat(Schema.version(db)).isEqualTo(Schema.latest() + 1);
    }

    @Test
    void aMigrationEditedAfterItRanIsRefused() throws Exception {
        DataSource db = PG.dataSource(PG.newDatabase());
        Schema.migrate(db);
        exec(db, "UPDATE arno.schema_version SET sha256 = 'abc' WHERE version = 1");
        assertThatThrownBy(() -> Schema.migrate(db))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORE_FORMAT))
                .hasMessageContaining("V1__store_and_log.sql")
                .hasMessageContaining("was edited after it was run");
    }

    /** A file that fails leaves nothing of itself, nor a version row. */
    @Test
    void aFailedMigrationLeavesTheDatabaseAsItWas() throws Exception {
        DataSource db = PG.dataSource(PG.newDatabase());
        exec(db, "CREATE SCHEMA arno");
        exec(db, "CREATE TABLE arno.log_head (x int)");
        assertThatThrownBy(() -> Schema.migrate(db))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("schema version 1 (arno/cluster/sql/V1__store_and_log.sql) failed")
                .hasMessageContaining("log_head");
        assertThat(rows(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'arno'"))
                .containsExactly("log_head");
    }

    /** Every file of the folder is in the list, in order, so none is forgotten. */
    @Test
    void theListNamesEveryFileOfTheFolder() throws URISyntaxException, java.io.IOException {
        Path folder = Path.of(Schema.class.getClassLoader().getResource(Schema.FOLDER).toURI());
        try (Stream<Path> files = Files.list(folder)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted(
                    java.util.Comparator.comparingInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__"))))))
                    .containsExactlyElementsOf(Schema.MIGRATIONS);
        }
        int before = 0;
        for (String file : Schema.MIGRATIONS) {
            assertThat(Schema.number(file)).isGreaterThan(before);
            before = Schema.number(file);
            assertThat(Schema.read(file, before)).isNotEmpty();
        }
    }

    static List<String> rows(DataSource db, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) out.add(r.getString(1));
        }
        return out;
    }

    static void exec(DataSource db, String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
