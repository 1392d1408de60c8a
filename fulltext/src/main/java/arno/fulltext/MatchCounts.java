package arno.fulltext;

import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * How many entries a query matches and how they count by facet value: exactly while the matches
 * are few, from a sample once they are many.
 *
 * <p>Counting every match of a common word costs a visit to each of them (at a million articles,
 * 20 ms for the facet values of 500,000 hits and 200 ms more when a phrase's positions must be
 * checked in each), which no results page needs: "about 500,000" is what readers are shown. The
 * document ids are read in windows; while the matches seen so far project a total under {@link
 * #SAMPLE} times two, every id is visited. Beyond that each window is cut into blocks of k ids
 * and one id per block is looked at, its place in the block drawn from a fixed seed, k chosen so
 * that about {@value #SAMPLE} matches are seen in all. Every id then has a known chance 1/k of
 * being looked at and every match seen counts k (the Horvitz-Thompson estimate), so the figures
 * are unbiased whatever the order of the ids; one that is seen is the query's own verdict, checked
 * with the iterator's {@code advance}, which skips the ids between. The seed is fixed so that a
 * page asked for again shows the same figures (and caches agree).
 *
 * <p>Lucene's {@code RandomSamplingFacetsCollector} samples only after collecting every match,
 * and its facet counts weigh every match alike; both are what this avoids.
 */
final class MatchCounts {

    /**
     * About how many matches are looked at once sampling starts: a facet value with a tenth of the
     * hits comes within about 4% (one standard error), the total closer. Each one a phrase's
     * positions are checked in; 10,000 cost a phrase's page at a million articles 1 ms more.
     */
    static final int SAMPLE = 5_000;
    /** Ids per window: k is chosen again at each window's start, from what the earlier windows found. */
    static final int WINDOW = 4096;
    private static final long SEED = 0x9E3779B97F4A7C15L;

    /** The counts: {@code exact} when every id was visited. */
    record Counted(long total, boolean exact, Map<String, Map<String, Long>> facets) {}

    private final int sample;
    private final int window;

    /** Windows of half the sample, at most {@value #WINDOW} ids: a small sample (tests) is reached on a small index. */
    MatchCounts(int sample) {
        this(sample, Math.max(16, Math.min(WINDOW, sample / 2)));
    }

    /** With another sample size and window (tests: sampling on a small index). */
    MatchCounts(int sample, int window) {
        this.sample = sample;
        this.window = window;
    }

    /**
     * The total and, for each facet field in {@code dims} (empty: none), each value's count.
     * Stops with {@code search-stopped} when {@code timeout} says so.
     */
    Counted count(IndexSearcher searcher, Query query, Set<String> dims, QueryTimeout timeout, long limitMillis) {
        try {
            Weight weight = searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE_NO_SCORES, 1f);
            long maxDoc = Math.max(1, searcher.getIndexReader().maxDoc());
            Tally t = new Tally(dims);
            for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                Scorer scorer = weight.scorer(leaf);
                if (scorer == null) {
                    t.idsSeen += leaf.reader().maxDoc();
                    continue;
                }
                t.leaf(leaf);
                TwoPhaseIterator two = scorer.twoPhaseIterator();
                DocIdSetIterator it = two == null ? scorer.iterator() : two.approximation();
                Bits live = leaf.reader().getLiveDocs();
                int max = leaf.reader().maxDoc();
                int doc = -1;
                int from = 0;
                for (; from < max && doc != DocIdSetIterator.NO_MORE_DOCS; from += window) {
                    if (timeout != null && timeout.shouldExit()) throw ErrorMessage.SEARCH_STOPPED.error(limitMillis);
                    int to = Math.min(max, from + window);
                    int k = t.every(maxDoc);
                    if (k == 1) {
                        if (doc < from) doc = it.advance(from);
                        while (doc < to) {
                            if ((live == null || live.get(doc)) && (two == null || two.matches())) t.add(doc, 1);
                            doc = it.nextDoc();
                        }
                    } else {
                        t.sampled = true;
                        doc = sampled(it, two, live, from, to, k, leaf.docBase, doc, t);
                    }
                    t.idsSeen += to - from;
                }
                // The iterator ran out: the leaf's ids left hold no match.
                if (from < max) t.idsSeen += max - from;
                t.flushLeaf();
            }
            return t.counted();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One id per block of k in [from, to), at a seeded place in its block; returns where the iterator stands. */
    private static int sampled(DocIdSetIterator it, TwoPhaseIterator two, Bits live, int from, int to, int k, int base,
                               int doc, Tally t) throws IOException {
        int block = from;
        while (block < to) {
            int s = block + place(base + block, k);
            if (s >= to) break;
            if (doc < s) doc = it.advance(s);
            if (doc == s) {
                if ((live == null || live.get(s)) && (two == null || two.matches())) t.add(s, k);
                block += k;
            } else if (doc >= to) {
                break;
            } else {
                // The iterator passed s: no match between s and doc, so go on from doc's block.
                int next = from + ((doc - from) / k) * k;
                block = next > block ? next : block + k;
            }
        }
        return doc;
    }

    /** The seeded place in the block starting at global id {@code start}: a mix of the id (SplitMix64's). */
    private static int place(long start, int k) {
        long z = start * SEED + SEED;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (int) Long.remainderUnsigned(z, k);
    }

    /** Running counts: the total, and per leaf each facet ordinal's count, turned into labels at the leaf's end. */
    private final class Tally {
        private final Set<String> dims;
        private final Map<String, Map<String, Long>> facets = new LinkedHashMap<>();
        long total;
        long idsSeen;
        boolean sampled;
        private SortedSetDocValues values;
        private long[] ords;

        Tally(Set<String> dims) {
            this.dims = dims;
            for (String d : dims) facets.put(d, new HashMap<>());
        }

        void leaf(LeafReaderContext leaf) throws IOException {
            values = dims.isEmpty() ? null : leaf.reader().getSortedSetDocValues(FacetsConfig.DEFAULT_INDEX_FIELD_NAME);
            ords = values == null ? null : new long[(int) Math.min(Integer.MAX_VALUE - 8, values.getValueCount())];
        }

        /** Ids between matches seen in every id of a window: 1; else the k that leaves about {@code sample} matches to see. */
        int every(long maxDoc) {
            if (idsSeen == 0 || total == 0) return 1;
            double projected = total * (double) maxDoc / idsSeen;
            if (projected < 2.0 * sample) return 1;
            long k = Math.round(projected / sample);
            return (int) Math.max(1, Math.min(k, window));
        }

        void add(int doc, int weight) throws IOException {
            total += weight;
            if (values != null && values.advanceExact(doc)) {
                for (int i = 0, n = values.docValueCount(); i < n; i++) ords[(int) values.nextOrd()] += weight;
            }
        }

        void flushLeaf() throws IOException {
            if (values == null) return;
            for (int o = 0; o < ords.length; o++) {
                if (ords[o] == 0) continue;
                BytesRef term = values.lookupOrd(o);
                String[] path = FacetsConfig.stringToPath(term.utf8ToString());
                if (path.length != 2) continue;
                Map<String, Long> counts = facets.get(path[0]);
                if (counts != null) counts.merge(path[1], ords[o], Long::sum);
            }
            values = null;
            ords = null;
        }

        Counted counted() {
            return new Counted(total, !sampled, facets);
        }
    }

    /** A facet's values, most first (ties by value), at most {@code n}. */
    static List<Results.Count> top(Map<String, Long> counts, int n) {
        List<Map.Entry<String, Long>> all = new ArrayList<>(counts.entrySet());
        all.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()));
        List<Results.Count> out = new ArrayList<>();
        for (Map.Entry<String, Long> e : all.subList(0, Math.min(n, all.size()))) out.add(new Results.Count(e.getKey(), e.getValue()));
        return out;
    }
}
