package arno.perf.cache;

import java.util.Random;

/**
 * A web site's request stream: page popularity follows Zipf's law, and every {@code period}
 * requests a crawler walks {@code scanLength} pages that nobody else asks for (each scan
 * page appears once in the whole trace). Keys below {@code pages} are the site's pages,
 * ranked by popularity; keys from {@code pages} up are scan pages.
 *
 * @param pages      distinct popular pages
 * @param exponent   Zipf exponent (about 0.7 to 1 for web traffic)
 * @param period     requests from one scan's start to the next
 * @param scanLength requests in one scan (0: no scans)
 * @param seed       for the random draws
 */
record Workload(int pages, double exponent, int period, int scanLength, long seed) {

    /** The benchmark's default: 100,000 pages, Zipf 0.9, a 10,000-page crawl every 50,000. */
    static Workload standard() {
        return new Workload(100_000, 0.9, 50_000, 10_000, 42);
    }

    Workload withoutScans() {
        return new Workload(pages, exponent, period, 0, seed);
    }

    boolean isScan(int key) {
        return key >= pages;
    }

    /** {@code length} requests, boxed once so the benchmark loop allocates nothing. */
    Integer[] trace(int length) {
        double[] cdf = new double[pages];
        double sum = 0;
        for (int rank = 0; rank < pages; rank++) {
            sum += 1 / Math.pow(rank + 1, exponent);
            cdf[rank] = sum;
        }
        Random random = new Random(seed);
        Integer[] trace = new Integer[length];
        int nextScanPage = pages;
        for (int i = 0; i < length; i++) {
            if (i % period < scanLength) {
                trace[i] = nextScanPage++;
            } else {
                double u = random.nextDouble() * sum;
                int lo = 0;
                int hi = pages - 1;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (cdf[mid] < u) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                trace[i] = lo;
            }
        }
        return trace;
    }

    @Override
    public String toString() {
        return String.format("%,d pages, Zipf %.2f, %s", pages, exponent, scanLength == 0 ? "no scans"
                : String.format("a %,d-page scan every %,d requests (%.0f%% of requests)", scanLength, period,
                        100.0 * scanLength / period));
    }
}
