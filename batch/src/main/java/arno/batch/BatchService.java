package arno.batch;

import arno.http.Endpoint;
import arno.xml.Accounts;
import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import arno.xml.OwnerOnly;
import arno.xml.Where;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import net.sf.saxon.lib.Feature;
import net.sf.saxon.s9api.Processor;
import org.apache.commons.io.FileUtils;

/**
 * The batch transformation service: accepts batch documents over HTTP, keeps
 * them in a bounded, persistent queue, runs each with its stylesheet compiled
 * once and applied to every input in parallel, and writes a streamed report.
 *
 * <p>Design. A batch is never held as a tree: it is kept as the file that was
 * submitted and read as a SAX stream each time it runs ({@link BatchParser});
 * its inputs flow through a semaphore into a shared worker pool
 * ({@link JobRun}), and each transformation's report entry is appended to the
 * report file as soon as it is complete ({@link ReportWriter}). So the heap
 * holds, per running job, its compiled stylesheet, its parameters, a bit per
 * input and the transformations under way: it does not grow with the batch.
 *
 * <p>Durability. A job is acknowledged (202) only once its batch file and its
 * state are fsynced. The report records how far it is good, so a job that was
 * running when the service stopped or died resumes where it was: inputs already
 * in the report are skipped, the others run.
 *
 * <p>Security. One policy for everything a batch touches: files only under the
 * configured roots ({@link FileRoots}; none by default, so no file at all),
 * URLs only as the outbound policy allows ({@link Outbound}: no private,
 * loopback or link-local address unless allowed, redirects re-checked), XML
 * only through the {@link arno.xml.XmlPolicy}; {@link Access} installs the
 * same on the Saxon configuration, so what stylesheets read at compile time
 * and at run time is held to it too. Every request needs an account.
 * {@code store:} inputs and outputs go through the server's store service
 * ({@link BatchOptions#store()}; refused when there is none): outputs need the
 * account's write role and are committed per input in one transaction.
 *
 * <p>Use: {@link #start}, mount {@link #endpoint()} at {@code /batch/*},
 * {@link #close} on shutdown. The HTTP API is described in batch/README.md.
 */
public final class BatchService implements AutoCloseable {
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final BatchOptions options;
    private final Path jobsDir;
    private final Engine engine;
    private final Scheduler scheduler;
    private final Accounts users;
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final ThreadPoolExecutor pool;
    /** In cluster mode, the node's side of the shared jobs; null on a single node. */
    private final SharedRuns shared;

    private BatchService(BatchOptions options, Accounts accounts, SharedJobs sharedJobs) throws IOException {
        this.options = options;
        // In cluster mode the folder is only this node's working copy of the jobs it runs, made anew at each start.
        this.jobsDir = options.workDirectory().resolve(sharedJobs == null ? "jobs" : "cluster-jobs");
        if (sharedJobs != null) FileUtils.deleteDirectory(jobsDir.toFile());
        // Owner-only: jobs hold their batch files, reports and the submitters' names.
        OwnerOnly.folder(jobsDir);
        FileRoots roots = FileRoots.of(options.roots());
        Outbound outbound = new Outbound(options.outbound());
        Targets targets = new Targets(roots, outbound, options.store() != null);
        Processor processor = new Processor(false);
        Access access = new Access(roots, FileRoots.none(), outbound, options.xmlPolicy());
        // Access, with store: read from the running transformation's view of the store on top.
        StoreReads reads = new StoreReads(access, processor.getUnderlyingConfiguration(), options.store());
        reads.install();
        // Access turns external functions off, and Saxon then refuses xsl:result-document at compile
        // time, a documented batch feature. Saxon-HE has no reflexive Java calls, so this allows only
        // xsl:result-document (confined by Transformation) and system-property() of JVM properties.
        processor.getUnderlyingConfiguration().setConfigurationProperty(Feature.ALLOW_EXTERNAL_FUNCTIONS, true);
        AtomicInteger threadNumber = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(options.workers(), options.workers(), 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "arno-batch-worker-" + threadNumber.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.engine = new Engine(processor, new BatchParser(processor, targets, options.xmlPolicy()),
                new StylesheetCache(processor, targets, options.xmlPolicy(), access), targets, options.xmlPolicy(),
                options.clock(), pool, options.workers(), options.store(), reads, options.timeLimit(),
                new Yield(options.pagePressure(), options.minShare()));
        this.scheduler = new Scheduler(options.queueBound(), options.runningJobs(), job -> new JobRun(job, engine));
        this.users = accounts != null ? accounts : new Accounts(options.usersFile());
        this.shared = sharedJobs == null ? null
                : new SharedRuns(sharedJobs, jobsDir, engine, scheduler, options.runningJobs(), jobs);
    }

    /**
     * Starts the service: loads the jobs in the work directory and resumes those
     * that were queued or running, in their old order.
     *
     * @throws ArnoException {@link ErrorCode#BAD_CONFIGURATION} when a root or the work directory cannot be used
     */
    public static BatchService start(BatchOptions options) {
        return start(options, null, null);
    }

    /**
     * Starts the service in cluster mode: checking {@code accounts} (the cluster's, which the
     * service then owns and closes) instead of the users file, and with its jobs and reports kept
     * in {@code shared} (every node sees every job, and each job runs on one node at a time); each
     * null: as {@link #start(BatchOptions)} (the users file, the work directory).
     */
    public static BatchService start(BatchOptions options, Accounts accounts, SharedJobs shared) {
        try {
            BatchService service = new BatchService(options, accounts, shared);
            if (shared != null) service.shared.start();
            else service.load();
            return service;
        } catch (IOException | UncheckedIOException e) {
            throw ErrorMessage.BATCH_SERVICE_NOT_STARTED.error(e, options.workDirectory(), e.getMessage());
        }
    }

    private void load() throws IOException {
        List<Job> unfinished = new ArrayList<>();
        long maxSequence = 0;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(jobsDir, Files::isDirectory)) {
            for (Path dir : dirs) {
                if (!Files.exists(dir.resolve(Job.STATE))) {
                    // Never acknowledged: the submission died before its state was written.
                    FileUtils.deleteDirectory(dir.toFile());
                    continue;
                }
                Job job = Job.load(dir);
                jobs.put(job.id, job);
                maxSequence = Math.max(maxSequence, job.sequence);
                if (!job.status.finished()) unfinished.add(job);
            }
        }
        sequence.set(maxSequence);
        unfinished.sort(Scheduler.ORDER);
        for (Job job : unfinished) scheduler.resume(job);
    }

    /** What to mount at {@code /batch/*}: the servlet behind the filter that checks its accounts. */
    public Endpoint endpoint() {
        BatchServlet servlet = new BatchServlet(this);
        return Endpoint.of(servlet, servlet.filter());
    }

    /**
     * For development servers: when no account exists, creates the account
     * {@code arno} with every role and a random password and returns {@code "arno:password"}
     * for the server to print at start-up; returns null when accounts exist.
     */
    public String createDevelopmentAccount() {
        if (!users.isEmpty()) return null; // spares a hash at every start
        // at once for every server sharing the accounts: of cluster nodes starting together, one creates it
        String password = Accounts.randomPassword();
        return users.createIfNone("arno", password, Accounts.ALL_ROLES) ? "arno:" + password : null;
    }

    /**
     * Adds or replaces an account with {@link Accounts#DEFAULT_ROLES} (read, write) in the users file
     * of {@code options} (the service need not run).
     */
    public static void addAccount(BatchOptions options, String name, String password) {
        new Accounts(options.usersFile()).add(name, password);
    }

    /**
     * The accounts this service checks (its users file): the server shares this one instance with
     * the store API, so that both read one file and remember each verified password once. The
     * service owns it: {@link #close} closes it.
     */
    public Accounts accounts() {
        return users;
    }

    /**
     * The service in figures, for the health check and the metrics.
     *
     * @param open    whether it takes jobs (false once it is stopping)
     * @param waiting jobs accepted and waiting to start
     * @param jobs    jobs known to the service by state (queued, running, completed, failed, cancelled), every state present
     */
    public record Figures(boolean open, int waiting, java.util.Map<String, Integer> jobs) {}

    /** The service in figures now: one pass over its jobs. */
    public Figures figures() {
        java.util.Map<String, Integer> byState = new java.util.LinkedHashMap<>();
        for (Job.Status s : Job.Status.values()) byState.put(s.lower(), 0);
        // In cluster mode: this node's jobs (the health check must not depend on the database).
        for (Job job : jobs.values()) byState.merge(job.status.lower(), 1, Integer::sum);
        return new Figures(!scheduler.isClosed(), scheduler.waiting(), java.util.Collections.unmodifiableMap(byState));
    }

    /**
     * A job as the admin console lists it.
     *
     * @param state  queued, running, completed, failed or cancelled
     * @param done   inputs finished so far (succeeded, failed or not run), of {@code total}
     * @param finished when it ended, or null
     */
    public record JobSummary(String id, String name, String user, String state, long total, long done, long failed,
            Instant submitted, Instant finished) {}

    /** Every job, newest first: for the admin console. */
    public List<JobSummary> summaries() {
        return jobs().stream().map(j -> new JobSummary(j.id, j.name, j.user, j.status.lower(), j.total,
                j.succeeded.get() + j.failed.get() + j.notRun.get(), j.failed.get(), j.submitted, j.finishedAt)).toList();
    }

    /**
     * Cancels a queued or running job, as {@code DELETE /batch/jobs/ID} does: for the admin console.
     *
     * @throws ArnoException NOT_FOUND for no such job, CONFLICT when it has finished
     */
    public void cancelJob(String id) {
        cancel(id);
    }

    /**
     * Stops taking jobs, stops the transformations under way (they run again when their job
     * resumes at the next start), and returns within about {@link JobRun#ABANDON_AFTER} even when
     * a transformation does not stop. Then closes {@link #accounts()}, ending its login threads.
     */
    @Override public void close() {
        if (shared != null) shared.stopClaiming();
        try {
            // The guards stop what runs within moments; a job waits ABANDON_AFTER at most for one that
            // does not stop, then leaves it (its worker threads are daemons: they do not hold the JVM).
            scheduler.close(JobRun.ABANDON_AFTER.toMillis() + 5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Each job held is saved a last time and its lease given back: another node takes it at once.
        if (shared != null) shared.close();
        pool.shutdown();
        try {
            if (!pool.awaitTermination(2, TimeUnit.SECONDS)) pool.shutdownNow();
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
        users.close();
    }

    // ---- What the servlet calls -------------------------------------------------------------

    Accounts.Account authenticate(String authorization) {
        return users.authenticate(authorization);
    }

    BatchOptions options() {
        return options;
    }

    /** Seconds a client should wait before submitting again: when the soonest running job should end. */
    long retryAfterSeconds() {
        long best = Long.MAX_VALUE;
        long now = System.nanoTime();
        for (Job job : jobs.values()) {
            if (job.status != Job.Status.RUNNING) continue;
            double rate = job.rate(now);
            if (rate > 0) best = Math.min(best, (long) Math.ceil(job.remaining() / rate));
        }
        return best == Long.MAX_VALUE ? 30 : Math.max(1, Math.min(best, 3600));
    }

    /** Thrown when a submitted batch's stylesheet fails: the job exists, FAILED, with the compiler's messages. */
    static final class FailedAtOnce extends RuntimeException {
        final Job job;
        final ArnoException cause;

        FailedAtOnce(Job job, ArnoException cause) {
            super(cause.getMessage(), cause, false, false);
            this.job = job;
            this.cause = cause;
        }
    }

    /**
     * Accepts a batch: stores it, validates it as it streams, compiles its
     * stylesheet, and queues it. Returns once the job is durable.
     *
     * @param contentLocation the batch's own URI, the base of its relative references (may be null)
     * @param user            the submitting account: a batch with {@code store:} outputs needs its write role
     *                        (its writes are recorded as this account)
     * @throws ArnoException for a batch that is refused (nothing is kept)
     * @throws FailedAtOnce when the stylesheet does not compile (the failed job is kept)
     */
    Job submit(InputStream body, String contentLocation, Accounts.Account user) {
        if (scheduler.isClosed()) throw ErrorMessage.BATCH_STOPPING.error();
        if (isFull()) throw queueFull();
        URI base = base(contentLocation);
        Instant now = options.clock().instant();
        Path dir = newJobDirectory(now);
        String id = dir.getFileName().toString();
        boolean accepted = false;
        try {
            Path batchFile = dir.resolve(Job.BATCH);
            copy(body, batchFile);
            Batch.Header[] header = new Batch.Header[1];
            long[] count = {0};
            try (InputStream in = new java.io.BufferedInputStream(Files.newInputStream(batchFile), 1 << 16)) {
                engine.parser().parse(in, base.toString(), true, new Batch.Listener() {
                    @Override public void header(Batch.Header h) {
                        header[0] = h;
                    }

                    @Override public void input(Batch.Input input) {
                        count[0]++;
                        if (input.output() != null && input.output().isStore() && !user.has(Accounts.Role.WRITE)) {
                            throw ErrorMessage.OUTPUT_NEEDS_WRITE_ROLE.error(user.name(), input.output().uri()).at(Where.at(base.toString(), input.line(), -1));
                        }
                    }
                });
            }
            Batch.Header h = header[0];
            int parallelism = h.parallelism() == null ? options.workers() : Math.min(h.parallelism(), options.workers());
            Job job = new Job(id, dir, sequence.incrementAndGet(), h.name(), h.priority(), parallelism,
                    h.code().kind(), h.code().label(), base.toString(), count[0], now, user.name(), Job.Status.QUEUED);
            Job.Durable.force(batchFile);
            try {
                StylesheetCache.Compiled compiled = engine.cache().get(h.code());
                JobRun.checkParameters(compiled.executable(), h.params(), h.code());
            } catch (ArnoException e) {
                job.status = Job.Status.FAILED;
                if (shared == null) jobs.put(id, job);
                new JobRun(job, engine).failBeforeStart(e);
                Job.Durable.forceDirectory(jobsDir);
                if (shared != null) {
                    // stored with its report; the copy here is not kept (finally)
                    shared.record().create(id, job.priority, job.properties(), batchFile, job.reportFile());
                    throw new FailedAtOnce(job, e);
                }
                accepted = true;
                throw new FailedAtOnce(job, e);
            }
            if (shared != null) {
                // Acknowledged once committed in the shared record; a node with room claims it (this one first, woken).
                if (isFull()) throw queueFull();
                // A claim copies the job into jobsDir/ID (SharedRuns.take) and may come the moment the record
                // has it, from this node's own thread: this copy leaves that name first, or deleting it below
                // deleted the folder of the run that had just started in it.
                Path staging = dir.resolveSibling(".submitted-" + id);
                Files.move(dir, staging, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                dir = staging;
                shared.record().create(id, job.priority, job.properties(), staging.resolve(Job.BATCH), null);
                shared.wake();
                return job;
            }
            synchronized (scheduler) {
                if (scheduler.isFull()) throw queueFull();
                job.save();
                Job.Durable.forceDirectory(jobsDir);
                jobs.put(id, job);
                accepted = true;
                scheduler.enqueue(job);
            }
            return job;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store the batch in " + dir, e);
        } finally {
            if (!accepted) FileUtils.deleteQuietly(dir.toFile());
        }
    }

    /** Whether the queue holds {@code queueBound} waiting jobs: this node's, or in cluster mode the cluster's. */
    private boolean isFull() {
        return shared == null ? scheduler.isFull() : shared.record().waiting() >= options.queueBound();
    }

    private ArnoException queueFull() {
        return ErrorMessage.BATCH_QUEUE_FULL.error(options.queueBound());
    }

    private URI base(String contentLocation) {
        if (contentLocation == null || contentLocation.isBlank()) return engine.targets().defaultBase();
        try {
            URI uri = new URI(contentLocation.strip());
            if (!uri.isAbsolute()) {
                throw ErrorMessage.CONTENT_LOCATION_RELATIVE.error(contentLocation);
            }
            return uri;
        } catch (URISyntaxException e) {
            throw ErrorMessage.CONTENT_LOCATION_NOT_URI.error(contentLocation, e.getMessage());
        }
    }

    private void copy(InputStream body, Path file) throws IOException {
        long limit = options.maxBatchBytes();
        long total = 0;
        byte[] buffer = new byte[1 << 16];
        try (OutputStream out = OwnerOnly.newOutputStream(file)) {
            int n;
            while ((n = body.read(buffer)) > 0) {
                total += n;
                if (total > limit) {
                    throw ErrorMessage.BODY_OVER_LIMIT.error(limit);
                }
                out.write(buffer, 0, n);
            }
        }
    }

    /** A new job folder named by time and a random suffix, so names sort by submission and never collide. */
    private Path newJobDirectory(Instant now) {
        String stamp = ID_TIME.format(now);
        for (int attempt = 0; ; attempt++) {
            String suffix = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36 * 36), 36);
            Path dir = jobsDir.resolve(stamp + "-" + "0".repeat(4 - suffix.length()) + suffix);
            try {
                return OwnerOnly.newFolder(dir);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (attempt > 100) throw new IllegalStateException("cannot find a free job name in " + jobsDir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a job folder in " + jobsDir, e);
            }
        }
    }

    Job job(String id) {
        Job job = id == null ? null : jobs.get(id);
        if (job == null && id != null && shared != null) {
            // Not run here: as the shared record has it.
            java.util.Properties state = shared.record().state(id);
            if (state != null) job = Job.of(state, jobsDir.resolve(id));
        }
        if (job == null) throw ErrorMessage.NO_JOB.error(id);
        return job;
    }

    /** Every job, newest first. */
    List<Job> jobs() {
        if (shared != null) {
            // The cluster's jobs; those running here with their live counters.
            List<Job> list = new ArrayList<>();
            for (java.util.Properties state : shared.record().list()) {
                Job here = jobs.get(state.getProperty("id"));
                list.add(here != null ? here : Job.of(state, jobsDir.resolve(state.getProperty("id"))));
            }
            return list;
        }
        List<Job> list = new ArrayList<>(jobs.values());
        list.sort(Comparator.comparingLong((Job j) -> j.sequence).reversed());
        return list;
    }

    /** Cancels a job: a waiting job ends at once; a running one stops the transformations under way. */
    Job cancel(String id) {
        if (shared != null && !jobs.containsKey(id)) {
            job(id); // 404 for no such job
            return shared.cancel(id, options.clock().instant());
        }
        Job job = job(id);
        synchronized (scheduler) {
            if (job.status.finished()) {
                throw ErrorMessage.JOB_FINISHED.error(id, job.status.lower());
            }
            if (job.cancelRequested) return job;
            job.cancelledAt = options.clock().instant();
            if (scheduler.withdraw(job)) {
                job.cancelRequested = true;
                new JobRun(job, engine).cancelBeforeStart();
                return job;
            }
            // The run notes what is under way, then raises the flag its transformations stop at.
            JobRun run = scheduler.runOf(id);
            if (run != null) run.cancel();
            else job.cancelRequested = true;
            job.save();
        }
        return job;
    }

    /** The report's good length and whether it is complete; null when the job has no report yet. */
    ReportWriter.Mark reportMark(Job job) {
        if (shared != null && !jobs.containsKey(job.id)) {
            // Not run here: the report as far as it was sent.
            long length = Long.parseLong(shared.record().state(job.id).getProperty(SharedJobs.REPORT_LENGTH, "0"));
            return length == 0 ? null : new ReportWriter.Mark(length, job.status.finished());
        }
        JobRun run = scheduler.runOf(job.id);
        ReportWriter.Mark mark = run == null ? null : run.mark();
        if (mark == null) {
            Path report = job.reportFile();
            try {
                if (!Files.exists(report)) return null;
                mark = job.status.finished()
                        ? new ReportWriter.Mark(Files.size(report), true)
                        : new ReportWriter.Mark(ReportWriter.readCommitted(job.dir), false);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // A report created a moment ago may not have its root element yet.
        return mark.length() == 0 ? null : mark;
    }

    /** The first {@code length} bytes of a job's report, with its root closed unless {@code complete}. */
    InputStream report(Job job, ReportWriter.Mark mark) throws IOException {
        if (shared != null && !jobs.containsKey(job.id)) {
            InputStream body = shared.record().report(job.id, mark.length());
            return mark.complete() ? body : new java.io.SequenceInputStream(body,
                    new java.io.ByteArrayInputStream("</report>\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return ReportScan.prefix(job.reportFile(), mark.length(), mark.complete());
    }

    /** The batch as submitted ({@code what} "batch"), or input {@code n}'s SVRL; null when there is none. */
    InputStream file(Job job, String what, String n) throws IOException {
        if (shared != null && !jobs.containsKey(job.id)) {
            return what.equals("batch") ? shared.record().batch(job.id) : shared.record().svrl(job.id, Long.parseLong(n));
        }
        Path file = what.equals("batch") ? job.batchFile() : job.dir.resolve(Job.SVRL).resolve(n + ".xml");
        return Files.exists(file) ? new java.io.FileInputStream(file.toFile()) : null;
    }

    Engine engine() {
        return engine;
    }

    Path jobsDirectory() {
        return jobsDir;
    }
}
