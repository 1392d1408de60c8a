package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Demo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate} in the server alone: the demo generator is a plugin of the sites module, which
 * the server does not depend on, so here there is none and the command says where it comes from.
 * (The generator itself, found through {@link Demo}, is tested in the sites module.)
 */
class GenerateCommandTest {
    @TempDir
    Path tmp;

    @Test
    void theServerAloneHasNoDemo() {
        assertThat(Demo.find()).isEmpty();
    }

    @Test
    void withoutTheDemoPluginItSaysWhereItComesFromAndWritesNothing() {
        Path out = tmp.resolve("content");
        Cli.run("generate", "--articles", "3", "--out", out.toString())
                .failsWith("the demo generator is not on the class path", "source checkout");
        assertThat(out).doesNotExist();
    }

    @Test
    void aNumberOutOfRangeIsOneLine() {
        Cli.run("generate", "--articles", "0", "--out", tmp.toString()).failsWith("--articles must be between 1 and 1000000, not 0");
        assertThat(tmp.toFile().list()).isEmpty();
        assertThat(Files.isDirectory(tmp)).isTrue();
    }
}
