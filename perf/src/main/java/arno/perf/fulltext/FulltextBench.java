package arno.perf.fulltext;

import arno.demo.Generator;
import arno.fulltext.FulltextConfig;
import arno.fulltext.FulltextIndex;
import arno.fulltext.Results;
import arno.fulltext.SearchRequest;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The full-text index's figures (issue 24, "Measured") over the demo generator's articles, full
 * text (each article's JATS body, 30-100 KB of XML, is indexed):
 *
 * <pre>
 * FulltextBench build DIR N [--no-parts|--slim]   a store of N demo articles in DIR/store (the fast load path), the
 *                                          default /_config/fulltext.xml, then the index in DIR/fulltext built
 *                                          by FulltextIndex from the store: rates, sizes, text indexed, heap;
 *                                          --store-only: the store alone (then "index", alone on the machine)
 * FulltextBench index DIR                  the index of an earlier build's store built again (DIR/fulltext
 *                                          deleted, the current default configuration stored): as "build"
 * FulltextBench query DIR [CLIENTS] [SECONDS]   results pages (10 hits, facets, snippets) of five kinds of
 *                                          query, one client then CLIENTS threads: p50, p99, max per kind
 * FulltextBench fresh DIR [COUNT]          one article written and committed, then searched for until found:
 *                                          commit to searchable, p50, p99, max
 * FulltextBench http DIR BASE [CLIENTS] [SECONDS]   the sites' search pages of the queries {@code query} chose
 *                                          (DIR/search-pages.tsv) from a running {@code ./arno serve --data DIR}
 * </pre>
 *
 * DIR is laid out as a data folder ({@code DIR/store}, {@code DIR/fulltext}), so {@code ./arno serve
 * --data DIR} serves it. {@code --no-parts} leaves out the articles' figure and table entries (not
 * indexed); {@code --slim} also each article's JATS article-meta and back matter (not indexed
 * either): at a million articles the demo's store (about 77 KB an article) and the index do not
 * fit 80 GB, the slim store (about 45 KB) does.
 */
public final class FulltextBench {
    /** As the store service's benches: room for a million articles of 30-100 KB. */
    private static final long MAP_SIZE = 512L << 30;
    private static final long SEED = 1;
    /** As {@code ./arno store load}: a commit every 1,000 documents or 256 MB. */
    private static final int BATCH = 1000;
    private static final long BATCH_BYTES = 256L << 20;
    private static final long PROGRESS_NS = 10_000_000_000L;

    private FulltextBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: FulltextBench build DIR N [--no-parts|--slim] [--store-only] | index DIR | query DIR [CLIENTS] [SECONDS] | fresh DIR [COUNT]"
                    + " | http DIR BASE-URL [CLIENTS] [SECONDS]");
            System.exit(2);
        }
        Path dir = Path.of(args[1]);
        System.out.printf(Locale.ROOT, "# FulltextBench %s; JVM %s, max heap %d MB, %d processors%n", String.join(" ", args),
                System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors());
        switch (args[0]) {
            case "build" -> build(dir, Integer.parseInt(args[2]), List.of(args).contains("--no-parts") || List.of(args).contains("--slim"),
                    List.of(args).contains("--slim"), List.of(args).contains("--store-only"));
            case "index" -> index(dir);
            case "query" -> Queries.run(dir, args.length > 2 ? Integer.parseInt(args[2]) : 8,
                    args.length > 3 ? Integer.parseInt(args[3]) : 10);
            case "fresh" -> fresh(dir, args.length > 2 ? Integer.parseInt(args[2]) : 50);
            case "http" -> Queries.http(dir, args[2], args.length > 3 ? Integer.parseInt(args[3]) : 8,
                    args.length > 4 ? Integer.parseInt(args[4]) : 10);
            default -> throw new IllegalArgumentException("no command " + args[0] + " (build, index, query, fresh, http)");
        }
    }

    static Store openStore(Path dir) {
        return Store.open(dir.resolve("store"), StoreOptions.defaults().mapSize(MAP_SIZE));
    }

    /** Opens the index beside the store and waits until it is ready (built or resumed). */
    static FulltextIndex openIndex(Store store, Path dir, Duration wait) throws InterruptedException {
        FulltextIndex index = FulltextIndex.open(store, dir.resolve("fulltext"), FulltextIndex.Options.defaults());
        if (!index.awaitVersion(store.version(), wait)) {
            throw new IllegalStateException("the index is not ready after " + wait + ": " + index.status());
        }
        return index;
    }

    // ---------------------------------------------------------------- build

    private record Doc(String path, byte[] xml) {}

    private static final Doc END = new Doc("", new byte[0]);

    static void build(Path dir, int articles, boolean noParts, boolean slim, boolean storeOnly) throws Exception {
        if (Files.exists(dir)) throw new IllegalArgumentException(dir + " exists; give a fresh folder");
        Files.createDirectories(dir);
        long[] loaded = load(dir, articles, noParts, slim);
        // What "index" needs to report against, when the index is built in a later run (alone on the machine).
        Files.writeString(dir.resolve("loaded.txt"), articles + " " + loaded[1] + "\n");
        if (storeOnly) return;
        index(dir, articles, loaded[1]);
    }

    /** The index built again from the store of an earlier "build": DIR/fulltext deleted, the current default configuration stored. */
    static void index(Path dir) throws Exception {
        String[] loaded = Files.readString(dir.resolve("loaded.txt")).trim().split(" ");
        Path folder = dir.resolve("fulltext");
        if (Files.exists(folder)) {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(f);
            }
        }
        try (Store store = openStore(dir); WriteTransaction w = store.write()) {
            w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
            w.commit();
        }
        index(dir, Integer.parseInt(loaded[0]), Long.parseLong(loaded[1]));
    }

    private static void index(Path dir, int articles, long xmlBytes) throws Exception {
        // The heap the index adds: measured from the store alone, reopened.
        try (Store store = openStore(dir)) {
            long base = heapAfterGc();
            resetPeaks();
            long t0 = System.nanoTime();
            FulltextIndex index = FulltextIndex.open(store, dir.resolve("fulltext"), FulltextIndex.Options.defaults());
            long shown = t0;
            long lastDone = 0;
            while (true) {
                FulltextIndex.Status s = index.status();
                if (s.state() == FulltextIndex.State.READY && s.version() >= store.version()) break;
                if (s.state() == FulltextIndex.State.FAILED) throw new IllegalStateException("the index failed: " + s.problem());
                long now = System.nanoTime();
                if (now - shown >= PROGRESS_NS) {
                    System.out.printf(Locale.ROOT, "  index: %s %,d of %,d store documents examined (%.0f/s in the last %d s),"
                            + " heap after the last old-generation GC %s%n", s.state(), s.done(), s.total(),
                            (s.done() - lastDone) / ((now - shown) / 1e9), Math.round((now - shown) / 1e9), mb(oldGenAfterGc()));
                    shown = now;
                    lastDone = s.done();
                }
                Thread.sleep(50);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long peak = peakHeap();
            FulltextIndex.Status s = index.status();
            System.out.printf(Locale.ROOT, "index built: %,d articles (%,d store documents examined) in %.1f s: %,.0f articles/s"
                    + " (goal at 1,000,000: >= 2,000/s); builds %d%n", articles, s.total(), seconds, articles / seconds, s.builds());
            long ready = heapAfterGc();
            index.search(SearchRequest.of("significant"));
            long searched = heapAfterGc();
            System.out.printf(Locale.ROOT, "heap: store alone %s; index built %s (%+.1f MB); after a first search (facet state) %s (%+.1f MB);"
                    + " peak while building %s (heap pools' peaks summed)%n", mb(base), mb(ready), (ready - base) / 1e6,
                    mb(searched), (searched - base) / 1e6, mb(peak));
            index.close();
            System.out.printf(Locale.ROOT, "store: %s on disk (%,d B per article)%n", mb(store.diskBytes()), store.diskBytes() / articles);
        }
        sizes(dir, articles, xmlBytes);
    }

    /** Generates and stores the articles; returns {documents, bytes of XML stored, article JATS bytes}. */
    private static long[] load(Path dir, int articles, boolean noParts, boolean slim) throws Exception {
        BlockingQueue<Doc> queue = new ArrayBlockingQueue<>(2048);
        AtomicInteger generated = new AtomicInteger();
        Generator.Sink sink = (path, text) -> {
            if (noParts && isPart(path)) return 0;
            byte[] b = (slim && isArticleJats(path) ? slim(text) : text).getBytes(StandardCharsets.UTF_8);
            try {
                queue.put(new Doc(path, b));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            return b.length;
        };
        System.out.printf(Locale.ROOT, "load: %,d demo articles (seed %d%s) into %s, a commit every %,d documents or 256 MB%n",
                articles, SEED, slim ? ", slim: without figures and tables, the JATS without article-meta and back matter"
                : noParts ? ", without figures and tables" : ", with their figures and tables", dir.resolve("store"), BATCH);
        long docs = 0;
        long bytes = 0;
        long jats = 0;
        long waiting = 0;
        long putting = 0;
        long committing = 0;
        long t0 = System.nanoTime();
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            try {
                Generator.generate(articles, SEED, sink, n -> generated.set(n));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                try {
                    queue.put(END);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, runnable -> {
            Thread t = new Thread(runnable, "generator");
            t.setDaemon(true);
            t.start();
        });
        try (Store store = openStore(dir)) {
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
                w.commit();
            }
            WriteTransaction w = store.write();
            int inBatch = 0;
            long batchBytes = 0;
            long shown = t0;
            long shownArticles = 0;
            try {
                while (true) {
                    long q0 = System.nanoTime();
                    Doc d = queue.take();
                    long q1 = System.nanoTime();
                    waiting += q1 - q0;
                    if (d == END) break;
                    w.put(d.path, d.xml);
                    putting += System.nanoTime() - q1;
                    docs++;
                    bytes += d.xml.length;
                    if (isArticleJats(d.path)) jats += d.xml.length;
                    inBatch++;
                    batchBytes += d.xml.length;
                    if (inBatch >= BATCH || batchBytes >= BATCH_BYTES) {
                        long c0 = System.nanoTime();
                        w.commit();
                        committing += System.nanoTime() - c0;
                        w = store.write();
                        inBatch = 0;
                        batchBytes = 0;
                        long now = System.nanoTime();
                        if (now - shown >= PROGRESS_NS) {
                            int n = generated.get();
                            System.out.printf(Locale.ROOT, "  load: %,d of %,d articles generated, %,d documents stored (%s),"
                                    + " %.0f articles/s in the last %d s%n", n, articles, docs, mb(bytes),
                                    (n - shownArticles) / ((now - shown) / 1e9), Math.round((now - shown) / 1e9));
                            shown = now;
                            shownArticles = n;
                        }
                    }
                }
                w.commit();
            } finally {
                w.close();
            }
            producer.join();
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "loaded: %,d articles, %,d documents, %s of XML (articles' JATS %s, %,d B per article)"
                    + " in %.1f s: %,.0f articles/s, %,.0f documents/s, %.1f MB/s; store %s on disk (%.2f of the XML)%n",
                    articles, docs, mb(bytes), mb(jats), jats / articles, seconds, articles / seconds, docs / seconds,
                    bytes / seconds / 1e6, mb(store.diskBytes()), (double) store.diskBytes() / bytes);
            System.out.printf(Locale.ROOT, "  the writer's time: storing (parsing) %.1f s, committing %.1f s, waiting for the generator %.1f s%n",
                    putting / 1e9, committing / 1e9, waiting / 1e9);
        }
        return new long[] {docs, bytes, jats};
    }

    /** A figure's or table's entry or variant: /journals/ja/v1/i1/a0001/f1.svg. */
    private static boolean isPart(String path) {
        return path.matches(".*/a\\d+/[ft]\\d+\\.[a-z]+");
    }

    /**
     * An article's JATS without its article-meta (the entry has its metadata) and back matter
     * (references): what the configuration indexes of it (journal, body) stays whole; the store is
     * about 40% smaller, so a million articles fit a smaller disk.
     */
    static String slim(String jats) {
        return cut(cut(jats, "<article-meta>", "</article-meta>"), "<back>", "</back>");
    }

    private static String cut(String s, String open, String close) {
        int a = s.indexOf(open);
        int b = a < 0 ? -1 : s.indexOf(close, a);
        return b < 0 ? s : s.substring(0, a) + s.substring(b + close.length());
    }

    private static boolean isArticleJats(String path) {
        return path.matches(".*/a\\d+\\.xml");
    }

    /** The index's size on disk, by kind of file, and against the text it holds. */
    private static void sizes(Path dir, int articles, long xml) throws IOException {
        Path folder = dir.resolve("fulltext");
        long total = 0;
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.toList()) total += Files.size(f);
        }
        Map<String, Long> byKind = IndexText.fileKinds(folder);
        System.out.printf(Locale.ROOT, "index: %s on disk, %,d B per article, %.3f of the XML stored%n", mb(total), total / articles,
                (double) total / xml);
        StringBuilder kinds = new StringBuilder("  by file kind:");
        for (Map.Entry<String, Long> e : byKind.entrySet()) {
            kinds.append(String.format(Locale.ROOT, " %s %s (%.0f%%)", e.getKey(), mb(e.getValue()), 100.0 * e.getValue() / total));
        }
        System.out.println(kinds);
        System.out.println("  (inside compound files too; fdt: stored values; tim/tip/tmd: terms; doc: postings; pos: positions;"
                + " pay: offsets; dvd: doc values (facets, paths, dates); kdd/kdi: points (years, dates))");
        IndexText.Counted text = IndexText.count(folder);
        System.out.printf(Locale.ROOT, "text indexed (the stored values of the index's fields, as the configuration's XPaths took them"
                + " from the entries and JATS, UTF-8): %s in %,d documents; analysed text fields %s (%,d B per article)%n",
                mb(text.all()), text.documents(), mb(text.analysed()), text.analysed() / Math.max(1, text.documents()));
        StringBuilder fields = new StringBuilder("  by field:");
        for (Map.Entry<String, Long> e : text.byField().entrySet()) fields.append(' ').append(e.getKey()).append(' ').append(mb(e.getValue()));
        System.out.println(fields);
        System.out.printf(Locale.ROOT, "index / text indexed: %.3f against the analysed text fields, %.3f against every stored value"
                + " (goal: <= 0.5)%n", (double) total / text.analysed(), (double) total / text.all());
    }

    // ---------------------------------------------------------------- fresh

    static void fresh(Path dir, int count) throws Exception {
        try (Store store = openStore(dir)) {
            FulltextIndex index = openIndex(store, dir, Duration.ofMinutes(30));
            try {
                System.out.printf(Locale.ROOT, "index ready at store version %d (%s, builds %d)%n", index.status().version(),
                        index.status().state(), index.status().builds());
                String template = null;
                byte[] atom;
                byte[] jats;
                try (Snapshot s = store.read()) {
                    for (String u : s.uris("/journals/", null, 1000)) {
                        if (u.matches(".*/a\\d+\\.atom")) {
                            template = u.substring(0, u.length() - ".atom".length());
                            break;
                        }
                    }
                    if (template == null) throw new IllegalStateException("no article found to copy");
                    atom = export(s, template + ".atom");
                    jats = export(s, template + ".xml");
                }
                String parent = template.substring(0, template.lastIndexOf('/'));
                System.out.printf(Locale.ROOT, "fresh: %d articles (after %d not counted), each a copy of %s (%,d + %,d B) with a new word in its title,"
                        + " written in one durable commit; then its word searched for (the full page: 10 hits, facets, snippets)"
                        + " until found%n", count, WARM_UP, template, atom.length, jats.length);
                Histogram visible = new Histogram(60_000_000L, 3);
                Histogram commits = new Histogram(60_000_000L, 3);
                Histogram polls = new Histogram(60_000_000L, 3);
                Random random = new Random(7);
                List<String> written = new ArrayList<>();
                // The first WARM_UP are not counted: the JIT's first pass over the write and the search.
                for (int i = 0; i < count + WARM_UP; i++) {
                    String word = "zqfresh" + letters(i) + "x";
                    String path = parent + "/fresh" + i;
                    String entry = new String(atom, StandardCharsets.UTF_8).replaceFirst("<title([^>]*)>", "<title$1>" + word + " ");
                    long c0 = System.nanoTime();
                    try (WriteTransaction w = store.write()) {
                        w.put(path + ".atom", entry.getBytes(StandardCharsets.UTF_8));
                        w.put(path + ".xml", jats);
                        w.commit();
                    }
                    long t0 = System.nanoTime();
                    written.add(path);
                    int tries = 0;
                    SearchRequest find = SearchRequest.of(word);
                    while (true) {
                        tries++;
                        Results r = index.search(find);
                        if (r.total() > 0) {
                            if (!r.hits().get(0).path().equals(path)) throw new IllegalStateException(word + " found at " + r.hits().get(0).path());
                            break;
                        }
                        if (System.nanoTime() - t0 > 60_000_000_000L) throw new IllegalStateException(word + " not searchable after 60 s");
                        Thread.sleep(1);
                    }
                    long t1 = System.nanoTime();
                    if (i < WARM_UP) continue;
                    commits.recordValue((t0 - c0) / 1000);
                    visible.recordValue((t1 - t0) / 1000);
                    polls.recordValue(tries);
                    // The next commit at another point of the follower's 100 ms poll.
                    Thread.sleep(50 + random.nextInt(400));
                }
                System.out.printf(Locale.ROOT, "commit (2 documents, durable): p50 %s, p99 %s, max %s%n", ms(commits, 50), ms(commits, 99),
                        ms(commits, 100));
                System.out.printf(Locale.ROOT, "commit to searchable: p50 %s, p99 %s, max %s over %d (goal <= 1 s); searches until found"
                        + " p50 %d, max %d%n", ms(visible, 50), ms(visible, 99), ms(visible, 100), count,
                        polls.getValueAtPercentile(50), polls.getMaxValue());
                // Leave the folder as it was built, for the next run.
                try (WriteTransaction w = store.write()) {
                    for (String p : written) {
                        w.delete(p + ".atom");
                        w.delete(p + ".xml");
                    }
                    w.commit();
                }
                if (!index.awaitVersion(store.version(), Duration.ofMinutes(1))) System.out.println("the deletes were not applied in 1 minute");
            } finally {
                index.close();
            }
        }
    }

    private static final int WARM_UP = 3;

    private static byte[] export(Snapshot s, String uri) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.export(uri, out);
        return out.toByteArray();
    }

    /** 0 → a, 25 → z, 26 → ba: a word of letters only, so no analyser splits it. */
    static String letters(int i) {
        StringBuilder b = new StringBuilder();
        do {
            b.insert(0, (char) ('a' + i % 26));
            i /= 26;
        } while (i > 0);
        return b.toString();
    }

    // ---------------------------------------------------------------- figures

    static String ms(Histogram h, double percentile) {
        long us = percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile);
        return String.format(Locale.ROOT, "%.2f ms", us / 1000.0);
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    static long heapAfterGc() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) if (p.getType() == MemoryType.HEAP) p.resetPeakUsage();
    }

    private static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) if (p.getType() == MemoryType.HEAP) sum += p.getPeakUsage().getUsed();
        return sum;
    }

    /** The old generation as the last collection of it left it: the live heap, without forcing a GC. */
    private static long oldGenAfterGc() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage u = p.getCollectionUsage();
            if (p.getType() == MemoryType.HEAP && u != null && (p.getName().contains("Old") || p.getName().contains("Tenured"))) return u.getUsed();
        }
        return -1;
    }

    static Map<String, List<String>> options(String... pairs) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put(pairs[i], List.of(pairs[i + 1]));
        return m;
    }
}
