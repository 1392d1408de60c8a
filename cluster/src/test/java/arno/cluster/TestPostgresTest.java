package arno.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The test harness itself: a real server on loopback only, and nothing left once it is stopped. */
class TestPostgresTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @Test
    void theDatabaseArnoAnswersOnLoopbackOnly() throws Exception {
        try (Connection c = DriverManager.getConnection(PG.url()); Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT current_database()")).isEqualTo("arno");
            assertThat(one(s, "SHOW listen_addresses")).isEqualTo("127.0.0.1");
            assertThat(one(s, "SHOW port")).isEqualTo(String.valueOf(PG.port()));
            assertThat(one(s, "SHOW unix_socket_directories")).contains("arno-pg-").endsWith("sock");
            assertThat(Integer.parseInt(one(s, "SHOW server_version_num"))).isGreaterThanOrEqualTo(150000);
        }
    }

    @Test
    void newDatabasesAreEmptyAndApart() throws Exception {
        String a = PG.newDatabase();
        String b = PG.newDatabase();
        assertThat(a).isNotEqualTo(b);
        PG.execute(a, "CREATE TABLE t (x int)");
        try (Connection c = DriverManager.getConnection(PG.url(b)); Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM pg_tables WHERE tablename = 't'")).isEqualTo("0");
        }
    }

    /** A second server, stopped: its postmaster is gone and its folder deleted. */
    @Test
    void stopLeavesNothingRunning() throws Exception {
        TestPostgres other = new TestPostgres();
        other.start();
        long pid = other.pid();
        assertThat(ProcessHandle.of(pid)).isPresent();
        String folder;
        try (Connection c = DriverManager.getConnection(other.url()); Statement s = c.createStatement()) {
            folder = one(s, "SHOW data_directory");
        }
        other.stop();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
        assertThat(Path.of(folder)).doesNotExist();
        other.stop(); // twice is harmless
    }

    @Test
    void missingBinariesNameThePackageToInstall(@TempDir Path empty) throws Exception {
        assertThatThrownBy(() -> TestPostgres.binaries(empty, null))
                .hasMessageContaining("apt-get install postgresql")
                .hasMessageContaining(empty.toString());
        Files.createDirectories(empty.resolve("11/bin"));
        assertThatThrownBy(() -> TestPostgres.binaries(empty, null)).hasMessageContaining("apt-get install postgresql");
        assertThatThrownBy(() -> TestPostgres.binaries(empty, empty.toString())).hasMessageContaining("no initdb");
    }

    private static String one(Statement s, String sql) throws Exception {
        try (ResultSet r = s.executeQuery(sql)) {
            assertThat(r.next()).isTrue();
            return r.getString(1);
        }
    }
}
