package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntConsumer;
import picocli.CommandLine;

/** Runs {@code ./arno} in this JVM through {@link Main#run}, capturing what it prints. */
record Cli(int status, String out, String err) {

    static Cli run(String... args) {
        return run(null, args);
    }

    /** As {@link #run(String...)}, {@code serve} calling {@code whileServing} with its port instead of waiting for Ctrl-C. */
    static Cli run(IntConsumer whileServing, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), serving(whileServing));
        return new Cli(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * The commands for {@link Main#run(String[], PrintStream, PrintStream, CommandLine.IFactory)}:
     * {@code serve} calls {@code whileServing} with the port once everything listens, then stops as
     * Ctrl-C would; null: it waits for Ctrl-C.
     */
    static CommandLine.IFactory serving(IntConsumer whileServing) {
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        return new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == ServeCommand.class ? type.cast(new ServeCommand(whileServing)) : defaults.create(type);
            }
        };
    }

    /**
     * A user's mistake: exit status 1, and on standard error exactly one line "arno: ..." that
     * contains {@code what}; never a stack trace.
     */
    Cli failsWith(String... what) {
        assertThat(status).as("exit status; stderr: " + err).isEqualTo(1);
        assertThat(err.lines().toList()).as("stderr").hasSize(1);
        assertThat(err).startsWith("arno: ").doesNotContain("\tat ").doesNotContain("Exception");
        for (String w : what) assertThat(err).contains(w);
        return this;
    }

    /** Wrong usage: exit status 2, the message on its first line and the command's usage after it. */
    Cli isUsageError(String message, String command) {
        assertThat(status).as("exit status; stderr: " + err).isEqualTo(2);
        assertThat(err.lines().findFirst().orElse("")).startsWith("arno: ").contains(message);
        assertThat(err).contains("Usage: " + command).doesNotContain("\tat ");
        return this;
    }
}
