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
            return options.isEmpty() ? q : q + " " + options;
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
                int warm = Math.max(2, seconds / 2);
                System.out.printf(Locale.ROOT, "each kind: %d s warm-up, then %d s of 1 client, then %d s of %d clients (threads) at once;"
                        + " latency of one search (results page: 10 hits, facets, snippets)%n", warm, seconds, seconds, clients);
                for (Map.Entry<String, List<Query>> k : kinds.entrySet()) {
                    List<SearchRequest> requests = k.getValue().stream().map(Query::request).toList();
                    drive(index, requests, 1, warm);
                    for (int n : new int[] {1, clients}) {
                        Measured m = drive(index, requests, n, seconds);
                        System.out.printf(Locale.ROOT, "%-9s %2d client%s  n=%-7d p50 %9s  p99 %9s  max %9s  %7.1f pages/s%s%n",
                                k.getKey(), n, n == 1 ? " " : "s", m.h.getTotalCount(), FulltextBench.ms(m.h, 50),
                                FulltextBench.ms(m.h, 99), FulltextBench.ms(m.h, 100), m.h.getTotalCount() / (double) seconds,
                                m.empty > 0 ? "  (" + m.empty + " pages without hits)" : "");
                    }
                }
                // Where a page's time goes: the common words without snippets, without facets, without either.
                List<Query> common = kinds.get("common");
                String[][] parts = {{"snippets", "0"}, {"facets", "false"}, {"snippets", "0", "facets", "false"}};
                for (String[] p : parts) {
                    List<SearchRequest> requests = common.stream().map(q -> SearchRequest.of(q.q(), FulltextBench.options(p))).toList();
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

    record Measured(Histogram h, long empty) {}

    /** {@code clients} threads searching the requests in turn for {@code seconds}. */
    static Measured drive(FulltextIndex index, List<SearchRequest> requests, int clients, int seconds) throws InterruptedException {
        Histogram all = new Histogram(60_000_000L, 3);
        AtomicLong empty = new AtomicLong();
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
                    Results r = index.search(requests.get(i % requests.size()));
                    h.recordValue(Math.min((System.nanoTime() - s) / 1000, 60_000_000L));
                    if (r.hits().isEmpty()) empty.incrementAndGet();
                }
            }, "client-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        for (Histogram h : each) all.add(h);
        return new Measured(all, empty.get());
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
            kinds.put("common", checked(index, "common", common.stream().limit(PER_KIND).map(w -> new Query(w, Map.of())).toList()));
            // Rare words: those of the sample whose stem is in the fewest entries.
            List<String> rare = byStem.entrySet().stream().filter(e -> e.getValue() > 0).sorted(Map.Entry.comparingByValue())
                    .limit(2 * PER_KIND).map(e -> wordOf.get(e.getKey())).toList();
            kinds.put("rare", checked(index, "rare", rare.stream().map(w -> new Query(w, Map.of())).toList()));
            List<Query> and = new ArrayList<>();
            for (int i = 0; i < PER_KIND && i + PER_KIND < common.size(); i++) {
                and.add(new Query(common.get(i) + " AND " + common.get(i + PER_KIND), Map.of()));
            }
            kinds.put("and", checked(index, "and", and));
            List<Query> phrases = pairs.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .limit(PER_KIND).map(e -> new Query("\"" + e.getKey() + "\"", Map.of())).toList();
            kinds.put("phrase", checked(index, "phrase", phrases));
            // Filtered: a common word in one journal and the middle half of the years.
            Results r = index.search(SearchRequest.of(common.get(0)));
            List<String> journals = values(r, "journal");
            List<String> years = values(r, "year").stream().sorted().toList();
            List<Query> filtered = new ArrayList<>();
            for (int i = 0; i < PER_KIND; i++) {
                Map<String, List<String>> o = new LinkedHashMap<>();
                o.put("journal", List.of(journals.get(i % journals.size())));
                o.put("year-from", List.of(years.get(years.size() / 4)));
                o.put("year-to", List.of(years.get(Math.max(years.size() / 4, 3 * years.size() / 4 - 1))));
                filtered.add(new Query(common.get(i % common.size()), o));
            }
            kinds.put("filtered", checked(index, "filtered", filtered));
        }
        return kinds;
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
