package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs {@code ./arno} in this JVM through {@link Main#run}, capturing what it prints. */
record Cli(int status, String out, String err) {

    static Cli run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Cli(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
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
