package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.testkit.Http;
import arno.xml.Accounts.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one accounts file: PBKDF2 lines with optional roles, old five-field lines read as
 * read+write, the file never holding a password, and a malformed line refused with its line number.
 */
class AccountsTest {
    @TempDir Path tmp;

    static String basic(String name, String password) {
        return Http.basic(name + ":" + password);
    }

    @Test void anAccountAuthenticatesWithItsRolesAndOnlyWithItsPassword() throws Exception {
        Accounts accounts = new Accounts(tmp.resolve("users"));
        assertThat(accounts.isEmpty()).isTrue();
        accounts.add("editor", "editor-password", EnumSet.of(Role.READ, Role.WRITE));
        accounts.add("reader", "reader-password", EnumSet.of(Role.READ));
        assertThat(accounts.isEmpty()).isFalse();

        Accounts.Account editor = accounts.authenticate(basic("editor", "editor-password"));
        assertThat(editor.name()).isEqualTo("editor");
        assertThat(editor.roles()).containsExactlyInAnyOrder(Role.READ, Role.WRITE);
        assertThat(editor.has(Role.ADMIN)).isFalse();
        // a second check is remembered and gives the same answer
        assertThat(accounts.authenticate(basic("editor", "editor-password"))).isEqualTo(editor);
        assertThat(accounts.authenticate(basic("reader", "reader-password")).roles()).containsExactly(Role.READ);

        assertThat(accounts.authenticate(basic("editor", "reader-password"))).isNull();
        assertThat(accounts.authenticate(basic("nobody", "editor-password"))).isNull();
        assertThat(accounts.authenticate(null)).isNull();
        assertThat(accounts.authenticate("Bearer abc")).isNull();
        assertThat(accounts.authenticate("Basic !!!not-base64")).isNull();
        assertThat(accounts.authenticate("Basic " + Base64.getEncoder().encodeToString("no-colon".getBytes()))).isNull();

        String file = Files.readString(tmp.resolve("users"));
        assertThat(file).contains("editor:pbkdf2-sha256:").contains(":read,write\n").contains(":read\n")
                .doesNotContain("editor-password").doesNotContain("reader-password");
    }

    @Test void closingEndsTheHashingThreadsOfThatInstanceOnlyAndTheNextCheckStartsNewOnes() throws Exception {
        Accounts first = new Accounts(tmp.resolve("users"));
        first.add("a", "a-password", EnumSet.of(Role.READ));
        Accounts second = new Accounts(tmp.resolve("users"));
        java.util.Set<Thread> before = loginThreads();
        assertThat(first.check(basic("a", "a-password"), "192.0.2.1").name()).isEqualTo("a");
        java.util.Set<Thread> firsts = loginThreads();
        firsts.removeAll(before);
        assertThat(second.check(basic("a", "a-password"), "192.0.2.1").name()).isEqualTo("a");
        java.util.Set<Thread> seconds = loginThreads();
        seconds.removeAll(before);
        seconds.removeAll(firsts);
        assertThat(firsts).as("the first instance's hashing threads").isNotEmpty();
        assertThat(seconds).as("the second instance's hashing threads").isNotEmpty();

        first.close();
        assertThat(firsts).as("the first instance's threads after its close").noneMatch(Thread::isAlive);
        assertThat(seconds).as("the second instance's threads after the first's close").allMatch(Thread::isAlive);
        second.close();
        assertThat(seconds).as("the second instance's threads after its close").noneMatch(Thread::isAlive);

        // a check after the close (a new instance: the first remembers its answer) hashes on new threads
        try (Accounts third = new Accounts(tmp.resolve("users"))) {
            java.util.Set<Thread> old = loginThreads();
            assertThat(third.check(basic("a", "a-password"), "192.0.2.1").name()).isEqualTo("a");
            java.util.Set<Thread> now = loginThreads();
            now.removeAll(old);
            assertThat(now).isNotEmpty();
        }
    }

    /** The hashing threads alive now, whoever made them. */
    private static java.util.Set<Thread> loginThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("arno-login-") && t.isAlive())
                .collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
    }

    @Test void aFiveFieldLineFromTheBatchServiceMayReadAndWrite() throws Exception {
        Path file = tmp.resolve("users");
        new Accounts(file).add("old", "old-password", EnumSet.of(Role.ADMIN));
        // the line as the batch service wrote it: the same five fields, no roles
        String line = Files.readAllLines(file).get(1);
        Files.write(file, List.of("# old", line.substring(0, line.lastIndexOf(':'))));
        Accounts.Account old = new Accounts(file).authenticate(basic("old", "old-password"));
        assertThat(old.roles()).containsExactlyInAnyOrder(Role.READ, Role.WRITE);
    }

    @Test void rolesChangedInTheFileApplyToTheNextRequest() throws Exception {
        Path file = tmp.resolve("users");
        Accounts accounts = new Accounts(file);
        accounts.add("a", "a-password", EnumSet.of(Role.READ));
        assertThat(accounts.authenticate(basic("a", "a-password")).has(Role.WRITE)).isFalse();
        String line = Files.readAllLines(file).get(1);
        Files.write(file, List.of(line.substring(0, line.lastIndexOf(':')) + ":read,write,admin"));
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
        assertThat(accounts.authenticate(basic("a", "a-password")).roles()).isEqualTo(Accounts.ALL_ROLES);
    }

    @Test void aMalformedLineOrUnknownRoleIsABadConfigurationNamingTheLine() throws Exception {
        Path file = tmp.resolve("users");
        Files.write(file, List.of("# header", "x:pbkdf2-sha256:1000:AAAA:AAAA:read,fly"));
        assertThatThrownBy(() -> new Accounts(file).authenticate(basic("x", "whatever1")))
                .isInstanceOfSatisfying(ArnoException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
                    assertThat(e.getMessage()).contains("line 2").contains("unknown role 'fly'");
                });
        Files.write(file, List.of("x:md5:abc"));
        assertThatThrownBy(() -> new Accounts(file).isEmpty()).isInstanceOfSatisfying(ArnoException.class,
                e -> assertThat(e.getMessage()).contains("line 1").contains("name:pbkdf2-sha256:iterations:salt:hash[:roles]"));
    }

    @Test void badNamesPasswordsAndEmptyRolesAreRefused() {
        Accounts accounts = new Accounts(tmp.resolve("users"));
        assertThatThrownBy(() -> accounts.add("a:b", "long-enough")).hasMessageContaining("without ':'");
        assertThatThrownBy(() -> accounts.add("a", "short")).hasMessageContaining("at least 8");
        assertThatThrownBy(() -> accounts.add("a", "long-enough", EnumSet.noneOf(Role.class))).hasMessageContaining("role");
        assertThat(Accounts.randomPassword()).hasSize(20).matches("[A-Za-z2-9]+");
    }
}
