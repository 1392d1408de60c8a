package arno.perf.pages;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop page clients for the load drivers: each fetches a random page of a list, times it,
 * and goes again until stopped; then the rate, percentiles and a one-line summary. At most 131,072
 * pages per client (1 MB of times each), so a driver sharing a small heap with the server fits.
 */
public final class PageClients {
    private final List<Thread> threads = new ArrayList<>();
    private final List<long[]> times = new ArrayList<>();
    private final AtomicInteger[] counts;
    private final AtomicLong errors = new AtomicLong();
    private volatile boolean stop;
    private long started;
    private long stopped;

    private PageClients(int clients) {
        counts = new AtomicInteger[clients];
    }

    public static PageClients run(HttpClient http, String base, List<String> pages, int clients) {
        PageClients p = new PageClients(clients);
        p.started = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            // 131,072 pages per client and phase at most: 1 MB each, so the harness fits the server's 256 MB heap
            // (it shares the JVM); at 8 MB each, four phases ran it out of memory.
            long[] t = new long[1 << 17];
            AtomicInteger n = new AtomicInteger();
            p.times.add(t);
            p.counts[i] = n;
            Thread th = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!p.stop && n.get() < t.length) {
                    URI uri = URI.create(base + pages.get(random.nextInt(pages.size())));
                    long s = System.nanoTime();
                    try {
                        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri).build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        if (r.statusCode() != 200) p.errors.incrementAndGet();
                    } catch (IOException | InterruptedException e) {
                        p.errors.incrementAndGet();
                    }
                    t[n.getAndIncrement()] = System.nanoTime() - s;
                }
            }, "page-client-" + i);
            th.start();
            p.threads.add(th);
        }
        return p;
    }

    public void stop() throws InterruptedException {
        stop = true;
        for (Thread t : threads) t.join();
        stopped = System.nanoTime();
    }

    private long[] all() {
        int total = 0;
        for (AtomicInteger c : counts) total += c.get();
        long[] a = new long[total];
        int at = 0;
        for (int i = 0; i < times.size(); i++) {
            System.arraycopy(times.get(i), 0, a, at, counts[i].get());
            at += counts[i].get();
        }
        Arrays.sort(a);
        return a;
    }

    public double rate() {
        return all().length / ((stopped - started) / 1e9);
    }

    public double percentile(double q) {
        long[] a = all();
        return a.length == 0 ? Double.NaN : a[Math.min(a.length - 1, (int) Math.ceil(q * a.length) - 1)] / 1e6;
    }

    public String summary() {
        long[] a = all();
        double secs = (stopped - started) / 1e9;
        return String.format(Locale.ROOT, "%,d pages in %.1f s = %.0f pages/s; p50 %.2f ms, p90 %.2f ms, p99 %.2f ms,"
                + " max %.1f ms; %d errors", a.length, secs, a.length / secs, percentile(0.5), percentile(0.9),
                percentile(0.99), a.length == 0 ? 0 : a[a.length - 1] / 1e6, errors.get());
    }
}
