package arno.perf.store;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;
import arno.store.http.StoreServlet;
import arno.xml.Accounts;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;

/**
 * The store service's figures (issue 11) on a generated hierarchy of N entries:
 *
 * <ol>
 * <li>bulk creation through the service's write path (AtomStore, the same calls the HTTP API
 *     makes), T threads posting at once so the writer groups their commits, level by level
 *     (parents exist before their children); entries per second, and disk bytes per entry;</li>
 * <li>over HTTP (the real StoreServlet in embedded Tomcat, one client sending one request after
 *     another, so each time is one request's latency): GET of an article entry, the same with
 *     {@code with-ancestors=yes}, an issue's table of contents with {@code with-descendants=1};
 *     p50 and p99, with GET of the service document as the baseline of the same run;</li>
 * <li>cascading DELETE of an article with 50 figure sub-entries (each with an SVG variant) and
 *     10 articles elsewhere citing it: median and max of several deletes.</li>
 * </ol>
 *
 * The hierarchy: one top-level entry, journals of 50 volumes of 4 issues of 20 articles, each
 * article with 4 figure entries; 5 entries per article. Each entry is a small Atom entry (title,
 * author, summary of about 300 bytes).
 *
 * <pre>
 * java -cp ... arno.perf.store.ResourceBench DIR ENTRIES [THREADS]
 * </pre>
 */
public final class ResourceBench {
    private static final int ARTICLES_PER_ISSUE = 20;
    private static final int ISSUES_PER_VOLUME = 4;
    private static final int VOLUMES_PER_JOURNAL = 50;
    private static final int FIGURES_PER_ARTICLE = 4;

    private ResourceBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long entries = Long.parseLong(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        if (Files.exists(dir)) throw new IllegalArgumentException(dir + " exists; give a fresh folder");
        long articles = Math.max(1, entries / (1 + FIGURES_PER_ARTICLE));
        long issues = (articles + ARTICLES_PER_ISSUE - 1) / ARTICLES_PER_ISSUE;
        long volumes = (issues + ISSUES_PER_VOLUME - 1) / ISSUES_PER_VOLUME;
        long journals = (volumes + VOLUMES_PER_JOURNAL - 1) / VOLUMES_PER_JOURNAL;
        System.out.printf(Locale.ROOT, "hierarchy: %d journals, %d volumes, %d issues, %d articles, %d figures; %d threads%n",
                journals, volumes, issues, articles, articles * FIGURES_PER_ARTICLE, threads);
        // -Dnosync=true: commits without fsync, to tell the disk's share of the creation rate from the CPU's
        StoreOptions options = StoreOptions.defaults().mapSize(256L << 30).noSync(Boolean.getBoolean("nosync"));
        try (Store store = Store.open(dir.resolve("store"), options);
                AtomStore atom = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store"))) {
            long before = store.diskBytes();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            AtomicLong created = new AtomicLong();
            long t0 = System.nanoTime();
            atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "All journals", null), "bench");
            created.incrementAndGet();
            ResourcePath top = ResourcePath.of("/journals");
            List<ResourcePath> js = level(pool, atom, List.of(top), journals, (int) journals, "journal", "j", created, t0);
            List<ResourcePath> vs = level(pool, atom, js, volumes, VOLUMES_PER_JOURNAL, "volume", null, created, t0);
            List<ResourcePath> is = level(pool, atom, vs, issues, ISSUES_PER_VOLUME, "issue", null, created, t0);
            List<ResourcePath> as = level(pool, atom, is, articles, ARTICLES_PER_ISSUE, "article", "a", created, t0);
            level(pool, atom, as, articles * FIGURES_PER_ARTICLE, FIGURES_PER_ARTICLE, "figure", "f", created, t0);
            double secs = (System.nanoTime() - t0) / 1e9;
            long disk = store.diskBytes() - before;
            System.out.printf(Locale.ROOT, "created %,d entries in %.1f s: %,.0f entries/s; disk %,d bytes, %.0f bytes per entry%n",
                    created.get(), secs, created.get() / secs, disk, disk / (double) created.get());

            reads(store, atom, is, as);
            deletes(pool, atom, is);
            pool.shutdown();
        }
    }

    /** Creates {@code count} children spread over {@code parents} ({@code per} each), in parallel. */
    private static List<ResourcePath> level(ExecutorService pool, AtomStore atom, List<ResourcePath> parents, long count,
            int per, String kind, String prefix, AtomicLong created, long t0) throws Exception {
        List<ResourcePath> made = new ArrayList<>();
        List<Future<ResourcePath>> futures = new ArrayList<>();
        long n = 0;
        for (ResourcePath parent : parents) {
            for (int i = 1; i <= per && n < count; i++, n++) {
                String slug = prefix == null ? null : prefix + (kind.equals("journal") ? n + 1 : i);
                long k = n;
                futures.add(pool.submit(() -> {
                    ResourcePath p = atom.createEntry(parent, null, slug, entry(kind, kind + " " + (k + 1), parent), "bench").path();
                    long c = created.incrementAndGet();
                    if (c % 100_000 == 0) {
                        System.out.printf(Locale.ROOT, "  %,d entries, %.0f s%n", c, (System.nanoTime() - t0) / 1e9);
                    }
                    return p;
                }));
            }
        }
        for (Future<ResourcePath> f : futures) made.add(f.get());
        return made;
    }

    static byte[] entry(String kind, String title, ResourcePath parent) {
        return ("<entry xmlns='http://www.w3.org/2005/Atom'><title>" + title + "</title>"
                + "<author><name>Bench</name></author>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/>"
                + "<summary>" + "A generated summary of about three hundred bytes, so that entries have the size of real ones. ".repeat(3)
                + "</summary></entry>").getBytes(StandardCharsets.UTF_8);
    }

    /** GET latencies over HTTP, one request at a time. */
    private static void reads(Store store, AtomStore atom, List<ResourcePath> issues, List<ResourcePath> articles) throws Exception {
        Path base = Files.createTempDirectory("arno-bench-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("maxKeepAliveRequests", "-1");
        Context ctx = tomcat.addContext("", null);
        new StoreServlet(atom, new Accounts(base.resolve("users")), StoreServlet.ReadPolicy.PUBLIC, 1 << 20).endpoint()
                .mount(ctx, "store", "/store/*");
        tomcat.start();
        try {
            int port = tomcat.getConnector().getLocalPort();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String root = "http://127.0.0.1:" + port + "/store";
            Random rnd = new Random(7);
            int n = 5000;
            for (int round = 0; round < 2; round++) { // the first round warms up
                boolean show = round == 1;
                time(http, show, "service document (baseline)", n, i -> root + "/");
                time(http, show, "GET article entry", n, i -> root + articles.get(rnd.nextInt(articles.size())).entryDocument());
                time(http, show, "GET article with-ancestors=yes", n,
                        i -> root + articles.get(rnd.nextInt(articles.size())).entryDocument() + "?with-ancestors=yes");
                time(http, show, "GET issue with-descendants=1 (toc)", n / 5,
                        i -> root + issues.get(rnd.nextInt(issues.size())).entryDocument() + "?with-descendants=1");
            }
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private static void time(HttpClient http, boolean show, String what, int n, java.util.function.IntFunction<String> url)
            throws Exception {
        long[] ns = new long[n];
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            HttpRequest r = HttpRequest.newBuilder(URI.create(url.apply(i))).timeout(Duration.ofSeconds(30)).build();
            long t = System.nanoTime();
            HttpResponse<byte[]> rsp = http.send(r, HttpResponse.BodyHandlers.ofByteArray());
            ns[i] = System.nanoTime() - t;
            if (rsp.statusCode() != 200) throw new IllegalStateException(r.uri() + " answered " + rsp.statusCode());
            bytes += rsp.body().length;
        }
        Arrays.sort(ns);
        if (show) {
            System.out.printf(Locale.ROOT, "%-40s n=%d  p50 %.3f ms  p99 %.3f ms  max %.1f ms  %.1f KB/answer%n", what, n,
                    ns[n / 2] / 1e6, ns[(int) (n * 0.99)] / 1e6, ns[n - 1] / 1e6, bytes / (double) n / 1024);
        }
    }

    /**
     * Cascading deletes: each target article gets 50 figure entries with an SVG variant each and is
     * cited by 10 articles under other issues; the DELETE removes 101 documents and rewrites 10
     * entries (plus the reciprocal side), in one transaction.
     */
    private static void deletes(ExecutorService pool, AtomStore atom, List<ResourcePath> issues) throws Exception {
        int rounds = 7;
        double[] ms = new double[rounds];
        Random rnd = new Random(11);
        for (int r = 0; r < rounds; r++) {
            ResourcePath issue = issues.get(rnd.nextInt(issues.size()));
            ResourcePath target = atom.createEntry(issue, null, "del" + r, entry("article", "to delete " + r, issue), "bench").path();
            List<Future<?>> fs = new ArrayList<>();
            for (int f = 1; f <= 50; f++) {
                int k = f;
                fs.add(pool.submit(() -> {
                    ResourcePath fig = atom.createEntry(target, null, "f" + k, entry("figure", "figure " + k, target), "bench").path();
                    atom.putVariant(fig, "svg", "image/svg+xml", 0, new ByteArrayInputStream(
                            "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='5'/></svg>"
                                    .getBytes(StandardCharsets.UTF_8)), "bench");
                    return null;
                }));
            }
            for (int c = 0; c < 10; c++) {
                ResourcePath other = issues.get(rnd.nextInt(issues.size()));
                String citing = "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:arno='urn:arno:atom'><title>citing</title>"
                        + "<category scheme='urn:arno:kind' term='article'/>"
                        + "<link rel='related' arno:role='cites' href='" + target.entryDocument() + "'/></entry>";
                int k = c;
                fs.add(pool.submit(() -> atom.createEntry(other, null, "cite" + rnd.nextInt(1 << 30) + "x" + k,
                        citing.getBytes(StandardCharsets.UTF_8), "bench")));
            }
            for (Future<?> f : fs) f.get();
            long t = System.nanoTime();
            AtomStore.Deleted d = atom.delete(target, -1, "bench");
            ms[r] = (System.nanoTime() - t) / 1e6;
            System.out.printf(Locale.ROOT, "  delete %d: %d documents, %d links removed, %.2f ms%n", r, d.documents().size(),
                    d.linksRemoved(), ms[r]);
        }
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "cascading DELETE (51 entries + 50 variants, 10 citing entries): median %.2f ms, max %.2f ms%n",
                sorted[rounds / 2], sorted[rounds - 1]);
    }
}
