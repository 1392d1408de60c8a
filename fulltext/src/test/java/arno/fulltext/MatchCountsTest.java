package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counts against a full scan (Lucene's own facet counts over every match): equal while the
 * matches are few; close, from a sample, once many, even where the ids are ordered by facet value
 * (years in id order, as a store loaded in publication order gives them), across segments and
 * deletions.
 */
class MatchCountsTest {

    private static final int DOCS = 40_000;
    private static final String[] WORDS = {"river", "delta", "tide", "salinity", "sediment", "estuary", "flow", "marsh"};

    @TempDir
    Path dir;
    private Directory directory;
    private DirectoryReader reader;
    private IndexSearcher searcher;

    @BeforeEach
    void index() throws Exception {
        directory = FSDirectory.open(dir);
        FacetsConfig facets = new FacetsConfig();
        facets.setMultiValued("subject", true);
        IndexWriterConfig c = new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
        Random r = new Random(42);
        try (IndexWriter w = new IndexWriter(directory, c)) {
            for (int i = 0; i < DOCS; i++) {
                Document d = new Document();
                d.add(new StringField("id", "d" + i, Field.Store.NO));
                StringBuilder text = new StringBuilder();
                // "tide" grows with the id (as a word coming into use), "marsh" is rare, "river delta" a common pair.
                for (int n = 0; n < 12; n++) text.append(WORDS[r.nextInt(WORDS.length - 1)]).append(' ');
                if (r.nextInt(DOCS) < i) text.append("tide ");
                if (r.nextInt(400) == 0) text.append("marsh ");
                d.add(new TextField("body", text.toString(), Field.Store.NO));
                d.add(new SortedSetDocValuesFacetField("year", Integer.toString(2000 + i * 20 / DOCS)));
                d.add(new SortedSetDocValuesFacetField("subject", WORDS[r.nextInt(3)]));
                if (r.nextInt(3) == 0) d.add(new SortedSetDocValuesFacetField("subject", "hydrology"));
                w.addDocument(facets.build(d));
                if (i % 7_000 == 6_999) w.commit(); // several segments
            }
            for (int i = 0; i < DOCS; i += 17) w.deleteDocuments(new Term("id", "d" + i));
        }
        reader = DirectoryReader.open(directory);
        assertThat(reader.leaves()).hasSizeGreaterThan(3);
        assertThat(reader.hasDeletions()).isTrue();
        searcher = new IndexSearcher(reader);
        searcher.setQueryCache(null);
    }

    @AfterEach
    void close() throws Exception {
        reader.close();
        directory.close();
    }

    private static Query word(String w) {
        return new TermQuery(new Term("body", w));
    }

    /** The reference: every match counted, by Lucene's facet counts. */
    private MatchCounts.Counted scan(Query q) throws Exception {
        FacetsCollector fc = searcher.search(q, new FacetsCollectorManager());
        long total = 0;
        for (FacetsCollector.MatchingDocs m : fc.getMatchingDocs()) total += m.totalHits;
        SortedSetDocValuesFacetCounts counts = new SortedSetDocValuesFacetCounts(new DefaultSortedSetDocValuesReaderState(reader, new FacetsConfig()), fc);
        Map<String, Map<String, Long>> out = new HashMap<>();
        for (String dim : List.of("year", "subject")) {
            Map<String, Long> values = new HashMap<>();
            FacetResult fr = total == 0 ? null : counts.getAllChildren(dim);
            if (fr != null) for (LabelAndValue lv : fr.labelValues) values.put(lv.label, lv.value.longValue());
            out.put(dim, values);
        }
        return new MatchCounts.Counted(total, true, out);
    }

    private MatchCounts.Counted counted(MatchCounts m, Query q) {
        return m.count(searcher, q, Set.of("year", "subject"), null, 1000);
    }

    private List<Query> queries() {
        PhraseQuery phrase = new PhraseQuery("body", "river", "delta");
        Query and = new BooleanQuery.Builder().add(word("flow"), BooleanClause.Occur.MUST).add(word("tide"), BooleanClause.Occur.MUST).build();
        Query not = new BooleanQuery.Builder().add(word("river"), BooleanClause.Occur.MUST).add(word("tide"), BooleanClause.Occur.MUST_NOT).build();
        return List.of(word("river"), word("tide"), word("marsh"), phrase, and, not);
    }

    @Test
    void withRoomForEveryMatchTheCountsAreTheScansExactly() throws Exception {
        MatchCounts all = new MatchCounts(DOCS, 4096);
        for (Query q : queries()) {
            MatchCounts.Counted c = counted(all, q);
            MatchCounts.Counted ref = scan(q);
            assertThat(c.exact()).as(q.toString()).isTrue();
            assertThat(c.total()).as(q.toString()).isEqualTo(ref.total()).isPositive();
            assertThat(c.facets()).as(q.toString()).isEqualTo(ref.facets());
        }
    }

    @Test
    void manyMatchesAreCountedFromASampleCloseToTheScan() throws Exception {
        MatchCounts sampled = new MatchCounts(4_000, 1024);
        for (Query q : queries()) {
            MatchCounts.Counted ref = scan(q);
            MatchCounts.Counted c = counted(sampled, q);
            if (c.exact()) {
                // Counted one by one: only while few matched (a query whose matches thin out may be sampled early on).
                assertThat(ref.total()).as(q.toString()).isLessThan(8_000);
                assertThat(c).isEqualTo(ref);
                continue;
            }
            assertThat((double) c.total()).as(q + " total").isCloseTo(ref.total(), org.assertj.core.data.Percentage.withPercentage(8));
            for (String dim : List.of("year", "subject")) {
                for (Map.Entry<String, Long> v : ref.facets().get(dim).entrySet()) {
                    // Values with a 25th of the matches or more (each year) come within a quarter; none is made up.
                    if (v.getValue() * 25 < ref.total()) continue;
                    assertThat((double) c.facets().get(dim).getOrDefault(v.getKey(), 0L)).as(q + " " + dim + "=" + v.getKey())
                            .isCloseTo(v.getValue(), org.assertj.core.data.Percentage.withPercentage(25));
                }
                assertThat(ref.facets().get(dim).keySet()).as(q + " " + dim).containsAll(c.facets().get(dim).keySet());
            }
        }
    }

    @Test
    void commonWordsAndPhrasesAreSampledAndRareOnesCounted() {
        MatchCounts sampled = new MatchCounts(1_500, 1024);
        assertThat(counted(sampled, word("river")).exact()).isFalse();
        assertThat(counted(sampled, new PhraseQuery("body", "river", "delta")).exact()).isFalse();
        assertThat(counted(sampled, word("marsh")).exact()).isTrue();
    }

    @Test
    void theSameQueryGivesTheSameEstimate() {
        MatchCounts sampled = new MatchCounts(1_500, 1024);
        Query q = word("river");
        MatchCounts.Counted a = counted(sampled, q);
        assertThat(a.exact()).isFalse();
        assertThat(counted(sampled, q)).isEqualTo(a);
    }

    @Test
    void aSampleLooksAtFarFewerIdsThanItCounts() {
        // The sampled count of the commonest word sees about 1,500 matches, not its ~35,000.
        int[] seen = new int[1];
        Query counting = new org.apache.lucene.search.Query() {
            @Override
            public org.apache.lucene.search.Weight createWeight(IndexSearcher s, org.apache.lucene.search.ScoreMode m, float b)
                    throws java.io.IOException {
                org.apache.lucene.search.Weight inner = s.createWeight(word("river"), m, b);
                return new org.apache.lucene.search.FilterWeight(inner) {
                    @Override
                    public org.apache.lucene.search.Scorer scorer(org.apache.lucene.index.LeafReaderContext ctx) throws java.io.IOException {
                        org.apache.lucene.search.Scorer sc = super.scorer(ctx);
                        if (sc == null) return null;
                        org.apache.lucene.search.DocIdSetIterator it = sc.iterator();
                        org.apache.lucene.search.TwoPhaseIterator two = new org.apache.lucene.search.TwoPhaseIterator(it) {
                            @Override
                            public boolean matches() {
                                seen[0]++;
                                return true;
                            }

                            @Override
                            public float matchCost() {
                                return 1;
                            }
                        };
                        return new org.apache.lucene.search.ConstantScoreScorer(this, 1f, m, two);
                    }
                };
            }

            @Override
            public String toString(String field) {
                return "counting(river)";
            }

            @Override
            public void visit(org.apache.lucene.search.QueryVisitor visitor) {
            }

            @Override
            public boolean equals(Object o) {
                return o == this;
            }

            @Override
            public int hashCode() {
                return System.identityHashCode(this);
            }
        };
        MatchCounts.Counted c = counted(new MatchCounts(1_500, 1024), counting);
        assertThat(c.exact()).isFalse();
        assertThat(c.total()).isGreaterThan(30_000);
        assertThat(seen[0]).isLessThan(6_000);
    }

    @Test
    void aSearchOutOfTimeStopsWithItsLimit() {
        assertThatThrownBy(() -> new MatchCounts(MatchCounts.SAMPLE).count(searcher, word("river"), Set.of("year"), () -> true, 250))
                .isInstanceOf(ArnoException.class)
                .hasMessageContaining("250");
    }
}
