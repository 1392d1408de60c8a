package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Store;
import arno.store.WriteTransaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ./arno store check's part: the index against the store, while no server holds it. */
class CheckTest {

    @TempDir
    Path dir;

    @Test
    void theIndexIsCheckedAgainstTheStore() throws Exception {
        List<Articles.Article> as = Articles.generate(12, 9);
        Path ft = dir.resolve("ft");
        try (Store store = Articles.open(dir.resolve("store"))) {
            assertThat(FulltextCheck.check(store, ft).problems()).isEmpty();
            long v = Articles.store(store, as, true);
            assertThat(FulltextCheck.check(store, ft).notes()).singleElement().asString().contains("builds it");
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, Duration.ofSeconds(20))).isTrue();
            }
            FulltextCheck.Report ok = FulltextCheck.check(store, ft);
            assertThat(ok.problems()).isEmpty();
            assertThat(ok.notes()).isEmpty();

            // Written while no index follows: a lag, noted, not a problem.
            try (WriteTransaction w = store.write()) {
                w.delete(as.get(0).path() + ".atom");
                w.commit();
            }
            FulltextCheck.Report behind = FulltextCheck.check(store, ft);
            assertThat(behind.problems()).isEmpty();
            assertThat(behind.notes()).singleElement().asString().contains("catches up with 1 changed entries");

            // An entry lost from the index (its commit data kept) is found missing.
            try (FSDirectory d = FSDirectory.open(ft);
                 IndexWriter w = new IndexWriter(d, new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.APPEND))) {
                var data = w.getLiveCommitData();
                w.deleteDocuments(new Term(EntryDocuments.PATH, as.get(5).path()));
                w.setLiveCommitData(data);
                w.commit();
            }
            assertThat(FulltextCheck.check(store, ft).problems()).singleElement().asString()
                    .contains("lacks the entry " + as.get(5).path());
        }
    }
}
