package arno.perf.cache;

import arno.cache.ArcCache;
import arno.perf.pages.PerfServer;
import arno.perf.pages.StoredContent;
import arno.pipeline.PageCacheStats;
import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.io.FileUtils;

/**
 * Issue 13's in-process figures of the page caches, in one JVM, over the demo content loaded
 * into a store (as {@code ./arno serve} serves it), each server on loopback in production mode:
 * <ol>
 * <li><b>heap</b>: heap per site with the memory tiers filled to a configured size (memory
 * only), after full collections, against the same server with empty caches;</li>
 * <li><b>tiers</b>: one client fetching full-text pages in random order, each answered from the
 * disk tier (the memory tier holds 256 KB, so nearly every page comes from disk), against the
 * same pages from the memory tier and built by the pipeline (caches off), one server after the
 * other; the caches' own counters say where each answer came from;</li>
 * <li><b>freshness</b>: an article's JATS variant replaced through the store service, then its
 * cached abstract page fetched at once: how many answers still show the old title (goal 0: the
 * next request sees the commit), and how long that first request takes;</li>
 * <li><b>replay</b>: users following Zipf(0.9)-popular pages of the demo while a crawler sweeps
 * every page in turn, replayed through {@link ArcCache} built as the page cache builds its memory
 * tier (bounded in bytes, entry weights from the pages measured in 1) and through an LRU of the
 * same bounds: the users' hit ratio with and without the crawler. Deterministic (seeded).</li>
 * </ol>
 * {@code PageCacheBench ROOT CONTENT [MEMORY_MB=16] [ROUNDS=5] [EDITS=200] [PHASES=heap,tiers,freshness,replay]},
 * ROOT the checkout, CONTENT a folder made by {@code ./arno generate}.
 */
public final class PageCacheBench {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath();
        Path content = Path.of(args[1]).toAbsolutePath();
        long memory = (args.length > 2 ? Long.parseLong(args[2]) : 16) << 20;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int edits = args.length > 4 ? Integer.parseInt(args[4]) : 200;
        String phases = args.length > 5 ? args[5] : "heap,tiers,freshness,replay";
        Path work = Files.createTempDirectory("arno-pagecache-bench");
        List<String> full = PerfServer.fullTextPaths(content);
        List<String> pages = allPages(full);
        System.out.printf("content: %,d articles, %,d cacheable pages (home, tables of contents, abstracts, full texts);"
                + " JVM %s, max heap %d MB%n", full.size(), pages.size(), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        try (Store store = StoredContent.load(content, work.resolve("store"))) {
            int[][] sizes = phases.contains("heap") || phases.contains("replay") ? heap(root, work, store, pages, memory) : null;
            if (phases.contains("tiers")) tiers(root, work, store, full, rounds);
            if (phases.contains("freshness")) freshness(root, work, store, full, edits);
            if (phases.contains("replay")) replay(pages, sizes);
        } finally {
            FileUtils.deleteQuietly(work.toFile());
        }
    }

    // ---------------------------------------------------------------- 1. heap per site

    /** Returns each page's body and gzip sizes, for the replay. */
    static int[][] heap(Path root, Path work, Store store, List<String> pages, long memory) throws Exception {
        System.out.printf("%n== heap per site: memory tiers of %d MB, no disk tier%n", memory >> 20);
        int[][] sizes = new int[pages.size()][];
        try (ArnoServer server = start(root, work, "heap", store, true, memory + "", "0")) {
            String base = "http://127.0.0.1:" + server.port();
            for (int i = 0; i < 50; i++) get(base + pages.get(i % pages.size())); // compile lazily made parts, warm
            server.sites().clearCaches(null);
            long empty = heap();
            long t0 = System.nanoTime();
            for (int i = 0; i < pages.size(); i++) {
                byte[] body = get(base + pages.get(i));
                sizes[i] = new int[] {body.length, gzip(body)};
            }
            double fill = (System.nanoTime() - t0) / 1e9;
            long full = heap();
            Map<String, PageCacheStats> stats = server.sites().cacheStats();
            long cached = 0;
            for (PageCacheStats s : stats.values()) {
                cached += s.memory().bytes();
                System.out.printf("site %-10s memory tier %,d entries, %,d bytes (%.0f%% of its bound), %,d evictions%n",
                        s.site(), s.memory().entries(), s.memory().bytes(), 100.0 * s.memory().bytes() / memory,
                        s.memory().evictions());
            }
            long pageBytes = 0;
            for (int[] s : sizes) pageBytes += s[0] + s[1];
            System.out.printf("pages built: %,d in %.1f s; their bodies plus gzip forms: %,d bytes%n", pages.size(), fill, pageBytes);
            System.out.printf("heap after GC: empty caches %.1f MB, full caches %.1f MB: %.1f MB more, %.1f MB per site,"
                    + " %.2f heap bytes per cached byte%n", empty / 1e6, full / 1e6, (full - empty) / 1e6,
                    (full - empty) / 1e6 / stats.size(), (double) (full - empty) / cached);
        }
        return sizes;
    }

    // ---------------------------------------------------------------- 2. tiers

    static void tiers(Path root, Path work, Store store, List<String> full, int rounds) throws Exception {
        System.out.printf("%n== one client, full-text pages in random order, %d rounds of %,d after 2 warm-up rounds%n",
                rounds, full.size());
        System.out.println("| answered by | p50 ms | p90 ms | p99 ms | max ms | in the server: p50 ms | p99 ms | answers from the tier |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
        try (ArnoServer server = start(root, work, "disk", store, true, "256K", "1G")) {
            String base = "http://127.0.0.1:" + server.port();
            for (String p : full) get(base + p); // built once, demoted to disk as others push them out
            measure("disk tier (memory 256 KB)", server, base, full, rounds, s -> s.disk().hits());
        }
        try (ArnoServer server = start(root, work, "memory", store, true, "1G", "0")) {
            String base = "http://127.0.0.1:" + server.port();
            for (String p : full) get(base + p);
            measure("memory tier", server, base, full, rounds, s -> s.memory().hits());
        }
        try (ArnoServer server = start(root, work, "uncached", store, false, "64M", "1G")) {
            String base = "http://127.0.0.1:" + server.port();
            measure("the pipeline (caches off)", server, base, full, 1, s -> s.misses());
        }
    }

    private static void measure(String what, ArnoServer server, String base, List<String> pages, int rounds,
                                java.util.function.ToLongFunction<PageCacheStats> counter) throws Exception {
        Random random = new Random(13);
        List<String> order = new ArrayList<>(pages);
        for (int r = 0; r < 2; r++) {
            Collections.shuffle(order, random);
            for (String p : order) get(base + p);
        }
        long before = count(server, counter);
        long[] times = new long[rounds * order.size()];
        // The server's own time for each request (from the servlet's first look to the end of the
        // response), without the client's: one client in the same JVM adds its own tail.
        long[] inServer = new long[times.length];
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        server.observe((site, route, status, nanos) -> {
            int i = seen.getAndIncrement();
            if (i < inServer.length) inServer[i] = nanos;
        });
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            Collections.shuffle(order, random);
            for (String p : order) {
                long t = System.nanoTime();
                get(base + p);
                times[n++] = System.nanoTime() - t;
            }
        }
        server.observe(null);
        long from = count(server, counter) - before;
        Arrays.sort(times);
        Arrays.sort(inServer);
        System.out.printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s |%n", what, pct(times, 50), pct(times, 90),
                pct(times, 99), times[times.length - 1] / 1e6, pct(inServer, 50), pct(inServer, 99),
                server.sites().cacheStats().isEmpty() ? "(no cache)" : String.format("%,d of %,d", from, n));
    }

    private static long count(ArnoServer server, java.util.function.ToLongFunction<PageCacheStats> counter) {
        long c = 0;
        for (PageCacheStats s : server.sites().cacheStats().values()) c += counter.applyAsLong(s);
        return c;
    }

    // ---------------------------------------------------------------- 3. freshness

    private static final Pattern TITLE = Pattern.compile("<article-title>(.*?)</article-title>", Pattern.DOTALL);

    static void freshness(Path root, Path work, Store store, List<String> full, int edits) throws Exception {
        System.out.printf("%n== from a commit to the first request that sees it: %d edits of an article's title%n", edits);
        Random random = new Random(17);
        long[] first = new long[edits];
        int stale = 0;
        int hitsBefore = 0;
        try (ArnoServer server = start(root, work, "fresh", store, true, "64M", "1G");
             AtomStore atom = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store"))) {
            String base = "http://127.0.0.1:" + server.port();
            for (int i = 0; i < edits; i++) {
                String page = full.get(random.nextInt(full.size()));
                String abstractPage = page.substring(0, page.length() - "/full".length());
                String resource = "/journals/" + (abstractPage.startsWith("/journal-a/") ? "ja" : "jb")
                        + abstractPage.substring(abstractPage.indexOf('/', 1));
                get(base + abstractPage);
                long memoryHits = count(server, s -> s.memory().hits() + s.disk().hits());
                get(base + abstractPage); // cached now: the second answer is a hit
                if (count(server, s -> s.memory().hits() + s.disk().hits()) > memoryHits) hitsBefore++;
                String marker = "Edited title " + i + " " + Long.toHexString(random.nextLong());
                byte[] jats;
                try (Snapshot s = store.read()) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    s.export(resource + ".xml", out);
                    jats = out.toByteArray();
                }
                Matcher m = TITLE.matcher(new String(jats, StandardCharsets.UTF_8));
                if (!m.find()) throw new IllegalStateException(resource + ".xml has no article-title");
                byte[] edited = m.replaceFirst(Matcher.quoteReplacement("<article-title>" + marker + "</article-title>"))
                        .getBytes(StandardCharsets.UTF_8);
                atom.putVariant(ResourcePath.of(resource), "xml", null, -1, new ByteArrayInputStream(edited), "perf");
                long t = System.nanoTime(); // committed: putVariant returns after the commit
                String body = new String(get(base + abstractPage), StandardCharsets.UTF_8);
                first[i] = System.nanoTime() - t;
                if (!body.contains(marker)) stale++;
            }
        }
        Arrays.sort(first);
        System.out.printf("cached before the edit: %d of %d; answers after the commit showing the old title: %d of %d%n",
                hitsBefore, edits, stale, edits);
        System.out.printf("first request after the commit (rebuilt): p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                pct(first, 50), pct(first, 99), first[first.length - 1] / 1e6);
    }

    // ---------------------------------------------------------------- 4. replay

    static void replay(List<String> pages, int[][] sizes) {
        int n = pages.size();
        long[] weight = new long[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            weight[i] = 128 + 400 + sizes[i][0] + sizes[i][1]; // as Page.weight: bodies, fixed part, about 400 B of headers
            total += weight[i];
        }
        int requests = 20 * n;
        System.out.printf("%n== replay: %,d pages weighing %,d bytes in all; %,d user requests, Zipf 0.9 over the pages"
                + " (ranked at random); the crawler reads every page in turn%n", n, total, requests);
        System.out.println("| memory tier | crawler share | ARC users' hits | LRU users' hits | ARC / LRU |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: |");
        for (double fraction : new double[] {0.02, 0.05, 0.10, 0.25}) {
            long bound = (long) (total * fraction);
            for (double crawl : new double[] {0, 0.2, 0.5}) {
                double arc = users(weight, bound, requests, crawl, true);
                double lru = users(weight, bound, requests, crawl, false);
                System.out.printf("| %.0f%% (%,d KB) | %.0f%% | %.4f | %.4f | %.3f |%n", fraction * 100, bound >> 10,
                        crawl * 100, arc, lru, arc / lru);
            }
        }
    }

    /**
     * The users' hit ratio over {@code requests} user requests, a crawler request taking the share
     * {@code crawl} of all requests. A miss puts the page, as a page built is kept.
     */
    static double users(long[] weight, long bound, int requests, double crawl, boolean arc) {
        int n = weight.length;
        Random random = new Random(42);
        int[] rank = new int[n];
        for (int i = 0; i < n; i++) rank[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = rank[i];
            rank[i] = rank[j];
            rank[j] = t;
        }
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) cdf[i] = sum += 1 / Math.pow(i + 1, 0.9);
        int capacity = (int) Math.max(64, Math.min(1 << 20, bound / 4096)); // as PageCache sizes ARC's lists
        Cache cache = arc ? new Arc(capacity, bound, weight) : new Lru(capacity, bound, weight);
        int crawler = 0;
        long hits = 0;
        int users = 0;
        // Warm with as many requests again first, so both start from their steady state.
        for (int pass = 0; pass < 2; pass++) {
            hits = 0;
            users = 0;
            while (users < requests) {
                if (crawl > 0 && random.nextDouble() < crawl) {
                    cache.request(crawler);
                    crawler = (crawler + 1) % n;
                } else {
                    int r = Arrays.binarySearch(cdf, random.nextDouble() * sum);
                    if (cache.request(rank[r < 0 ? -r - 1 : r])) hits++;
                    users++;
                }
            }
        }
        return (double) hits / users;
    }

    interface Cache {
        /** A request for page {@code key}: true on a hit, else the page is put. */
        boolean request(int key);
    }

    static final class Arc implements Cache {
        private final ArcCache<Integer, Integer> cache;

        Arc(int capacity, long bound, long[] weight) {
            cache = ArcCache.<Integer, Integer>builder(capacity).maximumWeight(bound, v -> weight[v]).build();
        }

        @Override public boolean request(int key) {
            if (cache.get(key) != null) return true;
            cache.put(key, key);
            return false;
        }
    }

    /** The baseline: least recently used out first, bounded as the ARC is (entries and bytes). */
    static final class Lru implements Cache {
        private final LinkedHashMap<Integer, Integer> map = new LinkedHashMap<>(1024, 0.75f, true);
        private final int capacity;
        private final long bound;
        private final long[] weight;
        private long held;

        Lru(int capacity, long bound, long[] weight) {
            this.capacity = capacity;
            this.bound = bound;
            this.weight = weight;
        }

        @Override public boolean request(int key) {
            if (map.get(key) != null) return true;
            if (weight[key] > bound) return false;
            map.put(key, key);
            held += weight[key];
            var it = map.entrySet().iterator();
            while (held > bound || map.size() > capacity) {
                held -= weight[it.next().getKey()];
                it.remove();
            }
            return false;
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Home, every table of contents, every abstract and every full text of the demo. */
    static List<String> allPages(List<String> full) {
        LinkedHashSet<String> pages = new LinkedHashSet<>();
        for (String f : full) {
            String abstractPage = f.substring(0, f.length() - "/full".length());
            String toc = abstractPage.substring(0, abstractPage.lastIndexOf('/'));
            pages.add(toc.substring(0, toc.indexOf('/', 1)) + "/");
            pages.add(toc);
            pages.add(abstractPage);
            pages.add(f);
        }
        return new ArrayList<>(pages);
    }

    /** A server of copies of the demo sites with page caches bounded by {@code memory} and {@code disk} (site.xml units). */
    static ArnoServer start(Path root, Path work, String name, Store store, boolean caches, String memory, String disk)
            throws IOException {
        Path home = work.resolve(name);
        Path sites = Files.createDirectories(home.resolve("sites"));
        for (String site : List.of("journal-a", "journal-b")) {
            FileUtils.copyDirectory(root.resolve("sites").resolve(site).toFile(), sites.resolve(site).toFile());
            Path xml = sites.resolve(site).resolve("site.xml");
            String s = Files.readString(xml);
            Matcher m = Pattern.compile("<cache memory=\"[^\"]*\" disk=\"[^\"]*\"/>").matcher(s);
            if (!m.find()) throw new IllegalStateException(xml + " has no <cache memory=… disk=…/> to change");
            Files.writeString(xml, m.replaceFirst("<cache memory=\"" + memory + "\" disk=\"" + disk + "\"/>"));
        }
        Config.Builder b = Config.defaults(root).toBuilder();
        b.sites = sites;
        b.data = Files.createDirectories(home.resolve("data"));
        b.production = true;
        b.port = 0;
        b.pageCaches = caches;
        return ArnoServer.start(b.build(), store);
    }

    static byte[] get(String url) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) throw new IllegalStateException(url + " answered " + r.statusCode());
        return r.body();
    }

    static int gzip(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(body);
        }
        return out.size();
    }

    static double pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)] / 1e6;
    }

    static long heap() throws InterruptedException {
        return arno.perf.pages.SiteMemory.heap();
    }
}
