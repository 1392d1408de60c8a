package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/** The command tree: help, version, usage errors. */
class MainTest {

    @Test
    void versionIsTheProjectVersion() throws Exception {
        Properties p = new Properties();
        try (InputStream in = MainTest.class.getResourceAsStream("/arno/server/version.properties")) {
            p.load(in);
        }
        // Maven filtered it: a version, not the placeholder.
        assertThat(p.getProperty("version")).matches("[0-9]+\\.[0-9]+\\.[0-9]+.*");
        Cli c = Cli.run("--version");
        assertThat(c.status()).isZero();
        assertThat(c.out()).startsWith("Arno " + p.getProperty("version") + "\n").contains("Java ");
        assertThat(c.err()).isEmpty();
        for (String command : new String[] {"serve", "generate", "store", "query", "batch"}) {
            assertThat(Cli.run(command, "--version").out()).as(command).startsWith("Arno " + p.getProperty("version"));
        }
    }

    @Test
    void helpListsEveryCommandAndTheExitStatuses() {
        for (String help : new String[] {"--help", "-h", "help"}) {
            Cli c = Cli.run(help);
            assertThat(c.status()).as(help).isZero();
            assertThat(c.out()).as(help).contains("Usage: arno").contains("serve").contains("store").contains("query")
                    .contains("batch").contains("generate").contains("Exit status: 0 done, 1 failed, 2 wrong usage, 3 (batch)");
        }
    }

    @Test
    void serveHelpShowsEveryOptionAndAnExample() {
        for (String[] args : new String[][] {{"serve", "--help"}, {"help", "serve"}}) {
            Cli c = Cli.run(args);
            assertThat(c.status()).isZero();
            assertThat(c.out()).contains("Usage: arno serve");
            for (String option : new String[] {"--config", "--data", "--port", "--bind", "--host", "--sites",
                    "--production", "--workers", "--queue", "--batch-root", "--articles", "--help", "--version"}) {
                assertThat(c.out()).as(option).contains(option);
            }
            assertThat(c.out()).contains("Examples:").contains("./arno serve");
        }
    }

    @Test
    void generateHelpShowsItsOptionsAndAnExample() {
        Cli c = Cli.run("generate", "--help");
        assertThat(c.status()).isZero();
        assertThat(c.out()).contains("Usage: arno generate").contains("--articles").contains("--out").contains("--seed")
                .contains("./arno generate --articles 1000 --out data/content");
    }

    @Test
    void everyCommandHasHelp() {
        for (String command : new String[] {"serve", "store", "query", "batch", "generate"}) {
            Cli c = Cli.run(command, "--help");
            assertThat(c.status()).as(command).isZero();
            assertThat(c.out()).as(command).contains("Usage: arno " + command);
        }
    }

    /** Issue 21: picocli reads descriptions as format strings; a stray '%' printed a warning to stderr. */
    @Test
    void noCommandsHelpMakesPicocliWarn() throws Exception {
        List<List<String>> commands = new ArrayList<>();
        walk(new CommandLine(Class.forName("arno.server.Main")), new ArrayList<>(), commands);
        assertThat(commands).contains(List.of("accounts", "add"), List.of("serve"));
        PrintStream saved = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8)); // picocli's tracer writes there
        try {
            for (List<String> command : commands) {
                List<String> args = new ArrayList<>(command);
                args.add("--help");
                Cli c = Cli.run(args.toArray(String[]::new));
                assertThat(c.status()).as(args.toString()).isZero();
                assertThat(c.out() + c.err()).as(args.toString()).doesNotContain("picocli WARN");
                assertThat(warnings.toString(StandardCharsets.UTF_8)).as(args.toString()).doesNotContain("picocli");
            }
        } finally {
            System.setErr(saved);
        }
        assertThat(Cli.run("accounts", "add", "--help").out()).contains("printf '%s\\n' \"$PASSWORD\" | ./arno accounts add robot");
    }

    private static void walk(CommandLine c, List<String> path, List<List<String>> out) {
        for (var e : c.getSubcommands().entrySet()) {
            if (e.getValue().getParent() != c || !e.getKey().equals(e.getValue().getCommandName())) continue; // aliases
            List<String> p = new ArrayList<>(path);
            p.add(e.getKey());
            out.add(p);
            walk(e.getValue(), p, out);
        }
    }

    @Test
    void anUnknownOptionIsRefusedWithThatCommandsUsage() {
        Cli.run("serve", "--prot", "80").isUsageError("Unknown options: '--prot', '80'", "arno serve");
        Cli.run("generate", "--articles", "3", "--out", "x", "--pages", "5").isUsageError("Unknown options: '--pages', '5'",
                "arno generate");
        Cli.run("--verbose").isUsageError("Unknown option: '--verbose'", "arno");
    }

    @Test
    void aMissingOrUnknownCommandIsAUsageError() {
        Cli.run().isUsageError("a command is needed", "arno");
        Cli.run("srve").isUsageError("srve", "arno");
    }

    @Test
    void aValueOfTheWrongTypeIsAUsageError() {
        Cli.run("serve", "--port", "abc").isUsageError("'abc'", "arno serve");
        Cli.run("serve", "--workers", "many").isUsageError("'many'", "arno serve");
        Cli.run("generate", "--articles", "ten", "--out", "x").isUsageError("'ten'", "arno generate");
        Cli.run("generate", "--articles", "5").isUsageError("--out", "arno generate");
        Cli.run("serve", "--port").isUsageError("--port", "arno serve");
    }
}
