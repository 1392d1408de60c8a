package arno.batch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One accepted batch: its settings, its state and its counters. The durable
 * part lives in {@code job.properties} in the job's folder beside the batch as
 * submitted ({@code batch.xml}) and the report; it is rewritten atomically
 * (temporary file, fsync, rename) at every change of state, never per input.
 * Counters are in memory while the job runs and are rebuilt from the report
 * when a job resumes.
 *
 * <p>Thread rules: the counters are atomics updated by workers; {@code status}
 * and the timestamps change only under the scheduler's lock or in the job's
 * own runner thread, and are volatile for readers.
 */
final class Job {
    enum Status {
        QUEUED, RUNNING, COMPLETED, FAILED, CANCELLED;

        boolean finished() {
            return this == COMPLETED || this == FAILED || this == CANCELLED;
        }

        String lower() {
            return name().toLowerCase();
        }
    }

    static final String BATCH = "batch.xml";
    static final String STATE = "job.properties";
    static final String REPORT = "report.xml";
    static final String COMMITTED = "report.committed";
    static final String SVRL = "svrl";

    final String id;
    final Path dir;
    final long sequence;
    final String name;
    final int priority;
    final int parallelism;
    final Batch.Kind kind;
    final String stylesheet;
    final String base;
    final long total;
    final Instant submitted;
    final String user;

    volatile Status status;
    volatile Instant started;
    volatile Instant finishedAt;
    volatile String failure;
    volatile boolean cancelRequested;
    volatile Instant cancelledAt;

    final AtomicLong succeeded = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong notRun = new AtomicLong();
    final AtomicInteger running = new AtomicInteger();
    /** For the rate: when this run (start or resume) began, and how many were done before it. */
    volatile long runStartNanos;
    volatile long doneAtRunStart;

    Job(String id, Path dir, long sequence, String name, int priority, int parallelism, Batch.Kind kind,
        String stylesheet, String base, long total, Instant submitted, String user, Status status) {
        this.id = id;
        this.dir = dir;
        this.sequence = sequence;
        this.name = name;
        this.priority = priority;
        this.parallelism = parallelism;
        this.kind = kind;
        this.stylesheet = stylesheet;
        this.base = base;
        this.total = total;
        this.submitted = submitted;
        this.user = user;
        this.status = status;
    }

    long done() {
        return succeeded.get() + failed.get();
    }

    long remaining() {
        return Math.max(0, total - done() - notRun.get());
    }

    /** Transformations per second in the current run, 0 before the first finishes. */
    double rate(long nowNanos) {
        long doneNow = done() - doneAtRunStart;
        double seconds = (nowNanos - runStartNanos) / 1e9;
        return doneNow <= 0 || seconds <= 0 ? 0 : doneNow / seconds;
    }

    Path batchFile() {
        return dir.resolve(BATCH);
    }

    Path reportFile() {
        return dir.resolve(REPORT);
    }

    /**
     * In cluster mode, called after each {@link #save}: sends the state to the shared record
     * ({@link SharedJobs}); null on a single node.
     */
    volatile Runnable afterSave;
    /** In cluster mode, the inputs whose SVRL was written since the last send; null on a single node. */
    volatile java.util.Queue<Long> svrlWritten;

    synchronized void save() {
        Path tmp = dir.resolve(STATE + ".tmp");
        try {
            try (OutputStream out = arno.xml.OwnerOnly.newOutputStream(tmp)) {
                properties().store(out, "Arno batch job; rewritten at each change of state");
            }
            Durable.force(tmp);
            Files.move(tmp, dir.resolve(STATE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Durable.forceDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save the state of job " + id + " in " + dir, e);
        }
        Runnable after = afterSave;
        if (after != null) after.run();
    }

    /** The state as {@code job.properties} holds it. */
    Properties properties() {
        Properties p = new Properties();
        p.setProperty("id", id);
        p.setProperty("sequence", Long.toString(sequence));
        if (name != null) p.setProperty("name", name);
        p.setProperty("priority", Integer.toString(priority));
        p.setProperty("parallelism", Integer.toString(parallelism));
        p.setProperty("kind", kind.name());
        p.setProperty("stylesheet", stylesheet);
        p.setProperty("base", base);
        p.setProperty("total", Long.toString(total));
        p.setProperty("submitted", submitted.toString());
        if (user != null) p.setProperty("user", user);
        p.setProperty("status", status.name());
        if (started != null) p.setProperty("started", started.toString());
        if (finishedAt != null) p.setProperty("finished", finishedAt.toString());
        if (failure != null) p.setProperty("failure", failure);
        if (cancelledAt != null) p.setProperty("cancelled", cancelledAt.toString());
        if (status.finished()) {
            p.setProperty("succeeded", Long.toString(succeeded.get()));
            p.setProperty("failed", Long.toString(failed.get()));
            p.setProperty("not-run", Long.toString(notRun.get()));
        }
        return p;
    }

    static Job load(Path dir) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve(STATE))) {
            p.load(in);
        }
        return of(p, dir);
    }

    /** A job from its state ({@link #properties()}), its folder {@code dir}. */
    static Job of(Properties p, Path dir) {
        Job job = new Job(p.getProperty("id"), dir, Long.parseLong(p.getProperty("sequence")), p.getProperty("name"),
                Integer.parseInt(p.getProperty("priority")), Integer.parseInt(p.getProperty("parallelism")),
                Batch.Kind.valueOf(p.getProperty("kind")), p.getProperty("stylesheet"), p.getProperty("base"),
                Long.parseLong(p.getProperty("total")), Instant.parse(p.getProperty("submitted")),
                p.getProperty("user"), Status.valueOf(p.getProperty("status")));
        job.started = instant(p.getProperty("started"));
        job.finishedAt = instant(p.getProperty("finished"));
        job.failure = p.getProperty("failure");
        job.cancelledAt = instant(p.getProperty("cancelled"));
        job.cancelRequested = job.cancelledAt != null;
        job.succeeded.set(Long.parseLong(p.getProperty("succeeded", "0")));
        job.failed.set(Long.parseLong(p.getProperty("failed", "0")));
        job.notRun.set(Long.parseLong(p.getProperty("not-run", "0")));
        job.running.set(Integer.parseInt(p.getProperty("running", "0")));
        return job;
    }

    private static Instant instant(String s) {
        return s == null ? null : Instant.parse(s);
    }

    /** fsync helpers: what we answer 202 for must be on disk first. */
    static final class Durable {
        private Durable() {}

        static void force(Path file) throws IOException {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
        }

        /** Makes a rename or a new file in {@code dir} durable; a no-op where directories cannot be opened. */
        static void forceDirectory(Path dir) {
            try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
                channel.force(true);
            } catch (IOException e) {
                // Some platforms (Windows) cannot open a directory; the rename is then as durable as it gets.
            }
        }
    }
}
