package arno.server.cli;

import static arno.server.cli.StoreCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import arno.fulltext.FulltextConfig;
import arno.fulltext.FulltextIndex;
import arno.server.cli.StoreCommandTest.Result;
import arno.store.Store;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./arno query} with store:ft-search over the full-text index beside the store, as last committed. */
class QueryFtSearchTest {

    @TempDir
    Path dir;

    static String article(int n, String title, String summary) {
        return "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:test:a" + n + "</id><title>" + title + "</title>"
                + "<updated>2024-01-0" + n + "T00:00:00Z</updated><published>2024-01-0" + n + "T00:00:00Z</published>"
                + "<category scheme=\"urn:arno:kind\" term=\"article\"/><summary>" + summary + "</summary></entry>";
    }

    @Test
    void queryFindsWordsInTheFullTextIndex() throws Exception {
        Path data = dir.resolve("data");
        long v;
        try (Store store = Store.open(data.resolve("store"))) {
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
                w.put("/journals/ja/a1.atom", article(1, "The River Runs", "A river and a bridge.").getBytes(StandardCharsets.UTF_8));
                w.put("/journals/ja/a2.atom", article(2, "Mountains", "Hills and a river.").getBytes(StandardCharsets.UTF_8));
                w.put("/journals/ja/a3.atom", article(3, "Deserts", "Sand.").getBytes(StandardCharsets.UTF_8));
                v = w.commit();
            }
        }
        // Without an index yet: the query runs, the search says what is missing.
        Result none = run("query", "--data", data.toString(), "store:ft-search('river')");
        assertThat(none.code()).isEqualTo(1);
        assertThat(none.err()).contains("no full-text index in " + data.resolve("fulltext")).contains("./arno serve builds it");
        try (Store store = Store.open(data.resolve("store"))) {
            // The index as the server builds and commits it.
            try (FulltextIndex index = FulltextIndex.open(store, data.resolve("fulltext"), FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).isTrue();
            }
        }
        Result r = run("query", "--data", data.toString(),
                "let $r := store:ft-search('river', map{'sort': 'date'}) return ($r/@total/string(), $r/@version/string(),"
                        + " $r/store:hit/@path/string(), exists($r//store:match))");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().strip().split("\\R")).containsExactly("2", Long.toString(v), "/journals/ja/a2", "/journals/ja/a1", "true");
        Result bad = run("query", "--data", data.toString(), "store:ft-search('*')");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).contains("position 1").contains("wildcard");
    }
}
