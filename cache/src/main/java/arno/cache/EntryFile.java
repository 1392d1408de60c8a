package arno.cache;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One disk-tier entry in one file. Layout (big-endian):
 *
 * <pre>
 *   magic "ARNC" | format 1 (int) | header length H (int)
 *   header: stamp (long) | key (int n, n bytes) | dependency count (int)
 *           | per dependency kind, uri, version (each int n, n UTF-8 bytes) | value length L (int)
 *   CRC32C of the header (int)
 *   value (L bytes)
 *   CRC32C of the value (int)
 * </pre>
 *
 * The header has its own checksum so that start-up can rebuild the index from headers alone
 * and still trust them; the file's length must be exactly what the header says, which catches
 * a truncated file before its value is read. Files are written to a temporary name and moved
 * into place atomically, so a reader sees a whole file or none; they are not forced to the
 * device (a cache may lose entries on power loss, and the checksums reject torn files).
 */
final class EntryFile {

    static final String SUFFIX = ".entry";
    static final String TEMP_SUFFIX = ".tmp";
    private static final int MAGIC = 0x41524E43; // "ARNC"
    private static final int FORMAT = 1;
    /** Magic, format, header length, header CRC, value CRC. */
    private static final int FRAMING = 4 + 4 + 4 + 4 + 4;
    /** Keys and dependencies are small; a larger header means a damaged length field. */
    private static final int MAXIMUM_HEADER = 16 << 20;

    /** What start-up needs: the entry's identity and dependencies, without its value. */
    record Header(long stamp, byte[] key, Dependencies dependencies, int valueLength) { }

    /** A whole entry, checksums verified. */
    record Contents(Header header, byte[] value) { }

    /** A file that is not a whole, intact entry. */
    static final class CorruptException extends IOException {
        CorruptException(Path file, String what) {
            super("corrupt cache file " + file + ": " + what);
        }
    }

    private EntryFile() {
    }

    /**
     * Creates a file ({@code folder} false) or folders owner-only where the file system has POSIX
     * permissions: cached pages may be ones only some users may see. Arno's {@code OwnerOnly}
     * does the same for everything else under the data folder; this module depends on nothing of Arno's.
     */
    static FileAttribute<?>[] ownerOnly(Path path, boolean folder) {
        if (!path.getFileSystem().supportedFileAttributeViews().contains("posix")) return new FileAttribute<?>[0];
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(folder ? "rwx------" : "rw-------"))};
    }

    static String name(long sequence) {
        return String.format("%016x%s", sequence, SUFFIX);
    }

    /** Writes the entry to {@code folder/name(sequence)} atomically; returns its size in bytes. */
    static long write(Path folder, long sequence, long stamp, byte[] key, Dependencies dependencies,
            byte[] value) throws IOException {
        byte[] header = header(stamp, key, dependencies, value.length);
        Path temp = folder.resolve(String.format("%016x%s", sequence, TEMP_SUFFIX));
        Path target = folder.resolve(name(sequence));
        try {
            try (OutputStream out = Channels.newOutputStream(Files.newByteChannel(temp,
                    java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), ownerOnly(temp, false)))) {
                DataOutputStream data = new DataOutputStream(out);
                data.writeInt(MAGIC);
                data.writeInt(FORMAT);
                data.writeInt(header.length);
                data.write(header);
                data.writeInt(crc(header, 0, header.length));
                data.write(value);
                data.writeInt(crc(value, 0, value.length));
                data.flush();
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                // Same folder, so this only happens on exotic file systems; a torn file is
                // still caught by the checksums.
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return FRAMING + (long) header.length + value.length;
    }

    /** Reads and checks the header only: used at start-up for every file. */
    static Header readHeader(Path file) throws IOException {
        long size = Files.size(file);
        try (InputStream in = Files.newInputStream(file)) {
            DataInputStream data = new DataInputStream(in);
            int headerLength = framing(file, data.readInt(), data.readInt(), data.readInt(), size);
            byte[] header = new byte[headerLength];
            data.readFully(header);
            int crc = data.readInt();
            return parseHeader(file, header, crc, size);
        } catch (EOFException e) {
            throw new CorruptException(file, "truncated at " + size + " bytes");
        }
    }

    /** Reads the whole entry and checks both checksums and the length. */
    static Contents read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length < FRAMING) {
            throw new CorruptException(file, "truncated at " + bytes.length + " bytes");
        }
        int headerLength = framing(file, buffer.getInt(), buffer.getInt(), buffer.getInt(), bytes.length);
        byte[] header = Arrays.copyOfRange(bytes, 12, 12 + headerLength);
        Header parsed = parseHeader(file, header, buffer.getInt(12 + headerLength), bytes.length);
        int valueStart = 12 + headerLength + 4;
        int crc = buffer.getInt(valueStart + parsed.valueLength());
        if (crc(bytes, valueStart, parsed.valueLength()) != crc) {
            throw new CorruptException(file, "value checksum mismatch");
        }
        return new Contents(parsed, Arrays.copyOfRange(bytes, valueStart, valueStart + parsed.valueLength()));
    }

    private static int framing(Path file, int magic, int format, int headerLength, long size)
            throws CorruptException {
        if (magic != MAGIC) {
            throw new CorruptException(file, "not an Arno cache entry (bad magic number)");
        }
        if (format != FORMAT) {
            throw new CorruptException(file, "unknown format " + format + ", expected " + FORMAT);
        }
        if (headerLength < 0 || headerLength > MAXIMUM_HEADER || headerLength > size - FRAMING) {
            throw new CorruptException(file, "header length " + headerLength + " does not fit a file of "
                    + size + " bytes");
        }
        return headerLength;
    }

    private static Header parseHeader(Path file, byte[] header, int crc, long size) throws CorruptException {
        if (crc(header, 0, header.length) != crc) {
            throw new CorruptException(file, "header checksum mismatch");
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(header);
            long stamp = in.getLong();
            byte[] key = bytes(in);
            int count = in.getInt();
            if (count < 0 || count > header.length) {
                throw new CorruptException(file, "dependency count " + count);
            }
            List<Dependencies.Dependency> dependencies = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                dependencies.add(new Dependencies.Dependency(string(in), string(in), string(in)));
            }
            int valueLength = in.getInt();
            if (in.hasRemaining()) {
                throw new CorruptException(file, in.remaining() + " unexpected bytes after the header");
            }
            long expected = FRAMING + (long) header.length + valueLength;
            if (valueLength < 0 || expected != size) {
                throw new CorruptException(file, "length " + size + " bytes, header says " + expected);
            }
            return new Header(stamp, key, Dependencies.of(dependencies), valueLength);
        } catch (RuntimeException e) {
            // A checksummed header that does not parse was written by another format.
            throw new CorruptException(file, "unreadable header (" + e + ")");
        }
    }

    private static byte[] header(long stamp, byte[] key, Dependencies dependencies, int valueLength) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + key.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(stamp);
            out.writeInt(key.length);
            out.write(key);
            out.writeInt(dependencies.size());
            for (Dependencies.Dependency d : dependencies) {
                for (String s : new String[] {d.kind(), d.uri(), d.version()}) {
                    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                    out.writeInt(utf8.length);
                    out.write(utf8);
                }
            }
            out.writeInt(valueLength);
        } catch (IOException e) {
            throw new IllegalStateException("in-memory stream failed", e);
        }
        return bytes.toByteArray();
    }

    private static byte[] bytes(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("length " + n + " with " + in.remaining() + " bytes left");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    private static String string(ByteBuffer in) {
        return new String(bytes(in), StandardCharsets.UTF_8);
    }

    private static int crc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }
}
