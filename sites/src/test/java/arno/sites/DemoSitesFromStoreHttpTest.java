package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same demo-site checks with the content only in the LMDB store, loaded
 * through the store service (TreeLoader over AtomStore) as ./arno serve loads
 * it: the server's content folder is empty, so every page is built from
 * stored entries and variants navigated in place, expanded by the content
 * filters from the request's view, and must match the source files exactly
 * as the file-served pages do.
 */
class DemoSitesFromStoreHttpTest extends DemoSitesHttpTest {
    @BeforeAll
    static void start() throws IOException {
        serve(true);
    }

    /** Every entry and variant of the generated folder went through the write path, none was left out. */
    @Test
    void everyGeneratedEntryAndVariantIsStored() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.walk(journals.getParent())) {
            files = s.filter(Files::isRegularFile).toList();
        }
        long entries = files.stream().filter(p -> p.toString().endsWith(".atom")).count();
        assertThat(loaded.entries()).isEqualTo(entries);
        assertThat(loaded.variants()).isEqualTo(files.size() - entries);
        try (arno.store.Snapshot s = store.read()) {
            for (Path f : files) {
                String path = "/" + journals.getParent().relativize(f).toString().replace('\\', '/');
                assertThat(s.exists(path)).as(path).isTrue();
            }
            // The store recomputed the managed links and added the reciprocal of each typed link:
            // a figure links back to its article (role article), which the files do not say.
            net.sf.saxon.s9api.XdmNode figure = new net.sf.saxon.s9api.XdmNode(
                    s.document("/journals/ja/v1/i1/a0001/f1.atom", saxon.getUnderlyingConfiguration()).getRootNode());
            net.sf.saxon.s9api.XPathCompiler x = saxon.newXPathCompiler();
            x.declareNamespace("atom", "http://www.w3.org/2005/Atom");
            x.declareNamespace("arno", "urn:arno:atom");
            assertThat(x.evaluate("/atom:entry/atom:link[@rel = 'related'][@arno:role = 'article']/@href/string()", figure).toString())
                    .isEqualTo("/journals/ja/v1/i1/a0001.atom");
            assertThat(x.evaluate("/atom:entry/atom:link[@rel = 'up']/@href/string()", figure).toString())
                    .isEqualTo("/journals/ja/v1/i1/a0001.atom");
            assertThat(x.evaluate("starts-with(/atom:entry/atom:id, 'urn:uuid:')", figure).toString()).isEqualTo("true");
        }
    }
}
