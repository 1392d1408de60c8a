package arno.fulltext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexWriter;

/**
 * Threads that add a build's documents to one writer. Lucene's analysis and inversion are nearly
 * all of a build's time (a profile of a 10,000-article build: under 8% in reading the entries from
 * the store), and an {@link IndexWriter} takes adds from many threads, each into a segment of its
 * own; so one thread reads the store (a snapshot and Saxon's evaluation are one thread's) and hands
 * the documents to as many adders as there are cores. The queue is short: a document holds its
 * entry's text (tens of kilobytes), and the reader needs to be only a little ahead.
 */
final class Adders implements AutoCloseable {

    private static final Document END = new Document();

    private final IndexWriter writer;
    private final BlockingQueue<Document> queue;
    private final List<Thread> threads = new ArrayList<>();
    private volatile Throwable failure;

    Adders(IndexWriter writer, int count, String name) {
        this.writer = writer;
        this.queue = new ArrayBlockingQueue<>(8 * count);
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(this::run, name + "-" + (i + 1));
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** One adder per core: a build is CPU-bound, and pages share the cores with it while it runs. */
    static int count() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** Queues {@code d}; throws what an adder failed with, so the build stops at its first failure. */
    void add(Document d) throws IOException {
        rethrow();
        try {
            queue.put(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while adding to the full-text index", e);
        }
    }

    /** Waits until every queued document is added; then throws what an adder failed with, if one did. */
    @Override
    public void close() throws IOException {
        boolean interrupted = false;
        for (int i = 0; i < threads.size(); i++) {
            while (true) {
                try {
                    queue.put(END);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        rethrow();
    }

    private void run() {
        while (true) {
            Document d;
            try {
                d = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (d == END) return;
            if (failure != null) continue; // drain, so the reader never blocks on a full queue
            try {
                writer.addDocument(d);
            } catch (IOException | RuntimeException | Error e) {
                failure = e;
            }
        }
    }

    private void rethrow() throws IOException {
        Throwable f = failure;
        if (f == null) return;
        if (f instanceof IOException io) throw new IOException(io.getMessage(), io);
        if (f instanceof Error e) throw e;
        throw new UncheckedIOException(new IOException(f.getMessage(), f));
    }
}
