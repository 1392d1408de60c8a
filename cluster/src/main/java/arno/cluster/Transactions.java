package arno.cluster;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * One database transaction around some work: auto-commit off, the work, COMMIT; on any failure
 * ROLLBACK and the failure rethrown as it was; auto-commit restored either way. What the
 * cluster's accounts, jobs, schema and log pruning each do with a connection of the pool.
 */
final class Transactions {

    /** Work inside a transaction; {@code E} is any checked exception besides SQL's it may throw (I/O, say). */
    @FunctionalInterface
    interface Work<T, E extends Exception> {
        T run(Connection c) throws SQLException, E;
    }

    private Transactions() {
    }

    /** Runs {@code work} in one transaction on a connection of {@code database}, given back after. */
    static <T, E extends Exception> T run(DataSource database, Work<T, E> work) throws SQLException, E {
        try (Connection c = database.getConnection()) {
            return run(c, work);
        }
    }

    /**
     * Runs {@code work} in one transaction on {@code c}: committed when it returns, rolled back
     * when it throws (a failure of the rollback itself is added to the work's as suppressed, so the
     * cause stays the one reported). A work that ends early without writing (a lock not got) may just
     * return: committing nothing is a rollback.
     */
    static <T, E extends Exception> T run(Connection c, Work<T, E> work) throws SQLException, E {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (Throwable e) {
            try {
                c.rollback();
            } catch (SQLException | RuntimeException r) {
                e.addSuppressed(r);
            }
            throw e;
        } finally {
            try {
                c.setAutoCommit(auto);
            } catch (SQLException e) {
                // a connection that broke on the way: the outcome above stands (committed, or the work's
                // failure, which this must not hide), and the pool discards a connection that fails so
            }
        }
    }
}
