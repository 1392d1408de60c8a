package arno.perf;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The soak (issue 14, item 11): mixed load against one running server for a number of minutes,
 * reported per minute: page clients in closed loops over random full-text and abstract pages;
 * one writer replacing an article's JATS variant through the store API (GET, edit the title, PUT
 * with If-Match) at a steady rate, so the page caches keep being invalidated; a Schematron batch
 * over stored articles submitted every minute; and every 10 s the server's heap after its last
 * collection of any kind ({@code arno_jvm_heap_after_gc_bytes}) from {@code /_arno/metrics}.
 * Counts every 5xx (goal 0) and prints, per minute, pages, their p50 and p99, writes, batch jobs
 * finished, 5xx, the lowest and highest heap after GC seen in the minute, the heap after the last
 * old-generation collection ({@code arno_jvm_heap_after_old_gc_bytes}: the floor), and the server's and the
 * whole machine's CPU use (the client runs on the same machine). Exits 1 if any 5xx.
 *
 * <pre>Soak BASE USER PASSWORD MINUTES PAGE-CLIENTS WRITES-PER-SECOND SCHEMATRON-FILE PATHS-FILE</pre>
 * PATHS-FILE lists full-text page paths, one per line ({@code PerfServer --list}).
 */
public final class Soak {
    private static final Pattern GAUGE = Pattern.compile("^(arno_jvm_heap_after_gc_bytes|arno_jvm_heap_after_old_gc_bytes|jvm_memory_used_bytes|process_cpu_usage|system_cpu_usage)(?:\\{([^}]*)\\})? (\\S+)$",
            Pattern.MULTILINE);

    public static void main(String[] args) throws Exception {
        String base = args[0];
        String auth = "Basic " + Base64.getEncoder().encodeToString((args[1] + ":" + args[2]).getBytes(StandardCharsets.UTF_8));
        int minutes = Integer.parseInt(args[3]);
        int clients = Integer.parseInt(args[4]);
        double writesPerSecond = Double.parseDouble(args[5]);
        Path schematron = Path.of(args[6]).toAbsolutePath();
        List<String> full = Files.readAllLines(Path.of(args[7])).stream().filter(l -> l.startsWith("/")).toList();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        long end = System.nanoTime() + minutes * 60_000_000_000L;
        Minute[] perMinute = new Minute[minutes + 1];
        for (int i = 0; i < perMinute.length; i++) perMinute[i] = new Minute();
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();

        for (int c = 0; c < clients; c++) {
            threads.add(start(() -> {
                while (System.nanoTime() < end) {
                    String page = full.get(ThreadLocalRandom.current().nextInt(full.size()));
                    if (ThreadLocalRandom.current().nextBoolean()) page = page.substring(0, page.length() - "/full".length());
                    long t = System.nanoTime();
                    int status = send(http, HttpRequest.newBuilder(URI.create(base + page)).build());
                    Minute m = perMinute[minute(start)];
                    m.pageNanos.recordValue(Math.min(System.nanoTime() - t, Minute.LONGEST));
                    if (status >= 500 || status < 0) m.errors5xx.incrementAndGet();
                }
            }));
        }

        threads.add(start(() -> {
            long gap = (long) (1_000_000_000L / writesPerSecond);
            long next = System.nanoTime();
            int n = 0;
            while (System.nanoTime() < end) {
                String page = full.get(ThreadLocalRandom.current().nextInt(full.size()));
                String resource = "/store/journals/" + (page.startsWith("/journal-a/") ? "ja" : "jb")
                        + page.substring(page.indexOf('/', 1), page.length() - "/full".length()) + ".xml";
                Minute m = perMinute[minute(start)];
                try {
                    HttpResponse<String> got = http.send(HttpRequest.newBuilder(URI.create(base + resource)).header("Authorization", auth).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (got.statusCode() >= 500) m.errors5xx.incrementAndGet();
                    if (got.statusCode() == 200) {
                        String edited = got.body().replaceFirst("<article-title>(.*?)</article-title>",
                                "<article-title>Soak edit " + (n++) + "</article-title>");
                        int status = send(http, HttpRequest.newBuilder(URI.create(base + resource)).header("Authorization", auth)
                                .header("If-Match", got.headers().firstValue("ETag").orElse("*"))
                                .header("Content-Type", "application/xml").PUT(HttpRequest.BodyPublishers.ofString(edited)).build());
                        if (status >= 500 || status < 0) m.errors5xx.incrementAndGet();
                        else if (status < 300) m.writes.incrementAndGet();
                    }
                } catch (IOException | InterruptedException e) {
                    m.errors5xx.incrementAndGet();
                }
                next += gap;
                sleepUntil(Math.min(next, end)); // at a slow rate the next write may lie past the end
            }
        }));

        threads.add(start(() -> {
            while (System.nanoTime() < end) {
                StringBuilder batch = new StringBuilder("<batch xmlns=\"urn:arno:batch\" name=\"soak\">\n  <schematron href=\"")
                        .append(schematron.toUri()).append("\"/>\n");
                for (int i = 0; i < 50; i++) {
                    String page = full.get(ThreadLocalRandom.current().nextInt(full.size()));
                    batch.append("  <input href=\"store:/journals/").append(page.startsWith("/journal-a/") ? "ja" : "jb")
                            .append(page, page.indexOf('/', 1), page.length() - "/full".length()).append(".xml\"/>\n");
                }
                batch.append("</batch>\n");
                Minute m = perMinute[minute(start)];
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/batch/jobs")).header("Authorization", auth)
                            .header("Content-Type", "application/xml").header("Content-Location", schematron.getParent().toUri().toString())
                            .POST(HttpRequest.BodyPublishers.ofString(batch.toString())).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() >= 500) m.errors5xx.incrementAndGet();
                    if (r.statusCode() == 202) {
                        URI job = URI.create(base + "/").resolve(r.headers().firstValue("Location").orElseThrow());
                        while (System.nanoTime() < end) {
                            HttpResponse<String> s = http.send(HttpRequest.newBuilder(job).header("Authorization", auth).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            if (s.statusCode() >= 500) m.errors5xx.incrementAndGet();
                            if (s.body().contains("status=\"completed\"") || s.body().contains("status=\"failed\"")) {
                                perMinute[minute(start)].batches.incrementAndGet();
                                break;
                            }
                            Thread.sleep(1000);
                        }
                    } else {
                        System.err.println("soak: batch refused " + r.statusCode() + ": " + r.body());
                    }
                    sleepUntil(Math.min(System.nanoTime() + 60_000_000_000L, end));
                } catch (IOException | InterruptedException e) {
                    m.errors5xx.incrementAndGet();
                }
            }
        }));

        threads.add(start(() -> {
            while (System.nanoTime() < end) {
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/_arno/metrics")).header("Authorization", auth).build(),
                            HttpResponse.BodyHandlers.ofString());
                    double after = Double.NaN;
                    double used = 0;
                    Minute m = perMinute[minute(start)];
                    Matcher g = GAUGE.matcher(r.body());
                    while (g.find()) {
                        if (g.group(1).equals("arno_jvm_heap_after_gc_bytes")) after = Double.parseDouble(g.group(3));
                        else if (g.group(1).equals("arno_jvm_heap_after_old_gc_bytes")) {
                            double v = Double.parseDouble(g.group(3));
                            if (!Double.isNaN(v)) m.afterOldGc.set((long) v);
                        } else if (g.group(1).equals("process_cpu_usage")) m.serverCpu.add(Double.parseDouble(g.group(3)));
                        else if (g.group(1).equals("system_cpu_usage")) m.machineCpu.add(Double.parseDouble(g.group(3)));
                        else if (g.group(2) != null && g.group(2).contains("area=\"heap\"")) used += Double.parseDouble(g.group(3));
                    }
                    if (!Double.isNaN(after)) {
                        m.afterGcMin.accumulateAndGet((long) after, Math::min);
                        m.afterGcMax.accumulateAndGet((long) after, Math::max);
                    }
                    m.usedHeap.set(Math.max(m.usedHeap.get(), (long) used));
                    Thread.sleep(10_000);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        }));

        for (Thread t : threads) t.join();
        long errors = 0;
        System.out.println("| minute | pages | p50 ms | p99 ms | writes | batches done | 5xx | heap after GC, MB (min–max) | after old-gen GC, MB | heap used max MB | CPU % server / machine |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (int i = 0; i < minutes; i++) {
            Minute m = perMinute[i];
            Histogram t = m.pageNanos.copy();
            errors += m.errors5xx.get();
            String afterGc = m.afterGcMax.get() < 0 ? "no collection"
                    : String.format("%.1f–%.1f", m.afterGcMin.get() / 1e6, m.afterGcMax.get() / 1e6);
            String afterOld = m.afterOldGc.get() < 0 ? "none yet" : String.format("%.1f", m.afterOldGc.get() / 1e6);
            System.out.printf("| %d | %,d | %.1f | %.1f | %d | %d | %d | %s | %s | %.1f | %.0f / %.0f |%n", i + 1, t.getTotalCount(), t.getValueAtPercentile(50) / 1e6, t.getValueAtPercentile(99) / 1e6,
                    m.writes.get(), m.batches.get(), m.errors5xx.get(), afterGc, afterOld, m.usedHeap.get() / 1e6,
                    m.serverCpu.average() * 100, m.machineCpu.average() * 100);
        }
        errors += perMinute[minutes].errors5xx.get();
        System.out.println("5xx in all: " + errors);
        System.exit(errors == 0 ? 0 : 1);
    }

    /**
     * One minute's figures. Page times go to a histogram of fixed size (1 µs to a minute, three significant digits):
     * a list of every time grew by 20 MB a minute and, in a 512 MB client, slowed the client
     * itself after ten minutes, which read as the server slowing down.
     */
    private static final class Minute {
        static final long LONGEST = 60_000_000_000L;
        final ConcurrentHistogram pageNanos = new ConcurrentHistogram(1_000, LONGEST, 3);
        final AtomicLong errors5xx = new AtomicLong();
        final AtomicLong writes = new AtomicLong();
        final AtomicLong batches = new AtomicLong();
        final AtomicLong afterGcMin = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong afterGcMax = new AtomicLong(-1);
        final AtomicLong usedHeap = new AtomicLong();
        /** arno_jvm_heap_after_old_gc_bytes as last read in the minute: the floor, which moves only at old-generation cycles. */
        final AtomicLong afterOldGc = new AtomicLong(-1);
        // the server's share of the machine against the whole machine's use: what the client and
        // anything else running take shows as the difference
        final Mean serverCpu = new Mean();
        final Mean machineCpu = new Mean();
    }

    private static final class Mean {
        private double sum;
        private int n;

        synchronized void add(double v) {
            if (v >= 0) {
                sum += v;
                n++;
            }
        }

        synchronized double average() {
            return n == 0 ? Double.NaN : sum / n;
        }
    }

    private static Thread start(Runnable r) {
        Thread t = new Thread(r, "soak");
        t.start();
        return t;
    }

    private static int minute(long start) {
        return (int) ((System.nanoTime() - start) / 60_000_000_000L);
    }

    /** The status, or -1 when the request failed (the server went away: counted as a 5xx). */
    private static int send(HttpClient http, HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void sleepUntil(long nanos) {
        long wait = nanos - System.nanoTime();
        if (wait > 0) {
            try {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Soak() {
    }
}
