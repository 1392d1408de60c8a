package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Store;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A text field taken from elements keeps their blocks apart (table cells, a section's title and
 * its paragraphs are separate words, as their string value would merge them) and their inline
 * markup together ({@code H<sub>2</sub>O} is one word), in the index and in the snippets read
 * from the stored value.
 */
class BlockTextTest {

    @TempDir
    Path dir;

    static final String ENTRY = "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:test:a1</id><title>Rivers</title>"
            + "<updated>2024-01-01T00:00:00Z</updated><published>2024-01-01T00:00:00Z</published>"
            + "<category scheme=\"urn:arno:kind\" term=\"article\"/><summary>About rivers.</summary></entry>";

    /** No whitespace between the blocks, as a JATS converter writes them. */
    static final String JATS = "<article><front><journal-meta><journal-title-group><journal-title>Journal A</journal-title>"
            + "</journal-title-group></journal-meta></front><body><sec><title>Methods</title><p>Results were measured"
            + " at every station.</p><table-wrap><table><tr><td>Site</td><td>Nitrate</td></tr><tr><td>Upstream</td>"
            + "<td>3.2</td></tr></table></table-wrap><p>Water (H<sub>2</sub>O) was <italic>sam</italic>pled"
            + " in <bold>situ</bold>.</p></sec></body></article>";

    @Test
    void blocksAreSeparateWordsAndInlineMarkupIsNot() throws Exception {
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v;
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
                w.put("/journals/ja/a1.atom", ENTRY.getBytes(StandardCharsets.UTF_8));
                w.put("/journals/ja/a1.xml", JATS.getBytes(StandardCharsets.UTF_8));
                v = w.commit();
            }
            assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).as("index ready: %s", index.status()).isTrue();
            // Each block's words, as typed: the table's cells, the title and the paragraph after it.
            for (String word : new String[] {"nitrate", "body:nitrate", "site", "methods", "results", "upstream", "station",
                "H2O", "h2o", "sampled", "situ"}) {
                assertThat(total(index, word)).as(word).isEqualTo(1);
            }
            // Never the words merged across a block's end, nor split at inline markup.
            for (String word : new String[] {"sitenitrate", "SiteNitrate", "methodsresults", "nitrateupstream",
                "stationsite", "sam", "pled", "h", "o"}) {
                assertThat(total(index, word)).as(word).isZero();
            }
            // The snippet reads from the stored value: the cells apart, the formula whole.
            assertThat(snippet(index, "nitrate")).contains("Site [Nitrate] Upstream 3.2");
            assertThat(snippet(index, "h2o")).contains("Water ([H2O]) was sampled in situ.");
            assertThat(snippet(index, "methods")).contains("[Methods] Results were measured");
        }
    }

    @Test
    void theTextOfAnElementSeparatesOnlyAtBlocks() throws SaxonApiException {
        assertThat(text("<p>a<b>b</b>c</p>")).isEqualTo("abc");
        assertThat(text("<div><p>one</p><p>two</p>three</div>")).isEqualTo("one two three");
        // whitespace already there is kept, not doubled
        assertThat(text("<div><p>one</p>\n<p> two</p></div>")).isEqualTo("one\n two");
        // an empty block (a line break) separates; a comment does not, nor is it text
        assertThat(text("<p>one<break/>two<!-- x -->three</p>")).isEqualTo("one twothree");
        // XHTML inside an Atom text construct: inline by local name in its namespace
        assertThat(text("<div xmlns='http://www.w3.org/1999/xhtml'><h1>Title</h1><p>E = mc<sup>2</sup>"
                + " and <em>in</em>line</p></div>")).isEqualTo("Title E = mc2 and inline");
        // a deep document is walked without recursion
        String deep = "<d>".repeat(5000) + "x" + "</d>".repeat(5000);
        assertThat(text("<r>" + deep + deep + "</r>")).isEqualTo("x x");
    }

    private static String text(String xml) throws SaxonApiException {
        XdmNode doc = new Processor(false).newDocumentBuilder()
                .build(new javax.xml.transform.stream.StreamSource(new java.io.StringReader(xml)));
        return EntryDocuments.text(doc.getUnderlyingNode());
    }

    private static long total(FulltextIndex index, String q) {
        return index.search(SearchRequest.of(q)).total();
    }

    /** The body's snippets of the one hit, each as text with its matches in brackets. */
    private static String snippet(FulltextIndex index, String q) {
        Results r = index.search(new SearchRequest(q, 0, 10, null, "relevance", Map.of(), false, 3));
        assertThat(r.hits()).hasSize(1);
        return r.hits().get(0).snippets().stream().filter(s -> s.field().equals("body"))
                .map(s -> s.parts().stream().map(p -> p.match() ? "[" + p.text() + "]" : p.text()).collect(Collectors.joining()))
                .collect(Collectors.joining(" | "));
    }
}
