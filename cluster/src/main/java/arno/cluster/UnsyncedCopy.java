package arno.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A node's copy is written without an fsync per commit: PostgreSQL holds every commit durably, so
 * what a copy loses can be had again, and each applied commit then costs no disk flush on any node
 * (with three nodes, every commit of the cluster was flushed three times besides PostgreSQL's own).
 *
 * <p>What may be lost: a node's process killed (kill -9, an out-of-memory kill) loses nothing, the
 * written pages are in the operating system's cache. A machine that stops (power, a kernel panic)
 * may lose the last commits applied and, since LMDB writes its memory map directly, damage the
 * copy. So while a copy is open, a marker beside its files names the machine's boot
 * ({@code /proc/sys/kernel/random/boot_id}); a clean close flushes the copy and removes it. A marker
 * of another boot found at start means the machine stopped while the copy was open: the copy is
 * rebuilt from the database ({@link Resync}) instead of trusted. Where the boot cannot be told (not
 * Linux), copies are flushed at every commit as before.
 */
public final class UnsyncedCopy {

    /** The marker's name, in the copy's folder. */
    public static final String MARKER = "open-unsynced";
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private UnsyncedCopy() {
    }

    /** Whether copies on this machine may be written without an fsync per commit (its boot can be told). */
    public static boolean supported() {
        return boot() != null;
    }

    /**
     * Why the copy in {@code dir} cannot be trusted (the machine stopped while it was open without
     * flushing), or null.
     */
    public static String reason(Path dir) {
        Path marker = dir.resolve(MARKER);
        if (!Files.exists(marker)) return null;
        String was;
        try {
            was = Files.readString(marker, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            was = "";
        }
        String now = boot();
        if (now != null && now.equals(was)) return null;
        return "the machine restarted while the copy " + dir + " was open (written without a flush per commit, boot "
                + (was.isEmpty() ? "unknown" : was) + "), so it may have lost or damaged what it applied last";
    }

    /** Marks the copy in {@code dir} (a folder that exists or is about to) open without flushing, durably. */
    public static void opening(Path dir) {
        String boot = boot();
        if (boot == null) return;
        try {
            Files.createDirectories(dir);
            Path marker = dir.resolve(MARKER);
            try (FileChannel c = FileChannel.open(marker, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                c.write(ByteBuffer.wrap(boot.getBytes(StandardCharsets.US_ASCII)));
                // on disk before the first unflushed commit: a machine that stops after it finds the marker
                c.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(MARKER) + ": " + e.getMessage(), e);
        }
    }

    /** The copy in {@code dir} was closed (and so flushed): the marker goes. */
    public static void closed(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve(MARKER));
        } catch (IOException e) {
            // left behind, it only makes a restart after a reboot rebuild the copy
            System.getLogger("arno").log(System.Logger.Level.WARNING, "cannot remove " + dir.resolve(MARKER) + ": " + e.getMessage());
        }
    }

    private static String boot() {
        try {
            String id = Files.readString(BOOT_ID, StandardCharsets.US_ASCII).strip();
            return id.isEmpty() ? null : id;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
