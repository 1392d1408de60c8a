package arno.server.cli;

import arno.server.config.Config;
import arno.xml.Accounts;
import arno.xml.ErrorMessage;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno accounts add|remove|list|passwd}: the accounts of the store API, the batch service
 * and the metrics, in the data folder's one accounts file ({@code DATA/batch/users}). The command
 * edits the file whether or not a server runs: a running server re-reads it when it changes, so
 * an added account may log in, and a removed one may not, from the next request on. With
 * {@code --cluster URL} (or the configuration's {@code <cluster>}) it works on the cluster's
 * accounts in its database instead, which every node checks from its next request on.
 *
 * <p>A password never appears on the command line (where {@code ps} and shell histories would
 * show it): it is read from the console without echo, twice, or with {@code --password-stdin}
 * from the first line of standard input, for scripts.
 */
@Command(name = "accounts", mixinStandardHelpOptions = true,
        description = {"Manage the accounts of the store API, the batch service and the metrics (roles read, write, admin).",
                "Works on the data folder's accounts file whether or not the server runs; with --cluster URL, on the",
                "accounts of the cluster in its database, which every node checks from its next request on."},
        subcommands = {AccountsCommand.Add.class, AccountsCommand.Remove.class, AccountsCommand.ListAccounts.class,
                AccountsCommand.Passwd.class},
        // picocli formats descriptions and footers as String.format patterns: "%%" prints one '%'.
        footer = {"", "Examples:", "  ./arno accounts add editor --roles read,write --data data",
                "  printf '%%s\\n' \"$PASSWORD\" | ./arno accounts add robot --roles write --password-stdin --data data",
                "  ./arno accounts list --data data",
                "  ./arno accounts passwd editor --cluster 'jdbc:postgresql://db/arno?user=arno' --cluster-password-file secret", "",
                "Exit status: 0 done, 1 failed (the account exists, or there is none of that name), 2 wrong usage."})
public final class AccountsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "an accounts command is needed: add, remove, list or passwd");
    }

    /**
     * The accounts a command works on: the data folder's file, or, for a cluster ({@code --cluster}
     * or the configuration's {@code <cluster>}), its database's, shared by every node.
     */
    static Opened accounts(ConfigOptions options, ClusterOptions cluster) {
        Config.Builder b = options.builder();
        cluster.apply(b);
        Config c = b.build();
        if (c.cluster() == null) return new Opened(new Accounts(c.accounts()), null);
        com.zaxxer.hikari.HikariDataSource database = arno.server.ClusterNode.database(c.cluster());
        return new Opened(new Accounts(new arno.cluster.PgAccounts(database, c.cluster().database())), database);
    }

    /** Accounts opened for a command, with the cluster's pool (or null) closed after them. */
    record Opened(Accounts accounts, AutoCloseable database) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            accounts.close();
            if (database != null) database.close();
        }
    }

    /** The roles of {@code --roles}: a comma-separated subset of read, write, admin. */
    static Set<Accounts.Role> roles(CommandSpec spec, String text) {
        Set<Accounts.Role> roles = EnumSet.noneOf(Accounts.Role.class);
        for (String token : text.split(",")) {
            String t = token.strip();
            if (t.isEmpty()) continue;
            roles.add(Accounts.Role.of(t).orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
                    "unknown role '" + t + "' in --roles; the roles are read, write and admin, separated by commas")));
        }
        if (roles.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--roles needs at least one of read, write and admin");
        }
        return roles;
    }

    static String tokens(Set<Accounts.Role> roles) {
        return roles.stream().map(Accounts.Role::token).collect(Collectors.joining(","));
    }

    /** The new password: the first line of standard input, or typed twice at the console without echo. */
    static String password(boolean fromStdin, String name) {
        if (fromStdin) {
            try {
                String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                if (line == null || line.isEmpty()) {
                    throw ErrorMessage.PASSWORD_STDIN_EMPTY.error();
                }
                return line;
            } catch (IOException e) {
                throw ErrorMessage.PASSWORD_UNREAD.error(e, e.getMessage());
            }
        }
        Console console = System.console();
        if (console == null) {
            throw ErrorMessage.NO_CONSOLE.error();
        }
        char[] first = console.readPassword("Password for %s: ", name);
        char[] again = console.readPassword("The same again: ");
        try {
            if (first == null || again == null) throw ErrorMessage.NO_PASSWORD_TYPED.error();
            if (!Arrays.equals(first, again)) throw ErrorMessage.PASSWORDS_DIFFER.error();
            return new String(first);
        } finally {
            if (first != null) Arrays.fill(first, '\0');
            if (again != null) Arrays.fill(again, '\0');
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Add an account. Its password (at least 8 characters) is read from the console, or with",
                    "--password-stdin from standard input; it is kept only as a PBKDF2-SHA256 hash (600,000 iterations)."},
            footer = {"", "Examples:", "  ./arno accounts add editor --roles read,write --data data",
                    "  printf '%%s\\n' \"$PASSWORD\" | ./arno accounts add robot --roles write --password-stdin --data data"})
    static final class Add implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConfigOptions config;

        @Mixin
        ClusterOptions cluster;

        @Parameters(index = "0", paramLabel = "NAME", description = "the account's name (no ':' or spaces)")
        String name;

        @Option(names = "--roles", paramLabel = "ROLES", defaultValue = "read",
                description = "what it may do, comma-separated: read, write (store writes, batch jobs), admin (metrics, the console); default: ${DEFAULT-VALUE}")
        String roles;

        @Option(names = "--password-stdin", description = "read the password from the first line of standard input (for scripts)")
        boolean passwordStdin;

        @Override
        public Integer call() throws Exception {
            Set<Accounts.Role> r = roles(spec, roles);
            try (Opened opened = accounts(config, cluster)) {
                Accounts accounts = opened.accounts();
                if (accounts.list().stream().anyMatch(l -> l.name().equals(name))) {
                    throw ErrorMessage.ACCOUNT_NAME_EXISTS.error(name, accounts.where(), name);
                }
                accounts.create(name, password(passwordStdin, name), r);
                PrintWriter out = spec.commandLine().getOut();
                out.println("added the account " + name + " (" + tokens(r) + ") to " + accounts.where());
                out.flush();
                return 0;
            }
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove an account; a running server refuses it from the next request.",
            footer = {"", "Example:", "  ./arno accounts remove editor --data data"})
    static final class Remove implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConfigOptions config;

        @Mixin
        ClusterOptions cluster;

        @Parameters(index = "0", paramLabel = "NAME", description = "the account's name")
        String name;

        @Override
        public Integer call() throws Exception {
            try (Opened opened = accounts(config, cluster)) {
                Accounts accounts = opened.accounts();
                accounts.remove(name);
                PrintWriter out = spec.commandLine().getOut();
                out.println("removed the account " + name + " from " + accounts.where());
                out.flush();
                return 0;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the accounts: names, roles and hashing (never the hashes).",
            footer = {"", "Example:", "  ./arno accounts list --data data"})
    static final class ListAccounts implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConfigOptions config;

        @Mixin
        ClusterOptions cluster;

        @Override
        public Integer call() throws Exception {
            try (Opened opened = accounts(config, cluster)) {
                Accounts accounts = opened.accounts();
                List<Accounts.Listing> all = accounts.list();
                PrintWriter out = spec.commandLine().getOut();
                if (all.isEmpty()) {
                    out.println("no accounts in " + accounts.where() + "; add one with ./arno accounts add NAME --roles ROLES");
                } else {
                    List<String[]> table = new java.util.ArrayList<>();
                    table.add(new String[] {"NAME", "ROLES", "HASH"});
                    for (Accounts.Listing l : all) {
                        table.add(new String[] {l.name(), tokens(l.roles()), "pbkdf2-sha256, " + l.iterations() + " iterations"
                                + (l.outdated() ? " (renewed at the next login or passwd)" : "")});
                    }
                    CacheCommand.print(out, table);
                }
                out.flush();
                return 0;
            }
        }
    }

    @Command(name = "passwd", mixinStandardHelpOptions = true,
            description = "Give an account a new password (from the console, or with --password-stdin); its roles stay.",
            footer = {"", "Example:", "  ./arno accounts passwd editor --data data"})
    static final class Passwd implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConfigOptions config;

        @Mixin
        ClusterOptions cluster;

        @Parameters(index = "0", paramLabel = "NAME", description = "the account's name")
        String name;

        @Option(names = "--password-stdin", description = "read the password from the first line of standard input (for scripts)")
        boolean passwordStdin;

        @Override
        public Integer call() throws Exception {
            try (Opened opened = accounts(config, cluster)) {
                Accounts accounts = opened.accounts();
                if (accounts.list().stream().noneMatch(l -> l.name().equals(name))) {
                    throw ErrorMessage.NO_ACCOUNT_NAMED.error(name, accounts.where());
                }
                accounts.password(name, password(passwordStdin, name));
                PrintWriter out = spec.commandLine().getOut();
                out.println("changed the password of " + name + " in " + accounts.where());
                out.flush();
                return 0;
            }
        }
    }
}
