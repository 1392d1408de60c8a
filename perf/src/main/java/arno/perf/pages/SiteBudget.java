package arno.perf.pages;

import arno.pipeline.PageCacheBudget;
import arno.pipeline.PageCacheStats;
import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.server.ops.HeapAfterGc;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.io.FileUtils;

/**
 * Issue 25, item 5: many sites' page caches in one heap. N copies of the demo site journal-a
 * (site-1 … site-N), served by one Arno in this JVM (run it with the heap to test, e.g.
 * {@code -Xmx512m}), under Zipf-distributed traffic over the sites and over each site's full-text
 * pages, plus a crawler that fetches every full-text page of every site once. Every interval it
 * prints the heap after the last collection, the cached bytes and the hit ratio of the interval;
 * at the end the live heap after a full collection and the totals.
 *
 * <p>{@code SiteBudget ROOT CONTENT SITES SECONDS MODE}, ROOT the checkout, CONTENT a generated
 * content folder ({@code ./arno generate}). MODE:
 * <ul>
 * <li>{@code shared}: one budget for every site's pages ({@code page-cache-memory}; default a quarter of
 *     the heap, {@code -Dbudget.bytes=N} to set it), each site's own {@code memory} its cap (64M);</li>
 * <li>{@code fixed}: each site its own memory tier of budget/N bytes (the same total), no shared budget;</li>
 * <li>{@code legacy}: each site its own 64 MB tier, no shared budget: the server before issue 25.</li>
 * </ul>
 * Options: {@code -Dbudget.clients=8} (threads of Zipf traffic), {@code -Dbudget.crawlers=1},
 * {@code -Dbudget.sitesZipf=1.0} and {@code -Dbudget.pagesZipf=1.0} (the exponents),
 * {@code -Dbudget.disk=0} (each site's disk tier; 0: memory only, so the hit ratios are memory's),
 * {@code -Dbudget.interval=10} (seconds between lines), {@code -Dbudget.live=0} (every N seconds, also the live
 * heap after full collections, the figure that says whether the heap is flat: they pause the server, so 0 by
 * default), {@code -Darno.store=true} (content in a store).
 * Run with {@code -XX:+ExitOnOutOfMemoryError}: an {@code OutOfMemoryError} anywhere then ends the
 * run at once with exit status 3 and the JVM's message, never a half-working server.
 */
public final class SiteBudget {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath();
        Path content = Path.of(args[1]).toAbsolutePath();
        int n = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        String mode = args[4];
        if (!List.of("shared", "fixed", "legacy").contains(mode)) throw new IllegalArgumentException("MODE is shared, fixed or legacy, not " + mode);
        long maxHeap = Runtime.getRuntime().maxMemory();
        long budget = Long.getLong("budget.bytes", arno.pipeline.PipelineConfig.DEFAULT_PAGE_CACHE_MEMORY);
        String disk = System.getProperty("budget.disk", "0");
        int clients = Integer.getInteger("budget.clients", 8);
        int crawlers = Integer.getInteger("budget.crawlers", 1);
        double sitesZipf = Double.parseDouble(System.getProperty("budget.sitesZipf", "1.0"));
        double pagesZipf = Double.parseDouble(System.getProperty("budget.pagesZipf", "1.0"));
        int interval = Integer.getInteger("budget.interval", 10);
        int liveEvery = Integer.getInteger("budget.live", 0);

        Path work = Files.createTempDirectory("arno-sitebudget");
        ArnoServer server = null;
        Path cacheFolders = null;
        arno.store.Store store = null;
        HeapAfterGc heap = new HeapAfterGc();
        try {
            String memory = switch (mode) {
                case "fixed" -> Long.toString(Math.max(64 << 10, budget / n));
                default -> "64M";
            };
            Path sites = Files.createDirectories(work.resolve("sites"));
            for (int i = 1; i <= n; i++) copySite(root, sites.resolve("site-" + i), i, memory, disk);
            Path data = content.getParent();
            if (StoredContent.wanted()) {
                store = StoredContent.load(content, Files.createDirectories(work.resolve("store")));
                data = Files.createDirectories(work.resolve("data/content")).getParent();
            }
            Config.Builder b = PerfServer.config(root, data, 0).toBuilder();
            b.sites = sites;
            b.pageCaches = true;
            b.pageCacheMemory = mode.equals("shared") ? budget : 0;
            Config config = b.build();
            cacheFolders = config.cache();
            server = ArnoServer.start(config, store);

            List<String> pages = new ArrayList<>();
            for (String p : PerfServer.fullTextPaths(content)) {
                if (p.startsWith("/journal-a/")) pages.add(p.substring("/journal-a".length()));
            }
            System.out.printf(Locale.ROOT, "SiteBudget: %d sites (copies of journal-a) x %d full-text pages, mode %s, max heap %d MB,"
                            + " %s, site memory %s, disk %s; %d clients (Zipf %.2f over sites, %.2f over pages), %d crawler(s); JVM %s%n",
                    n, pages.size(), mode, maxHeap >> 20,
                    mode.equals("shared") ? "budget " + mb(budget) : "no shared budget (per-site tiers, total "
                            + (mode.equals("fixed") ? mb(budget) : n * 64 + " MB") + ")",
                    memory, disk, clients, sitesZipf, pagesZipf, crawlers, System.getProperty("java.version"));

            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
            String base = "http://127.0.0.1:" + server.port();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong requests = new AtomicLong();
            AtomicLong failures = new AtomicLong();
            AtomicLong crawled = new AtomicLong();
            long crawlTotal = (long) n * pages.size();
            double[] siteCdf = zipf(n, sitesZipf);
            double[] pageCdf = zipf(pages.size(), pagesZipf);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                long seed = 17 + t;
                threads.add(start("zipf-" + t, () -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    // A page rank differs per site, so that their popular pages are not all the same article.
                    while (!stop.get()) {
                        int site = pick(siteCdf, random) + 1;
                        int page = (pick(pageCdf, random) + site * 7919) % pages.size();
                        fetch(http, base + "/site-" + site + pages.get(page), requests, failures);
                    }
                }));
            }
            for (int c = 0; c < crawlers; c++) {
                int first = c;
                threads.add(start("crawler-" + c, () -> {
                    // Site after site, every page once, as a crawler walks the archives.
                    for (long k = first; k < crawlTotal && !stop.get(); k += crawlers) {
                        int site = (int) (k / pages.size()) + 1;
                        fetch(http, base + "/site-" + site + pages.get((int) (k % pages.size())), requests, failures);
                        crawled.incrementAndGet();
                    }
                }));
            }

            System.out.println("  time  requests  failed  crawled   heap-after-gc  cached-bytes  entries  hit-ratio(memory)  hit-ratio(all)");
            long[] last = new long[3];
            long start = System.nanoTime();
            long maxHeapAfterGc = 0;
            List<Long> samples = new ArrayList<>();
            for (int s = interval; s <= seconds; s += interval) {
                Thread.sleep(Math.max(0, start + s * 1_000_000_000L - System.nanoTime()) / 1_000_000);
                long[] now = hits(server);
                long lookups = (now[0] - last[0]) + (now[1] - last[1]) + (now[2] - last[2]);
                long after = heap.afterLast();
                samples.add(after);
                maxHeapAfterGc = Math.max(maxHeapAfterGc, after);
                System.out.printf(Locale.ROOT, "%5ds  %8d  %6d  %7d  %11.1f MB  %9.1f MB  %7d  %17.3f  %14.3f%n", s, requests.get(),
                        failures.get(), crawled.get(), after / 1048576.0, cached(server)[0] / 1048576.0, cached(server)[1],
                        lookups == 0 ? 0 : (double) (now[0] - last[0]) / lookups,
                        lookups == 0 ? 0 : (double) (now[0] - last[0] + now[1] - last[1]) / lookups);
                last = now;
                if (liveEvery > 0 && s % liveEvery == 0) {
                    System.out.printf(Locale.ROOT, "%5ds  live heap after full GCs %.1f MB%n", s, SiteMemory.heap() / 1048576.0);
                }
            }
            stop.set(true);
            for (Thread t : threads) t.join(30_000);
            long[] total = hits(server);
            long lookups = total[0] + total[1] + total[2];
            long live = SiteMemory.heap();
            PageCacheBudget pb = server.sites().cacheBudget();
            System.out.printf(Locale.ROOT, "end: %d requests, %d failed (5xx, timeouts), crawler %d of %d pages; hit ratio memory %.3f, all %.3f;"
                            + " heap after GC: first %.1f MB, max %.1f MB, last %.1f MB; live heap after a full GC %.1f MB of %d MB;"
                            + " cached %.1f MB%s; OutOfMemoryError: none (the JVM would have ended, -XX:+ExitOnOutOfMemoryError)%n",
                    requests.get(), failures.get(), crawled.get(), crawlTotal,
                    lookups == 0 ? 0 : (double) total[0] / lookups, lookups == 0 ? 0 : (double) (total[0] + total[1]) / lookups,
                    samples.isEmpty() ? 0 : samples.get(0) / 1048576.0, maxHeapAfterGc / 1048576.0,
                    samples.isEmpty() ? 0 : samples.get(samples.size() - 1) / 1048576.0, live / 1048576.0, maxHeap >> 20,
                    cached(server)[0] / 1048576.0, pb == null ? "" : " of a budget of " + mb(pb.budget()));
        } finally {
            heap.close();
            if (server != null) server.close();
            if (store != null) store.close();
            // The disk tiers (with -Dbudget.disk) are DATA/cache/site-N: this run's only.
            for (int i = 1; cacheFolders != null && i <= n; i++) FileUtils.deleteQuietly(cacheFolders.resolve("site-" + i).toFile());
            FileUtils.deleteQuietly(work.toFile());
        }
        System.exit(0);
    }

    private static void fetch(HttpClient http, String url, AtomicLong requests, AtomicLong failures) {
        try {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() >= 500) failures.incrementAndGet();
        } catch (IOException e) {
            failures.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        requests.incrementAndGet();
    }

    /** Memory hits, disk hits and misses of every site's page cache. */
    private static long[] hits(ArnoServer server) {
        long[] h = new long[3];
        for (PageCacheStats s : server.sites().cacheStats().values()) {
            h[0] += s.memory().hits();
            h[1] += s.disk().hits();
            h[2] += s.misses();
        }
        return h;
    }

    /** Bytes and entries of every site's pages in memory. */
    private static long[] cached(ArnoServer server) {
        long[] c = new long[2];
        for (Map.Entry<String, PageCacheStats> e : server.sites().cacheStats().entrySet()) {
            c[0] += e.getValue().memory().bytes();
            c[1] += e.getValue().memory().entries();
        }
        return c;
    }

    /** The cumulative distribution of Zipf's law over {@code n} ranks with exponent {@code s}. */
    static double[] zipf(int n, double s) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int k = 1; k <= n; k++) {
            sum += 1 / Math.pow(k, s);
            cdf[k - 1] = sum;
        }
        for (int k = 0; k < n; k++) cdf[k] /= sum;
        return cdf;
    }

    /** A rank drawn from {@code cdf}, 0 the most likely. */
    static int pick(double[] cdf, SplittableRandom random) {
        double u = random.nextDouble();
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private static void copySite(Path root, Path target, int i, String memory, String disk) throws IOException {
        FileUtils.copyDirectory(root.resolve("sites/journal-a").toFile(), target.toFile());
        Path xml = target.resolve("site.xml");
        String s = Files.readString(xml)
                .replaceFirst("name=\"journal-a\"", "name=\"site-" + i + "\"")
                .replace("<prefix>/journal-a</prefix>", "<prefix>/site-" + i + "</prefix>")
                .replace("<cache memory=\"64M\" disk=\"1G\"/>", "<cache memory=\"" + memory + "\" disk=\"" + disk + "\"/>");
        if (!s.contains("<cache memory=\"" + memory + "\" disk=\"" + disk + "\"/>")) {
            throw new IllegalStateException("journal-a's site.xml no longer has <cache memory=\"64M\" disk=\"1G\"/>: update SiteBudget");
        }
        Files.writeString(xml, s);
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
    }

    private static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
