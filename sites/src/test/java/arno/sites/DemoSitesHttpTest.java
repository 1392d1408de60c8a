package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.testkit.Html;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The demo sites as users get them, over HTTP from a real {@link ArnoServer}: the repository's
 * own packages and sites, in production mode, over freshly generated content. Every expectation is
 * read from the generated source files, so the pages are checked against the
 * data they present rather than against a copy of earlier output.
 */
class DemoSitesHttpTest {
    static final Processor saxon = new Processor(false);
    static Path data;
    static Path journals;
    static ArnoServer server;
    static arno.store.Store store;
    /** What the store test loaded, or null when serving files. */
    static arno.store.atom.TreeLoader.Result loaded;
    static final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws IOException {
        serve(false);
    }

    /**
     * Generates the content into a source folder (the tests read their expectations
     * there) and serves it either from that folder or, with {@code fromStore}, from a
     * store loaded with it while the server's content folder stays empty.
     */
    static void serve(boolean fromStore) throws IOException {
        data = Files.createTempDirectory("arno-demo");
        Path source = data.resolve(fromStore ? "source" : "content");
        arno.demo.Generator.generate(source, 8, 1);
        journals = source.resolve("journals");
        Config.Builder b = Config.defaults(Path.of("..").toAbsolutePath().normalize()).toBuilder();
        b.data = data;
        b.production = true;
        b.port = 0;
        Config config = b.build();
        if (fromStore) {
            // Loaded as ./arno serve loads it: through the store service's write path (TreeLoader,
            // AtomStore), which recomputes the managed links, assigns ids and adds the reciprocals.
            store = arno.store.Store.open(config.store());
            try (arno.store.atom.AtomStore atom = arno.store.atom.AtomStore.open(store, arno.store.atom.AtomOptions.defaults())) {
                loaded = arno.store.atom.TreeLoader.load(atom, source, "test", null);
            }
            // The content folder stays empty: every page is built from stored trees.
            Files.createDirectories(config.content());
        }
        server = ArnoServer.start(config, store);
    }

    @AfterAll
    static void stop() {
        server.close();
        if (store != null) store.close();
        store = null;
        loaded = null;
        FileUtils.deleteQuietly(data.toFile());
    }

    @Test
    void homeLinksEveryIssueOfTheJournal() throws Exception {
        for (String[] site : sites()) {
            Document page = page("/" + site[0] + "/", 200);
            List<String> expected = new ArrayList<>();
            for (Path issue : issues(site[1])) expected.add("/" + site[0] + "/" + resource(site[1], issue));
            List<String> links = texts(page, "//main//a/@href");
            assertThat(links).as(site[0]).containsAll(expected);
        }
    }

    @Test
    void tableOfContentsListsEveryArticleOfTheIssueFeed() throws Exception {
        for (String[] site : sites()) {
            for (Path issue : issues(site[1])) {
                String rel = resource(site[1], issue);
                Document page = page("/" + site[0] + "/" + rel, 200);
                List<String> titles = new ArrayList<>();
                for (Path article : files(journals.resolve(site[1]).resolve(rel), "a\\d+\\.atom")) {
                    titles.addAll(xpath(article, "declare default element namespace 'http://www.w3.org/2005/Atom'; /entry/title/string()"));
                }
                assertThat(titles).isNotEmpty();
                String text = Html.text(page, "string(//main)");
                for (String title : titles) assertThat(text).as(rel).contains(title);
            }
        }
    }

    @Test
    void abstractAndFullTextPagesPresentTheArticle() throws Exception {
        for (Path article : articles("ja")) {
            String base = "/journal-a/" + resource("ja", article);
            String title = xpath(article, "//article-meta/title-group/article-title/string()").get(0);
            String abstractStart = xpath(article, "normalize-space((//article-meta/abstract//p)[1])").get(0).substring(0, 60);

            Document abstractPage = page(base, 200);
            assertThat(Html.text(abstractPage, "normalize-space(//main//h1)")).isEqualTo(title);
            assertThat(Html.text(abstractPage, "normalize-space(//main)")).contains(abstractStart);

            Document full = page(base + "/full", 200);
            assertThat(Html.text(full, "normalize-space(//main//h1)")).isEqualTo(title);
            String fullText = Html.text(full, "normalize-space(//main)");
            for (String section : xpath(article, "//body/sec/title/normalize-space()")) assertThat(fullText).contains(section);
            for (String ref : xpath(article, "(//ref-list/ref//article-title)[position() le 3]/normalize-space()")) {
                assertThat(fullText).contains(ref);
            }
        }
    }

    @Test
    void figurePagesShowTheFigureAndItsCaption() throws Exception {
        Path article = articles("ja").get(0);
        String base = "/journal-a/" + resource("ja", article);
        List<String> ids = xpath(article, "//fig/@id/string()");
        assertThat(ids).isNotEmpty();
        for (String id : ids) {
            Document page = page(base + "/figures/" + id, 200);
            String caption = xpath(article, "normalize-space(//fig[@id = '" + id + "']/caption/title)").get(0);
            assertThat(Html.text(page, "normalize-space(//main)")).contains(caption);
            HttpResponse<String> image = get(base + "/figures/" + id + "/image");
            assertThat(image.statusCode()).isEqualTo(200);
            assertThat(image.headers().firstValue("Content-Type").orElse("")).startsWith("image/svg+xml");
        }
        page(base + "/figures/f999", 404);
    }

    @Test
    void theTwoSitesShareCodeButDifferWhereTheyOverride() throws Exception {
        Document a = page("/journal-a/", 200);
        Document b = page("/journal-b/", 200);
        String titleA = xpath(journals.resolve("ja.atom"), "declare default element namespace 'http://www.w3.org/2005/Atom'; /entry/title/string()").get(0);
        String titleB = xpath(journals.resolve("jb.atom"), "declare default element namespace 'http://www.w3.org/2005/Atom'; /entry/title/string()").get(0);
        assertThat(Html.text(a, "//title")).contains(titleA);
        assertThat(Html.text(b, "//title")).contains(titleB);
        assertThat(Html.text(a, "//header//*[@class='logo']")).isNotEqualTo(Html.text(b, "//header//*[@class='logo']"));

        Path issueB = issues("jb").get(0);
        String tocB = "/journal-b/" + resource("jb", issueB);
        Path issueA = issues("ja").get(0);
        String tocA = "/journal-a/" + resource("ja", issueA);
        assertThat(Html.text(page(tocB, 200), "count(//main//table)")).isNotEqualTo("0");
        assertThat(Html.text(page(tocA, 200), "count(//main//table)")).isEqualTo("0");

        page("/journal-a/authors", 200);
        page("/journal-b/authors", 404);
    }

    @Test
    void styleSheetsAreStaticFilesWithValidatorsAndRanges() throws Exception {
        Document a = page("/journal-a/", 200);
        Document b = page("/journal-b/", 200);
        List<String> linksA = texts(a, "//link[@rel='stylesheet']/@href");
        assertThat(linksA).containsExactly("/static/journal.css", "/journal-a/static/site.css");
        assertThat(texts(b, "//link[@rel='stylesheet']/@href")).containsExactly("/static/journal.css", "/journal-b/static/site.css");
        HttpResponse<String> shared = get("/static/journal.css");
        assertThat(shared.statusCode()).isEqualTo(200);
        assertThat(shared.headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
        assertThat(shared.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(shared.body()).isEqualTo(Files.readString(Path.of("static/journal.css")));
        assertThat(get("/journal-a/static/site.css").body()).contains("--primary:#0b4f6c").doesNotContain("toc-table");
        assertThat(get("/journal-b/static/site.css").body()).contains("--primary:#3d1f5c").contains("Helvetica Neue")
                .contains(".toc-table{");
        // Validators: the ETag revalidates to 304 without a body.
        String etag = shared.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> again = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/static/journal.css")).header("If-None-Match", etag).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertThat(shared.headers().firstValue("Last-Modified")).isPresent();
        // Range: the first ten bytes.
        HttpResponse<String> range = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/static/journal.css")).header("Range", "bytes=0-9").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(range.statusCode()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(shared.body().substring(0, 10));
        // Nothing outside the folder, no listings.
        assertThat(get("/static/../journal-a/site.xml").statusCode()).isNotEqualTo(200);
        assertThat(get("/static/%2e%2e/journal-a/site.xml").statusCode()).isNotEqualTo(200);
        assertThat(get("/static/").statusCode()).isEqualTo(404);
        assertThat(get("/journal-a/static/missing.css").statusCode()).isEqualTo(404);
    }

    @Test
    void unknownResourcesAre404PagesInTheSiteLayout() throws Exception {
        Document missing = page("/journal-a/v9/i9", 404);
        assertThat(Html.text(missing, "count(//header[@class='masthead'])")).isEqualTo("1");
        page("/journal-a/v1/i1/a9999", 404);
        page("/journal-a/no/such/route/at/all", 404);
    }

    static String[][] sites() {
        return new String[][] {{"journal-a", "ja"}, {"journal-b", "jb"}};
    }

    /** The issue entries of a journal: …/ja/v1/i1.atom. */
    static List<Path> issues(String journal) throws IOException {
        return files(journals.resolve(journal), "i\\d+\\.atom");
    }

    /** The JATS variants of a journal's articles: …/ja/v1/i1/a0001.xml. */
    static List<Path> articles(String journal) throws IOException {
        return files(journals.resolve(journal), "a\\d+\\.xml");
    }

    /** The resource a document of a journal belongs to, as a path inside the site: v1/i1 for …/ja/v1/i1.atom. */
    static String resource(String journal, Path document) {
        return journals.resolve(journal).relativize(document).toString().replace('\\', '/').replaceFirst("\\.[a-z]+$", "");
    }

    /** The files under {@code dir} whose names match {@code name}, sorted. */
    static List<Path> files(Path dir, String name) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().matches(name)).sorted().toList();
        }
    }

    static List<String> xpath(Path file, String expression) throws SaxonApiException {
        XdmNode doc = saxon.newDocumentBuilder().build(file.toFile());
        XPathCompiler c = saxon.newXPathCompiler();
        String expr = expression;
        if (expr.startsWith("declare default element namespace")) {
            int semi = expr.indexOf(';');
            c.declareNamespace("", expr.substring(expr.indexOf('\'') + 1, expr.lastIndexOf('\'', semi)));
            expr = expr.substring(semi + 1).trim();
        }
        List<String> out = new ArrayList<>();
        for (XdmItem i : c.evaluate(expr, doc)) out.add(i.getStringValue());
        return out;
    }

    static List<String> texts(Document page, String xpath) throws Exception {
        var nodes = (org.w3c.dom.NodeList) javax.xml.xpath.XPathFactory.newInstance().newXPath()
                .evaluate(xpath, page, javax.xml.xpath.XPathConstants.NODESET);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) out.add(nodes.item(i).getNodeValue());
        return out;
    }

    @Test
    void aBrowserWithCookiesGetsThePagesFromThePageCache() throws Exception {
        // The journal pages read nothing of the request but the path: a cookie leaves them shared.
        for (String[] site : sites()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/" + site[0] + "/"))
                    .header("Cookie", "session=abc; theme=dark").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(site[0]).isEqualTo(200);
            assertThat(r.headers().firstValue("Cache-Control")).as("kept: the page read no cookie").hasValue("no-cache");
        }
    }

    static Document page(String path, int status) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).as(path).startsWith("text/html");
        return Html.parse(r.body());
    }

    static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
