package arno.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Transactions#run}, on a real PostgreSQL: the work committed whole when it returns,
 * nothing of it kept when it throws (the very exception it threw, checked or not), and the
 * connection's auto-commit as it was either way.
 */
class TransactionsTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    DataSource database;

    @BeforeEach
    void setUp() throws SQLException {
        database = PG.dataSource(PG.newDatabase());
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (n int)");
        }
    }

    private long rows() throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM t")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static void insert(Connection c, int n) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO t VALUES (" + n + ")");
        }
    }

    @Test
    void workThatReturnsIsCommittedWhole() throws Exception {
        int result = Transactions.run(database, c -> {
            insert(c, 1);
            insert(c, 2);
            return 42;
        });
        assertThat(result).isEqualTo(42);
        assertThat(rows()).isEqualTo(2);
    }

    @Test
    void workThatThrowsKeepsNothingAndItsExceptionIsRethrownAsItWas() throws Exception {
        IllegalStateException unchecked = new IllegalStateException("no");
        assertThatThrownBy(() -> Transactions.run(database, c -> {
            insert(c, 1);
            throw unchecked;
        })).isSameAs(unchecked);
        IOException checked = new IOException("unreadable");
        assertThatThrownBy(() -> Transactions.run(database, c -> {
            insert(c, 1);
            throw checked;
        })).isSameAs(checked);
        // a statement that fails: the database's own error
        assertThatThrownBy(() -> Transactions.run(database, c -> {
            insert(c, 1);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO nowhere VALUES (1)");
            }
            return null;
        })).isInstanceOf(SQLException.class).hasMessageContaining("nowhere");
        assertThat(rows()).isZero();
    }

    @Test
    void theConnectionsAutoCommitIsRestoredEitherWay() throws Exception {
        try (Connection c = database.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            Transactions.run(c, t -> {
                assertThat(t.getAutoCommit()).isFalse();
                insert(t, 1);
                return null;
            });
            assertThat(c.getAutoCommit()).isTrue();
            assertThatThrownBy(() -> Transactions.run(c, t -> {
                insert(t, 2);
                throw new IllegalStateException("no");
            })).hasMessage("no");
            assertThat(c.getAutoCommit()).isTrue();
            // what follows on the connection is its own statement again, committed at once
            insert(c, 3);
        }
        assertThat(rows()).isEqualTo(2);
    }
}
