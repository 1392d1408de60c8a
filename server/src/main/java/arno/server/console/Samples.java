package arno.server.console;

import arno.pipeline.PageCacheStats;
import arno.pipeline.RequestObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * The console's plots' data: every {@link #PERIOD_MILLIS} one point (request rate, latency p50
 * and p99, page cache hit ratio) in a ring of {@link #POINTS} (an hour).
 *
 * <p>Latency: each finished request adds one to a bucket of a log-scale histogram (bucket i holds
 * up to 0.1 ms times 1.25^i, so 80 buckets reach past a minute; a quantile is read as its bucket's
 * upper bound, within 25%); the sampler takes the counts and zeroes them (getAndSet per bucket: a
 * request recorded during the pass lands in this period or the next, never lost). The hit ratio is
 * the page caches' hits over lookups since the previous point, summed over the sites. Per request:
 * one array increment, nothing allocated.
 */
final class Samples implements RequestObserver, AutoCloseable {
    static final int POINTS = 360;
    static final long PERIOD_MILLIS = 10_000;
    private static final int BUCKETS = 80;
    private static final double FIRST = 0.1;
    private static final double GROWTH = 1.25;

    /** One sample; NaN where there was nothing to measure (no requests, no cache lookups). */
    record Point(long epochMillis, double perSecond, double p50Millis, double p99Millis, double hitRatio) {}

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final Supplier<Map<String, PageCacheStats>> caches;
    private final Point[] ring = new Point[POINTS];
    private int added;
    private long lastHits;
    private long lastLookups;
    private long lastMillis = System.currentTimeMillis();
    private final ScheduledExecutorService timer;

    Samples(Supplier<Map<String, PageCacheStats>> caches) {
        this.caches = caches;
        long[] hl = hitsAndLookups();
        lastHits = hl[0];
        lastLookups = hl[1];
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "arno-console-samples");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::sample, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void done(String site, String route, int status, long nanos) {
        double millis = nanos / 1e6;
        int i = millis <= FIRST ? 0 : (int) Math.ceil(Math.log(millis / FIRST) / Math.log(GROWTH));
        counts.incrementAndGet(Math.min(BUCKETS - 1, Math.max(0, i)));
    }

    /** Takes one point now (the timer calls it every period). */
    synchronized void sample() {
        try {
            long now = System.currentTimeMillis();
            long[] taken = new long[BUCKETS];
            long n = 0;
            for (int i = 0; i < BUCKETS; i++) n += taken[i] = counts.getAndSet(i, 0);
            long[] hl = hitsAndLookups();
            long hits = hl[0] - lastHits;
            long lookups = hl[1] - lastLookups;
            lastHits = hl[0];
            lastLookups = hl[1];
            double seconds = Math.max(1, now - lastMillis) / 1000.0;
            lastMillis = now;
            ring[added++ % POINTS] = new Point(now, n / seconds, quantile(taken, n, 0.5), quantile(taken, n, 0.99),
                    lookups > 0 && hits >= 0 ? (double) hits / lookups : Double.NaN);
        } catch (RuntimeException e) {
            // a site reloading under us: no point this time
        }
    }

    private static double quantile(long[] counts, long n, double q) {
        if (n == 0) return Double.NaN;
        long rank = (long) Math.ceil(q * n);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) return FIRST * Math.pow(GROWTH, i);
        }
        return FIRST * Math.pow(GROWTH, counts.length - 1);
    }

    private long[] hitsAndLookups() {
        long hits = 0;
        long lookups = 0;
        try {
            for (PageCacheStats s : caches.get().values()) {
                long h = s.memory().hits() + s.disk().hits();
                hits += h;
                lookups += h + s.misses();
            }
        } catch (RuntimeException e) {
            // sites not compiled (a broken edit in development): no figures
        }
        return new long[] {hits, lookups};
    }

    /** The points, oldest first. */
    synchronized List<Point> points() {
        int n = Math.min(added, POINTS);
        List<Point> out = new ArrayList<>(n);
        for (int i = added - n; i < added; i++) out.add(ring[i % POINTS]);
        return out;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
