package arno.perf.cache;

import arno.cache.Codec;
import arno.cache.Dependencies;
import arno.cache.TwoTierCache;
import arno.cache.Validator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * Latencies of {@link TwoTierCache} lookups, each against its baseline in the same run:
 * validation of several dependencies in parallel against the same checks in series (the
 * disk-cache prototype spent 30% of its time in serial stale checks), and a lookup served
 * from disk (read, checksum, decode, promote) against one served from memory. Prints
 * Markdown for perf/RESULTS.md. Timed with {@code System.nanoTime}, medians of many lookups.
 *
 * <pre>
 * java -cp TEST_CLASSPATH arno.perf.cache.TwoTierBench [checkMillis]
 * </pre>
 */
public final class TwoTierBench {

    private TwoTierBench() {
    }

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        int checkMillis = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        validation(checkMillis);
        tiers();
    }

    // ----- Validation: parallel vs serial. -----

    private static void validation(int checkMillis) throws Exception {
        // A check that waits, as a conditional HTTP request or a remote store lookup does.
        Validator slow = d -> {
            Thread.sleep(checkMillis);
            return true;
        };
        ExecutorService pool = Executors.newFixedThreadPool(16);
        System.out.printf("### Validation of one lookup, each check waiting %d ms (median of 40 lookups)%n%n",
                checkMillis);
        System.out.println("| dependencies | serial | parallel | serial/parallel |");
        System.out.println("| ---: | ---: | ---: | ---: |");
        try {
            for (int n : new int[] {1, 2, 4, 8, 16}) {
                Dependencies deps = Dependencies.none();
                for (int i = 0; i < n; i++) {
                    deps = deps.and("uri", "https://example.org/source/" + i, "\"etag-" + i + "\"");
                }
                double serial = validatedLookup(Runnable::run, deps, slow);
                double parallel = validatedLookup(pool, deps, slow);
                System.out.printf("| %d | %.2f ms | %.2f ms | %.2f |%n", n, serial / 1e6, parallel / 1e6,
                        serial / parallel);
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println();
    }

    private static double validatedLookup(java.util.concurrent.Executor executor, Dependencies deps,
            Validator validator) throws IOException {
        try (TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(16)
                .validationExecutor(executor).build()) {
            cache.put("page", "value", deps);
            List<Long> times = new ArrayList<>();
            for (int i = 0; i < 45; i++) {
                long t0 = System.nanoTime();
                if (cache.get("page", validator) == null) {
                    throw new IllegalStateException("lookup missed");
                }
                long t = System.nanoTime() - t0;
                if (i >= 5) {
                    times.add(t);
                }
            }
            return median(times);
        }
    }

    // ----- Tiers: memory hit vs disk hit, and the cost of a put that demotes. -----

    private static void tiers() throws IOException {
        int keys = 1_000;
        int rounds = 5;
        System.out.printf("### Tiers: %d entries of 10 KB, lookups without validation (median over %d x %d)%n%n",
                keys, rounds, keys);
        System.out.println("| operation | median | p99 |");
        System.out.println("| --- | ---: | ---: |");
        byte[] value = new byte[10 * 1024];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        Path folder = Files.createTempDirectory("arno-cache-bench");
        try {
            List<Long> memoryHits = new ArrayList<>();
            try (TwoTierCache<String, byte[]> cache = TwoTierCache.<String, byte[]>builder(2 * keys).build()) {
                for (int k = 0; k < keys; k++) {
                    cache.put("k" + k, value, Dependencies.none());
                }
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < keys; k++) {
                        long t0 = System.nanoTime();
                        byte[] v = cache.get("k" + k);
                        long t = System.nanoTime() - t0;
                        check(v);
                        memoryHits.add(t);
                    }
                }
            }
            // One value in memory: every put demotes the previous value (a file write), and
            // every lookup of another key is a disk hit whose promotion evicts the one before
            // (whose file is still current, so nothing is rewritten).
            List<Long> demotingPuts = new ArrayList<>();
            List<Long> diskHits = new ArrayList<>();
            try (TwoTierCache<String, byte[]> cache = TwoTierCache.<String, byte[]>builder(1)
                    .disk(folder, 1L << 30, Codec.utf8(), Codec.bytes()).build()) {
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < keys; k++) {
                        long t0 = System.nanoTime();
                        cache.put("k" + k, value, Dependencies.none());
                        demotingPuts.add(System.nanoTime() - t0);
                    }
                    for (int k = 0; k < keys; k++) {
                        long t0 = System.nanoTime();
                        byte[] v = cache.get("k" + k);
                        long t = System.nanoTime() - t0;
                        check(v);
                        diskHits.add(t);
                    }
                }
            }
            row("memory hit", memoryHits);
            row("disk hit (read, two CRC32C, promote)", diskHits);
            row("put that demotes the previous value (encode, write, atomic move)", demotingPuts);
            System.out.printf("%ndisk hit / memory hit (medians): %.0f%n", median(diskHits) / median(memoryHits));
        } finally {
            try (Stream<Path> files = Files.walk(folder)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void check(byte[] v) {
        if (v == null || v.length != 10 * 1024) {
            throw new IllegalStateException("lookup missed or returned a wrong value");
        }
    }

    private static void row(String what, List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        sorted.sort(null);
        System.out.printf("| %s | %.1f µs | %.1f µs |%n", what, median(sorted) / 1e3,
                sorted.get((int) (sorted.size() * 0.99)) / 1e3);
    }

    private static double median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }
}
