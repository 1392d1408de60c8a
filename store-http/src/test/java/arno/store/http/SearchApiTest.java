package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;

import arno.fulltext.FulltextConfig;
import arno.fulltext.FulltextIndex;
import arno.store.WriteTransaction;
import arno.store.atom.Rfc;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /store/search over real sockets: the OpenSearch Atom feed, its paging, the description, refusals. */
class SearchApiTest {

    @TempDir
    Path dir;

    static final Processor SAXON = new Processor(false);

    static String article(int n, String title, String body) {
        return "<entry xmlns=\"http://www.w3.org/2005/Atom\" xmlns:prism=\"http://prismstandard.org/namespaces/basic/2.0/\">"
                + "<id>urn:test:a" + n + "</id><title>" + title + "</title><updated>2024-01-0" + n + "T00:00:00Z</updated>"
                + "<published>2024-01-0" + n + "T00:00:00Z</published><category scheme=\"urn:arno:kind\" term=\"article\"/>"
                + "<summary>" + body + "</summary><prism:doi>10.5555/a" + n + "</prism:doi></entry>";
    }

    static long load(StoreServer s) {
        try (WriteTransaction w = s.store.write()) {
            w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
            w.put("/journals/ja/a1.atom", article(1, "The River Runs", "A river and a bridge.").getBytes(StandardCharsets.UTF_8));
            w.put("/journals/ja/a2.atom", article(2, "Bridges", "Rivers &amp; &lt;dams&gt;.").getBytes(StandardCharsets.UTF_8));
            w.put("/journals/ja/a3.atom", article(3, "Mountains", "A river in the hills.").getBytes(StandardCharsets.UTF_8));
            w.put("/journals/ja/a4.atom", article(4, "Deserts", "Sand.").getBytes(StandardCharsets.UTF_8));
            return w.commit();
        }
    }

    static XdmNode xml(String s) throws Exception {
        return SAXON.newDocumentBuilder().build(new javax.xml.transform.stream.StreamSource(new java.io.StringReader(s)));
    }

    static XPathCompiler xpath() {
        XPathCompiler c = SAXON.newXPathCompiler();
        c.declareNamespace("a", "http://www.w3.org/2005/Atom");
        c.declareNamespace("os", "http://a9.com/-/spec/opensearch/1.1/");
        c.declareNamespace("err", "urn:arno:error");
        return c;
    }

    /** A link's path under the mount (links are root-relative when the server names no host). */
    static String under(String href) {
        return href.startsWith("/store/") ? href.substring("/store".length()) : href;
    }

    static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void anOpenSearchFeedWithPagesAndADescription() throws Exception {
        try (StoreServer s = new StoreServer(dir);
             FulltextIndex index = FulltextIndex.open(s.store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v = load(s);
            assertThat(index.awaitVersion(v, Duration.ofSeconds(20))).isTrue();
            XPathCompiler x = xpath();

            HttpResponse<String> r = s.get("/search?q=river&count=2");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/atom+xml;type=feed");
            Rfc.assertAtom(r.body());
            XdmNode feed = xml(r.body());
            assertThat(x.evaluateSingle("string(/a:feed/os:totalResults)", feed).getStringValue()).isEqualTo("3");
            assertThat(x.evaluateSingle("string(/a:feed/os:startIndex)", feed).getStringValue()).isEqualTo("1");
            assertThat(x.evaluateSingle("string(/a:feed/os:itemsPerPage)", feed).getStringValue()).isEqualTo("2");
            assertThat(x.evaluateSingle("string(/a:feed/os:Query[@role = 'request']/@searchTerms)", feed).getStringValue())
                    .isEqualTo("river");
            assertThat(x.evaluateSingle("string(/a:feed/a:entry[1]/a:title)", feed).getStringValue()).isEqualTo("The River Runs");
            assertThat(x.evaluateSingle("string(/a:feed/a:entry[1]/a:summary)", feed).getStringValue()).contains("<b>river</b>");
            assertThat(x.evaluateSingle("string(/a:feed/a:link[@rel = 'search']/@href)", feed).getStringValue())
                    .endsWith("/store/search/description");

            // The next page, by its link: the third hit, and no further link.
            List<String> titles = new ArrayList<>();
            for (var t : x.evaluate("/a:feed/a:entry/a:title/string()", feed)) titles.add(t.getStringValue());
            String next = x.evaluateSingle("string(/a:feed/a:link[@rel = 'next']/@href)", feed).getStringValue();
            assertThat(next).contains("startIndex=3");
            XdmNode second = xml(s.get(under(next)).body());
            for (var t : x.evaluate("/a:feed/a:entry/a:title/string()", second)) titles.add(t.getStringValue());
            assertThat(titles).containsExactlyInAnyOrder("The River Runs", "Bridges", "Mountains");
            assertThat(x.evaluate("/a:feed/a:link[@rel = 'next']", second).size()).isZero();
            assertThat(x.evaluate("/a:feed/a:link[@rel = 'previous']", second).size()).isOne();

            // Newest first, a hit a page, following the next links.
            titles.clear();
            String url = "/search?q=river&count=1&sort=date";
            for (int i = 0; i < 5 && !url.isEmpty(); i++) {
                XdmNode page = xml(s.get(url).body());
                for (var t : x.evaluate("/a:feed/a:entry/a:title/string()", page)) titles.add(t.getStringValue());
                url = under(x.evaluateSingle("string(/a:feed/a:link[@rel = 'next']/@href)", page).getStringValue());
            }
            assertThat(titles).containsExactly("Mountains", "Bridges", "The River Runs");
            // A deep page's token as the index gives it: the page after it.
            String token = index.search(arno.fulltext.SearchRequest.of("river", Map.of("size", List.of("1"), "sort", List.of("date"))))
                    .next();
            XdmNode after = xml(s.get("/search?q=river&count=1&sort=date&after=" + q(token)).body());
            assertThat(x.evaluateSingle("string(/a:feed/a:entry/a:title)", after).getStringValue()).isEqualTo("Bridges");
            assertThat(x.evaluate("/a:feed/os:startIndex", after).size()).as("unknown on a deep page").isZero();

            // The query is echoed as text, never markup.
            HttpResponse<String> odd = s.get("/search?q=" + q("river <script>alert(1)</script>"));
            assertThat(odd.statusCode()).isEqualTo(200);
            assertThat(odd.body()).doesNotContain("<script>");
            assertThat(x.evaluateSingle("string(/a:feed/os:Query/@searchTerms)", xml(odd.body())).getStringValue())
                    .isEqualTo("river <script>alert(1)</script>");

            HttpResponse<String> d = s.get("/search/description");
            assertThat(d.statusCode()).isEqualTo(200);
            assertThat(d.headers().firstValue("Content-Type").orElse("")).startsWith("application/opensearchdescription+xml");
            assertThat(x.evaluateSingle("string(/os:OpenSearchDescription/os:Url[@type = 'application/atom+xml;type=feed']/@template)",
                    xml(d.body())).getStringValue()).endsWith("/store/search?q={searchTerms}&count={count?}&startIndex={startIndex?}");

            HttpResponse<String> bad = s.get("/search?q=" + q("title:*iver"));
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(x.evaluateSingle("string(/err:error/@code)", xml(bad.body())).getStringValue()).isEqualTo("bad-query");
            assertThat(bad.body()).contains("position 7");
            assertThat(s.get("/search?q=river&count=500").statusCode()).isEqualTo(400);
        }
    }

    @Test
    void withoutAnIndexSearchIsUnavailable() throws Exception {
        try (StoreServer s = new StoreServer(dir)) {
            HttpResponse<String> r = s.get("/search?q=river");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(xpath().evaluateSingle("string(/err:error/@code)", xml(r.body())).getStringValue()).isEqualTo("search-unavailable");
            assertThat(s.get("/store/").statusCode()).isNotEqualTo(503);
        }
    }
}
