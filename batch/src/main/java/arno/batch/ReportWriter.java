package arno.batch;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends a job's report to {@code report.xml} as the job runs, one complete
 * entry at a time, and never holds the report in memory.
 *
 * <p>Readers and restarts need to know how far the file is good: after each
 * entry the writer records the file's length in {@code report.committed} (an
 * 8-byte positional write, which a sector write makes atomic). A reader takes
 * that prefix and closes the root element itself; a job resuming after a crash
 * truncates the report to it, dropping any half-written entry, and rebuilds its
 * counters from what remains (see {@link ReportScan}).
 *
 * <p>Entries reach the operating system at once (a killed process loses
 * nothing committed); they are forced to the disk at most once a second, so a
 * power failure may lose the last second, which the resumed job then redoes.
 */
final class ReportWriter implements Closeable {
    private static final long FORCE_INTERVAL_NANOS = 1_000_000_000L;

    /** The good length of the report, and whether the report is complete (its root element closed). */
    record Mark(long length, boolean complete) {}

    private final FileChannel report;
    private final FileChannel committedFile;
    private final ByteBuffer lengthBuffer = ByteBuffer.allocate(Long.BYTES);
    private volatile Mark mark;
    private long lastForce = System.nanoTime();

    private ReportWriter(Path dir, boolean create) throws IOException {
        Path file = dir.resolve(Job.REPORT);
        this.report = arno.xml.OwnerOnly.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        this.committedFile = arno.xml.OwnerOnly.open(dir.resolve(Job.COMMITTED),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        long good = create ? 0 : readCommitted(dir);
        report.truncate(good);
        report.position(good);
        this.mark = new Mark(good, false);
        if (create) writeCommitted(0);
    }

    /** A new, empty report for a job that has not run before. */
    static ReportWriter create(Path dir) {
        try {
            return new ReportWriter(dir, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the report in " + dir, e);
        }
    }

    /** The report of a job that ran before, cut back to its last complete entry. */
    static ReportWriter resume(Path dir) {
        try {
            return new ReportWriter(dir, false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reopen the report in " + dir, e);
        }
    }

    /** The committed length recorded in {@code dir}, 0 when there is none. */
    static long readCommitted(Path dir) throws IOException {
        Path file = dir.resolve(Job.COMMITTED);
        if (!Files.exists(file)) return 0;
        byte[] bytes = Files.readAllBytes(file);
        return bytes.length < Long.BYTES ? 0 : ByteBuffer.wrap(bytes).getLong();
    }

    Mark mark() {
        return mark;
    }

    void append(String markup) {
        append(markup.getBytes(StandardCharsets.UTF_8));
    }

    synchronized void append(byte[] markup) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(markup);
            while (buffer.hasRemaining()) report.write(buffer);
            commit(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the report", e);
        }
    }

    /** Appends an entry assembled as start tag, body (possibly spilled to disk) and end tag. */
    synchronized void append(byte[] head, SpillBuffer body, byte[] tail) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(head);
            while (buffer.hasRemaining()) report.write(buffer);
            body.transferTo(report);
            buffer = ByteBuffer.wrap(tail);
            while (buffer.hasRemaining()) report.write(buffer);
            commit(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the report", e);
        }
    }

    /** Appends the closing part (totals, summaries, end tag) and forces everything to disk. */
    synchronized void complete(byte[] markup) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(markup);
            while (buffer.hasRemaining()) report.write(buffer);
            commit(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot complete the report", e);
        }
    }

    private void commit(boolean complete) throws IOException {
        long length = report.position();
        long now = System.nanoTime();
        if (complete || now - lastForce > FORCE_INTERVAL_NANOS) {
            report.force(false);
            lastForce = now;
            writeCommitted(length);
            committedFile.force(false);
        } else {
            writeCommitted(length);
        }
        mark = new Mark(length, complete);
    }

    private void writeCommitted(long length) throws IOException {
        lengthBuffer.clear();
        lengthBuffer.putLong(length).flip();
        while (lengthBuffer.hasRemaining()) committedFile.write(lengthBuffer, lengthBuffer.position());
    }

    @Override public synchronized void close() {
        try {
            report.force(false);
            committedFile.force(false);
            report.close();
            committedFile.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the report", e);
        }
    }
}
