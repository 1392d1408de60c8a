package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import arno.fulltext.FulltextConfig;
import arno.fulltext.FulltextIndex;
import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.testkit.Html;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The demo sites' search page over HTTP from a real server on a real store with its full-text
 * index: hits of the site's journal only, highlighted snippets, facets, the query echoed as text,
 * a refused query and no results said on the page, and the search box on every page.
 */
class DemoSearchTest {

    static Path data;
    static ArnoServer server;
    static arno.store.Store store;
    static FulltextIndex index;
    static final HttpClient client = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        data = Files.createTempDirectory("arno-search");
        Path source = data.resolve("source");
        // 24 articles: 12 a journal, more than a page of hits for a word of the prose
        arno.demo.Generator.generate(source, 24, 1);
        Config.Builder b = Config.defaults(Path.of("..").toAbsolutePath().normalize()).toBuilder();
        b.data = data;
        b.production = true;
        b.port = 0;
        Config config = b.build();
        store = arno.store.Store.open(config.store());
        try (arno.store.atom.AtomStore atom = arno.store.atom.AtomStore.open(store, arno.store.atom.AtomOptions.defaults())) {
            arno.store.atom.TreeLoader.load(atom, source, "test", null);
        }
        long v;
        try (arno.store.WriteTransaction w = store.write()) {
            w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
            v = w.commit();
        }
        Files.createDirectories(config.content());
        index = FulltextIndex.open(store, data.resolve("fulltext"), FulltextIndex.Options.defaults());
        assertThat(index.awaitVersion(v, Duration.ofSeconds(60))).as("%s", index.status()).isTrue();
        server = ArnoServer.start(config, store);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (index != null) index.close();
        if (store != null) store.close();
        FileUtils.deleteQuietly(data.toFile());
    }

    static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static Document page(String path, int status) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(status);
        return Html.parse(r.body());
    }

    static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** A word of an article's title in journal ja, and that article's path. */
    static String[] titleWord() {
        try (arno.store.Snapshot s = store.read()) {
            for (String u : s.uris("/journals/ja/")) {
                if (!u.matches("/journals/ja/v\\d+/i\\d+/a\\d+\\.atom")) continue;
                java.io.StringWriter out = new java.io.StringWriter();
                s.export(u, out);
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("<title[^>]*>([^<]*)</title>").matcher(out.toString());
                if (!m.find()) continue;
                String title = m.group(1);
                for (String w : title.split("\\W+")) {
                    if (w.length() > 6) return new String[] {w, u.substring(0, u.length() - ".atom".length())};
                }
            }
        }
        throw new AssertionError("no article title with a long word");
    }

    @Test
    void findsTheJournalsArticlesWithHighlightsAndFacets() throws Exception {
        String[] found = titleWord();
        Document p = page("/journal-a/search?q=" + q(found[0]), 200);
        String link = "/journal-a" + found[1].substring("/journals/ja".length());
        assertThat(Html.text(p, "count(//ol[@class = 'results']/li/a[@href = '" + link + "'])"))
                .as(link + " in " + Html.text(p, "string(//main)")).isEqualTo("1");
        assertThat(Html.text(p, "string(//ol[@class = 'results']//mark[1])").toLowerCase()).isEqualTo(found[0].toLowerCase());
        assertThat(Html.text(p, "count(//aside[@class = 'facets']/h2[. = 'Year'])")).isEqualTo("1");
        assertThat(Html.text(p, "string(//form[@class = 'site-search']/input/@value)")).isEqualTo(found[0]);
        // Journal B's page finds only its own articles.
        Document b = page("/journal-b/search?q=" + q(found[0]), 200);
        assertThat(Html.text(b, "count(//ol[@class = 'results']/li/a[starts-with(@href, '/journal-a')])")).isEqualTo("0");
        // A facet link narrows the search and keeps the query.
        String year = Html.text(p, "string(//aside[@class = 'facets']/h2[. = 'Year']/following-sibling::ul[1]/li[1]/a/@href)");
        assertThat(year).startsWith("/journal-a/search?q=" + found[0]).contains("year=");
        assertThat(Html.text(page(year, 200), "count(//ol[@class = 'results']/li)")).isNotEqualTo("0");
    }

    @Test
    void theQueryIsEchoedAsTextAndRefusalsAreSaid() throws Exception {
        HttpResponse<String> r = get("/journal-a/search?q=" + q("\"><script>alert(1)</script>"));
        Document p = Html.parse(r.body());
        assertThat(Html.text(p, "count(//script)")).isEqualTo("0");
        assertThat(Html.text(p, "string(//form[@class = 'site-search']/input/@value)")).isEqualTo("\"><script>alert(1)</script>");

        Document bad = page("/journal-a/search?q=" + q("*"), 400);
        assertThat(Html.text(bad, "string(//p[@class = 'search-error'])")).contains("position 1").contains("wildcard")
                .doesNotEndWith(")");
        Document none = page("/journal-a/search?q=" + q("zyxwvutsrq"), 200);
        assertThat(Html.text(none, "string(//p[@class = 'no-results'])")).contains("zyxwvutsrq");
        Document empty = page("/journal-a/search", 200);
        assertThat(Html.text(empty, "count(//p[@class = 'search-hint'])")).isEqualTo("1");
    }

    /** In headless Chromium: typed into the masthead's box on the home page, the hits come highlighted; a hostile query stays text. */
    @Test
    void aReaderSearchesFromAnyPageInABrowser() throws Exception {
        String[] found = titleWord();
        org.openqa.selenium.chrome.ChromeOptions o = new org.openqa.selenium.chrome.ChromeOptions();
        o.setBinary("/usr/bin/chromium");
        o.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + data.resolve("chromium-profile"));
        org.openqa.selenium.logging.LoggingPreferences logs = new org.openqa.selenium.logging.LoggingPreferences();
        logs.enable(org.openqa.selenium.logging.LogType.BROWSER, java.util.logging.Level.ALL);
        o.setCapability(org.openqa.selenium.chrome.ChromeOptions.LOGGING_PREFS, logs);
        org.openqa.selenium.chrome.ChromeDriverService service = new org.openqa.selenium.chrome.ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        org.openqa.selenium.chrome.ChromeDriver browser = new org.openqa.selenium.chrome.ChromeDriver(service, o);
        try {
            browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            String base = "http://127.0.0.1:" + server.port();
            browser.get(base + "/journal-a/");
            var box = browser.findElement(org.openqa.selenium.By.cssSelector("header form[role=search] input[name=q]"));
            box.sendKeys(found[0]);
            box.submit();
            new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
                    .until(d -> d.getCurrentUrl().contains("/journal-a/search?q="));
            var hits = browser.findElements(org.openqa.selenium.By.cssSelector("ol.results li.hit"));
            assertThat(hits).isNotEmpty();
            assertThat(browser.findElement(org.openqa.selenium.By.cssSelector("ol.results mark")).getText())
                    .isEqualToIgnoringCase(found[0]);
            // Following a hit leads to the article's page.
            String link = "/journal-a" + found[1].substring("/journals/ja".length());
            browser.findElement(org.openqa.selenium.By.cssSelector("ol.results a[href='" + link + "']")).click();
            new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10)).until(d -> d.getCurrentUrl().endsWith(link));

            browser.get(base + "/journal-a/search?q=" + q("<img src=x onerror=\"document.title='owned'\">"));
            assertThat(browser.getTitle()).as("the handler never ran").isNotEqualTo("owned").startsWith("Search: <img");
            assertThat(browser.findElements(org.openqa.selenium.By.cssSelector("main img"))).isEmpty();
            assertThat(browser.findElement(org.openqa.selenium.By.cssSelector("main form input[name=q]")).getAttribute("value"))
                    .startsWith("<img");
            for (var e : browser.manage().logs().get(org.openqa.selenium.logging.LogType.BROWSER)) {
                if (e.getMessage().contains("/favicon.ico")) continue; // the demo has none
                assertThat(e.getLevel()).as(e.getMessage()).isNotEqualTo(java.util.logging.Level.SEVERE);
            }
        } finally {
            browser.quit();
        }
    }

    /** Headless Chromium as the console's tests start it; {@code quit()} it. */
    static org.openqa.selenium.chrome.ChromeDriver browser() {
        org.openqa.selenium.chrome.ChromeOptions o = new org.openqa.selenium.chrome.ChromeOptions();
        o.setBinary("/usr/bin/chromium");
        o.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + data.resolve("chromium-profile-pages"));
        org.openqa.selenium.chrome.ChromeDriverService service = new org.openqa.selenium.chrome.ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        org.openqa.selenium.chrome.ChromeDriver browser = new org.openqa.selenium.chrome.ChromeDriver(service, o);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return browser;
    }

    static java.util.List<String> hitLinks(org.openqa.selenium.WebDriver browser) {
        return browser.findElements(org.openqa.selenium.By.cssSelector("ol.results li.hit > a")).stream()
                .map(e -> e.getAttribute("href")).toList();
    }

    /**
     * In headless Chromium: a word of every article's prose has more hits than a page; Next shows the
     * next ten (numbered on), Previous the first again; the page is styled by the journal's style sheet
     * (results beside the facets, highlighted matches, the pager's links as buttons).
     */
    @Test
    void aReaderPagesThroughTheHitsInABrowser() throws Exception {
        org.openqa.selenium.chrome.ChromeDriver browser = browser();
        try {
            String base = "http://127.0.0.1:" + server.port();
            browser.get(base + "/journal-a/search?q=studies"); // in every article ("Previous studies have linked"); "however" is a stop word
            java.util.List<String> first = hitLinks(browser);
            assertThat(first).hasSize(10).doesNotHaveDuplicates();
            assertThat(browser.findElements(org.openqa.selenium.By.cssSelector("nav.pages a[rel=prev]"))).isEmpty();
            // Styled: the results and the facets side by side, matches highlighted, the pager's links as buttons.
            assertThat(browser.findElement(org.openqa.selenium.By.cssSelector(".search-results")).getCssValue("display")).isEqualTo("grid");
            assertThat(browser.findElement(org.openqa.selenium.By.cssSelector("ol.results mark")).getCssValue("background-color"))
                    .isEqualTo("rgba(255, 241, 168, 1)");
            var next = browser.findElement(org.openqa.selenium.By.cssSelector("nav.pages a[rel=next]"));
            assertThat(next.getCssValue("display")).isNotEqualTo("inline");
            assertThat(next.getCssValue("background-color")).isNotEqualTo("rgba(0, 0, 0, 0)");
            var facets = browser.findElement(org.openqa.selenium.By.cssSelector("aside.facets")).getRect();
            var results = browser.findElement(org.openqa.selenium.By.cssSelector("ol.results")).getRect();
            assertThat(facets.getX()).as("the facets beside the results").isGreaterThan(results.getX() + results.getWidth() - 1);

            next.click();
            new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
                    .until(d -> d.getCurrentUrl().contains("page=2"));
            java.util.List<String> second = hitLinks(browser);
            assertThat(second).isNotEmpty().doesNotHaveDuplicates().doesNotContainAnyElementsOf(first);
            assertThat(browser.findElement(org.openqa.selenium.By.cssSelector("ol.results")).getAttribute("start")).isEqualTo("11");
            assertThat(browser.findElements(org.openqa.selenium.By.cssSelector("nav.pages a[rel=next]"))).as("12 hits: two pages").isEmpty();

            browser.findElement(org.openqa.selenium.By.cssSelector("nav.pages a[rel=prev]")).click();
            new org.openqa.selenium.support.ui.WebDriverWait(browser, Duration.ofSeconds(10))
                    .until(d -> !d.getCurrentUrl().contains("page=2"));
            assertThat(hitLinks(browser)).isEqualTo(first);
        } finally {
            browser.quit();
        }
    }

    @Test
    void everyPageHasTheSearchBox() throws Exception {
        for (String path : new String[] {"/journal-a/", "/journal-b/", "/journal-a/v1/i1"}) {
            Document p = page(path, 200);
            assertThat(Html.text(p, "string(//header//form[@role = 'search']/@action)")).as(path).endsWith("/search");
        }
    }
}
