package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Store;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An entry whose keyword is far longer than a term may be (Lucene refuses a term over 32,766 bytes,
 * and with it the whole document) costs the index that value alone: the build and the follower go
 * on, the entry is found by its other fields, and every other entry is indexed.
 */
class OversizedValueTest {

    @TempDir
    Path dir;

    static String entry(String id, String title, String keyword) {
        return "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:test:" + id + "</id><title>" + title + "</title>"
                + "<updated>2024-01-01T00:00:00Z</updated><published>2024-01-01T00:00:00Z</published>"
                + "<category scheme=\"urn:arno:kind\" term=\"article\"/><category scheme=\"urn:arno:keyword\" term=\"" + keyword + "\"/>"
                + "<summary>About rivers.</summary></entry>";
    }

    @Test
    void aKeywordTooLongForATermIsLeftOutAndNothingElse() throws Exception {
        String huge = "x".repeat(40_000);
        try (Store store = Articles.open(dir.resolve("store"))) {
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
                w.put("/journals/ja/a1.atom", entry("a1", "Estuaries", huge).getBytes(StandardCharsets.UTF_8));
                w.put("/journals/ja/a2.atom", entry("a2", "Lagoons", "salinity").getBytes(StandardCharsets.UTF_8));
                w.commit();
            }
            // Built from the store (the build's adders), then followed (the same entry written again by a commit).
            try (FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(store.version(), Duration.ofSeconds(30))).as("index ready: %s", index.status()).isTrue();
                assertThat(index.search(SearchRequest.of("estuaries")).total()).isEqualTo(1);
                assertThat(index.search(SearchRequest.of("lagoons")).total()).isEqualTo(1);
                long v;
                try (WriteTransaction w = store.write()) {
                    w.put("/journals/ja/a3.atom", entry("a3", "Deltas", huge).getBytes(StandardCharsets.UTF_8));
                    w.put("/journals/ja/a4.atom", entry("a4", "Fjords", "salinity").getBytes(StandardCharsets.UTF_8));
                    v = w.commit();
                }
                assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).as("index follows: %s", index.status()).isTrue();
                assertThat(index.status().state()).isEqualTo(FulltextIndex.State.READY);
                assertThat(index.search(SearchRequest.of("deltas")).total()).isEqualTo(1);
                assertThat(index.search(SearchRequest.of("fjords")).total()).isEqualTo(1);
                Results r = index.search(new SearchRequest("rivers", 0, 10, null, "relevance", Map.of(), true, 0));
                assertThat(r.total()).isEqualTo(4);
                assertThat(r.facets()).filteredOn(f -> f.field().equals("subject"))
                        .singleElement().satisfies(f -> assertThat(f.values()).containsExactly(new Results.Count("salinity", 2)));
                assertThat(index.search(new SearchRequest("subject:salinity", 0, 10, null, "relevance", Map.of(), false, 0)).total())
                        .isEqualTo(2);
            }
        }
    }
}
