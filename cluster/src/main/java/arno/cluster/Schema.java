package arno.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import arno.xml.ErrorMessage;
import arno.xml.ErrorCode;

/**
 * The cluster's tables in PostgreSQL, created and migrated by the nodes themselves: versioned SQL
 * files ({@code arno/cluster/sql/V1__….sql}, V2, …, each run once, in order) and a version table,
 * {@code arno.schema_version}, which records each file run with its SHA-256.
 *
 * <p>{@link #migrate} runs in one transaction that first takes a transaction-scoped advisory lock
 * ({@code pg_advisory_xact_lock}): nodes that start together queue there, the first migrates and
 * commits, the others find the work done. A file fails as a whole (PostgreSQL's DDL is
 * transactional), leaving the database as it was. A database that a newer Arno migrated further is
 * refused (this code would misread its tables), and so is one where a file already run has been
 * edited since (the database and the file would disagree about the schema). Versioned files rather
 * than Flyway: a dozen lines do what is needed, with no dependency and no second version table.
 */
public final class Schema {

    /**
     * The migrations, in order: file names {@code V<n>__<what>.sql}, n ascending from 1. A new
     * file is added here and never edited once released ({@code SchemaTest} checks this list
     * against the folder). A number may be missing while versions written side by side are being
     * merged; each runs once, in the order of this list.
     */
    static final List<String> MIGRATIONS = List.of(
            "V1__store_and_log.sql",
            "V2__accounts.sql",
            "V3__batch.sql",
            "V4__nodes_and_retention.sql");

    static final String FOLDER = "arno/cluster/sql/";
    /** The advisory lock of migration: any number, the same in every node ("arno" in ASCII). */
    static final long LOCK = 0x61726e6fL;
    private static final Pattern NAME = Pattern.compile("V([1-9][0-9]*)__([a-z0-9_]+)\\.sql");

    private Schema() {
    }

    /** The schema version this code writes and reads: the number of its migrations. */
    public static int latest() {
        return number(MIGRATIONS.get(MIGRATIONS.size() - 1));
    }

    /** The version a migration file is: the n of {@code V<n>__<what>.sql}. */
    static int number(String file) {
        Matcher m = NAME.matcher(file);
        if (!m.matches()) throw new IllegalStateException(file + " is not a migration named V<n>__what.sql");
        return Integer.parseInt(m.group(1));
    }

    /**
     * Brings the database to {@link #latest()}, running the files it has not run yet in one
     * transaction; returns the version it was at before.
     *
     * @throws arno.xml.ArnoException STORE_FORMAT when the database is newer than this code, or a
     *                                file it ran differs from this code's
     * @throws SQLException           when the database cannot be reached or a file fails (then
     *                                nothing of it is kept)
     */
    public static int migrate(DataSource database) throws SQLException {
        return Transactions.run(database, Schema::migrate);
    }

    /** The version the database is at, 0 when it has no Arno tables (it is not changed). */
    public static int version(DataSource database) throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT to_regclass('arno.schema_version') IS NOT NULL")) {
                r.next();
                if (!r.getBoolean(1)) return 0;
            }
            try (ResultSet r = s.executeQuery("SELECT coalesce(max(version), 0) FROM arno.schema_version")) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    private static int migrate(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_xact_lock(" + LOCK + ")");
            // after the lock: two nodes creating the same table at once would collide in the catalogue
            s.execute("CREATE SCHEMA IF NOT EXISTS arno");
            s.execute("CREATE TABLE IF NOT EXISTS arno.schema_version ("
                    + " version integer PRIMARY KEY, file text NOT NULL, sha256 text NOT NULL,"
                    + " installed_at timestamptz NOT NULL DEFAULT now())");
        }
        Map<Integer, String[]> done = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT version, file, sha256 FROM arno.schema_version ORDER BY version")) {
            while (r.next()) done.put(r.getInt(1), new String[] {r.getString(2), r.getString(3)});
        }
        int before = done.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        String database = currentDatabase(c);
        if (before > latest()) {
            throw ErrorMessage.CLUSTER_SCHEMA_NEWER.error(database, before, done.get(before)[0], latest(),
                    MIGRATIONS.get(MIGRATIONS.size() - 1));
        }
        for (String file : MIGRATIONS) {
            int v = number(file);
            byte[] sql = read(file, v);
            String sha = sha256(sql);
            String[] was = done.get(v);
            if (was != null) {
                if (!was[1].equals(sha)) {
                    throw ErrorMessage.CLUSTER_MIGRATION_EDITED.error(database, was[0], v, was[1], file, sha);
                }
                continue;
            }
            try (Statement s = c.createStatement()) {
                s.execute(new String(sql, StandardCharsets.UTF_8));
            } catch (SQLException e) {
                throw new SQLException("schema version " + v + " (" + FOLDER + file + ") failed in database '" + database
                        + "': " + e.getMessage(), e.getSQLState(), e);
            }
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO arno.schema_version (version, file, sha256) VALUES (?, ?, ?)")) {
                p.setInt(1, v);
                p.setString(2, file);
                p.setString(3, sha);
                p.executeUpdate();
            }
        }
        return before;
    }

    private static String currentDatabase(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT current_database()")) {
            r.next();
            return r.getString(1);
        }
    }

    /** The text of migration {@code file}, which must be version {@code v}. */
    static byte[] read(String file, int v) {
        Matcher m = NAME.matcher(file);
        if (!m.matches() || Integer.parseInt(m.group(1)) != v) {
            throw new IllegalStateException(file + " is not a migration named V" + v + "__what.sql");
        }
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(FOLDER + file)) {
            if (in == null) throw new IllegalStateException(FOLDER + file + " is missing from the class path");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
