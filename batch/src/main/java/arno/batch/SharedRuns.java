package arno.batch;

import arno.xml.ErrorMessage;
import arno.xml.OwnerOnly;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.commons.io.FileUtils;

/**
 * A node's side of shared jobs ({@link SharedJobs}, cluster mode): claims jobs while it has room
 * for them, copies each into its folder and runs it there with the ordinary {@link JobRun}, and
 * once a second (and at once after each change of state) sends each running job's state, the
 * report's new entries and new SVRL back, which renews the job's lease. A job whose lease this
 * node lost (another node claimed it after this one failed to renew in time) is stopped and
 * nothing more of it is sent; a node that cannot reach the record for a whole lease stops its
 * jobs by itself, since another node may hold them by then.
 *
 * <p>Thread rules: one thread ({@code arno-batch-shared}) claims and sends; a cancel on a request
 * thread may claim a waiting job too. Each job's sending synchronizes on its {@link Held}.
 */
final class SharedRuns {
    private static final System.Logger LOG = System.getLogger("arno");
    /** How often running jobs are sent (so a node that dies loses at most this of its report) and jobs looked for. */
    static final long TICK_MILLIS = 1_000;

    private final SharedJobs shared;
    private final Path jobsDir;
    private final Engine engine;
    private final Scheduler scheduler;
    private final int maxRunning;
    private final Map<String, Job> local;
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final Object wakeLock = new Object();
    private boolean woken;
    private volatile boolean closed;
    private Thread thread;

    /** A job this node holds: what of its report was sent, and when its lease was last renewed. */
    private static final class Held {
        final Job job;
        long sent;
        long renewedNanos = System.nanoTime();
        boolean lost;

        Held(Job job, long sent) {
            this.job = job;
            this.sent = sent;
        }
    }

    SharedRuns(SharedJobs shared, Path jobsDir, Engine engine, Scheduler scheduler, int maxRunning, Map<String, Job> local) {
        this.shared = shared;
        this.jobsDir = jobsDir;
        this.engine = engine;
        this.scheduler = scheduler;
        this.maxRunning = maxRunning;
        this.local = local;
        scheduler.onEnded(this::wake);
    }

    SharedJobs record() {
        return shared;
    }

    void start() {
        thread = new Thread(this::loop, "arno-batch-shared");
        thread.setDaemon(true);
        thread.start();
    }

    /** Sends and claims now rather than at the next tick. */
    void wake() {
        synchronized (wakeLock) {
            woken = true;
            wakeLock.notifyAll();
        }
    }

    private void loop() {
        while (!closed) {
            try {
                tick();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "batch: the shared job record cannot be reached: " + e.getMessage());
            }
            synchronized (wakeLock) {
                if (!woken && !closed) {
                    try {
                        wakeLock.wait(TICK_MILLIS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                woken = false;
            }
        }
    }

    private void tick() {
        for (Held h : List.copyOf(held.values())) {
            boolean ended = !scheduler.inHand(h.job);
            if (h.lost) {
                if (ended) drop(h); // its folder goes once nothing writes into it
                continue;
            }
            try {
                if (send(h) && ended) finish(h);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "batch job " + h.job.id + " cannot be saved in the shared record (tried "
                        + "again in a second): " + e.getMessage());
            }
        }
        while (!closed && scheduler.runningCount() + scheduler.waiting() < maxRunning) {
            Properties state = shared.claim(null);
            if (state == null) break;
            scheduler.resume(take(state));
        }
    }

    /** A run that ended (finished, or stopped for a shutdown) and was sent: the lease goes back, the copy away. */
    private void finish(Held h) {
        if (!h.job.status.finished()) shared.release(h.job.id);
        drop(h);
    }

    private void drop(Held h) {
        held.remove(h.job.id);
        local.remove(h.job.id);
        h.job.afterSave = null;
        FileUtils.deleteQuietly(h.job.dir.toFile());
    }

    /**
     * Sends what changed of a held job and renews its lease; false when it could not (the record
     * unreachable: tried again next tick) or the lease was lost.
     */
    private boolean send(Held h) {
        synchronized (h) {
            if (h.lost) return false;
            Job job = h.job;
            JobRun run = scheduler.runOf(job.id);
            try {
                // The state before the report: a report sent complete (closed) always goes with a finished state,
                // which readers take as "complete"; an unfinished one they close themselves.
                Properties state = job.properties();
                boolean finished = job.status.finished();
                ReportWriter.Mark mark = run == null ? null : run.mark();
                long to = mark != null ? (mark.complete() && !finished ? h.sent : mark.length()) : reportLength(job, finished);
                Map<Long, Path> svrl = new TreeMap<>();
                java.util.Queue<Long> written = job.svrlWritten;
                for (Long i; (i = written.poll()) != null; ) svrl.put(i, job.dir.resolve(Job.SVRL).resolve(i + ".xml"));
                state.setProperty("succeeded", Long.toString(job.succeeded.get()));
                state.setProperty("failed", Long.toString(job.failed.get()));
                state.setProperty("not-run", Long.toString(job.notRun.get()));
                state.setProperty("running", Integer.toString(job.running.get()));
                SharedJobs.Lease lease;
                try {
                    lease = shared.save(job.id, state, job.reportFile(), h.sent, Math.max(h.sent, to), svrl);
                } catch (RuntimeException e) {
                    written.addAll(svrl.keySet());
                    throw e;
                }
                if (lease == SharedJobs.Lease.LOST) {
                    LOG.log(System.Logger.Level.WARNING, "batch job " + job.id + ": another node holds it now (this node did not "
                            + "renew its lease in time); stopped here");
                    lose(h, run);
                    return false;
                }
                h.sent = Math.max(h.sent, to);
                h.renewedNanos = System.nanoTime();
                if (lease == SharedJobs.Lease.CANCEL && !job.cancelRequested && !job.status.finished()) cancelHere(job);
                return true;
            } catch (RuntimeException e) {
                if (System.nanoTime() - h.renewedNanos > shared.lease().toNanos()) {
                    LOG.log(System.Logger.Level.WARNING, "batch job " + job.id + ": its lease could not be renewed for "
                            + shared.lease().toSeconds() + " s (" + e.getMessage() + "); stopped here, another node may hold it");
                    lose(h, run);
                    return false;
                }
                throw e;
            }
        }
    }

    /** Stops a job whose lease is gone; its copy here is dropped once the run has ended. Reads go to the record. */
    private void lose(Held h, JobRun run) {
        h.lost = true;
        local.remove(h.job.id);
        h.job.afterSave = null;
        if (run != null) run.stop();
        else scheduler.withdraw(h.job);
    }

    private static long reportLength(Job job, boolean finished) {
        try {
            if (!Files.exists(job.reportFile())) return 0;
            return finished ? Files.size(job.reportFile()) : ReportWriter.readCommitted(job.dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A cancel asked on another node, for a job this node runs. */
    private void cancelHere(Job job) {
        synchronized (scheduler) {
            if (job.status.finished() || job.cancelRequested) return;
            Properties state = shared.state(job.id);
            String at = state == null ? null : state.getProperty("cancelled");
            job.cancelledAt = at == null ? engine.clock().instant() : Instant.parse(at);
            JobRun run = scheduler.runOf(job.id);
            if (run != null) {
                run.cancel();
            } else if (scheduler.withdraw(job)) {
                job.cancelRequested = true;
                new JobRun(job, engine).cancelBeforeStart();
            }
        }
    }

    /**
     * Copies a claimed job into this node's folder (its batch, its report as far as it was sent,
     * its SVRL) and holds it: a job another node had begun resumes from its report, as after a
     * restart.
     */
    private Job take(Properties state) {
        String id = state.getProperty("id");
        Path dir = jobsDir.resolve(id);
        try {
            FileUtils.deleteDirectory(dir.toFile());
            OwnerOnly.newFolder(dir);
            try (InputStream in = shared.batch(id); OutputStream out = OwnerOnly.newOutputStream(dir.resolve(Job.BATCH))) {
                in.transferTo(out);
            }
            long length = Long.parseLong(state.getProperty(SharedJobs.REPORT_LENGTH, "0"));
            if (length > 0) {
                try (InputStream in = shared.report(id, length); OutputStream out = OwnerOnly.newOutputStream(dir.resolve(Job.REPORT))) {
                    in.transferTo(out);
                }
                try (OutputStream out = OwnerOnly.newOutputStream(dir.resolve(Job.COMMITTED))) {
                    out.write(ByteBuffer.allocate(Long.BYTES).putLong(length).array());
                }
                shared.svrls(id, (index, in) -> {
                    try (OutputStream out = OwnerOnly.newOutputStream(OwnerOnly.folder(dir.resolve(Job.SVRL)).resolve(index + ".xml"))) {
                        in.transferTo(out);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            Job job = Job.of(state, dir);
            job.svrlWritten = new ConcurrentLinkedQueue<>();
            job.afterSave = this::wake;
            local.put(id, job);
            held.put(id, new Held(job, length));
            return job;
        } catch (IOException | RuntimeException e) {
            shared.release(id);
            FileUtils.deleteQuietly(dir.toFile());
            throw e instanceof IOException io ? new UncheckedIOException("cannot copy batch job " + id + " into " + dir, io)
                    : (RuntimeException) e;
        }
    }

    /**
     * Cancels a job this node does not run: asks whichever node runs it (it notices at its next
     * save, within about a second); a job no node holds is claimed and cancelled here at once.
     *
     * @return the job as it stands after the request
     */
    Job cancel(String id, Instant at) {
        if (!shared.cancel(id, at)) {
            Properties state = shared.state(id);
            if (state == null) throw ErrorMessage.NO_JOB.error(id);
            throw ErrorMessage.JOB_FINISHED.error(id, state.getProperty("status").toLowerCase(java.util.Locale.ROOT));
        }
        Properties claimed = shared.claim(id);
        if (claimed == null) {
            Properties state = shared.state(id);
            return Job.of(state, jobsDir.resolve(id));
        }
        Job job = take(claimed);
        Held h = held.get(id);
        if (job.started == null && !Files.exists(job.reportFile())) {
            job.cancelRequested = true;
            new JobRun(job, engine).cancelBeforeStart();
            if (send(h)) finish(h);
        } else {
            scheduler.resume(job); // begun on a node that died: resumed, it writes what was not run and ends
        }
        return job;
    }

    /** Stops claiming and sending; then, once the runs have stopped, sends each job a last time and gives back its lease. */
    void stopClaiming() {
        closed = true;
        wake();
        if (thread != null) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    void close() {
        for (Held h : List.copyOf(held.values())) {
            try {
                if (send(h)) finish(h);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "batch job " + h.job.id + ": cannot be saved at shutdown ("
                        + e.getMessage() + "); another node resumes it when its lease expires");
            }
        }
    }
}
