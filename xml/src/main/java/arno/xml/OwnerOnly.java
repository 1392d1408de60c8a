package arno.xml;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Folders and files that only their owner may read: what Arno keeps under its data folder (the
 * store, the accounts, batch jobs and reports, the run file) holds content not yet published,
 * password hashes and tokens, and under the usual umask 022 everything created would be readable
 * by every user of the machine. Folders are made {@code rwx------} and files {@code rw-------} as
 * they are created (atomically, so there is no moment at which another user could open them);
 * an existing one keeps its permissions unless {@link #restrict}ed. Where the file system has no
 * POSIX permissions (Windows), files are created as usual and the folder's own ACL protects them.
 *
 * <p>The page cache's disk tier makes its files the same way itself: the cache module depends on
 * nothing of Arno's.
 */
public final class OwnerOnly {
    private static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OTHERS = EnumSet.complementOf(EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
    private static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];

    private OwnerOnly() {}

    /** Creates {@code folder} and the missing folders above it, each owner-only; those that exist are left as they are. */
    public static Path folder(Path folder) throws IOException {
        if (Files.isDirectory(folder)) return folder;
        return Files.createDirectories(folder, posix(folder) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FOLDER)} : NONE);
    }

    /** Creates the one folder {@code folder}, owner-only; fails as {@link Files#createDirectory} does when it exists. */
    public static Path newFolder(Path folder) throws IOException {
        return Files.createDirectory(folder, posix(folder) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FOLDER)} : NONE);
    }

    /** The attributes that create a file owner-only (none where there are no POSIX permissions). */
    public static FileAttribute<?>[] file(Path file) {
        return posix(file) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)} : NONE;
    }

    /**
     * As {@link Files#newOutputStream}, a file it creates owner-only; with no options, as there:
     * create, truncate, write.
     */
    public static OutputStream newOutputStream(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> opts = options.length == 0
                ? Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)
                : Set.of(options);
        if (!opts.contains(StandardOpenOption.WRITE) && !opts.contains(StandardOpenOption.APPEND)) {
            opts = new java.util.HashSet<>(opts);
            opts.add(StandardOpenOption.WRITE);
        }
        return Channels.newOutputStream(Files.newByteChannel(file, opts, file(file)));
    }

    /** As {@link FileChannel#open(Path, OpenOption...)}, a file it creates owner-only. */
    public static FileChannel open(Path file, OpenOption... options) throws IOException {
        return FileChannel.open(file, Set.of(options), file(file));
    }

    /**
     * Takes every permission of the group and others off {@code path} (a file or a folder, not
     * what is inside); true if it had any. A no-op where there are no POSIX permissions.
     */
    public static boolean restrict(Path path) throws IOException {
        if (!posix(path)) return false;
        Set<PosixFilePermission> now = Files.getPosixFilePermissions(path);
        if (java.util.Collections.disjoint(now, OTHERS)) return false;
        Set<PosixFilePermission> kept = EnumSet.copyOf(now);
        kept.removeAll(OTHERS);
        Files.setPosixFilePermissions(path, kept);
        return true;
    }

    private static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
