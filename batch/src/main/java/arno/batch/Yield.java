package arno.batch;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Page work comes first: a batch worker asks this before each transformation and at its
 * {@link Guard}'s checkpoints, and while the server's {@link PagePressure} says pages are waiting it
 * waits, re-checking every {@link #POLL}, but never for ever: it keeps a minimum share of its time
 * ({@link BatchOptions#minShare()}, {@code s}).
 *
 * <p>Why not a lower thread priority: on Linux the JVM ignores Java thread priorities unless it runs
 * with {@code -XX:ThreadPriorityPolicy=1} and root (niceness cannot be lowered per thread without
 * privileges it lacks either), so batch threads would compete with page threads as equals. The
 * only portable way to give pages the cores is for batch work not to run.
 *
 * <p>The share, by accounting. Each worker thread keeps {@code ran}, the nanoseconds it has run
 * transformations since it last gave way. When pages are busy it may wait up to
 * {@code ran * (1 - s) / s}; what it waited pays off {@code waited * s / (1 - s)} of {@code ran}.
 * So under unending page pressure a worker runs {@code s} of the time (for {@code s = 0.1}: after a
 * 50 ms transformation it waits up to 450 ms), and as soon as the pressure clears it runs at full
 * speed. A new worker starts owing one {@link #PAUSE} of run time, so that pressure already there
 * holds even its first transformation back ({@code PAUSE * (1 - s) / s}, 900 ms at 0.1). With
 * {@code s = 1} it never waits (yielding off).
 *
 * <p>Thread rules: one instance per service; the accounts are per worker thread (a
 * {@link ThreadLocal}), so no lock is taken. A wait ends early, within {@link #POLL}, when the
 * caller's {@code stop} (cancel, service stopping) becomes true.
 */
final class Yield {
    /** The run time a new worker is counted as owing, so a first transformation yields too. */
    static final Duration PAUSE = Duration.ofMillis(100);
    /** How often a waiting worker asks again whether pages still wait. */
    static final Duration POLL = Duration.ofMillis(10);

    /** Never waits. */
    static final Yield NEVER = new Yield(PagePressure.NONE, 1.0);

    private final PagePressure pressure;
    private final double share;
    private final ThreadLocal<long[]> ran = ThreadLocal.withInitial(() -> new long[] {PAUSE.toNanos()});

    Yield(PagePressure pressure, double share) {
        this.pressure = pressure;
        this.share = share;
    }

    /**
     * Before a transformation: gives way while pages are busy (within the share, or until {@code stop}),
     * then starts counting the transformation's run time.
     */
    Turn start(BooleanSupplier stop) {
        giveWay(stop);
        return new Turn(stop);
    }

    /** One transformation's run on this thread: its checkpoints and its end count its run time. */
    final class Turn {
        private final BooleanSupplier stop;
        private long since = System.nanoTime();

        private Turn(BooleanSupplier stop) {
            this.stop = stop;
        }

        /** At a checkpoint of the running transformation: gives way if pages are busy; returns the nanoseconds waited. */
        long checkpoint() {
            if (share >= 1.0) return 0;
            long now = System.nanoTime();
            ran.get()[0] += now - since;
            long waited = giveWay(stop);
            since = waited == 0 ? now : System.nanoTime();
            return waited;
        }

        /** The transformation has ended (on the thread that ran it). */
        void end() {
            if (share < 1.0) ran.get()[0] += System.nanoTime() - since;
        }
    }

    /** Waits while pages are busy, within this thread's share; returns the nanoseconds waited. */
    private long giveWay(BooleanSupplier stop) {
        if (share >= 1.0 || !pressure.busy()) return 0;
        long[] account = ran.get();
        long bound = (long) (account[0] * ((1 - share) / share));
        long start = System.nanoTime();
        long waited = 0;
        try {
            while (waited < bound && !stop.getAsBoolean()) {
                long sleep = Math.min(POLL.toNanos(), bound - waited);
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                waited = System.nanoTime() - start;
                if (!pressure.busy()) break;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            waited = System.nanoTime() - start;
        }
        account[0] = Math.max(0, account[0] - (long) (waited * (share / (1 - share))));
        return waited;
    }
}
