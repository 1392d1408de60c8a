package arno.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The marker of a copy open without flushing: trusted within the boot that wrote it, not after. */
class UnsyncedCopyTest {

    @TempDir
    Path dir;

    @Test
    void aCopyIsDistrustedOnlyWhenItsMarkerNamesAnotherBoot() throws Exception {
        // this machine (Linux) tells its boot: copies go unflushed here
        assertThat(UnsyncedCopy.supported()).isTrue();
        Path copy = dir.resolve("store");
        assertThat(UnsyncedCopy.reason(copy)).as("no marker: closed cleanly, or never open").isNull();
        UnsyncedCopy.opening(copy);
        String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        assertThat(Files.readString(copy.resolve(UnsyncedCopy.MARKER))).isEqualTo(boot);
        assertThat(UnsyncedCopy.reason(copy)).as("the process died, the machine did not").isNull();
        Files.writeString(copy.resolve(UnsyncedCopy.MARKER), "5f0c-another-boot");
        assertThat(UnsyncedCopy.reason(copy)).contains("the machine restarted").contains(copy.toString())
                .contains("5f0c-another-boot");
        Files.writeString(copy.resolve(UnsyncedCopy.MARKER), "");
        assertThat(UnsyncedCopy.reason(copy)).contains("boot unknown");
        UnsyncedCopy.closed(copy);
        assertThat(copy.resolve(UnsyncedCopy.MARKER)).doesNotExist();
        assertThat(UnsyncedCopy.reason(copy)).isNull();
    }
}
