package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Html;
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

    /**
     * The demo caches its pages: a second request is a hit, and a title changed in the store shows on
     * the very next request to every cached page that shows it (the article's abstract and its
     * issue's table of contents), without waiting for the change feed. The entry is restored after.
     */
    @Test
    void cachedPagesShowAStoreChangeOnTheNextRequest() throws Exception {
        String entry = "/journals/ja/v1/i1/a0001.atom";
        String article = "/journals/ja/v1/i1/a0001.xml";
        String atom = export(entry);
        String jats = export(article);
        String title = xpath(journals.resolve("ja/v1/i1/a0001.atom"),
                "declare default element namespace 'http://www.w3.org/2005/Atom'; /entry/title/string()").get(0);
        assertThat(jats).contains(title);
        try {
            page("/journal-a/v1/i1/a0001", 200);
            long hits = server.sites().cacheStats().get("journal-a").memory().hits();
            assertThat(Html.text(page("/journal-a/v1/i1/a0001", 200), "string(//main)")).contains(title);
            assertThat(server.sites().cacheStats().get("journal-a").memory().hits()).as("a hit").isEqualTo(hits + 1);
            assertThat(Html.text(page("/journal-a/v1/i1", 200), "string(//main)")).contains(title);
            // The table of contents shows the entries' titles, the abstract page the article's (its JATS variant).
            write(entry, atom.replace(title, "An entry title changed in the store"));
            assertThat(Html.text(page("/journal-a/v1/i1", 200), "string(//main)")).contains("An entry title changed in the store");
            write(article, jats.replace(title, "An article title changed in the store"));
            assertThat(Html.text(page("/journal-a/v1/i1/a0001", 200), "string(//main)")).contains("An article title changed in the store");
        } finally {
            write(entry, atom);
            write(article, jats);
        }
        assertThat(Html.text(page("/journal-a/v1/i1/a0001", 200), "string(//main)")).contains(title);
        assertThat(Html.text(page("/journal-a/v1/i1", 200), "string(//main)")).contains(title);
    }

    private static String export(String path) {
        java.io.StringWriter out = new java.io.StringWriter();
        try (arno.store.Snapshot s = store.read()) {
            s.export(path, out);
        }
        return out.toString();
    }

    private static void write(String path, String xml) {
        try (arno.store.WriteTransaction w = store.write()) {
            w.put(path, xml.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            w.commit();
        }
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
