package arno.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;

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
 * The cluster's write path with its PostgreSQL server stopped (issue 23, item 2): the write fails
 * with a clear 503 and the node's copy is unchanged. A class of its own: it stops its server.
 */
class PgWritePathOutageTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path dir;

    @Test
    void aStoppedDatabaseFailsTheWriteClearlyAndTheCopyIsUnchanged() throws Exception {
        Schema.migrate(PG.dataSource("arno"));
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PG.url());
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(1000);
        PgWritePath[] path = new PgWritePath[1];
        try (HikariDataSource pool = new HikariDataSource(config);
             Store store = Store.open(dir.resolve("a"), StoreOptions.defaults().mapSize(256L << 20));
             AtomStore atom = AtomStore.open(store, AtomOptions.defaults(), PgWritePath.factory(new ChangeLog(pool, "a"),
                     () -> DriverManager.getConnection(PG.url()), PgWritePath.Options.defaults()
                             .applier(Applier.Options.defaults().pollInterval(Duration.ofMillis(200))), p -> path[0] = p))) {
            AtomStore.Written w = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("Journals"), "ed");
            long version = store.version();
            List<String> before;
            try (Snapshot s = store.read()) {
                before = s.uris("/");
            }
            PG.stop();
            assertThatThrownBy(() -> atom.createEntry(w.path(), null, "ja",
                    "<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>Lost</title></entry>".getBytes(UTF_8), "ed"))
                    .isInstanceOfSatisfying(ArnoException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.getMessage()).startsWith("cannot reach the cluster's database (")
                                .endsWith("); nothing of the write was stored");
                    });
            assertThat(store.version()).isEqualTo(version);
            try (Snapshot s = store.read()) {
                assertThat(s.uris("/")).isEqualTo(before);
            }
            assertThat(path[0].applier().applied()).isEqualTo(2); // the default model at 1, the entry at 2
        }
    }

    static byte[] entry(String title) {
        return ("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>" + title + "</title>"
                + "<category scheme=\"urn:arno:kind\" term=\"journals\"/></entry>").getBytes(UTF_8);
    }
}
