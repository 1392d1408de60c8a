package arno.batch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Collects one transformation's report entry while it runs (its messages
 * arrive before we know its stop time, which goes in the entry's start tag).
 * An entry is usually a few hundred bytes and stays in memory; one that passes
 * {@link #LIMIT} (a stylesheet that dumps whole documents into xsl:message)
 * moves to a temporary file, so no entry can hold the heap.
 */
final class SpillBuffer extends OutputStream {
    static final int LIMIT = 256 * 1024;

    private final Path spillDir;
    private ByteArrayOutputStream memory = new ByteArrayOutputStream(512);
    private Path file;
    private OutputStream fileOut;

    SpillBuffer(Path spillDir) {
        this.spillDir = spillDir;
    }

    @Override public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override public void write(byte[] b, int off, int len) throws IOException {
        if (fileOut == null && memory.size() + len > LIMIT) {
            arno.xml.OwnerOnly.folder(spillDir);
            file = Files.createTempFile(spillDir, "entry-", ".xml");
            fileOut = new java.io.BufferedOutputStream(Files.newOutputStream(file));
            memory.writeTo(fileOut);
            memory = null;
        }
        if (fileOut != null) {
            fileOut.write(b, off, len);
        } else {
            memory.write(b, off, len);
        }
    }

    long size() throws IOException {
        if (fileOut != null) {
            fileOut.flush();
            return Files.size(file);
        }
        return memory.size();
    }

    /** Appends everything written to {@code channel} at its current position. */
    void transferTo(FileChannel channel) throws IOException {
        if (fileOut != null) {
            fileOut.close();
            fileOut = null;
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = in.size();
                long position = 0;
                while (position < size) {
                    position += in.transferTo(position, size - position, channel);
                }
            }
        } else if (memory != null) {
            ByteBuffer buffer = ByteBuffer.wrap(memory.toByteArray());
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    /** Deletes the spill file, if any. */
    @Override public void close() throws IOException {
        if (fileOut != null) {
            fileOut.close();
            fileOut = null;
        }
        if (file != null) {
            Files.deleteIfExists(file);
            file = null;
        }
    }
}
