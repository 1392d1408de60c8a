package arno.batch;

import arno.store.atom.AtomStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a {@link BatchService} is set up. Every default is here and nowhere
 * else; a bad value is refused when the options are built
 * ({@link ErrorCode#BAD_CONFIGURATION}), with the setting's name and the value.
 *
 * <pre>{@code
 * BatchOptions options = BatchOptions.builder(Path.of("data/batch"))
 *         .roots(List.of(Path.of("/srv/content")))
 *         .workers(2)
 *         .build();
 * }</pre>
 *
 * @param workDirectory  where accepted jobs, their reports and the users file live
 * @param roots          the only folders batches may read files from and write files to; none by default,
 *                       and then a batch may name no file at all (never the data folder by default)
 * @param workers        worker threads shared by all jobs (default: available processors)
 * @param queueBound     jobs that may wait; one more is answered 503 with Retry-After (default 100)
 * @param runningJobs    jobs that run at once, sharing the workers (default 2)
 * @param usersFile      accounts allowed to submit, read and cancel (default {@code workDirectory/users})
 * @param maxBatchBytes  largest batch document accepted (default 256 MiB, about two million inputs)
 * @param xmlPolicy      how batch documents, inputs, stylesheets and what they read are parsed
 *                       (default {@link XmlPolicy#DEFAULT})
 * @param outbound       which URLs inputs, outputs, stylesheets and {@code doc()} may reach, with its
 *                       timeout (default {@link Outbound.Policy#DEFAULT}: no private, loopback or
 *                       link-local addresses)
 * @param hosts          host names (optionally {@code name:port}) the service may put into absolute URLs
 *                       ({@code Location}, links) when a request's {@code Host} names one; with none, or for any
 *                       other {@code Host}, URLs are relative ({@code /batch/jobs/ID})
 * @param clock          the time written in reports and status (tests fix it)
 * @param store          the server's store service, through which {@code store:} inputs are read and
 *                       {@code store:} outputs written; null (the default) when the server has none, and then
 *                       a batch naming a {@code store:} URI is refused
 * @param timeLimit      one transformation's time limit unless its batch sets one ({@code time-limit} on
 *                       {@code <batch>}); default {@link #DEFAULT_TIME_LIMIT}
 * @param pagePressure   whether page requests are waiting for the server's workers (default
 *                       {@link PagePressure#NONE}: never); batch workers give way to them
 * @param minShare       the least share of its time a batch worker keeps while pages wait, above 0 and at most 1
 *                       (default {@link #DEFAULT_MIN_SHARE}); 1 turns giving way off (see {@link Yield})
 */
public record BatchOptions(Path workDirectory, List<Path> roots, int workers, int queueBound, int runningJobs,
                           Path usersFile, long maxBatchBytes, XmlPolicy xmlPolicy, Outbound.Policy outbound,
                           List<String> hosts, Clock clock, AtomStore store, java.time.Duration timeLimit,
                           PagePressure pagePressure, double minShare) {

    public BatchOptions {
        Objects.requireNonNull(workDirectory, "workDirectory");
        roots = List.copyOf(Objects.requireNonNull(roots, "roots"));
        hosts = Objects.requireNonNull(hosts, "hosts").stream().map(h -> h.strip().toLowerCase(Locale.ROOT)).toList();
        Objects.requireNonNull(usersFile, "usersFile");
        Objects.requireNonNull(xmlPolicy, "xmlPolicy");
        Objects.requireNonNull(outbound, "outbound");
        Objects.requireNonNull(clock, "clock");
        require(workers >= 1, "workers", workers, "at least 1");
        require(queueBound >= 1, "queueBound", queueBound, "at least 1");
        require(runningJobs >= 1, "runningJobs", runningJobs, "at least 1");
        require(maxBatchBytes >= 1024, "maxBatchBytes", maxBatchBytes, "at least 1024");
        Objects.requireNonNull(pagePressure, "pagePressure");
        require(minShare > 0 && minShare <= 1, "minShare", minShare, "above 0 and at most 1");
        require(timeLimit != null && !timeLimit.isNegative() && !timeLimit.isZero(), "timeLimit", timeLimit, "positive");
        for (String h : hosts) require(!h.isEmpty() && !h.contains("/") && !h.contains(" "), "hosts", h, "a host name");
    }

    private static void require(boolean ok, String name, Object value, String what) {
        if (!ok) throw ErrorMessage.BATCH_OPTION.error(name, what, value);
    }

    public static Builder builder(Path workDirectory) {
        return new Builder(workDirectory);
    }

    /** These options with {@code store} as the store service (a server opens its store after checking its options). */
    public BatchOptions withStore(AtomStore store) {
        return new BatchOptions(workDirectory, roots, workers, queueBound, runningJobs, usersFile, maxBatchBytes,
                xmlPolicy, outbound, hosts, clock, store, timeLimit, pagePressure, minShare);
    }

    /**
     * These options with {@code pressure} telling whether pages wait (a server knows its page
     * workers only once it has started them).
     */
    public BatchOptions withPagePressure(PagePressure pressure) {
        return new BatchOptions(workDirectory, roots, workers, queueBound, runningJobs, usersFile, maxBatchBytes,
                xmlPolicy, outbound, hosts, clock, store, timeLimit, pressure, minShare);
    }

    /** Defaults for everything; {@link #build} validates. */
    /** Transformations run at once by default: one per core, since a transformation is CPU work. */
    public static final int DEFAULT_WORKERS = Runtime.getRuntime().availableProcessors();
    /** Jobs that may wait by default; more are refused with 503 and Retry-After. */
    public static final int DEFAULT_QUEUE = 100;
    /**
     * One transformation's time limit by default: ten minutes is far beyond a journal article's
     * transformation (milliseconds to seconds) and still ends a stylesheet that loops within the hour.
     */
    public static final java.time.Duration DEFAULT_TIME_LIMIT = java.time.Duration.ofMinutes(10);
    /**
     * The least share of its time a batch worker keeps while pages wait, by default: pages get nine
     * tenths of a core a batch worker would use, and a batch still finishes under unending load.
     */
    public static final double DEFAULT_MIN_SHARE = 0.1;

    public static final class Builder {
        private final Path workDirectory;
        private List<Path> roots = List.of();
        private int workers = DEFAULT_WORKERS;
        private int queueBound = DEFAULT_QUEUE;
        private int runningJobs = 2;
        private Path usersFile;
        private long maxBatchBytes = 256L << 20;
        private XmlPolicy xmlPolicy = XmlPolicy.DEFAULT;
        private Outbound.Policy outbound = Outbound.Policy.DEFAULT;
        private List<String> hosts = List.of();
        private Clock clock = Clock.systemUTC();
        private AtomStore store;
        private java.time.Duration timeLimit = DEFAULT_TIME_LIMIT;
        private PagePressure pagePressure = PagePressure.NONE;
        private double minShare = DEFAULT_MIN_SHARE;

        private Builder(Path workDirectory) {
            this.workDirectory = workDirectory;
        }

        public Builder roots(List<Path> roots) {
            this.roots = roots;
            return this;
        }

        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        public Builder queueBound(int queueBound) {
            this.queueBound = queueBound;
            return this;
        }

        public Builder runningJobs(int runningJobs) {
            this.runningJobs = runningJobs;
            return this;
        }

        public Builder usersFile(Path usersFile) {
            this.usersFile = usersFile;
            return this;
        }

        public Builder maxBatchBytes(long maxBatchBytes) {
            this.maxBatchBytes = maxBatchBytes;
            return this;
        }

        public Builder xmlPolicy(XmlPolicy xmlPolicy) {
            this.xmlPolicy = xmlPolicy;
            return this;
        }

        public Builder outbound(Outbound.Policy outbound) {
            this.outbound = outbound;
            return this;
        }

        public Builder hosts(List<String> hosts) {
            this.hosts = hosts;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder store(AtomStore store) {
            this.store = store;
            return this;
        }

        /** One transformation's time limit unless its batch sets one. */
        public Builder timeLimit(java.time.Duration limit) {
            this.timeLimit = limit;
            return this;
        }

        /** Whether page requests are waiting; batch workers give way to them. */
        public Builder pagePressure(PagePressure pressure) {
            this.pagePressure = pressure;
            return this;
        }

        /** The least share of its time a batch worker keeps while pages wait; 1 never gives way. */
        public Builder minShare(double share) {
            this.minShare = share;
            return this;
        }

        public BatchOptions build() {
            Objects.requireNonNull(workDirectory, "workDirectory");
            return new BatchOptions(workDirectory, roots, workers, queueBound, runningJobs,
                    usersFile != null ? usersFile : workDirectory.resolve("users"), maxBatchBytes, xmlPolicy, outbound,
                    hosts, clock, store, timeLimit, pagePressure, minShare);
        }
    }
}
