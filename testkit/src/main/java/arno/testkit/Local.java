package arno.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** What tests that start processes need of this machine: a free loopback port, a folder removed whole. */
public final class Local {
    private Local() {
    }

    /** A port of 127.0.0.1 free at this moment (another process may take it before it is bound: retry then). */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Deletes {@code root} and everything under it; nothing when it does not exist. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) return;
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
