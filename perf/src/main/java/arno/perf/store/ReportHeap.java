package arno.perf.store;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import arno.store.query.StoreQuery;
import arno.xml.XmlPolicy;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The heap a report over the whole store holds as it goes (issue 12, item 4: streamed): N generated
 * Atom entries (as {@link IndexBench}'s), then one {@code ./arno query}-style report that reads
 * every entry and keeps a few URIs. A sampler takes the used heap after a full collection every
 * second; the figure is the heap at the end against the heap a tenth of the way in (goal: flat,
 * about 1), with the run's time.
 *
 * <pre>java -Xmx256m -cp "$CP" arno.perf.store.ReportHeap [ENTRIES=300000]</pre>
 */
public final class ReportHeap {
    static final String REPORT = "collection('store:/journals/')[.//*:category[@term = 'retracted']] ! document-uri(.)";

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        Path dir = Files.createTempDirectory("arno-report-heap");
        try (Store store = Store.open(dir, StoreOptions.defaults().mapSize(64L << 30))) {
            for (int from = 0; from < n; from += 10_000) {
                try (WriteTransaction w = store.write()) {
                    for (int i = from; i < Math.min(n, from + 10_000); i++) w.put(IndexBench.path(i), IndexBench.entry(i));
                    w.commit();
                }
            }
            System.out.printf(Locale.ROOT, "ReportHeap: %,d entries stored (%,d bytes on disk)%n", n, store.diskBytes());
            StoreQuery q = StoreQuery.compile(REPORT, URI.create("file:/report.xq"), "report", XmlPolicy.DEFAULT);
            List<long[]> samples = new ArrayList<>(); // {seconds, heap after GC}
            long start = System.nanoTime();
            Thread sampler = new Thread(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        Thread.sleep(1000);
                        System.gc();
                        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                        synchronized (samples) {
                            samples.add(new long[] {(System.nanoTime() - start) / 1_000_000_000L, used});
                        }
                    }
                } catch (InterruptedException e) {
                    // the report is done
                }
            });
            System.gc();
            long before = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            sampler.start();
            StringWriter out = new StringWriter();
            q.run(store, null, out);
            double seconds = (System.nanoTime() - start) / 1e9;
            sampler.interrupt();
            sampler.join();
            long results = out.toString().lines().filter(l -> !l.isBlank()).count();
            System.out.printf(Locale.ROOT, "ReportHeap: the report read %,d entries in %.1f s (%,.0f per second), %,d results%n",
                    n, seconds, n / seconds, results);
            System.out.printf(Locale.ROOT, "ReportHeap: heap after GC before the report %.1f MB%n", before / 1e6);
            synchronized (samples) {
                for (long[] s : samples) System.out.printf(Locale.ROOT, "ReportHeap:   %3d s  %.1f MB%n", s[0], s[1] / 1e6);
                if (samples.size() >= 2) {
                    long tenth = samples.get(Math.max(0, samples.size() / 10 - 1))[1];
                    long last = samples.get(samples.size() - 1)[1];
                    System.out.printf(Locale.ROOT, "ReportHeap: heap at the end / a tenth of the way: %.1f / %.1f MB = %.2f%n",
                            last / 1e6, tenth / 1e6, (double) last / tenth);
                }
            }
        } finally {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
