package arno.perf.fulltext;

import arno.fulltext.FulltextIndex;
import arno.fulltext.Results;
import arno.fulltext.SearchRequest;
import arno.store.Store;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;

/**
 * Results pages of five kinds of query, as the search page asks for them ({@link SearchRequest#of}
 * with its options: 10 hits, facet counts, one snippet per text field), straight on the index (no
 * HTTP). The words come from the index itself: in a sample of bodies (the first {@value #SAMPLE}
 * entries), common words are the words whose stems are in the most entries (the index's document
 * frequency), rare words those in the fewest, phrases the most frequent pairs of adjacent words. Each kind has a few queries, taken in turn (so one query's
 * caches do not stand for all), warmed up, then run by one client and by N at once.
 */
final class Queries {
    private static final Pattern WORD = Pattern.compile("[A-Za-z]+");
    private static final int SAMPLE = 1000;
    private static final int PER_KIND = 5;

    private Queries() {
    }

    record Query(String q, Map<String, List<String>> options) {
        SearchRequest request() {
            return SearchRequest.of(q, options);
        }

        @Override
        public String toString() {
            Map<String, List<String>> o = new LinkedHashMap<>(options);
            o.keySet().removeAll(List.of("size", "start", "snippets"));
            return q + " " + o;
        }
    }

    static void run(Path dir, int clients, int seconds) throws Exception {
        try (Store store = FulltextBench.openStore(dir)) {
            long t0 = System.nanoTime();
            FulltextIndex index = FulltextBench.openIndex(store, dir, Duration.ofMinutes(30));
            try {
                FulltextIndex.Status st = index.status();
                System.out.printf(Locale.ROOT, "index ready in %.1f s at store version %d (builds while open: %d; 0 = resumed from its commit)%n",
                        (System.nanoTime() - t0) / 1e9, st.version(), st.builds());
                Map<String, List<Query>> kinds = pick(dir, index);
                writeUrls(dir.resolve(URLS), kinds);
                int warm = Math.max(2, seconds / 2);
                System.out.printf(Locale.ROOT, "each kind: %d s warm-up, then %d s of 1 client, then %d s of %d clients (threads) at once;"
                        + " latency of one search as a site's search page asks it (10 hits, facets, 2 snippets per text field,"
                        + " the site's journal_id)%n", warm, seconds, seconds, clients);
                for (Map.Entry<String, List<Query>> k : kinds.entrySet()) {
                    List<SearchRequest> requests = k.getValue().stream().map(Query::request).toList();
                    drive(index, requests, 1, warm);
                    for (int n : new int[] {1, clients}) {
                        Measured m = drive(index, requests, n, seconds);
                        System.out.printf(Locale.ROOT, "%-9s %2d client%s  n=%-7d p50 %9s  p99 %9s  max %9s  %7.1f pages/s%s%n",
                                k.getKey(), n, n == 1 ? " " : "s", m.h.getTotalCount(), FulltextBench.ms(m.h, 50),
                                FulltextBench.ms(m.h, 99), FulltextBench.ms(m.h, 100), m.h.getTotalCount() / (double) seconds,
                                (m.empty > 0 ? "  (" + m.empty + " pages without hits)" : "")
                                        + (m.busy > 0 ? "  (" + m.busy + " refused search-busy)" : ""));
                    }
                }
                // Where a page's time goes: the common words without snippets, without facets, without either.
                List<Query> common = kinds.get("common");
                String[][] parts = {{"snippets", "0"}, {"facets", "false"}, {"snippets", "0", "facets", "false"}};
                for (String[] p : parts) {
                    List<SearchRequest> requests = common.stream().map(q -> {
                        Map<String, List<String>> o = new LinkedHashMap<>(q.options());
                        o.putAll(FulltextBench.options(p));
                        return SearchRequest.of(q.q(), o);
                    }).toList();
                    drive(index, requests, 1, warm);
                    Measured m = drive(index, requests, 1, seconds);
                    System.out.printf(Locale.ROOT, "common, %s, 1 client: p50 %s, p99 %s%n", FulltextBench.options(p),
                            FulltextBench.ms(m.h, 50), FulltextBench.ms(m.h, 99));
                }
                System.out.println("goals at 1,000,000: p50 <= 20 ms, p99 <= 200 ms");
            } finally {
                index.close();
            }
        }
    }

    /** The queries as the sites' search pages' URLs, for {@code FulltextBench http}: KIND, a tab, the page's path. */
    static final String URLS = "search-pages.tsv";

    /**
     * The site's search page for each query: {@code /journal-a/search?q=…} for journal_id ja. The
     * page filters by exact year only (its facet links), so a filtered query's page asks for the
     * first year of the range.
     */
    static void writeUrls(Path file, Map<String, List<Query>> kinds) throws IOException {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, List<Query>> k : kinds.entrySet()) {
            for (Query q : k.getValue()) {
                String id = q.options().get("journal_id").get(0);
                b.append(k.getKey()).append('\t').append("/journal-").append(id.substring(1)).append("/search?q=")
                        .append(java.net.URLEncoder.encode(q.q(), java.nio.charset.StandardCharsets.UTF_8));
                List<String> from = q.options().get("year-from");
                if (from != null) b.append("&year=").append(from.get(0));
                b.append('\n');
            }
        }
        java.nio.file.Files.writeString(file, b);
        System.out.println("the queries as the sites' search pages: " + file + " (FulltextBench http reads it)");
    }

    /**
     * The same kinds through HTTP: each kind's search pages from {@code DIR/search-pages.tsv}
     * against a running server ({@code ./arno serve --data DIR --production}), with
     * {@link arno.perf.pages.PageClients}: warm-up, one client, then {@code clients}.
     */
    static void http(Path dir, String base, int clients, int seconds) throws Exception {
        Map<String, List<String>> kinds = new LinkedHashMap<>();
        for (String line : java.nio.file.Files.readAllLines(dir.resolve(URLS))) {
            String[] kv = line.split("\t", 2);
            kinds.computeIfAbsent(kv[0], k -> new ArrayList<>()).add(kv[1]);
        }
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        int warm = Math.max(2, seconds / 2);
        System.out.printf(Locale.ROOT, "the sites' search pages at %s (whole pages: the template, 10 hits, facets, snippets);"
                + " each kind: %d s warm-up, %d s of 1 client, %d s of %d clients%n", base, warm, seconds, seconds, clients);
        for (Map.Entry<String, List<String>> k : kinds.entrySet()) {
            System.out.println("  " + k.getKey() + ": " + base + k.getValue().get(0) + (k.getValue().size() > 1 ? " ..." : ""));
            timed(http, base, k.getValue(), 1, warm);
            for (int n : new int[] {1, clients}) {
                System.out.printf(Locale.ROOT, "%-9s %2d client%s  %s%n", k.getKey(), n, n == 1 ? " " : "s",
                        timed(http, base, k.getValue(), n, seconds).summary());
            }
        }
    }

    private static arno.perf.pages.PageClients timed(java.net.http.HttpClient http, String base, List<String> pages, int clients,
            int seconds) throws InterruptedException {
        arno.perf.pages.PageClients c = arno.perf.pages.PageClients.run(http, base, pages, clients);
        Thread.sleep(seconds * 1000L);
        c.stop();
        return c;
    }

    /** Latencies of the searches answered; {@code busy}: those the index's bound refused (search-busy), not timed. */
    record Measured(Histogram h, long empty, long busy) {}

    /** {@code clients} threads searching the requests in turn for {@code seconds}. */
    static Measured drive(FulltextIndex index, List<SearchRequest> requests, int clients, int seconds) throws InterruptedException {
        Histogram all = new Histogram(60_000_000L, 3);
        AtomicLong empty = new AtomicLong();
        AtomicLong busy = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        List<Histogram> each = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Histogram h = new Histogram(60_000_000L, 3);
            each.add(h);
            int first = c;
            Thread t = new Thread(() -> {
                for (int i = first; System.nanoTime() < end; i++) {
                    long s = System.nanoTime();
                    Results r;
                    try {
                        r = index.search(requests.get(i % requests.size()));
                    } catch (arno.xml.ArnoException e) {
                        // the bound on searches at once (cores) refused it, as the server would answer 503
                        if (e.code() != arno.xml.ErrorCode.SEARCH_BUSY) throw e;
                        busy.incrementAndGet();
                        continue;
                    }
                    h.recordValue(Math.min((System.nanoTime() - s) / 1000, 60_000_000L));
                    if (r.hits().isEmpty()) empty.incrementAndGet();
                }
            }, "client-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        for (Histogram h : each) all.add(h);
        return new Measured(all, empty.get(), busy.get());
    }

    /** The queries of each kind, from the index's own words; printed with their totals. */
    static Map<String, List<Query>> pick(Path dir, FulltextIndex index) throws IOException {
        Map<String, List<Query>> kinds = new LinkedHashMap<>();
        try (FSDirectory fs = FSDirectory.open(dir.resolve("fulltext")); DirectoryReader reader = DirectoryReader.open(fs);
                Analyzer english = new EnglishAnalyzer()) {
            // A sample of bodies: their words and pairs of adjacent words.
            Map<String, Integer> pairs = new HashMap<>();
            Map<String, String> stems = new HashMap<>();
            StoredFields stored = reader.leaves().get(0).reader().storedFields();
            int sample = Math.min(SAMPLE, reader.leaves().get(0).reader().maxDoc());
            for (int d = 0; d < sample; d++) {
                StringBuilder body = new StringBuilder();
                stored.document(d, new StoredFieldVisitor() {
                    @Override
                    public Status needsField(FieldInfo fieldInfo) {
                        return fieldInfo.name.equals("body") ? Status.YES : Status.NO;
                    }

                    @Override
                    public void stringField(FieldInfo fieldInfo, String value) {
                        body.append(value).append('\n');
                    }
                });
                Matcher m = WORD.matcher(body);
                String before = null;
                int beforeEnd = -1;
                while (m.find()) {
                    // A capital inside a word is two words run together by the field's string value (a table's
                    // "Site" heading and the next cell's "Nitrate"): no word anyone types.
                    if (!m.group().substring(1).equals(m.group().substring(1).toLowerCase(Locale.ROOT))) {
                        before = null;
                        continue;
                    }
                    String w = m.group().toLowerCase(Locale.ROOT);
                    String stem = stems.computeIfAbsent(w, x -> stem(english, x));
                    boolean content = !stem.isEmpty() && w.length() >= 5;
                    if (content && before != null && m.start() == beforeEnd + 1 && body.charAt(beforeEnd) == ' ') {
                        pairs.merge(before + " " + w, 1, Integer::sum);
                    }
                    before = content ? w : null;
                    beforeEnd = m.end();
                }
            }
            // Common words: in the most entries (the body's document frequency of their stem).
            Map<String, Integer> byStem = new HashMap<>();
            Map<String, String> wordOf = new HashMap<>();
            for (Map.Entry<String, String> e : stems.entrySet()) {
                if (e.getValue().isEmpty() || e.getKey().length() < 4) continue;
                if (wordOf.putIfAbsent(e.getValue(), e.getKey()) == null) {
                    byStem.put(e.getValue(), reader.docFreq(new Term("body", e.getValue())));
                }
            }
            List<String> common = byStem.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .limit(2 * PER_KIND).map(e -> wordOf.get(e.getKey())).toList();
            // The journals' ids, which a site's search page filters by: from one hit of each journal.
            Pages pages = new Pages();
            Results any = index.search(SearchRequest.of(common.get(0)));
            List<String> years = values(any, "year").stream().sorted().toList();
            for (String title : values(any, "journal")) {
                Results one = index.search(SearchRequest.of(common.get(0), FulltextBench.options("journal", title, "size", "1")));
                pages.journalIds.add(one.hits().get(0).fields().get("journal_id").get(0));
            }
            kinds.put("common", checked(index, "common", common.stream().limit(PER_KIND).map(w -> pages.page(w)).toList()));
            // Rare words: those of the sample whose stem is in the fewest entries.
            List<String> rare = byStem.entrySet().stream().filter(e -> e.getValue() > 0).sorted(Map.Entry.comparingByValue())
                    .limit(2 * PER_KIND).map(e -> wordOf.get(e.getKey())).toList();
            kinds.put("rare", checked(index, "rare", rare.stream().map(w -> pages.page(w)).toList()));
            List<Query> and = new ArrayList<>();
            for (int i = 0; i < PER_KIND && i + PER_KIND < common.size(); i++) {
                and.add(pages.page(common.get(i) + " AND " + common.get(i + PER_KIND)));
            }
            kinds.put("and", checked(index, "and", and));
            List<Query> phrases = pairs.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .limit(2 * PER_KIND).map(e -> pages.page("\"" + e.getKey() + "\"")).toList();
            kinds.put("phrase", checked(index, "phrase", phrases));
            // Filtered: a common word in the middle half of the years (and the site's journal, as every page).
            List<Query> filtered = new ArrayList<>();
            for (int i = 0; i < PER_KIND; i++) {
                filtered.add(pages.page(common.get(i % common.size()), "year-from", years.get(years.size() / 4),
                        "year-to", years.get(Math.max(years.size() / 4, 3 * years.size() / 4 - 1))));
            }
            kinds.put("filtered", checked(index, "filtered", filtered));
        }
        return kinds;
    }

    /**
     * Queries as a site's search page asks them (stylesheets/packages/journal.xsl, mode search): 10
     * hits from the first, the site's journal_id, 2 snippets per text field, facet counts;
     * alternately each journal's site.
     */
    private static final class Pages {
        final List<String> journalIds = new ArrayList<>();
        int made;

        Query page(String q, String... more) {
            Map<String, List<String>> o = FulltextBench.options("size", "10", "start", "0", "journal_id",
                    journalIds.get(made++ % journalIds.size()), "snippets", "2");
            o.putAll(FulltextBench.options(more));
            return new Query(q, o);
        }
    }

    private static List<String> values(Results r, String facet) {
        for (Results.Facet f : r.facets()) {
            if (f.field().equals(facet)) return f.values().stream().map(Results.Count::value).toList();
        }
        throw new IllegalStateException("no facet " + facet + " in " + r.facets());
    }

    /** The queries that find something, at most {@link #PER_KIND}, printed with their totals. */
    private static List<Query> checked(FulltextIndex index, String kind, List<Query> queries) {
        List<Query> out = new ArrayList<>();
        StringBuilder said = new StringBuilder();
        for (Query q : queries) {
            if (out.size() == PER_KIND) break;
            Results r = index.search(q.request());
            if (r.total() == 0) continue;
            out.add(q);
            said.append(String.format(Locale.ROOT, "%n    %s: %,d hits", q, r.total()));
        }
        if (out.isEmpty()) throw new IllegalStateException("no query of " + queries + " finds anything");
        System.out.println("  " + kind + ":" + said);
        return out;
    }

    private static String stem(Analyzer a, String word) {
        try (TokenStream ts = a.tokenStream("body", word)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            String s = ts.incrementToken() ? term.toString() : "";
            ts.end();
            return s;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
