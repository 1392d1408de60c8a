package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one check that what Arno wrote is owner-only: every folder {@code rwx------}, every file
 * {@code rw-------}, whatever the umask. Shipped in arno-xml's test jar for the store, batch and
 * server tests.
 */
public final class OwnerOnlyFiles {
    private OwnerOnlyFiles() {}

    /** Asserts that {@code root} and everything under it is owner-only; returns what it checked (relative paths). */
    public static List<String> assertOwnerOnly(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            List<Path> paths = all.toList();
            for (Path p : paths) {
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
                assertThat(mode).as(root.relativize(p) + " (" + (Files.isDirectory(p) ? "folder" : "file") + ")")
                        .isEqualTo(Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "rwx------" : "rw-------");
            }
            return paths.stream().map(p -> root.relativize(p).toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
