package arno.fulltext;

import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.QueryTimeoutImpl;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageFormatter;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.util.BytesRef;

/** One search over one searcher: the query, filters, sort, the page, facet counts and snippets. */
final class Search {

    /** Stored text fields at most this long come with each hit (titles, authors); longer ones as snippets. */
    private static final int SHORT_FIELD = 500;
    private static final int FACET_VALUES = 20;
    /** Hits counted one by one before the top hits may skip (Lucene's default); the total then comes from {@link MatchCounts}. */
    static final int EXACT_HITS = 1000;

    private final FulltextIndex.Indexed in;
    private final IndexReader reader;
    private final Duration timeout;
    private final int sample;
    private final long version;
    /** Null, or the idle cores this search may take for its top hits. */
    private final SearchHelpers helpers;

    Search(FulltextIndex.Indexed in, IndexReader reader, Duration timeout, int sample, long version, SearchHelpers helpers) {
        this.in = in;
        this.reader = reader;
        this.timeout = timeout;
        this.sample = sample;
        this.version = version;
        this.helpers = helpers;
    }

    Results run(SearchRequest r) {
        FulltextConfig config = in.config();
        Query main = QueryReader.read(r.query(), config, in.analyzer());
        BooleanQuery.Builder b = new BooleanQuery.Builder().add(main, BooleanClause.Occur.MUST);
        filters(r.filters(), config, b);
        Query query = b.build();
        Sort sort = sort(r.sort(), config);
        // A searcher per search: the time limit is the searcher's, and readers are shared.
        IndexSearcher searcher = helpers == null ? new IndexSearcher(reader) : helpers.searcher(reader);
        ScoreDoc after = r.after() == null ? null : after(r.after(), r.sort(), searcher);
        QueryTimeoutImpl limit = new QueryTimeoutImpl(timeout.toMillis());
        searcher.setTimeout(limit);
        int n = after == null ? r.start() + r.size() : r.size();
        // Past EXACT_HITS the top hits skip what cannot reach the page (block-max WAND); the counts come apart.
        TopDocs top;
        try {
            top = sort == null ? searcher.search(query, new TopScoreDocCollectorManager(n, after, EXACT_HITS))
                    : searcher.search(query, new TopFieldCollectorManager(sort, n, (FieldDoc) after, EXACT_HITS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (searcher.timedOut()) throw ErrorMessage.SEARCH_STOPPED.error(timeout.toMillis());
        boolean topExact = top.totalHits.relation == TotalHits.Relation.EQUAL_TO;
        Set<String> dims = new LinkedHashSet<>();
        if (r.facets()) for (FulltextConfig.Field f : config.fields()) if (f.facet()) dims.add(f.name());
        long total = top.totalHits.value;
        boolean exact = topExact;
        List<Results.Facet> facets = List.of();
        if (!topExact || !dims.isEmpty()) {
            MatchCounts.Counted c = new MatchCounts(sample).count(searcher, query, dims, limit, timeout.toMillis());
            if (!topExact) {
                total = c.total();
                exact = c.exact();
            }
            List<Results.Facet> fs = new ArrayList<>();
            for (String d : dims) fs.add(new Results.Facet(d, MatchCounts.top(c.facets().get(d), FACET_VALUES), c.exact()));
            facets = fs;
        }
        int from = after == null ? Math.min(r.start(), top.scoreDocs.length) : 0;
        ScoreDoc[] page = java.util.Arrays.copyOfRange(top.scoreDocs, from, top.scoreDocs.length);
        List<Results.Hit> hits = hits(searcher, page, main, r.snippets());
        String next = null;
        if (page.length == r.size() && (after != null || !exact || r.start() + page.length < total)) {
            next = token(r.sort(), page[page.length - 1], hits.get(hits.size() - 1).path());
        }
        return new Results(r.query(), total, exact, after == null ? r.start() : -1, r.size(), hits, facets, next, version);
    }

    private static void filters(Map<String, List<String>> filters, FulltextConfig config, BooleanQuery.Builder b) {
        Map<String, int[]> ranges = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : filters.entrySet()) {
            String key = e.getKey();
            String name = key.endsWith("-from") ? key.substring(0, key.length() - 5)
                    : key.endsWith("-to") ? key.substring(0, key.length() - 3) : key;
            FulltextConfig.Field f = config.field(name);
            if (f == null || f.type() == FulltextConfig.Type.TEXT || f.type() == FulltextConfig.Type.DATE) {
                throw ErrorMessage.SEARCH_OPTION.error(key, "it is neither an option (start, size, after, sort, facets,"
                        + " snippets) nor a keyword or year field to filter by (the fields are " + config.fieldNames() + ")");
            }
            if (!name.equals(key)) {
                if (f.type() != FulltextConfig.Type.YEAR) {
                    throw ErrorMessage.SEARCH_OPTION.error(key, name + " is not a year field, so it has no range");
                }
                int[] range = ranges.computeIfAbsent(name, k -> new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE});
                int y = year(key, e.getValue().get(0));
                if (key.endsWith("-from")) range[0] = y;
                else range[1] = y;
                continue;
            }
            BooleanQuery.Builder any = new BooleanQuery.Builder();
            for (String v : e.getValue()) {
                any.add(f.type() == FulltextConfig.Type.YEAR ? IntPoint.newExactQuery(name, year(key, v))
                        : new TermQuery(new Term(name, v.strip().toLowerCase(Locale.ROOT))), BooleanClause.Occur.SHOULD);
            }
            b.add(any.build(), BooleanClause.Occur.FILTER);
        }
        for (Map.Entry<String, int[]> e : ranges.entrySet()) {
            b.add(IntPoint.newRangeQuery(e.getKey(), e.getValue()[0], e.getValue()[1]), BooleanClause.Occur.FILTER);
        }
    }

    private static int year(String key, String v) {
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw ErrorMessage.SEARCH_OPTION.error(key, "'" + v + "' is not a year");
        }
    }

    /**
     * Null for relevance (BM25: scores alone, so the top hits can skip what cannot reach the page;
     * ties, rare with BM25, go by document id), or the first date field newest first, the path
     * breaking ties so that pages never overlap.
     */
    private static Sort sort(String by, FulltextConfig config) {
        if (by.equals("relevance")) return null;
        for (FulltextConfig.Field f : config.fields()) {
            if (f.type() == FulltextConfig.Type.DATE) {
                SortField date = new SortField(f.name(), SortField.Type.LONG, true);
                date.setMissingValue(Long.MIN_VALUE);
                return new Sort(date, new SortField(EntryDocuments.PATH, SortField.Type.STRING));
            }
        }
        throw ErrorMessage.SEARCH_OPTION.error("sort", "there is no date field to sort by (the fields are "
                + config.fieldNames() + ")");
    }

    /** The next page's token: the sort, the last hit's sort value (its score, or date) and its path. */
    private static String token(String sort, ScoreDoc last, String path) {
        String value = last instanceof FieldDoc fd ? String.valueOf(fd.fields[0]) : Integer.toString(Float.floatToIntBits(last.score));
        String raw = sort.charAt(0) + ":" + value + ":" + path;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Where the page a token names starts. By relevance: after the named entry's score and its
     * document id in this reader (an entry deleted since: after its score, ties kept). By date:
     * after its date and path, the tie-break on the document the last id (the entry the token
     * names is never after itself).
     */
    private static ScoreDoc after(String token, String sortName, IndexSearcher searcher) {
        String path;
        float score;
        try {
            String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            String[] p = raw.split(":", 3);
            if (p.length != 3 || p[0].charAt(0) != sortName.charAt(0)) throw new IllegalArgumentException("another sort");
            if (!sortName.equals("relevance")) {
                return new FieldDoc(Math.max(0, searcher.getIndexReader().maxDoc() - 1), Float.NaN,
                        new Object[] {Long.parseLong(p[1]), new BytesRef(p[2])});
            }
            score = Float.intBitsToFloat(Integer.parseInt(p[1]));
            path = p[2];
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw ErrorMessage.SEARCH_OPTION.error("after", "it is not a token a page of this search gave (sorted by "
                    + sortName + ")");
        }
        try {
            TopDocs named = searcher.search(new TermQuery(new Term(EntryDocuments.PATH, path)), 1);
            return new ScoreDoc(named.scoreDocs.length == 0 ? -1 : named.scoreDocs[0].doc, score);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Results.Hit> hits(IndexSearcher searcher, ScoreDoc[] page, Query main, int snippets) {
        FulltextConfig config = in.config();
        List<String> textFields = new ArrayList<>();
        for (FulltextConfig.Field f : config.fields()) if (f.type() == FulltextConfig.Type.TEXT) textFields.add(f.name());
        Map<String, Object[]> highlights = Map.of();
        int[] docs = new int[page.length];
        for (int i = 0; i < page.length; i++) docs[i] = page[i].doc;
        // Each hit's stored fields read once (a document's stored text is decompressed whole), for its fields and snippets.
        Map<Integer, Document> loaded = new java.util.HashMap<>();
        try {
            var stored = searcher.storedFields();
            for (int doc : docs) loaded.put(doc, stored.document(doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (snippets > 0 && page.length > 0 && !textFields.isEmpty()) {
            Highlighter h = new Highlighter(loaded, UnifiedHighlighter.builder(searcher, in.analyzer())
                    .withFormatter(new Parts())
                    .withMaxLength(2_000_000)
                    .withBreakIterator(SentenceBreaks::new)
                    .withMaxNoHighlightPassages(0)
                    .withHandleMultiTermQuery(true)
                    .withHighlightPhrasesStrictly(true));
            int[] max = new int[textFields.size()];
            java.util.Arrays.fill(max, snippets);
            try {
                highlights = h.objects(textFields.toArray(String[]::new), main, docs, max);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        List<Results.Hit> out = new ArrayList<>();
        {
            for (int i = 0; i < page.length; i++) {
                Document d = loaded.get(page[i].doc);
                Map<String, List<String>> fields = new LinkedHashMap<>();
                for (FulltextConfig.Field f : config.fields()) {
                    List<String> values = new ArrayList<>();
                    for (IndexableField v : d.getFields(f.name())) {
                        String s = v.numericValue() != null ? v.numericValue().toString() : v.stringValue();
                        if (s != null && (f.type() != FulltextConfig.Type.TEXT || s.length() <= SHORT_FIELD)) values.add(s);
                    }
                    if (!values.isEmpty() && (f.type() != FulltextConfig.Type.TEXT || values.size() == d.getFields(f.name()).length)) {
                        fields.put(f.name(), values);
                    }
                }
                List<Results.Snippet> snips = new ArrayList<>();
                for (String field : textFields) {
                    Object[] perDoc = highlights.get(field);
                    if (perDoc == null || perDoc[i] == null) continue;
                    @SuppressWarnings("unchecked")
                    List<List<Results.Part>> passages = (List<List<Results.Part>>) perDoc[i];
                    for (List<Results.Part> p : passages) snips.add(new Results.Snippet(field, p));
                }
                float score = page[i] instanceof FieldDoc fd && fd.fields[0] instanceof Float f ? f : page[i].score;
                out.add(new Results.Hit(d.get(EntryDocuments.PATH), Float.isNaN(score) ? 0 : score, fields, snips));
            }
        }
        return out;
    }

    /** The highlighter, with its per-object answer open (Lucene keeps it protected), on the hits' documents as read. */
    private static final class Highlighter extends UnifiedHighlighter {
        private final Map<Integer, Document> loaded;

        Highlighter(Map<Integer, Document> loaded, Builder b) {
            super(b);
            this.loaded = loaded;
        }

        /** As Lucene's: each field's values joined by its separator and cut at the maximum length, all docs at once. */
        @Override
        protected List<CharSequence[]> loadFieldValues(String[] fields, org.apache.lucene.search.DocIdSetIterator docIter,
                                                       int cacheCharsThreshold) throws IOException {
            List<CharSequence[]> out = new ArrayList<>();
            for (int doc = docIter.nextDoc(); doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS; doc = docIter.nextDoc()) {
                Document d = loaded.get(doc);
                CharSequence[] values = new CharSequence[fields.length];
                for (int f = 0; f < fields.length; f++) {
                    StringBuilder b = null;
                    for (String v : d.getValues(fields[f])) {
                        if (b == null) b = new StringBuilder(v.length());
                        else if (b.length() < getMaxLength()) b.append(MULTIVAL_SEP_CHAR);
                        b.append(v, 0, Math.min(v.length(), Math.max(0, getMaxLength() - b.length())));
                    }
                    values[f] = b;
                }
                out.add(values);
            }
            return out;
        }

        Map<String, Object[]> objects(String[] fields, Query query, int[] docs, int[] max) throws IOException {
            return highlightFieldsAsObjects(fields, query, docs, max);
        }
    }

    /** Passages as text and matches, from the offsets the postings hold: escaping is the writer's business. */
    private static final class Parts extends PassageFormatter {
        @Override
        public Object format(Passage[] passages, String content) {
            List<List<Results.Part>> out = new ArrayList<>();
            for (Passage p : passages) {
                List<Results.Part> parts = new ArrayList<>();
                int pos = p.getStartOffset();
                for (int i = 0; i < p.getNumMatches(); i++) {
                    int s = Math.max(p.getMatchStarts()[i], pos);
                    int e = Math.min(p.getMatchEnds()[i], p.getEndOffset());
                    if (e <= s) continue;
                    text(parts, content.substring(pos, s));
                    parts.add(new Results.Part(content.substring(s, e), true));
                    pos = e;
                }
                text(parts, content.substring(pos, p.getEndOffset()));
                out.add(parts);
            }
            return out;
        }

        private static void text(List<Results.Part> parts, String s) {
            if (!s.isEmpty()) parts.add(new Results.Part(s.replaceAll("\\s+", " "), false));
        }
    }
}
