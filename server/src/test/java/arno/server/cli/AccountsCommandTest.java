package arno.server.cli;

import static arno.server.cli.OperationsServeTest.accounts;
import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Http;
import arno.xml.Accounts;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./arno accounts add|list|passwd|remove} through {@link arno.server.Main#run}, on the data
 * folder's accounts file: what each prints, the file it leaves (hashes at 600,000 iterations,
 * never a password), a login with the new hash, and every mistake as one line with its exit status.
 */
class AccountsCommandTest {
    @TempDir
    Path tmp;

    private String[] with(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--data";
        all[args.length + 1] = tmp.resolve("data").toString();
        return all;
    }

    @Test
    void addListPasswdRemove() throws Exception {
        Path file = tmp.resolve("data/batch/users");
        Cli add = accounts("editor-password\n", with("add", "editor", "--roles", "read,write", "--password-stdin"));
        assertThat(add.status()).as(add.err()).isZero();
        assertThat(add.out()).isEqualTo("added the account editor (read,write) to " + file + "\n");
        Cli admin = accounts("admin-password\n", with("add", "ops", "--roles", "admin", "--password-stdin"));
        assertThat(admin.status()).as(admin.err()).isZero();
        Cli reader = accounts("reader-password\n", with("add", "reader", "--password-stdin"));
        assertThat(reader.out()).contains("(read)"); // read is the default

        String text = Files.readString(file);
        assertThat(text).contains("editor:pbkdf2-sha256:600000:").contains("ops:pbkdf2-sha256:600000:")
                .doesNotContain("editor-password").doesNotContain("admin-password");

        Cli list = accounts("", with("list"));
        assertThat(list.status()).isZero();
        assertThat(list.out().lines().toList()).satisfiesExactly(
                header -> assertThat(header).matches("NAME +ROLES +HASH"),
                l -> assertThat(l).matches("editor +read,write +pbkdf2-sha256, 600000 iterations"),
                l -> assertThat(l).matches("ops +admin +pbkdf2-sha256, 600000 iterations"),
                l -> assertThat(l).matches("reader +read +pbkdf2-sha256, 600000 iterations"));
        assertThat(list.out()).doesNotContain(text.lines().filter(l -> l.startsWith("editor:")).findFirst().orElseThrow().split(":")[4]);

        // a login with the new hash, as a server checks it
        Accounts accounts = new Accounts(file);
        assertThat(accounts.check(Http.basic("editor:editor-password"), "127.0.0.1").roles())
                .containsExactlyInAnyOrder(Accounts.Role.READ, Accounts.Role.WRITE);

        Cli passwd = accounts("new-editor-password\n", with("passwd", "editor", "--password-stdin"));
        assertThat(passwd.status()).as(passwd.err()).isZero();
        assertThat(passwd.out()).isEqualTo("changed the password of editor in " + file + "\n");
        assertThat(accounts.authenticate(Http.basic("editor:editor-password"))).isNull();
        assertThat(accounts.check(Http.basic("editor:new-editor-password"), "127.0.0.1").roles())
                .containsExactlyInAnyOrder(Accounts.Role.READ, Accounts.Role.WRITE);

        Cli remove = accounts("", with("remove", "editor"));
        assertThat(remove.status()).as(remove.err()).isZero();
        assertThat(remove.out()).isEqualTo("removed the account editor from " + file + "\n");
        assertThat(accounts.authenticate(Http.basic("editor:new-editor-password"))).isNull();
        assertThat(accounts("", with("list")).out()).doesNotContain("editor").contains("ops").contains("reader");
    }

    @Test
    void mistakesAreOneLine() {
        accounts("editor-password\n", with("add", "editor", "--password-stdin"));
        accounts("other-password\n", with("add", "editor", "--password-stdin"))
                .failsWith("the account 'editor' exists already", "./arno accounts passwd editor");
        accounts("whatever-password\n", with("passwd", "nobody", "--password-stdin")).failsWith("there is no account 'nobody'");
        accounts("", with("remove", "nobody")).failsWith("there is no account 'nobody'");
        accounts("short\n", with("add", "shorty", "--password-stdin")).failsWith("at least 8 characters");
        accounts("\n", with("add", "empty", "--password-stdin")).failsWith("--password-stdin read no password");
        accounts("long-enough\n", with("add", "bad:name", "--password-stdin")).failsWith("without ':' or spaces");
        accounts("long-enough\n", with("add", "x", "--roles", "read,fly", "--password-stdin"))
                .isUsageError("unknown role 'fly' in --roles; the roles are read, write and admin", "arno accounts add");
        accounts("", "add").isUsageError("NAME", "arno accounts add");
        accounts("", "frobnicate").isUsageError("frobnicate", "arno accounts");
        accounts("").isUsageError("an accounts command is needed", "arno accounts");
        // a password is never an option
        accounts("", with("add", "y", "--password", "secret-password")).isUsageError("--password", "arno accounts add");
        // no console here (the tests' standard input is not one), and no --password-stdin
        Cli noConsole = accounts("", with("add", "z"));
        assertThat(noConsole.status()).isEqualTo(2);
        assertThat(noConsole.err()).isEqualTo("arno: there is no console to read the password from; give it as the first line"
                + " of standard input with --password-stdin\n");
        assertThat(accounts("", with("list")).out().lines()).hasSize(2); // the header and editor: nothing else was added
    }

    /** With --cluster the command works on the cluster's database (ClusterServeTest uses it on a real one): its mistakes are one line too. */
    @Test
    void aClusterThatCannotBeReachedIsOneLine() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closed + "/arno?user=arno";
        accounts("", with("list", "--cluster", url)).failsWith("cannot reach the cluster's database " + url);
        accounts("", with("list", "--cluster", "db.example.org")).failsWith("must be a PostgreSQL URL");
        accounts("", with("list", "--cluster-password-file", tmp.resolve("secret").toString())).failsWith("needs a cluster database");
        // and it did not fall back to the data folder's file
        assertThat(tmp.resolve("data/batch/users")).doesNotExist();
    }

    @Test
    void listingAnEmptyFileSaysHowToAdd() {
        Cli list = accounts("", with("list"));
        assertThat(list.status()).isZero();
        assertThat(list.out()).contains("no accounts in ").contains("./arno accounts add NAME");
    }
}
