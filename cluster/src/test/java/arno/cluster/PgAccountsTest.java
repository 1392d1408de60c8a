package arno.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.LoginThrottle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The cluster's accounts and failed logins in a real PostgreSQL, seen by two nodes (two instances, two data sources). */
class PgAccountsTest {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path tmp;

    private static String basic(String name, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((name + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static DataSource migrated(String database) throws Exception {
        DataSource db = PG.dataSource(database);
        Schema.migrate(db);
        return db;
    }

    @Test
    void aChangeOnOneNodeHoldsOnTheOtherAtTheNextCheck() throws Exception {
        String database = PG.newDatabase();
        try (Accounts a = new Accounts(new PgAccounts(migrated(database), "a"));
             Accounts b = new Accounts(new PgAccounts(PG.dataSource(database), "b"))) {
            a.add("editor", "first-password", Accounts.DEFAULT_ROLES);
            assertThat(b.check(basic("editor", "first-password"), "10.0.0.1").name()).isEqualTo("editor");
            // B remembers that check; a new password set on A refuses the old one on B at once, without waiting
            assertThat(b.check(basic("editor", "first-password"), "10.0.0.1").name()).isEqualTo("editor");
            a.password("editor", "second-password");
            assertThatThrownBy(() -> b.check(basic("editor", "first-password"), "10.0.0.1"))
                    .isInstanceOf(Accounts.Refusal.class).extracting(e -> ((ArnoException) e).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
            assertThat(b.check(basic("editor", "second-password"), "10.0.0.1").roles()).isEqualTo(Accounts.DEFAULT_ROLES);
            // roles changed by a new line on B: A sees them at once
            b.add("editor", "second-password", Accounts.ALL_ROLES);
            assertThat(a.check(basic("editor", "second-password"), "10.0.0.1").roles()).isEqualTo(Accounts.ALL_ROLES);
            // removed on A: refused on B, though B had it remembered
            a.remove("editor");
            assertThatThrownBy(() -> b.check(basic("editor", "second-password"), "10.0.0.1"))
                    .isInstanceOf(Accounts.Refusal.class).hasMessageContaining("wrong");
            assertThat(b.list()).isEmpty();
            assertThatThrownBy(() -> b.remove("editor")).hasMessageContaining("there is no account 'editor' in the cluster's database b");
            // the rows hold the line's fields, never a password
            a.create("robot", "robot-password", java.util.EnumSet.of(Accounts.Role.WRITE));
            assertThat(rows(PG.dataSource(database), "SELECT name || ' ' || scheme || ' ' || iterations || ' ' || roles"
                    + " || ' ' || (changed_at <= now()) FROM arno.accounts")).containsExactly("robot pbkdf2-sha256 600000 write true");
            assertThatThrownBy(() -> b.create("robot", "other-password", Accounts.ALL_ROLES)).hasMessageContaining("exists already");
        }
    }

    /** What one login costs in cluster mode beside the file: the counter read, one row by its key, over a pool as the server's. */
    @Test
    void theCheckForAChangeIsOneSmallQuery() throws Exception {
        com.zaxxer.hikari.HikariConfig h = new com.zaxxer.hikari.HikariConfig();
        h.setJdbcUrl(PG.url(PG.newDatabase()));
        h.setMaximumPoolSize(2);
        try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(h)) {
            Schema.migrate(pool);
            PgAccounts pg = new PgAccounts(pool, "db");
            Object first = pg.state();
            for (int i = 0; i < 500; i++) pg.state(); // warm up
            long start = System.nanoTime();
            for (int i = 0; i < 1000; i++) assertThat(pg.state()).isEqualTo(first);
            System.out.printf("PgAccounts.state(): %.3f ms a check over a pool%n", (System.nanoTime() - start) / 1e9);
            try (Accounts a = new Accounts(pg)) {
                a.add("x", "password-x", Accounts.DEFAULT_ROLES);
            }
            assertThat(pg.state()).isNotEqualTo(first);
        }
    }

    @Test
    void failuresOnTwoNodesThrottleAsOnOne() throws Exception {
        String database = PG.newDatabase();
        try (Accounts a = new Accounts(new PgAccounts(migrated(database), "a"));
             Accounts b = new Accounts(new PgAccounts(PG.dataSource(database), "b"))) {
            a.add("editor", "right-password", Accounts.DEFAULT_ROLES);
            // ten free failures, five on each node; the eleventh (on A) closes the pair and the address for a second
            for (int i = 0; i < 10; i++) {
                Accounts node = i % 2 == 0 ? a : b;
                assertThatThrownBy(() -> node.check(basic("editor", "wrong-password"), "203.0.113.9"))
                        .extracting(e -> ((ArnoException) e).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
            }
            assertThatThrownBy(() -> a.check(basic("editor", "wrong-password"), "203.0.113.9"))
                    .extracting(e -> ((ArnoException) e).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
            // B refuses at once, without hashing: as one node would after eleven
            assertThatThrownBy(() -> b.check(basic("editor", "right-password"), "203.0.113.9"))
                    .isInstanceOf(Accounts.Refusal.class).extracting(e -> ((ArnoException) e).code())
                    .isEqualTo(ErrorCode.TOO_MANY_ATTEMPTS);
            assertThatThrownBy(() -> b.check(basic("another", "whatever-password"), "203.0.113.9"))
                    .extracting(e -> ((ArnoException) e).code()).as("per address too").isEqualTo(ErrorCode.TOO_MANY_ATTEMPTS);
            // the owner from elsewhere is not locked out
            assertThat(b.check(basic("editor", "right-password"), "198.51.100.7").name()).isEqualTo("editor");
            assertThat(rows(PG.dataSource(database), "SELECT count(*) FROM arno.login_failures WHERE key = 'a 203.0.113.9'"
                    + " AND score > 10.9 AND closed_until > failed_at")).containsExactly("1");
        }
    }

    /** Failures counted at the same moment on two nodes all count (the read and write of a key are one step). */
    @Test
    void concurrentFailuresAllCountAndForgottenRowsGo() throws Exception {
        String database = PG.newDatabase();
        DataSource db = migrated(database);
        List<PgAccounts> nodes = List.of(new PgAccounts(db, "a"), new PgAccounts(PG.dataSource(database), "b"));
        int each = 20;
        CyclicBarrier together = new CyclicBarrier(4);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                PgAccounts node = nodes.get(t % 2);
                done.add(pool.submit(() -> {
                    together.await();
                    for (int i = 0; i < each; i++) {
                        node.update(List.of("a 192.0.2.1", "n k"), true, (now, s) -> {
                            for (int k = 0; k < s.length; k++) {
                                s[k] = new LoginThrottle.Score((s[k] == null ? 0 : s[k].score()) + 1, now, now);
                            }
                            return null;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdownNow();
        }
        String counted = nodes.get(1).update(List.of("n k", "a 192.0.2.1", "n none"), false,
                (now, s) -> s[0].score() + " " + s[1].score() + " " + s[2]);
        assertThat(counted).isEqualTo("80.0 80.0 null");
        // a key whose score has long decayed to nothing is deleted by the next failure anywhere
        execute(db, "UPDATE arno.login_failures SET forgotten_at = now() - interval '1 second' WHERE key = 'n k'");
        nodes.get(0).update(List.of("a 192.0.2.2"), true, (now, s) -> {
            s[0] = new LoginThrottle.Score(1, now, now);
            return null;
        });
        assertThat(rows(db, "SELECT key FROM arno.login_failures ORDER BY key")).containsExactly("a 192.0.2.1", "a 192.0.2.2");
        // and a success removes its key
        nodes.get(1).update(List.of("a 192.0.2.2"), true, (now, s) -> {
            s[0] = null;
            return null;
        });
        assertThat(rows(db, "SELECT key FROM arno.login_failures")).containsExactly("a 192.0.2.1");
    }

    @Test
    void nodesStartingTogetherCreateOneDevelopmentAccount() throws Exception {
        String database = PG.newDatabase();
        migrated(database);
        int n = 3;
        CyclicBarrier together = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<Boolean>> created = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String password = "password-" + i;
                created.add(pool.submit(() -> {
                    try (Accounts node = new Accounts(new PgAccounts(PG.dataSource(database), "db"))) {
                        together.await();
                        return node.createIfNone("arno", password, Accounts.ALL_ROLES);
                    }
                }));
            }
            int made = 0;
            for (Future<Boolean> f : created) if (f.get()) made++;
            assertThat(made).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(rows(PG.dataSource(database), "SELECT name FROM arno.accounts")).containsExactly("arno");
    }

    @Test
    void aNodesAccountsFileIsImportedOnlyIntoAClusterWithoutAccounts() throws Exception {
        String database = PG.newDatabase();
        PgAccounts pg = new PgAccounts(migrated(database), "db");
        Path file = tmp.resolve("users");
        try (Accounts local = new Accounts(file)) {
            local.add("editor", "editor-password", Accounts.DEFAULT_ROLES);
            local.add("admin", "admin-password", Accounts.ALL_ROLES);
        }
        // an old five-field line (read and write) is taken as it is
        String old = Files.readAllLines(file).stream().filter(l -> l.startsWith("editor:")).findFirst().orElseThrow();
        Files.write(tmp.resolve("old"), List.of("# comment", old.substring(0, old.lastIndexOf(':'))));
        assertThat(pg.importOnce(tmp.resolve("nothing"))).isZero();
        assertThat(pg.importOnce(file)).isEqualTo(2);
        try (Accounts cluster = new Accounts(pg)) {
            assertThat(cluster.check(basic("admin", "admin-password"), null).roles()).isEqualTo(Accounts.ALL_ROLES);
            cluster.remove("editor");
            // the cluster has accounts now: a file is never imported again, not even after a change
            assertThat(pg.importOnce(file)).isZero();
            assertThat(pg.importOnce(tmp.resolve("old"))).isZero();
            assertThat(cluster.list()).extracting(Accounts.Listing::name).containsExactly("admin");
        }
        PgAccounts empty = new PgAccounts(migrated(PG.newDatabase()), "db2");
        assertThat(empty.importOnce(tmp.resolve("old"))).isEqualTo(1);
        try (Accounts cluster = new Accounts(empty)) {
            assertThat(cluster.check(basic("editor", "editor-password"), null).roles()).isEqualTo(Accounts.DEFAULT_ROLES);
        }
        // a malformed file is refused with its line, and nothing imported
        Files.write(tmp.resolve("bad"), List.of("editor:md5:1:x:y"));
        PgAccounts third = new PgAccounts(migrated(PG.newDatabase()), "db3");
        assertThatThrownBy(() -> third.importOnce(tmp.resolve("bad"))).hasMessageContaining("line 1");
        assertThat(third.lines()).isEmpty();
    }

    @Test
    void aDatabaseThatCannotBeReachedRefusesTheLogin() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        org.postgresql.ds.PGSimpleDataSource d = new org.postgresql.ds.PGSimpleDataSource();
        d.setURL("jdbc:postgresql://127.0.0.1:" + closed + "/arno?user=arno&connectTimeout=2");
        try (Accounts a = new Accounts(new PgAccounts(d, "jdbc:postgresql://127.0.0.1:" + closed + "/arno"))) {
            assertThatThrownBy(() -> a.check(basic("editor", "some-password"), "10.0.0.1"))
                    .isInstanceOf(ArnoException.class).hasMessageContaining("cannot reach the cluster's database")
                    .extracting(e -> ((ArnoException) e).code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
        }
    }

    private static List<String> rows(DataSource db, String sql) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) rows.add(r.getString(1));
        }
        return rows;
    }

    private static void execute(DataSource db, String sql) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
