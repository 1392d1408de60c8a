package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build's adder threads against the documents handed to them: all added once, and the first failure stops the build. */
class AddersTest {

    @TempDir
    Path dir;

    private static Document doc(String key) {
        Document d = new Document();
        d.add(new StringField("k", key, Field.Store.YES));
        return d;
    }

    @Test
    void everyDocumentHandedOverIsAddedOnceByManyThreads() throws Exception {
        try (Directory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, new IndexWriterConfig(new StandardAnalyzer()))) {
            try (Adders adders = new Adders(w, 3, "test-add")) {
                for (int i = 0; i < 5_000; i++) adders.add(doc("d" + i));
            }
            w.commit();
            try (DirectoryReader r = DirectoryReader.open(d)) {
                Set<String> keys = new HashSet<>();
                for (int i = 0; i < r.maxDoc(); i++) keys.add(r.storedFields().document(i).get("k"));
                assertThat(r.maxDoc()).isEqualTo(5_000);
                assertThat(keys).hasSize(5_000).contains("d0", "d4999");
            }
        }
    }

    @Test
    void aDocumentLuceneRefusesStopsTheBuildWithItsReason() throws Exception {
        try (Directory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, new IndexWriterConfig(new StandardAnalyzer()))) {
            Adders adders = new Adders(w, 2, "test-add");
            adders.add(doc("fine"));
            adders.add(doc("x".repeat(40_000))); // a term longer than Lucene's 32,766 bytes
            // The refusal comes back at a later add or at the end, never lost; later adds stop.
            assertThatThrownBy(() -> {
                try (adders) {
                    for (int i = 0; i < 1_000; i++) adders.add(doc("after" + i));
                }
            }).hasMessageContaining("immense term");
        }
    }
}
