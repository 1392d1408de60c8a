package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search split over helpers finds what one thread finds: the same hits in the same order with
 * the same scores, by relevance (skipping past the exact-count threshold) and by date, over
 * segments of unequal size with deletions; and every segment is searched once.
 */
class SearchHelpersTest {
    private static final String[] WORDS = {"river", "delta", "tide", "salinity", "sediment", "estuary", "flow", "marsh"};

    @TempDir
    Path dir;
    private Directory directory;
    private DirectoryReader reader;
    private final SearchHelpers helpers = new SearchHelpers(1);

    @BeforeEach
    void index() throws Exception {
        directory = FSDirectory.open(dir);
        Random r = new Random(7);
        IndexWriterConfig c = new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
        try (IndexWriter w = new IndexWriter(directory, c)) {
            int[] sizes = {9_000, 1_000, 6_000, 300, 3_500, 200};
            int id = 0;
            for (int size : sizes) {
                for (int i = 0; i < size; i++, id++) {
                    Document d = new Document();
                    d.add(new StringField("id", "d" + id, Field.Store.NO));
                    StringBuilder text = new StringBuilder();
                    for (int n = 0, len = 5 + r.nextInt(30); n < len; n++) text.append(WORDS[r.nextInt(WORDS.length)]).append(' ');
                    d.add(new TextField("body", text.toString(), Field.Store.NO));
                    d.add(new NumericDocValuesField("date", r.nextInt(5_000)));
                    w.addDocument(d);
                }
                w.commit();
            }
            for (int i = 0; i < id; i += 13) w.deleteDocuments(new Term("id", "d" + i));
        }
        reader = DirectoryReader.open(directory);
    }

    @AfterEach
    void close() throws Exception {
        reader.close();
        directory.close();
        helpers.shutdown();
    }

    private List<Query> queries() {
        Query and = new BooleanQuery.Builder().add(new TermQuery(new Term("body", "flow")), BooleanClause.Occur.MUST)
                .add(new TermQuery(new Term("body", "marsh")), BooleanClause.Occur.MUST).build();
        Query or = new BooleanQuery.Builder().add(new PhraseQuery("body", "river", "delta"), BooleanClause.Occur.SHOULD)
                .add(new TermQuery(new Term("body", "tide")), BooleanClause.Occur.SHOULD).build();
        return List.of(new TermQuery(new Term("body", "sediment")), new PhraseQuery("body", "river", "delta"), and, or);
    }

    @Test
    void theSegmentsAreSplitIntoOnePartPerCoreEachSearchedOnce() {
        IndexSearcher.LeafSlice[] slices = helpers.searcher(reader).getSlices();
        assertThat(slices).hasSize(2);
        List<LeafReaderContext> seen = new ArrayList<>();
        for (IndexSearcher.LeafSlice s : slices) seen.addAll(Arrays.asList(s.leaves));
        assertThat(seen).containsExactlyInAnyOrderElementsOf(reader.leaves());
    }

    @Test
    void byRelevanceTheHelpersFindWhatOneThreadFinds() throws Exception {
        for (Query q : queries()) {
            for (int n : new int[] {10, 30}) {
                TopDocs one = new IndexSearcher(reader).search(q, new TopScoreDocCollectorManager(n, null, Search.EXACT_HITS));
                TopDocs split = helpers.searcher(reader).search(q, new TopScoreDocCollectorManager(n, null, Search.EXACT_HITS));
                assertThat(one.scoreDocs).hasSize(n);
                assertThat(hits(split)).as("%s, top %d", q, n).isEqualTo(hits(one));
            }
        }
    }

    @Test
    void byDateTheHelpersFindWhatOneThreadFinds() throws Exception {
        Sort sort = new Sort(new SortField("date", SortField.Type.LONG, true));
        for (Query q : queries()) {
            TopDocs one = new IndexSearcher(reader).search(q, new TopFieldCollectorManager(sort, 20, null, Search.EXACT_HITS));
            TopDocs split = helpers.searcher(reader).search(q, new TopFieldCollectorManager(sort, 20, null, Search.EXACT_HITS));
            assertThat(hits(split)).as("%s", q).isEqualTo(hits(one));
        }
    }

    private static List<String> hits(TopDocs top) {
        List<String> out = new ArrayList<>();
        for (ScoreDoc d : top.scoreDocs) out.add(d.doc + ":" + d.score);
        return out;
    }
}
