package arno.store.atom;

import arno.xml.ErrorMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;


/**
 * A request body read to its end before it enters the write path, so that a slow client never
 * holds the one writer (nor, in the HTTP API, a write slot): up to a threshold ({@link #MEMORY}
 * unless the caller gives one) in memory, the rest in a temporary file that only the server's
 * user can read ({@link Files#createTempFile} makes it {@code rw-------} on POSIX systems),
 * deleted on {@link #close()}. Over the limit, reading stops at once with BODY_TOO_LARGE and
 * nothing is kept.
 */
public final class Body implements AutoCloseable {
    /** Bodies up to this size stay in memory. */
    static final int MEMORY = 1 << 20;

    private final byte[] memory;
    private final Path file;
    private final long length;

    private Body(byte[] memory, Path file, long length) {
        this.memory = memory;
        this.file = file;
        this.length = length;
    }

    static Body of(byte[] bytes) {
        return new Body(bytes, null, bytes.length);
    }

    /** Reads {@code in} to its end (it is not closed); BODY_TOO_LARGE past {@code max} bytes. */
    static Body spool(InputStream in, long max, Path folder) {
        return spool(in, max, folder, MEMORY);
    }

    /**
     * Reads {@code in} to its end (it is not closed), keeping up to {@code memory} bytes in memory
     * and the rest in a file in {@code folder}; BODY_TOO_LARGE past {@code max} bytes. What
     * {@code in} throws unchecked (the HTTP API's translated read failures) passes through.
     */
    public static Body spool(InputStream in, long max, Path folder, int memory) {
        if (memory < 1) throw new IllegalArgumentException("memory must be at least 1 byte: " + memory);
        try {
            byte[] head = in.readNBytes((int) Math.min(memory, max + 1));
            if (head.length > max) throw tooLarge(max);
            if (head.length < memory) return new Body(head, null, head.length);
            int next = in.read();
            if (next < 0) return new Body(head, null, head.length);
            if (head.length + 1L > max) throw tooLarge(max);
            return spoolRest(in, head, next, max, folder);
        } catch (IOException e) {
            throw ErrorMessage.BODY_NOT_READ.error(e, e.getMessage());
        }
    }

    private static Body spoolRest(InputStream in, byte[] head, int next, long max, Path folder) throws IOException {
        Path f = Files.createTempFile(folder, "arno-body-", ".tmp");
        boolean ok = false;
        try (OutputStream out = Files.newOutputStream(f)) {
            out.write(head);
            out.write(next);
            long total = head.length + 1L;
            byte[] buf = new byte[64 << 10];
            for (int n; (n = in.read(buf)) > 0; ) {
                total += n;
                if (total > max) throw tooLarge(max);
                out.write(buf, 0, n);
            }
            ok = true;
            return new Body(null, f, total);
        } finally {
            if (!ok) Files.deleteIfExists(f);
        }
    }

    private static RuntimeException tooLarge(long max) {
        return ErrorMessage.BODY_OVER_LIMIT.error(max);
    }

    /** The body's length in bytes. */
    public long length() {
        return length;
    }

    boolean inMemory() {
        return file == null;
    }

    /** The file the body was spooled to, or null when it is in memory (for tests). */
    Path file() {
        return file;
    }

    /** A new stream over the whole body; a body can be read any number of times. */
    public InputStream open() {
        if (memory != null) return new ByteArrayInputStream(memory);
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw ErrorMessage.SPOOLED_BODY_UNREADABLE.error(e, file, e.getMessage());
        }
    }

    @Override
    public void close() {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temporary file left behind is harmless; the folder is the system's temp folder
            }
        }
    }
}
