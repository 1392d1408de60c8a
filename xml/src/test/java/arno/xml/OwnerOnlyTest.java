package arno.xml;

import static arno.xml.OwnerOnlyFiles.assertOwnerOnly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Folders and files made owner-only as they are created, under any umask (the build's is usually 022). */
class OwnerOnlyTest {
    @TempDir Path tmp;

    @Test void foldersAndFilesAreCreatedOwnerOnly() throws Exception {
        Path data = tmp.resolve("data");
        Path deep = OwnerOnly.folder(data.resolve("batch/jobs"));
        assertThat(deep).isDirectory();
        try (OutputStream out = OwnerOnly.newOutputStream(deep.resolve("state"))) {
            out.write('x');
        }
        try (OutputStream out = OwnerOnly.newOutputStream(deep.resolve("state"))) {
            out.write('y'); // truncated and written again, as Files.newOutputStream does
        }
        assertThat(Files.readString(deep.resolve("state"))).isEqualTo("y");
        try (FileChannel c = OwnerOnly.open(deep.resolve("report"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            c.write(java.nio.ByteBuffer.wrap(new byte[] {1}));
        }
        OwnerOnly.newFolder(deep.resolve("job-1"));
        assertThatThrownBy(() -> OwnerOnly.newFolder(deep.resolve("job-1"))).isInstanceOf(FileAlreadyExistsException.class);
        Files.createFile(deep.resolve("lock"), OwnerOnly.file(deep.resolve("lock")));
        assertThat(assertOwnerOnly(data)).contains("batch/jobs/state", "batch/jobs/report", "batch/jobs/job-1", "batch/jobs/lock");
    }

    @Test void anExistingFolderIsLeftAsItIsUnlessRestricted() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        OwnerOnly.folder(open);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(open))).isEqualTo("rwxr-xr-x");
        assertThat(OwnerOnly.restrict(open)).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(open))).isEqualTo("rwx------");
        assertThat(OwnerOnly.restrict(open)).isFalse();
        Path file = Files.writeString(open.resolve("f"), "x");
        Files.setPosixFilePermissions(file, EnumSet.allOf(java.nio.file.attribute.PosixFilePermission.class));
        assertThat(OwnerOnly.restrict(file)).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rwx------");
    }
}
