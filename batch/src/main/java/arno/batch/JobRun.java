package arno.batch;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.ErrorXml;
import arno.xml.XmlWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmValue;
import net.sf.saxon.s9api.XsltExecutable;

/**
 * Runs one job, on a thread of its own: reads the batch file as a stream and
 * feeds its inputs to the shared worker pool, never more than the job's
 * parallelism at once (a semaphore, so the feeder blocks and memory stays flat
 * whatever the number of inputs), then writes the totals.
 *
 * <p>A job that ran before (the service was stopped or died) resumes: the
 * report is cut back to its last complete entry, and the inputs it records are
 * skipped.
 *
 * <p>Bounded work. Each transformation has a time limit (the batch's {@code time-limit}, else the
 * service's); a {@link Guard} stops it there and its entry fails with
 * {@code transformation-timeout}. Stopping the service ({@link #stop}) stops the transformations
 * under way, writes no entry for them (they run again when the job resumes) and leaves the job
 * RUNNING on disk. Cancelling ({@link #cancel}) stops them too: the report lists them under
 * {@code <cancelled>}, gives each an entry with {@code status="cancelled"}, and ends with a
 * {@code <not-run>} for every input that never started. So every input of a cancelled job is
 * accounted for: done (ok or failed), cancelled, or not run. A transformation the guard cannot
 * see (a loop that calls no template or function) is abandoned {@link #ABANDON_AFTER} past its
 * time limit, or past a cancel or stop: its entry fails with the time limit, the job goes on
 * without it, and its thread, which nothing in Java 20 and later can stop, is replaced in the pool.
 *
 * <p>Page work first. Before each transformation, and at its guard's checkpoints, the worker gives
 * way to waiting page requests ({@link Yield}); a cancel or stop ends that wait within
 * {@link Yield#POLL}, and an input that was still waiting to begin then has a cancelled entry (it
 * was named under way) or, on a stop, runs after the restart.
 */
final class JobRun implements Runnable {
    private static final System.Logger LOG = System.getLogger("arno");
    /** How long a transformation may go on after its time limit, a cancel or a stop before it is abandoned. */
    static final java.time.Duration ABANDON_AFTER = java.time.Duration.ofSeconds(10);
    private final Job job;
    private final Engine engine;
    private final int parallelism;
    private final Semaphore permits;
    private final Map<Long, Batch.Input> underWay = new ConcurrentSkipListMap<>();
    /**
     * Inputs that wrote their {@code status="cancelled"} entry, kept until {@code <cancelled>} is
     * written: one may leave {@link #underWay} before that, and must still be named under way.
     */
    private final Map<Long, Batch.Input> cancelledEntries = new ConcurrentSkipListMap<>();
    /** When each transformation under way began (System.nanoTime), for abandoning one that ignores its limit. */
    private final Map<Long, Long> began = new java.util.concurrent.ConcurrentHashMap<>();
    /** The inputs this run wrote an entry for (ok, failed or cancelled). */
    private final java.util.BitSet reported = new java.util.BitSet();
    /** Nanoseconds since which a cancel or stop is waiting for the transformations under way; 0 before. */
    private long waitingSince;
    private java.time.Duration timeLimit;
    private final RuleStats ruleStats = new RuleStats();
    private volatile boolean stopping;
    private volatile ReportWriter report;
    private boolean cancelWritten;
    /** Set (under this run's lock) when the report is being completed and closed. */
    private boolean completing;
    private Transformation transformation;
    private ReportScan previous;

    /** Thrown from the parse listener to stop reading inputs. */
    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }

    JobRun(Job job, Engine engine) {
        this.job = job;
        this.engine = engine;
        this.parallelism = Math.max(1, Math.min(job.parallelism, engine.workerCount()));
        this.permits = new Semaphore(parallelism);
    }

    /** The report's good length right now, or null before the run opened it. */
    ReportWriter.Mark mark() {
        ReportWriter r = report;
        return r == null ? null : r.mark();
    }

    @Override public void run() {
        try {
            runJob();
        } catch (RuntimeException | Error e) {
            job.failure = "internal error: " + e;
            try {
                complete();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void runJob() {
        boolean resumed = job.started != null && Files.exists(job.reportFile());
        Instant now = engine.clock().instant();
        job.status = Job.Status.RUNNING;
        if (job.started == null) job.started = now;
        job.save();

        if (resumed) {
            report = ReportWriter.resume(job.dir);
            previous = ReportScan.scan(job.reportFile(), report.mark().length());
            job.succeeded.set(previous.succeeded);
            job.failed.set(previous.failed);
            if (job.kind == Batch.Kind.SCHEMATRON) rebuildRuleStats();
        } else {
            report = ReportWriter.create(job.dir);
            previous = new ReportScan();
            report.append(header());
        }
        synchronized (this) {
            cancelWritten |= previous.cancelled;
            if (job.cancelRequested) writeCancelled();
        }
        job.doneAtRunStart = job.done();
        job.runStartNanos = System.nanoTime();
        report.append(element(x -> x.start("run").attr("start", now).attr("resumed", resumed)
                .attr("workers", engine.workerCount()).attr("parallelism", parallelism)
                .attr("done-before", resumed ? job.done() : null).end().newline()));

        if (!job.cancelRequested) {
            feed();
            awaitUnderWay();
        }
        if (stopping && !job.cancelRequested && job.failure == null) {
            report.close();
            return;
        }
        complete();
    }

    private void feed() {
        try (InputStream in = Files.newInputStream(job.batchFile())) {
            engine.parser().parse(new java.io.BufferedInputStream(in, 1 << 16), job.base, false, new Batch.Listener() {
                @Override public void header(Batch.Header header) {
                    prepare(header);
                }

                @Override public void input(Batch.Input input) {
                    submit(input);
                }
            });
        } catch (Stop e) {
            // cancelled, stopping, or the stylesheet failed: see the fields
        } catch (ArnoException e) {
            // The batch was valid when accepted; a change since (a root removed) fails the job.
            job.failure = e.describe();
            report.append(element(x -> problem(x, e)));
        } catch (IOException e) {
            ArnoException error = ErrorMessage.BATCH_FILE_UNREADABLE.error(e, job.batchFile(), e);
            job.failure = error.getMessage();
            report.append(element(x -> problem(x, error)));
        }
    }

    private void prepare(Batch.Header header) {
        try {
            StylesheetCache.Compiled compiled = engine.cache().get(header.code());
            checkParameters(compiled.executable(), header.params(), header.code());
            Map<QName, XdmValue> parameters = new LinkedHashMap<>();
            for (Batch.Param p : header.params()) parameters.put(p.name(), p.value());
            transformation = new Transformation(engine.processor(), compiled.executable(), parameters, job,
                    header.base(), engine.targets(), engine.policy(), engine.clock(), ruleStats, engine.store(), engine.reads());
            timeLimit = header.timeLimit() != null ? header.timeLimit() : engine.timeLimit();
        } catch (ArnoException e) {
            job.failure = e.describe();
            report.append(element(x -> problem(x, e)));
            throw new Stop();
        }
    }

    /** A required stylesheet parameter that the batch does not set fails the job before any input runs. */
    static void checkParameters(XsltExecutable executable, List<Batch.Param> params, Batch.Code code) {
        List<String> missing = new ArrayList<>();
        executable.getGlobalParameters().forEach((name, details) -> {
            if (details.isRequired() && params.stream().noneMatch(p -> p.name().equals(name))) {
                missing.add(name.getEQName());
            }
        });
        if (!missing.isEmpty()) {
            String names = String.join(", ", missing);
            throw (missing.size() > 1 ? ErrorMessage.MISSING_PARAMETERS.error(code.label(), names)
                    : ErrorCode.MISSING_PARAMETER.error(code.label(), names)).at(code.where());
        }
    }

    private void submit(Batch.Input input) {
        if (input.index() <= Integer.MAX_VALUE && previous.done.get((int) input.index())) return;
        if (job.cancelRequested || stopping) throw new Stop();
        permits.acquireUninterruptibly();
        if (job.cancelRequested || stopping) {
            permits.release();
            throw new Stop();
        }
        underWay.put(input.index(), input);
        began.put(input.index(), System.nanoTime());
        job.running.incrementAndGet();
        try {
            engine.workers().execute(() -> transform(input));
        } catch (RejectedExecutionException e) {
            release(input.index());
            stopping = true;
            throw new Stop();
        }
    }

    private void transform(Batch.Input input) {
        try {
            // Handed out but not begun when the job was cancelled or the service stopped: not run
            // (a stopped job runs it after the restart; a cancelled one says it was cancelled).
            if (job.cancelRequested || stopping) {
                cancelledBeforeBegin(input);
                return;
            }
            // Page work first: while pages wait this worker waits (within its share), and that wait is not
            // the transformation's time, so it is not timed for abandoning either.
            long index = input.index();
            began.remove(index);
            Yield.Turn turn = engine.yielding().start(() -> job.cancelRequested || stopping);
            if (job.cancelRequested || stopping) {
                cancelledBeforeBegin(input);
                return;
            }
            began.put(index, System.nanoTime());
            Transformation.Outcome outcome;
            try {
                outcome = transformation.run(input, report, timeLimit, () -> job.cancelRequested,
                        () -> stopping, () -> underWay.containsKey(index), () -> {
                            long waited = turn.checkpoint();
                            if (waited > 0) began.computeIfPresent(index, (k, since) -> since + waited);
                            return waited;
                        });
            } finally {
                turn.end();
            }
            if (!underWay.containsKey(input.index())) return; // abandoned meanwhile: its entry is written
            if (outcome.status() == Transformation.Status.CANCELLED) cancelledEntries.put(index, input);
            switch (outcome.status()) {
                case OK -> job.succeeded.incrementAndGet();
                case FAILED -> job.failed.incrementAndGet();
                default -> { }
            }
            if (outcome.status() != Transformation.Status.STOPPED) markReported(input.index());
        } finally {
            release(input.index());
        }
    }

    /**
     * An input handed out to a worker but not begun when its job was cancelled: the report's
     * {@code <cancelled>} named it under way, so it gets its {@code status="cancelled"} entry like
     * those stopped while running (none for a service stop: it runs after the restart).
     */
    private void cancelledBeforeBegin(Batch.Input input) {
        if (!job.cancelRequested || !underWay.containsKey(input.index())) return;
        Instant now = engine.clock().instant();
        report.append(element(x -> x.start("transformation").attr("index", input.index()).attr("input", input.source().uri())
                .attr("output", input.output() == null ? null : input.output().uri())
                .attr("status", "cancelled").attr("stop", now).end().newline()));
        cancelledEntries.put(input.index(), input);
        markReported(input.index());
    }

    /** Gives back the worker slot of {@code index}, once: whoever takes it out of {@link #underWay} owns the slot. */
    private boolean release(long index) {
        if (underWay.remove(index) == null) return false;
        began.remove(index);
        job.running.decrementAndGet();
        permits.release();
        return true;
    }

    private void markReported(long index) {
        if (index > Integer.MAX_VALUE) return;
        synchronized (reported) {
            reported.set((int) index);
        }
    }

    /**
     * Waits until every transformation handed out has ended (every permit back). One that is
     * {@link #ABANDON_AFTER} past its time limit, or past a cancel or stop, is abandoned.
     */
    private void awaitUnderWay() {
        while (true) {
            try {
                if (permits.tryAcquire(parallelism, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    permits.release(parallelism);
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = System.nanoTime();
            long grace = ABANDON_AFTER.toNanos();
            if ((job.cancelRequested || stopping) && waitingSince == 0) waitingSince = now;
            for (Map.Entry<Long, Long> e : List.copyOf(began.entrySet())) {
                boolean overLimit = timeLimit != null && now - e.getValue() > timeLimit.toNanos() + grace;
                boolean afterStop = waitingSince != 0 && now - waitingSince > grace;
                if (overLimit || afterStop) abandon(e.getKey(), overLimit);
            }
        }
    }

    /** Gives up on a transformation that does not stop: its entry fails (or, on a stop, it runs again after the restart). */
    private void abandon(long index, boolean overLimit) {
        Batch.Input input = underWay.get(index);
        if (input == null || !release(index)) return;
        LOG.log(System.Logger.Level.WARNING, "batch job " + job.id + ": the transformation of " + input.source().uri()
                + " did not stop " + (overLimit ? "at its time limit" : "when asked") + "; its thread is abandoned and"
                + " keeps a core busy until the server restarts (a loop that calls no template or function)");
        if (engine.workers() instanceof java.util.concurrent.ThreadPoolExecutor pool) {
            // The abandoned thread never comes back: one more thread keeps the job's parallelism.
            synchronized (pool) {
                pool.setMaximumPoolSize(pool.getMaximumPoolSize() + 1);
                pool.setCorePoolSize(pool.getCorePoolSize() + 1);
            }
        }
        if (stopping && !job.cancelRequested) return; // runs again when the job resumes
        Instant now = engine.clock().instant();
        if (job.cancelRequested && !overLimit) {
            report.append(element(x -> x.start("transformation").attr("index", index).attr("input", input.source().uri())
                    .attr("status", "cancelled").attr("stop", now).attr("abandoned", "true").end().newline()));
        } else {
            ArnoException timeout = Guard.timeout(timeLimit, input.source().uri().toString());
            report.append(element(x -> {
                x.start("transformation").attr("index", index).attr("input", input.source().uri())
                        .attr("output", input.output() == null ? null : input.output().uri())
                        .attr("status", "failed").attr("stop", now).attr("abandoned", "true").newline();
                problem(x, timeout);
                x.end().newline();
            }));
            job.failed.incrementAndGet();
        }
        markReported(index);
    }

    /**
     * Cancels the run: the report names the transformations under way, then the job's
     * {@code cancelRequested} is raised, at which no new transformation starts and those under way
     * stop (their {@link Guard}s see it). In that order, so the report names what was stopped.
     */
    synchronized void cancel() {
        // Once the report is being completed it says what happened; a late cancel changes nothing.
        if (report != null && !completing) writeCancelled();
        job.cancelRequested = true;
    }

    /**
     * After a cancel, a {@code <not-run>} for every input that never started (neither in the report
     * before a restart nor in this run), read again from the batch file as a stream.
     */
    private void writeNotRun() {
        java.util.BitSet before = previous == null ? new java.util.BitSet() : previous.done;
        try (InputStream in = Files.newInputStream(job.batchFile())) {
            engine.parser().parse(new java.io.BufferedInputStream(in, 1 << 16), job.base, false, new Batch.Listener() {
                @Override public void header(Batch.Header header) { }

                @Override public void input(Batch.Input input) {
                    long index = input.index();
                    if (index <= Integer.MAX_VALUE) {
                        synchronized (reported) {
                            if (reported.get((int) index) || before.get((int) index)) return;
                        }
                    }
                    report.append(element(x -> x.start("not-run").attr("index", index).attr("input", input.source().uri())
                            .end().newline()));
                }
            });
        } catch (IOException | RuntimeException e) {
            // The totals still count them; the list is a courtesy that must not lose the report.
            LOG.log(System.Logger.Level.WARNING, "batch job " + job.id + ": the inputs not run cannot be listed: " + e);
        }
    }

    /** A job cancelled while it waited: its report says so and that nothing ran. */
    void cancelBeforeStart() {
        synchronized (this) {
            report = ReportWriter.create(job.dir);
            report.append(header());
            writeCancelled();
        }
        complete();
    }

    /** A job whose stylesheet failed when it was submitted: the report holds the compiler's messages. */
    void failBeforeStart(ArnoException e) {
        job.failure = e.describe();
        report = ReportWriter.create(job.dir);
        report.append(header());
        report.append(element(x -> problem(x, e)));
        complete();
    }

    private void writeCancelled() {
        if (cancelWritten) return;
        cancelWritten = true;
        // under way now, and those that were but wrote their cancelled entry first (each is in one or the other)
        Map<Long, Batch.Input> named = new java.util.TreeMap<>(cancelledEntries);
        named.putAll(underWay);
        List<Batch.Input> snapshot = new ArrayList<>(named.values());
        Instant at = job.cancelledAt;
        report.append(element(x -> {
            x.start("cancelled").attr("at", at).attr("under-way", snapshot.size()).newline();
            for (Batch.Input i : snapshot) {
                x.start("under-way").attr("index", i.index()).attr("input", i.source().uri()).end().newline();
            }
            x.end().newline();
        }));
    }

    /** Stops feeding for a service shutdown; transformations under way finish. */
    void stop() {
        stopping = true;
    }

    private void complete() {
        synchronized (this) {
            completing = true;
        }
        Instant now = engine.clock().instant();
        if (report == null) {
            report = ReportWriter.create(job.dir);
            report.append(header());
        }
        if (job.started == null) job.started = now;
        if (job.cancelRequested || job.failure != null) {
            job.notRun.set(Math.max(0, job.total - job.done()));
        }
        if (job.cancelRequested && job.failure == null) writeNotRun();
        double seconds = Duration.between(job.started, now).toNanos() / 1e9;
        report.complete(element(x -> {
            x.start("totals").attr("inputs", job.total).attr("succeeded", job.succeeded.get())
                    .attr("failed", job.failed.get()).attr("not-run", job.notRun.get())
                    .attr("started", job.started).attr("finished", now)
                    .attr("seconds", String.format(java.util.Locale.ROOT, "%.3f", seconds))
                    .attr("rate", String.format(java.util.Locale.ROOT, "%.1f", job.rate(System.nanoTime())))
                    .end().newline();
            if (job.kind == Batch.Kind.SCHEMATRON) ruleStats.write(x);
            x.flush();
        }).concat("</report>\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        report.close();
        job.finishedAt = now;
        job.status = job.failure != null ? Job.Status.FAILED
                : job.cancelRequested ? Job.Status.CANCELLED
                : job.failed.get() > 0 ? Job.Status.FAILED
                : Job.Status.COMPLETED;
        job.save();
    }

    private String header() {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element(x -> x.start("report")
                .attr("xmlns", Batch.NS).attr("job", job.id).attr("name", job.name).attr("kind", job.kind.name().toLowerCase())
                .attr("stylesheet", job.stylesheet).attr("inputs", job.total).attr("submitted", job.submitted)
                .text("\n").flush());
    }

    /**
     * What failed the whole job (its stylesheet, its parameters, its batch), as the report's
     * child {@code err:error}; an input's error sits inside its {@code transformation}.
     */
    static void problem(XmlWriter x, ArnoException e) {
        ErrorXml.write(x, e, null, true);
        x.newline();
    }

    static String element(java.util.function.Consumer<XmlWriter> write) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        XmlWriter xml = new XmlWriter(bytes);
        write.accept(xml);
        xml.flush();
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A resumed Schematron job re-reads the SVRL it kept for the inputs already done. */
    private void rebuildRuleStats() {
        Path dir = job.dir.resolve(Job.SVRL);
        var builder = engine.processor().newDocumentBuilder();
        for (int i = previous.done.nextSetBit(0); i >= 0; i = previous.done.nextSetBit(i + 1)) {
            Path file = dir.resolve(i + ".xml");
            if (!Files.exists(file)) continue;
            try {
                ruleStats.add(Svrl.summarize(builder.build(file.toFile())).perRule());
            } catch (SaxonApiException e) {
                throw new UncheckedIOException(new IOException("kept SVRL " + file + " cannot be read", e));
            }
        }
    }
}
