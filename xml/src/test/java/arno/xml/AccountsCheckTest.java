package arno.xml;

import static arno.xml.AccountsTest.basic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.testkit.Wait;
import arno.xml.Accounts.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's login check ({@link Accounts#check}): the delay policy after failures (with a
 * stepped clock, no sleeps), an unknown name costing the same hash as a known one, old hashes
 * renewed after a login, and the file edits of {@code ./arno accounts}.
 */
class AccountsCheckTest {
    private static final long SECOND = 1_000_000_000L;
    @TempDir Path tmp;

    @Test void theDelayGrowsAfterTheFreeFailuresUpToTheCapAndDecays() {
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        LoginThrottle t = new LoginThrottle(now::get);
        for (int i = 0; i < LoginThrottle.FREE; i++) assertThat(t.failed("ann", "10.0.0.1")).isZero();
        assertThat(t.wait("ann", "10.0.0.1")).isZero();
        long previous = 0;
        for (int i = 0; i < 10; i++) {
            long wait = t.failed("ann", "10.0.0.1");
            assertThat(wait).isGreaterThan(previous == LoginThrottle.CAP_NANOS ? previous - 1 : previous)
                    .isLessThanOrEqualTo(LoginThrottle.CAP_NANOS);
            assertThat(t.wait("ann", "10.0.0.1")).isEqualTo(wait);
            // another account from this address waits too; the same account from elsewhere does not
            assertThat(t.wait("bob", "10.0.0.1")).isEqualTo(wait);
            assertThat(t.wait("ann", "10.9.9.9")).isZero();
            assertThat(t.wait("bob", "10.9.9.9")).isZero();
            previous = wait;
            now.addAndGet(wait); // the next attempt comes as soon as it may
        }
        assertThat(previous).isEqualTo(LoginThrottle.CAP_NANOS);
        assertThat(LoginThrottle.delay(LoginThrottle.FREE + 1)).isEqualTo(SECOND);
        assertThat(LoginThrottle.delay(LoginThrottle.FREE + 2)).isEqualTo(2 * SECOND);
        assertThat(LoginThrottle.delay(LoginThrottle.FREE + 3)).isEqualTo(4 * SECOND);
        // An hour of quiet (six half-lives) forgives nearly everything: the next failure is free again.
        now.addAndGet(3600 * SECOND);
        assertThat(t.wait("ann", "10.0.0.1")).isZero();
        assertThat(t.failed("ann", "10.0.0.1")).isZero();
    }

    @Test void aSuccessForgivesTheAccountButNotTheAddress() {
        AtomicLong now = new AtomicLong();
        LoginThrottle t = new LoginThrottle(now::get);
        for (int i = 0; i <= LoginThrottle.FREE; i++) t.failed("ann", "10.0.0.1");
        now.addAndGet(2 * SECOND);
        t.succeeded("ann", "10.0.0.1");
        assertThat(t.score("ann", "10.0.0.1")).isZero();
        // the address guessed eleven times: its next failure waits at once
        assertThat(t.failed("bob", "10.0.0.1")).isGreaterThan(0);
        assertThat(t.score("bob", "10.0.0.1")).isEqualTo(1.0);
    }

    @Test void anAttackerFailingAgainstAnAccountLocksOnlyItselfOut() {
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        LoginThrottle t = new LoginThrottle(now::get);
        // 17 wrong passwords a minute against admin for an hour, each as soon as the attacker may knock
        for (int i = 0; i < 17 * 60; i++) {
            now.addAndGet(60 * SECOND / 17);
            if (t.wait("admin", "203.0.113.66") == 0) t.failed("admin", "203.0.113.66");
        }
        assertThat(t.wait("admin", "203.0.113.66")).as("the attacker's own address is throttled").isGreaterThan(0);
        assertThat(t.wait("editor", "203.0.113.66")).as("per address, whatever the name").isGreaterThan(0);
        assertThat(t.wait("admin", "198.51.100.7")).as("the administrator from elsewhere").isZero();
        assertThat(t.score("admin", "198.51.100.7")).isZero();
    }

    @Test void anIpv6ClientIsItsSlash64() {
        assertThat(LoginThrottle.network("2001:db8:1:2:aaaa::1")).isEqualTo(LoginThrottle.network("2001:db8:1:2:bbbb::9"))
                .isEqualTo("2001:db8:1:2::/64");
        assertThat(LoginThrottle.network("2001:db8:1:3::1")).isNotEqualTo(LoginThrottle.network("2001:db8:1:2::1"));
        assertThat(LoginThrottle.network("203.0.113.66")).isEqualTo(LoginThrottle.network("::ffff:203.0.113.66"))
                .isEqualTo("203.0.113.66");
        assertThat(LoginThrottle.network("localhost")).as("a name is kept as text, never resolved").isEqualTo("localhost");
        AtomicLong now = new AtomicLong();
        LoginThrottle t = new LoginThrottle(now::get);
        // a new address of the same /64 for every guess is still one client
        for (int i = 0; i <= LoginThrottle.FREE; i++) t.failed("admin" + i, "2001:db8:1:2::" + Integer.toHexString(i + 1));
        assertThat(t.wait("anyone", "2001:db8:1:2:ffff::1")).isGreaterThan(0);
        assertThat(t.wait("anyone", "2001:db8:1:3::1")).isZero();
    }

    @Test void theTablesStayBounded() {
        AtomicLong now = new AtomicLong();
        LoginThrottle t = new LoginThrottle(now::get);
        for (int i = 0; i < LoginThrottle.MAX_KEYS + 50; i++) {
            now.addAndGet(SECOND);
            t.failed("name" + i, "addr" + i);
        }
        assertThat(t.score("name0", "addr0")).isZero(); // dropped to make room
        assertThat(t.score("name" + (LoginThrottle.MAX_KEYS + 49), "addr" + (LoginThrottle.MAX_KEYS + 49))).isEqualTo(1.0);
    }

    @Test void anUnknownNameCostsTheSameHashAsAKnownOneAndBothAreThrottled() throws Exception {
        AtomicLong now = new AtomicLong();
        Accounts accounts = new Accounts(tmp.resolve("users"), now::get);
        accounts.add("editor", "editor-password", EnumSet.of(Role.READ, Role.WRITE));

        long before = accounts.hashed();
        assertRefused(() -> accounts.check(basic("nobody", "whatever-password"), "10.0.0.1"), ErrorCode.UNAUTHORIZED);
        long unknown = accounts.hashed() - before;
        before = accounts.hashed();
        assertRefused(() -> accounts.check(basic("editor", "wrong-password"), "10.0.0.2"), ErrorCode.UNAUTHORIZED);
        long known = accounts.hashed() - before;
        assertThat(unknown).isEqualTo(known).isEqualTo(Accounts.ITERATIONS);
        // and the unknown name is throttled as the known one is
        assertThat(accounts.failures("nobody", "10.0.0.1")).isEqualTo(accounts.failures("editor", "10.0.0.2")).isEqualTo(1.0);
    }

    /**
     * A password set in this process is checked at its first login without hashing it again
     * (the hash made when it was set), by another instance over the same file too; a wrong
     * password still costs a full hash. (A line made by another process costs one:
     * anOldHashVerifiesAndIsRenewedAfterALogin.)
     */
    @Test void aPasswordSetHereIsCheckedWithoutASecondHashAndAWrongOneStillCostsOne() throws Exception {
        Path file = tmp.resolve("users");
        new Accounts(file).add("setter", "set-here-password", EnumSet.of(Role.READ));
        Accounts server = new Accounts(file, System::nanoTime);
        assertThat(server.check(basic("setter", "set-here-password"), "10.0.0.1").name()).isEqualTo("setter");
        assertThat(server.hashed()).as("the right password, set in this process").isZero();
        assertRefused(() -> server.check(basic("setter", "a-wrong-password"), "10.0.0.2"), ErrorCode.UNAUTHORIZED);
        assertThat(server.hashed()).as("a wrong password").isEqualTo(Accounts.ITERATIONS);
    }

    @Test void afterTheFreeFailuresEvenTheRightPasswordWaitsWithoutAHash() throws Exception {
        AtomicLong now = new AtomicLong();
        Accounts accounts = new Accounts(tmp.resolve("users"), now::get);
        accounts.add("editor", "editor-password", EnumSet.of(Role.READ, Role.WRITE));
        for (int i = 0; i <= LoginThrottle.FREE; i++) {
            assertRefused(() -> accounts.check(basic("editor", "wrong-password"), "10.0.0.1"), ErrorCode.UNAUTHORIZED);
        }
        long before = accounts.hashed();
        Accounts.Refusal r = assertRefused(() -> accounts.check(basic("editor", "editor-password"), "10.0.0.1"),
                ErrorCode.TOO_MANY_ATTEMPTS);
        assertThat(r.retryAfterSeconds()).isEqualTo(1);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.getMessage()).contains("from this address");
        assertThat(accounts.hashed()).isEqualTo(before);
        now.addAndGet(SECOND);
        assertThat(accounts.check(basic("editor", "editor-password"), "10.0.0.1").name()).isEqualTo("editor");
        assertThat(accounts.failures("editor", "10.0.0.1")).isZero();
        assertRefused(() -> accounts.check(null, "10.0.0.7"), ErrorCode.UNAUTHORIZED);
        assertRefused(() -> accounts.check("Bearer x", "10.0.0.7"), ErrorCode.UNAUTHORIZED);
    }

    @Test void anAttackersFailuresDoNotLockTheAccountOutFromAnotherAddress() throws Exception {
        AtomicLong now = new AtomicLong();
        Accounts accounts = new Accounts(tmp.resolve("users"), now::get);
        accounts.add("admin", "admin-password", EnumSet.of(Role.ADMIN));
        // the attacker knocks whenever it may, well past the free failures
        int refused = 0;
        int checked = 0;
        while (checked < LoginThrottle.FREE + 6) {
            try {
                accounts.check(basic("admin", "wrong-password"), "203.0.113.66");
            } catch (Accounts.Refusal e) {
                if (e.code() == ErrorCode.TOO_MANY_ATTEMPTS) {
                    refused++;
                    now.addAndGet(e.retryAfterSeconds() * SECOND);
                } else {
                    checked++;
                }
            }
        }
        assertThat(accounts.failures("admin", "203.0.113.66")).isGreaterThan(LoginThrottle.FREE);
        // the administrator, from another address, logs in at once
        assertThat(accounts.check(basic("admin", "admin-password"), "198.51.100.7").name()).isEqualTo("admin");
        // the attacker's address stays throttled, even with the right password, and for any name
        assertRefused(() -> accounts.check(basic("admin", "admin-password"), "203.0.113.66"), ErrorCode.TOO_MANY_ATTEMPTS);
        assertRefused(() -> accounts.check(basic("someone", "any-password"), "203.0.113.66"), ErrorCode.TOO_MANY_ATTEMPTS);
        assertThat(refused).isGreaterThan(0);
    }

    @Test void anOldHashVerifiesAndIsRenewedAfterALogin() throws Exception {
        Path file = tmp.resolve("users");
        byte[] salt = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        byte[] hash = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(new PBEKeySpec("old-password".toCharArray(), salt, 120_000, 256)).getEncoded();
        Base64.Encoder b64 = Base64.getEncoder();
        String old = "old:pbkdf2-sha256:120000:" + b64.encodeToString(salt) + ":" + b64.encodeToString(hash) + ":read,admin";
        Files.write(file, List.of("# accounts", old));
        Accounts accounts = new Accounts(file);
        assertThat(accounts.list()).singleElement().satisfies(l -> assertThat(l.outdated()).isTrue());
        assertThat(accounts.check(basic("old", "old-password"), "127.0.0.1").roles())
                .containsExactlyInAnyOrder(Role.READ, Role.ADMIN);
        Wait.upTo(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> Files.readString(file), text -> !text.contains(":120000:"));
        String renewed = Files.readString(file);
        assertThat(renewed).contains("old:pbkdf2-sha256:600000:").endsWith(":read,admin\n").doesNotContain(old);
        assertThat(accounts.list()).singleElement().satisfies(l -> assertThat(l.outdated()).isFalse());
        assertThat(accounts.check(basic("old", "old-password"), "127.0.0.1").name()).isEqualTo("old");
    }

    @Test void createRemoveAndPasswordEditTheFile() throws Exception {
        Path file = tmp.resolve("data/batch/users");
        Accounts accounts = new Accounts(file);
        accounts.create("ann", "ann-password", EnumSet.of(Role.ADMIN));
        accounts.create("bob", "bob-password", EnumSet.of(Role.READ));
        assertThatThrownBy(() -> accounts.create("ann", "other-password", EnumSet.of(Role.READ)))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        accounts.password("bob", "new-bob-password");
        assertThat(accounts.authenticate(basic("bob", "bob-password"))).isNull();
        assertThat(accounts.authenticate(basic("bob", "new-bob-password")).roles()).containsExactly(Role.READ);
        assertThatThrownBy(() -> accounts.password("carl", "carl-password"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(accounts.list()).extracting(Accounts.Listing::name).containsExactly("ann", "bob");
        assertThat(accounts.anyWith(Role.WRITE)).isFalse();
        accounts.remove("ann");
        assertThatThrownBy(() -> accounts.remove("ann"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(accounts.list()).extracting(Accounts.Listing::name).containsExactly("bob");
        // the file, its lock file and the folders made for them: owner-only
        assertThat(OwnerOnlyFiles.assertOwnerOnly(tmp.resolve("data"))).contains("batch", "batch/users", "batch/users.lock");
    }

    private static Accounts.Refusal assertRefused(Runnable r, ErrorCode code) {
        try {
            r.run();
        } catch (Accounts.Refusal e) {
            assertThat(e.code()).isEqualTo(code);
            return e;
        }
        throw new AssertionError("not refused with " + code);
    }
}
