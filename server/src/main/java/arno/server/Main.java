package arno.server;

import arno.server.cli.AccountsCommand;
import arno.server.cli.BatchCommand;
import arno.server.cli.CacheCommand;
import arno.server.cli.GenerateCommand;
import arno.server.cli.QueryCommand;
import arno.server.cli.ServeCommand;
import arno.server.cli.StoreCommand;
import arno.xml.ArnoException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./arno} command line: one picocli tree, one place that turns failures into one line
 * and an exit status. Exit statuses: 0 done; 1 failed (the message says what and what to do);
 * 2 wrong usage (the message and the command's usage); 3, batch only: the service cannot be reached.
 */
@Command(name = "arno", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "An XSLT/XQuery pipeline application server for XML publishing.",
        subcommands = {ServeCommand.class, StoreCommand.class, QueryCommand.class, BatchCommand.class,
                CacheCommand.class, AccountsCommand.class, GenerateCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Exit status: 0 done, 1 failed, 2 wrong usage, 3 (batch) the batch service cannot be reached.", "'./arno COMMAND --help' shows a command's options and an example."})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private Main() {}

    public static void main(String[] args) {
        // One line per log record, before any logger is created.
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %3$s: %5$s%6$s%n");
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command line; returns its exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, CommandLine.defaultFactory());
    }

    /** As {@link #run(String[], PrintStream, PrintStream)}, with the commands made by {@code factory} (tests hook {@code serve}). */
    public static int run(String[] args, PrintStream out, PrintStream err, CommandLine.IFactory factory) {
        CommandLine cl = new CommandLine(new Main(), factory);
        // "./arno COMMAND --version" too: every command's standard options include it.
        Version version = new Version();
        for (CommandLine sub : cl.getSubcommands().values()) sub.getCommandSpec().versionProvider(version);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler((e, a) -> {
            CommandLine c = e.getCommandLine();
            c.getErr().println("arno: " + e.getMessage());
            c.usage(c.getErr());
            return 2;
        });
        cl.setExecutionExceptionHandler((e, c, parsed) -> {
            ArnoException arno = ArnoException.find(e);
            if (arno != null) {
                c.getErr().println("arno: " + arno.describe());
                return arno.code().exitStatus();
            }
            // A bug, not a mistake of the user's: say so in one line, with the stack trace for a report.
            c.getErr().println("arno: internal error: " + e + " (please report it with the trace below)");
            e.printStackTrace(c.getErr());
            return 1;
        });
        return cl.execute(args);
    }

    @Override
    public void run() {
        // "./arno" alone: the usage, and status 2 as for any incomplete command line.
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed");
    }

    /** The version Maven wrote into {@code arno/server/version.properties}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws Exception {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("/arno/server/version.properties")) {
                if (in != null) p.load(in);
            }
            return new String[] {"Arno " + p.getProperty("version", "(unknown version)"),
                    "Java " + System.getProperty("java.version") + ", " + System.getProperty("java.vm.name")};
        }
    }
}
