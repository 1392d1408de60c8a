package arno.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The golden pages under src/test/resources/golden, each written by hand. */
final class Golden {
    private static final Path DIR = Path.of("src/test/resources/golden");

    private Golden() {}

    static String read(String name) {
        try {
            return Files.readString(DIR.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
