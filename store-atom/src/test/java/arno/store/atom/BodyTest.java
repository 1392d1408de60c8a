package arno.store.atom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spooled body: in memory up to its threshold, else in a file only the server's user can read
 * (a body may be anything a writer sends, and the spool folder is the system's shared temp
 * folder by default), gone once closed; never past the limit.
 */
class BodyTest {
    @TempDir Path folder;

    @Test void aBodyOverTheThresholdWaitsInAnOwnerOnlyFileThatCloseDeletes() throws IOException {
        byte[] bytes = new byte[1000];
        Arrays.fill(bytes, (byte) 'x');
        Body body = Body.spool(new ByteArrayInputStream(bytes), 10_000, folder, 100);
        Path file = body.file();
        assertThat(file).isNotNull().exists().hasParent(folder);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(body.length()).isEqualTo(1000);
        try (InputStream in = body.open()) {
            assertThat(in.readAllBytes()).isEqualTo(bytes);
        }
        body.close();
        assertThat(file).doesNotExist();
    }

    @Test void aSmallBodyStaysInMemoryAndOneOverTheLimitLeavesNothing() throws IOException {
        try (Body small = Body.spool(new ByteArrayInputStream(new byte[99]), 10_000, folder, 100)) {
            assertThat(small.inMemory()).isTrue();
        }
        assertThatThrownBy(() -> Body.spool(new ByteArrayInputStream(new byte[501]), 500, folder, 100))
                .isInstanceOf(ArnoException.class).hasMessageContaining("500");
        try (var files = Files.list(folder)) {
            assertThat(files).isEmpty();
        }
    }
}
