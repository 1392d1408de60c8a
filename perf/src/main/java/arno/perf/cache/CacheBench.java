package arno.perf.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jol.info.GraphLayout;

/**
 * ARC against LRU in one run: exact hit ratios by replaying traces (deterministic), memory
 * per entry by walking the object graph (JOL), and requests per second under JMH, each with
 * the ARC/LRU ratio. Prints Markdown for perf/RESULTS.md.
 *
 * <pre>
 * java -cp TEST_CLASSPATH arno.perf.cache.CacheBench [forks [threads]]
 * </pre>
 */
public final class CacheBench {

    private CacheBench() {
    }

    public static void main(String[] args) throws Exception {
        int forks = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Locale.setDefault(Locale.ROOT);
        System.out.printf("JVM: %s %s, %d processors%n%n", System.getProperty("java.vm.name"),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        hitRatios();
        memory();
        throughput(forks, threads);
    }

    // ----- Hit ratios: deterministic, so one replay each is the answer. -----

    private static void hitRatios() {
        System.out.println("### Hit ratios (replaying 2^21 requests from a cold cache)");
        System.out.println();
        System.out.println("| workload | capacity | ARC all | LRU all | ARC popular | LRU popular | ARC/LRU (all) |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (Workload workload : List.of(Workload.standard(), Workload.standard().withoutScans())) {
            Integer[] trace = workload.trace(ArcVsLruBenchmark.TRACE_LENGTH);
            for (int capacity : new int[] {500, 2_000, 8_000}) {
                double[] arc = replay(Policies.arc(capacity), trace, workload);
                double[] lru = replay(Policies.lru(capacity), trace, workload);
                System.out.printf("| %s | %,d | %.4f | %.4f | %.4f | %.4f | %.3f |%n", workload, capacity,
                        arc[0], lru[0], arc[1], lru[1], arc[0] / lru[0]);
            }
        }
        System.out.println();
        System.out.println("\"popular\": the hit ratio of the requests for the site's pages, scans left out.");
        System.out.println();
    }

    /** The hit ratio of all requests and of the requests that are not scans. */
    private static double[] replay(Policies.Policy policy, Integer[] trace, Workload workload) {
        long hits = 0;
        long popular = 0;
        long popularHits = 0;
        for (Integer key : trace) {
            boolean hit = Policies.request(policy, key);
            hits += hit ? 1 : 0;
            if (!workload.isScan(key)) {
                popular++;
                popularHits += hit ? 1 : 0;
            }
        }
        return new double[] {(double) hits / trace.length, (double) popularHits / popular};
    }

    // ----- Memory: the object graph, keys and values left out (the caller owns those). -----

    private static void memory() {
        int capacity = 50_000;
        Integer[] trace = Workload.standard().trace(ArcVsLruBenchmark.TRACE_LENGTH);
        System.out.println("### Memory per entry (JOL object graph, capacity 50,000, after replaying the "
                + "standard trace; Integer keys and values excluded)");
        System.out.println();
        System.out.println("| policy | bytes per entry held | objects in the graph |");
        System.out.println("| --- | ---: | ---: |");
        for (String name : List.of("arc", "lru")) {
            Policies.Policy policy = Policies.create(name, capacity);
            for (Integer key : trace) {
                Policies.request(policy, key);
            }
            GraphLayout graph = GraphLayout.parseInstance(policy.root());
            long integers = graph.getClassSizes().count(Integer.class);
            long bytes = graph.totalSize() - integers;
            System.out.printf("| %s | %.1f | %,d |%n", name.toUpperCase(Locale.ROOT), (double) bytes / capacity,
                    graph.totalCount() - graph.getClassCounts().count(Integer.class));
        }
        System.out.println();
        System.out.println("ARC's figure includes its ghost entries (up to one per entry held: B1 and B2 "
                + "keep keys, not values).");
        System.out.println();
    }

    // ----- Throughput under JMH. -----

    private static void throughput(int forks, int threads) throws Exception {
        Options options = new OptionsBuilder()
                .include(ArcVsLruBenchmark.class.getName() + ".request")
                .forks(forks)
                .threads(threads)
                .warmupIterations(3)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(5)
                .measurementTime(TimeValue.seconds(1))
                .jvmArgsAppend("-Xms768m", "-Xmx768m")
                .build();
        Collection<RunResult> results = new Runner(options).run();
        double arc = 0;
        double lru = 0;
        System.out.println();
        System.out.printf("### Requests per second (JMH, %d fork(s) x 5 one-second iterations, %d thread(s), "
                + "capacity 2,000, standard trace, warm)%n%n", forks, threads);
        System.out.println("| policy | median ops/s | min | max | hit ratio (measured) |");
        System.out.println("| --- | ---: | ---: | ---: | ---: |");
        for (RunResult run : results) {
            String policy = run.getParams().getParam("policy");
            List<Double> scores = new ArrayList<>();
            double hits = 0;
            double misses = 0;
            for (BenchmarkResult fork : run.getBenchmarkResults()) {
                for (IterationResult iteration : fork.getIterationResults()) {
                    scores.add(iteration.getPrimaryResult().getScore());
                    Result<?> h = iteration.getSecondaryResults().get("hits");
                    Result<?> m = iteration.getSecondaryResults().get("misses");
                    hits += h == null ? 0 : h.getScore();
                    misses += m == null ? 0 : m.getScore();
                }
            }
            scores.sort(null);
            double median = median(scores);
            if (policy.equals("arc")) {
                arc = median;
            } else {
                lru = median;
            }
            System.out.printf("| %s | %,.0f | %,.0f | %,.0f | %.4f |%n", policy.toUpperCase(Locale.ROOT), median,
                    scores.get(0), scores.get(scores.size() - 1), hits / (hits + misses));
        }
        System.out.printf("%nARC/LRU throughput ratio (medians): %.3f%n", arc / lru);
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
