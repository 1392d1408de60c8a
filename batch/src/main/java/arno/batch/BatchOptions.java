package arno.batch;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link BatchService} is set up. Every default is here and nowhere
 * else; a bad value is refused when the options are built, with the setting's
 * name and the value.
 *
 * <pre>{@code
 * BatchOptions options = BatchOptions.builder(Path.of("data/batch"))
 *         .roots(List.of(Path.of("/srv/content")))
 *         .workers(2)
 *         .build();
 * }</pre>
 *
 * @param workDirectory  where accepted jobs, their reports and the users file live
 * @param roots          the only folders batches may read files from and write files to
 * @param workers        worker threads shared by all jobs (default: available processors)
 * @param queueBound     jobs that may wait; one more is answered 503 with Retry-After (default 100)
 * @param runningJobs    jobs that run at once, sharing the workers (default 2)
 * @param usersFile      accounts allowed to submit and cancel (default {@code workDirectory/users})
 * @param maxBatchBytes  largest batch document accepted (default 256 MiB, about two million inputs)
 * @param httpTimeout    connect and read timeout for http(s) inputs, stylesheets and outputs (default 60 s)
 * @param clock          the time written in reports and status (tests fix it)
 */
public record BatchOptions(Path workDirectory, List<Path> roots, int workers, int queueBound, int runningJobs,
                           Path usersFile, long maxBatchBytes, Duration httpTimeout, Clock clock) {

    public BatchOptions {
        Objects.requireNonNull(workDirectory, "workDirectory");
        roots = List.copyOf(Objects.requireNonNull(roots, "roots"));
        Objects.requireNonNull(usersFile, "usersFile");
        Objects.requireNonNull(httpTimeout, "httpTimeout");
        Objects.requireNonNull(clock, "clock");
        require(workers >= 1, "workers", workers, "at least 1");
        require(queueBound >= 1, "queueBound", queueBound, "at least 1");
        require(runningJobs >= 1, "runningJobs", runningJobs, "at least 1");
        require(maxBatchBytes >= 1024, "maxBatchBytes", maxBatchBytes, "at least 1024");
        require(!httpTimeout.isNegative() && !httpTimeout.isZero(), "httpTimeout", httpTimeout, "positive");
    }

    private static void require(boolean ok, String name, Object value, String what) {
        if (!ok) throw new IllegalArgumentException("batch option " + name + " must be " + what + ", not " + value);
    }

    public static Builder builder(Path workDirectory) {
        return new Builder(workDirectory);
    }

    /** Defaults for everything; {@link #build} validates. */
    public static final class Builder {
        private final Path workDirectory;
        private List<Path> roots = List.of();
        private int workers = Runtime.getRuntime().availableProcessors();
        private int queueBound = 100;
        private int runningJobs = 2;
        private Path usersFile;
        private long maxBatchBytes = 256L << 20;
        private Duration httpTimeout = Duration.ofSeconds(60);
        private Clock clock = Clock.systemUTC();

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

        public Builder httpTimeout(Duration httpTimeout) {
            this.httpTimeout = httpTimeout;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public BatchOptions build() {
            Objects.requireNonNull(workDirectory, "workDirectory");
            return new BatchOptions(workDirectory, roots, workers, queueBound, runningJobs,
                    usersFile != null ? usersFile : workDirectory.resolve("users"), maxBatchBytes, httpTimeout, clock);
        }
    }
}
