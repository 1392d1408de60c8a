package arno.demo;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.IndexHit;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import arno.server.store.IndexTasks;
import arno.xml.XmlPolicy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's index configuration ({@code arno/demo/indexes.xml}) is valid and, installed before
 * the demo loads as {@code ./arno serve} does, finds real demo entries: each lookup is checked
 * against the entry it should find, read by XPath.
 */
class DemoIndexesTest {

    @TempDir
    Path dir;

    @Test
    void theDemoIndexesFindDemoEntries() throws Exception {
        Path content = dir.resolve("content");
        new DemoContent().generate(content, 12, 1, n -> { });
        StringWriter err = new StringWriter();
        try (Store store = Store.open(dir.resolve("store"), StoreOptions.defaults().mapSize(256L << 20));
                AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            assertThat(IndexTasks.addResource(store, "/arno/demo/indexes.xml", XmlPolicy.DEFAULT, new PrintWriter(err)))
                    .isTrue();
            TreeLoader.load(atom, content, "test", (done, total) -> { });
            assertThat(store.check()).isEmpty();
            Processor p = new Processor(false);
            Configuration config = p.getUnderlyingConfiguration();
            XPathCompiler xp = p.newXPathCompiler();
            xp.declareNamespace("a", "http://www.w3.org/2005/Atom");
            xp.declareNamespace("prism", "http://prismstandard.org/namespaces/basic/2.0/");
            try (Snapshot s = store.read()) {
                assertThat(s.indexes().indexes()).extracting(d -> d.name())
                        .containsExactly("doi", "category", "issue-id", "surname", "published");
                String article = s.uris("/journals/").stream()
                        .filter(u -> u.matches(".*/i\\d+/[^/]+\\.atom") && !u.matches(".*/[ft]\\d+\\.atom")).findFirst().orElseThrow();
                XdmNode entry = new XdmNode(s.document(article, config).getRootNode());
                String doi = xp.evaluateSingle("string(a:entry/prism:doi)", entry).getStringValue();
                List<IndexHit> byDoi = s.lookup("doi", doi.toUpperCase(java.util.Locale.ROOT));
                assertThat(byDoi).extracting(IndexHit::uri).containsExactly(article);
                String keyword = xp.evaluateSingle("string(a:entry/a:category[@scheme = 'urn:arno:keyword'][1]/@term)", entry)
                        .getStringValue();
                assertThat(s.lookup("category", "urn:arno:keyword", keyword)).extracting(IndexHit::uri).contains(article);
                String volume = xp.evaluateSingle("string(a:entry/prism:volume)", entry).getStringValue();
                String number = xp.evaluateSingle("string(a:entry/prism:number)", entry).getStringValue();
                assertThat(s.lookup("issue-id", volume, number)).extracting(IndexHit::uri).contains(article);
                String jats = article.replace(".atom", ".xml");
                XdmNode jatsDoc = new XdmNode(s.document(jats, config).getRootNode());
                String surname = xp.evaluateSingle("string((//contrib/name/surname)[1])", jatsDoc).getStringValue();
                List<IndexHit> bySurname = s.lookup("surname", " " + surname.toLowerCase(java.util.Locale.ROOT));
                assertThat(bySurname).extracting(IndexHit::uri).contains(jats);
                NodeInfo contrib = s.node(bySurname.get(0), config);
                assertThat(contrib.getLocalPart()).isEqualTo("contrib");
                assertThat(s.range("published", "1900-01-01", "2100-12-31")).hasSizeGreaterThanOrEqualTo(12);
            }
        }
    }
}
