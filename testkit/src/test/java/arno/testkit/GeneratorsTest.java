package arno.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

/** The generators give well-formed documents, the same for the same seed, of the size asked for. */
class GeneratorsTest {

    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    }

    static double count(Document d, String xpath) throws Exception {
        return (Double) XPathFactory.newInstance().newXPath().evaluate("count(" + xpath + ")", d,
                javax.xml.xpath.XPathConstants.NUMBER);
    }

    @Test
    void everyEdgeCaseAndRandomDocumentIsWellFormed() throws Exception {
        Map<String, String> cases = Corpus.edgeCases();
        assertThat(cases).containsKeys("namespaces.xml", "jats.xml", "deep.xml", "long-text.xml", "abstracts.xml");
        for (String xml : cases.values()) {
            parse(xml);
        }
        for (long seed = 0; seed < 50; seed++) {
            assertThat(Corpus.random(seed)).isEqualTo(Corpus.random(seed));
            parse(Corpus.random(seed));
        }
        assertThat(Corpus.random(1)).isNotEqualTo(Corpus.random(2));
    }

    @Test
    void theAbstractsDumpHasTheSizeOrTheDocsAskedFor(@TempDir Path dir) throws Exception {
        String byDocs = Corpus.abstractDocs(300, 7);
        assertThat(count(parse(byDocs), "/feed/doc")).isEqualTo(300);
        assertThat(byDocs).isEqualTo(Corpus.abstractDocs(300, 7)).isNotEqualTo(Corpus.abstractDocs(300, 8));

        String bySize = Corpus.abstracts(1 << 20, 42);
        assertThat(bySize.length()).isBetween(1 << 20, (1 << 20) + 4096);
        Document d = parse(bySize);
        assertThat(count(d, "//sublink[@linktype = 'rare']")).as("every 1000th link").isPositive()
                .isEqualTo(Math.floor(count(d, "//sublink") / 1000));
        assertThat(Corpus.abstractsFile(dir.resolve("a.xml"), 1 << 20, 42))
                .isEqualTo(bySize.getBytes(StandardCharsets.UTF_8).length);
        assertThat(Files.readString(dir.resolve("a.xml"))).isEqualTo(bySize);
        assertThat(bySize).as("a doc count and a size are one generator").startsWith(
                Corpus.abstractDocs(20, 42).replace("</feed>\n", ""));
    }

    @Test
    void theArticleIsAJatsArticleOfAbout100Kb() throws Exception {
        String article = Corpus.article(42);
        assertThat(article).isEqualTo(Corpus.article(42));
        assertThat(article.length()).isBetween(85_000, 130_000);
        Document d = parse(article);
        assertThat(count(d, "/article/body/sec")).isPositive();
        assertThat(count(d, "/article/back/ref-list/ref")).isEqualTo(40);
    }

    @Test
    void theAuctionDocumentHasXMarksShapeAndSize() throws Exception {
        String xml = XMark.auctions(1, 7);
        assertThat(xml).isEqualTo(XMark.auctions(1, 7)).isNotEqualTo(XMark.auctions(1, 8));
        assertThat(xml.length()).isBetween(700_000, 1_400_000);
        Document d = parse(xml);
        for (String path : new String[] {"/site/regions/europe/item", "/site/people/person", "/site/categories/category",
            "/site/open_auctions/open_auction/bidder", "/site/closed_auctions/closed_auction/buyer"}) {
            assertThat(count(d, path)).as(path).isPositive();
        }
        assertThat(XMark.QUERIES).containsKeys("Q1 id lookup", "Q20 aggregation", "key-join").hasSize(21);
        assertThat(XMark.QUERIES.get("key-join")).isEqualTo(XMark.KEY_JOIN);
    }

    @Test
    void htmlPagesBecomeDomWithoutNamespaces() {
        Document page = Html.parse("<!doctype html><title>T</title><p class=x>one<p>two");
        assertThat(Html.text(page, "/html/head/title")).isEqualTo("T");
        assertThat(Html.text(page, "count(//p)")).isEqualTo("2");
        assertThat(Html.text(page, "//p[@class = 'x']")).isEqualTo("one");
    }
}
