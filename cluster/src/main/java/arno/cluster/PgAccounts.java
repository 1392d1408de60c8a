package arno.cluster;

import arno.xml.Accounts;
import arno.xml.ErrorMessage;
import arno.xml.LoginThrottle;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The accounts of a cluster, in its database ({@code arno.accounts}, schema version 2), and the
 * failed logins counted there across nodes ({@code arno.login_failures}): an {@link Accounts.Backing},
 * so {@code new Accounts(pgAccounts)} checks logins exactly as a single node does (hashing off the
 * request thread, remembered checks, {@link LoginThrottle}'s policy), only with what every node shares.
 *
 * <p>A change made on one node holds on every node from the next request: every check reads the
 * change counter {@code arno.accounts_head} (its {@link #state}), which each change increments in its
 * transaction, and reads the accounts again when it moved. A remembered check is keyed by the whole
 * line (salt and hash included), so it never outlives a changed password, and a removed account is
 * gone from the lines read again. The cost is one query per login: one row by its primary key
 * over a pooled connection, 0.5 to 1.7 ms measured on loopback on a busy 2-core machine
 * ({@code PgAccountsTest} prints it), next to the 100 to 300 ms of PBKDF2 that a remembered check
 * saves; with the throttle's read before the check and its (read-only when there is nothing to
 * forgive) step after a success, an authenticated request costs three such queries. A login while the database
 * cannot be reached is refused ({@code database-unavailable}, 503), never checked against accounts
 * that may have been removed since.
 *
 * <p>Failures: each (account name from a network, network) key is a row with its score, its last
 * failure and until when it is closed, on the database's clock (the one time of every node). A
 * failure takes transaction-scoped advisory locks on its keys (in order, so two never deadlock),
 * reads, applies the policy and writes back, so failures on two nodes at once both count; the
 * check before a login only reads. Rows whose score has decayed to nothing are deleted as failures
 * come, by an index on that time, so the table does not grow with old guesses.
 */
public final class PgAccounts implements Accounts.Backing, LoginThrottle.Scores {
    private static final String SCHEME = "pbkdf2-sha256";
    private static final System.Logger LOG = System.getLogger("arno");
    /** Epoch nanoseconds of a timestamptz expression (PostgreSQL keeps microseconds). */
    private static final String NANOS = "(extract(epoch FROM %s) * 1000000)::bigint * 1000";

    private final DataSource database;
    private final String where;

    /** The accounts in {@code database} (migrated to version 2 or later), {@code where} naming it in messages. */
    public PgAccounts(DataSource database, String where) {
        this.database = database;
        this.where = where;
    }

    @Override
    public Object state() {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT changes FROM arno.accounts_head")) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    @Override
    public List<String> lines() {
        try (Connection c = database.getConnection()) {
            return lines(c, false);
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    @Override
    public String where() {
        return "the cluster's database " + where;
    }

    @Override
    public LoginThrottle.Scores failures() {
        return this;
    }

    /**
     * One transaction: the counter row locked (writers of accounts queue there), the lines read,
     * {@code change} applied, the rows that differ written and the counter incremented when any did.
     */
    @Override
    public void update(Consumer<List<String>> change) {
        try {
            Transactions.run(database, c -> {
                List<String> before = lines(c, true);
                List<String> after = new ArrayList<>(before);
                change.accept(after);
                if (write(c, rows(before), rows(after))) {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("UPDATE arno.accounts_head SET changes = changes + 1");
                    }
                }
                return null;
            });
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    /**
     * Once, when the cluster has no accounts at all: those of {@code file} (a node's accounts file,
     * checked whole first: a malformed line is refused with its number), atomically, so of nodes
     * starting together one imports and the others find accounts there. Returns how many it
     * imported (0 when the cluster had accounts, or the file none).
     */
    public int importOnce(Path file) {
        Accounts.Backing from = Accounts.Backing.file(file);
        try (Accounts check = new Accounts(from)) {
            if (check.isEmpty()) return 0;
        }
        List<String> lines = from.lines().stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        int[] imported = {0};
        update(current -> {
            if (!current.isEmpty()) return;
            current.addAll(lines);
            imported[0] = lines.size();
        });
        if (imported[0] > 0) {
            LOG.log(System.Logger.Level.INFO, "imported the " + imported[0] + " accounts of " + file + " into " + where()
                    + ", which had none; from now on the cluster's accounts are those of the database");
        }
        return imported[0];
    }

    private static List<String> lines(Connection c, boolean lock) throws SQLException {
        try (Statement s = c.createStatement()) {
            if (lock) s.executeQuery("SELECT changes FROM arno.accounts_head FOR UPDATE").close();
            List<String> lines = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT name, scheme, iterations, salt, hash, roles FROM arno.accounts ORDER BY name")) {
                while (r.next()) {
                    lines.add(r.getString(1) + ":" + r.getString(2) + ":" + r.getInt(3) + ":" + r.getString(4) + ":"
                            + r.getString(5) + ":" + r.getString(6));
                }
            }
            return lines;
        }
    }

    /** Lines by name, as rows: name, scheme, iterations, salt, hash, roles (a line without roles has read,write). */
    private Map<String, String[]> rows(List<String> lines) {
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : lines) {
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("#")) continue;
            String[] p = text.split(":", -1);
            if ((p.length != 5 && p.length != 6) || !SCHEME.equals(p[1]) || !p[2].matches("[1-9][0-9]{0,8}")) {
                throw ErrorMessage.ACCOUNTS_LINE_SHAPE.error(where(), rows.size() + 1, SCHEME);
            }
            rows.put(p[0], p.length == 6 ? p : new String[] {p[0], p[1], p[2], p[3], p[4], "read,write"});
        }
        return rows;
    }

    /** Deletes, inserts and updates what differs; whether anything did. */
    private static boolean write(Connection c, Map<String, String[]> before, Map<String, String[]> after) throws SQLException {
        boolean changed = false;
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM arno.accounts WHERE name = ?")) {
            for (String name : before.keySet()) {
                if (after.containsKey(name)) continue;
                delete.setString(1, name);
                delete.executeUpdate();
                changed = true;
            }
        }
        try (PreparedStatement upsert = c.prepareStatement("INSERT INTO arno.accounts AS a (name, scheme, iterations, salt, hash, roles)"
                + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET scheme = excluded.scheme,"
                + " iterations = excluded.iterations, salt = excluded.salt, hash = excluded.hash, roles = excluded.roles,"
                + " changed_at = now()")) {
            for (String[] row : after.values()) {
                String[] was = before.get(row[0]);
                if (was != null && java.util.Arrays.equals(was, row)) continue;
                for (int i = 0; i < 6; i++) {
                    if (i == 2) upsert.setInt(3, Integer.parseInt(row[2]));
                    else upsert.setString(i + 1, row[i]);
                }
                upsert.executeUpdate();
                changed = true;
            }
        }
        return changed;
    }

    // ---- Failed logins

    @Override
    public <T> T update(List<String> keys, boolean change, LoginThrottle.Step<T> step) {
        try (Connection c = database.getConnection()) {
            Stepped<T> read = step(c, keys, step);
            // a read, or a success with nothing to forgive (every authenticated request): one query, no transaction
            if (!change || (allNull(read.scores) && allNull(read.before))) return read.result;
            return Transactions.run(c, t -> {
                try (PreparedStatement lock = t.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
                    for (String key : new TreeSet<>(keys)) {
                        lock.setString(1, key);
                        lock.executeQuery().close();
                    }
                }
                Stepped<T> done = step(t, keys, step);
                write(t, keys, done.scores);
                try (Statement s = t.createStatement()) {
                    s.executeUpdate("DELETE FROM arno.login_failures WHERE forgotten_at < clock_timestamp()");
                }
                return done.result;
            });
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    /** What a step returned, the scores it left, and those it was given. */
    private record Stepped<T>(T result, LoginThrottle.Score[] scores, LoginThrottle.Score[] before) {}

    private static boolean allNull(LoginThrottle.Score[] scores) {
        for (LoginThrottle.Score s : scores) if (s != null) return false;
        return true;
    }

    /** Reads the keys' scores and the database's time in one statement and runs {@code step} on them (steps are pure: it may run twice). */
    private static <T> Stepped<T> step(Connection c, List<String> keys, LoginThrottle.Step<T> step) throws SQLException {
        LoginThrottle.Score[] scores = new LoginThrottle.Score[keys.size()];
        long now;
        try (PreparedStatement s = c.prepareStatement("SELECT " + NANOS.formatted("clock_timestamp()") + ", f.key, f.score, "
                + NANOS.formatted("f.failed_at") + ", " + NANOS.formatted("f.closed_until")
                + " FROM (SELECT 1) one LEFT JOIN arno.login_failures f ON f.key = ANY (?)")) {
            s.setArray(1, c.createArrayOf("text", keys.toArray()));
            try (ResultSet r = s.executeQuery()) {
                now = 0;
                while (r.next()) {
                    now = r.getLong(1);
                    String key = r.getString(2);
                    if (key != null) scores[keys.indexOf(key)] = new LoginThrottle.Score(r.getDouble(3), r.getLong(4), r.getLong(5));
                }
            }
        }
        LoginThrottle.Score[] before = scores.clone();
        return new Stepped<>(step.apply(now, scores), scores, before);
    }

    private static void write(Connection c, List<String> keys, LoginThrottle.Score[] scores) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM arno.login_failures WHERE key = ?");
             PreparedStatement upsert = c.prepareStatement("INSERT INTO arno.login_failures"
                     + " (key, score, failed_at, closed_until, forgotten_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET"
                     + " score = excluded.score, failed_at = excluded.failed_at, closed_until = excluded.closed_until,"
                     + " forgotten_at = excluded.forgotten_at")) {
            for (int i = 0; i < scores.length; i++) {
                LoginThrottle.Score s = scores[i];
                if (s == null) {
                    delete.setString(1, keys.get(i));
                    delete.executeUpdate();
                } else {
                    upsert.setString(1, keys.get(i));
                    upsert.setDouble(2, s.score());
                    upsert.setObject(3, time(s.at()));
                    upsert.setObject(4, time(s.until()));
                    upsert.setObject(5, time(s.forgottenAt()));
                    upsert.executeUpdate();
                }
            }
        }
    }

    private static OffsetDateTime time(long epochNanos) {
        return Instant.ofEpochSecond(0, epochNanos).atOffset(ZoneOffset.UTC);
    }

    private RuntimeException unreachable(SQLException e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return ErrorMessage.CLUSTER_UNREACHABLE.error(e, where, String.valueOf(t.getMessage()).lines().findFirst().orElse(""));
    }
}
