package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import arno.fulltext.FulltextConfig;
import arno.fulltext.FulltextIndex;
import arno.pipeline.PageCacheStats;
import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.testkit.Html;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The demo search page with the page caches on, over a real server on a real store and its
 * full-text index: a page of hits is cached per query, goes when the index applies a commit (never
 * served after it), and the page shows the committed article within a second; bad queries get a
 * page saying why, never a 500; a burst of expensive searches leaves the other pages answered.
 */
class DemoSearchCacheTest {

    static Path data;
    static ArnoServer server;
    static arno.store.Store store;
    static arno.store.atom.AtomStore atom;
    static FulltextIndex index;
    static final HttpClient client = Http.client();

    @BeforeAll
    static void start() throws Exception {
        data = Files.createTempDirectory("arno-search-cache");
        Path source = data.resolve("source");
        arno.demo.Generator.generate(source, 8, 1);
        Config.Builder b = Config.defaults(Path.of("..").toAbsolutePath().normalize()).toBuilder();
        b.data = data;
        b.production = true;
        b.port = 0;
        b.pageCaches = true;
        Config config = b.build();
        store = arno.store.Store.open(config.store());
        atom = arno.store.atom.AtomStore.open(store, arno.store.atom.AtomOptions.defaults());
        arno.store.atom.TreeLoader.load(atom, source, "test", null);
        long v;
        try (arno.store.WriteTransaction w = store.write()) {
            w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
            v = w.commit();
        }
        Files.createDirectories(config.content());
        index = FulltextIndex.open(store, data.resolve("fulltext"), FulltextIndex.Options.defaults());
        assertThat(index.awaitVersion(v, Duration.ofSeconds(60))).as("%s", index.status()).isTrue();
        // The sites and, as ./arno serve mounts it, the store API with /store/search.
        server = ArnoServer.bind(config, store);
        server.mount("store", "/store/*", new arno.store.http.StoreServlet(atom, new arno.xml.Accounts(data.resolve("users")),
                arno.store.http.StoreServlet.ReadPolicy.PUBLIC, 1 << 20).endpoint());
        server.serve();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (index != null) index.close();
        if (atom != null) atom.close();
        if (store != null) store.close();
        FileUtils.deleteQuietly(data.toFile());
    }

    static HttpResponse<String> get(String path) {
        return Http.send(client, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(60)).build());
    }

    static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static PageCacheStats stats() {
        return server.sites().cacheStats().get("journal-a");
    }

    static long hits() {
        PageCacheStats s = stats();
        return s.memory().hits() + s.disk().hits();
    }

    /** The first article of journal ja: its entry path without .atom. */
    static String firstArticle() {
        try (arno.store.Snapshot s = store.read()) {
            for (String u : s.uris("/journals/ja/")) {
                if (u.matches("/journals/ja/v\\d+/i\\d+/a\\d+\\.atom")) return u.substring(0, u.length() - ".atom".length());
            }
        }
        throw new AssertionError("no article in journal ja");
    }

    static String export(String path) {
        try (arno.store.Snapshot s = store.read()) {
            java.io.StringWriter out = new java.io.StringWriter();
            s.export(path, out);
            return out.toString();
        }
    }

    @Test
    void aResultsPageIsCachedPerQueryAndNeverServedAfterTheIndexAppliesACommit() throws Exception {
        String word = "quokkafluxion";
        String page = "/journal-a/search?q=" + word;
        HttpResponse<String> first = get(page);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(Html.text(Html.parse(first.body()), "string(//p[@class = 'no-results'])")).contains(word);

        long before = hits();
        assertThat(get(page).statusCode()).isEqualTo(200);
        assertThat(hits()).as("the second request is a hit").isEqualTo(before + 1);
        // Keyed by the query's parameters: another word is another page, a parameter the page ignores is not.
        assertThat(get("/journal-a/search?q=otherquokka").statusCode()).isEqualTo(200);
        assertThat(hits()).as("another query is a miss").isEqualTo(before + 1);
        assertThat(get(page + "&utm_source=mail").statusCode()).isEqualTo(200);
        assertThat(hits()).as("an ignored parameter finds the same page").isEqualTo(before + 2);

        // A new article with the word, committed through the store's API.
        String from = firstArticle();
        String to = from.substring(0, from.lastIndexOf('/') + 1) + "a9999";
        String entry = export(from + ".atom").replaceFirst("(<title[^>]*>)", "$1" + word + " ");
        long v;
        try (arno.store.WriteTransaction w = store.write()) {
            w.put(to + ".atom", entry.getBytes(StandardCharsets.UTF_8));
            w.put(to + ".xml", export(from + ".xml").getBytes(StandardCharsets.UTF_8));
            v = w.commit();
        }
        long atCommit = hits();
        get(page);
        assertThat(hits()).as("the page cached before the commit is not served after it").isEqualTo(atCommit);

        String link = "/journal-a" + to.substring("/journals/ja".length());
        long t0 = System.nanoTime();
        // the 1 s the issue asks for is a figure measured alone (perf: FulltextBench fresh); here, on a machine
        // that may be loaded (CI), the test asks that the page shows it, and that no stale page is served meanwhile
        Wait.upTo(Duration.ofSeconds(15)).alias("the search page shows the committed article").until(() -> {
            HttpResponse<String> r = get(page);
            return r.statusCode() == 200 && Html.text(Html.parse(r.body()),
                    "count(//ol[@class = 'results']/li/a[@href = '" + link + "'])").equals("1");
        });
        System.out.printf("commit to search page: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        assertThat(index.status().version()).isGreaterThanOrEqualTo(v);
        // From now on every answer has it, the cached page too.
        long seen = hits();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = get(page);
            assertThat(Html.text(Html.parse(r.body()), "count(//ol[@class = 'results']/li/a[@href = '" + link + "'])"))
                    .isEqualTo("1");
        }
        assertThat(hits()).as("the new page is cached again").isGreaterThan(seen);
    }

    @Test
    void badQueriesGetAPageSayingWhyNeverAServerError() throws Exception {
        String terms = String.join(" ", java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "w" + i).toList());
        // query, status, what the page says
        String[][] cases = {
            {"alpha ".repeat(200), "400", "more than the limit of 1000"},
            {terms, "400", "position"},
            {"\"river bank", "400", "not closed"},
            {"(river OR bank", "400", "position"},
            {"river ) bank", "400", "position"},
            {"*", "400", "wildcard"},
            {"?", "400", "wildcard"},
            {"* *", "400", "wildcard"},
        };
        // Longer than the request line the server reads: refused before the page, saying so.
        HttpResponse<String> tooLong = get("/journal-a/search?q=" + q("alpha ".repeat(1667)));
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(tooLong.body()).contains("bad-request").contains("larger than the server reads").contains("1,000 characters");
        for (String[] c : cases) {
            HttpResponse<String> r = get("/journal-a/search?q=" + q(c[0]));
            String shown = c[0].length() > 40 ? c[0].substring(0, 40) + "…" : c[0];
            assertThat(r.statusCode()).as(shown + ": " + r.body()).isEqualTo(Integer.parseInt(c[1]));
            Document p = Html.parse(r.body());
            assertThat(Html.text(p, "string(//p[@class = 'search-error'])")).as(shown).contains(c[2]);
            assertThat(Html.text(p, "count(//header//form[@role = 'search'])")).as("in the site's layout").isEqualTo("1");
        }
        // The same over the store API: a precise status and an err:error naming what was wrong.
        HttpResponse<String> apiTooLong = get("/store/search?q=" + q("alpha ".repeat(1667)));
        assertThat(apiTooLong.statusCode()).isEqualTo(400);
        assertThat(apiTooLong.body()).contains("code=\"bad-request\"").contains("larger than the server reads");
        for (String[] c : cases) {
            HttpResponse<String> r = get("/store/search?q=" + q(c[0]));
            assertThat(r.statusCode()).as(c[0]).isEqualTo(Integer.parseInt(c[1]));
            assertThat(r.body()).as(c[0]).contains("code=\"bad-query\"").contains(c[2]);
        }
        HttpResponse<String> apiEmpty = get("/store/search?q=");
        assertThat(apiEmpty.statusCode()).isEqualTo(400);
        assertThat(apiEmpty.body()).contains("code=\"bad-query\"").contains("no words");
        for (String word : new String[] {"日本語の論文", "Ελληνικά άρθρα", "مقالة علمية"}) {
            HttpResponse<String> r = get("/store/search?q=" + q(word));
            assertThat(r.statusCode()).as(word).isEqualTo(200);
            assertThat(r.body()).as(word).contains("<opensearch:totalResults>0</opensearch:totalResults>");
        }
        // Nothing to search for: the page with its hint.
        for (String empty : new String[] {"", "   "}) {
            HttpResponse<String> r = get("/journal-a/search?q=" + q(empty));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(Html.text(Html.parse(r.body()), "count(//p[@class = 'search-hint'])")).isEqualTo("1");
        }
        // Words of other scripts are words: an answer, here no hits.
        for (String word : new String[] {"日本語の論文", "Ελληνικά άρθρα", "مقالة علمية"}) {
            HttpResponse<String> r = get("/journal-a/search?q=" + q(word));
            assertThat(r.statusCode()).as(word).isEqualTo(200);
            assertThat(Html.text(Html.parse(r.body()), "string(//p[@class = 'no-results'])")).as(word).contains(word);
        }
    }

    @Test
    void aBurstOfExpensiveSearchesGetsAnswersAndOtherPagesAreServed() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(13);
        AtomicBoolean searching = new AtomicBoolean(true);
        try {
            List<Future<List<HttpResponse<String>>>> searches = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                searches.add(pool.submit(() -> {
                    List<HttpResponse<String>> out = new ArrayList<>();
                    for (int i = 0; i < 6; i++) {
                        // Every request another query (a page of its own, never a cache hit): 26 prefixes, in turn.
                        StringBuilder b = new StringBuilder();
                        for (int k = 0; k < 26; k++) b.append(k == 0 ? "" : " OR ").append((char) ('a' + (k + thread * 6 + i) % 26)).append('*');
                        out.add(get("/journal-a/search?q=" + q(b.toString()) + "&page=" + (1 + i)));
                    }
                    return out;
                }));
            }
            for (int t = 0; t < 4; t++) {
                int thread = t;
                searches.add(pool.submit(() -> {
                    List<HttpResponse<String>> out = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        StringBuilder b = new StringBuilder();
                        for (int k = 0; k < 26; k++) b.append(k == 0 ? "" : " OR ").append((char) ('a' + (k + thread * 5 + i) % 26)).append('*');
                        out.add(get("/store/search?q=" + q(b.toString()) + "&count=100"));
                    }
                    return out;
                }));
            }
            Future<List<HttpResponse<String>>> pages = pool.submit(() -> {
                List<HttpResponse<String>> out = new ArrayList<>();
                String[] paths = {"/journal-a/", "/journal-b/", "/journal-a/v1/i1", firstPageOf("/journal-a")};
                // Bounded: the burst's length, or 400 pages.
                for (int i = 0; i < 400 && (searching.get() || i < 8); i++) out.add(get(paths[i % paths.length]));
                return out;
            });
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (Future<List<HttpResponse<String>>> f : searches) answers.addAll(f.get());
            searching.set(false);
            for (HttpResponse<String> r : answers) {
                assertThat(r.statusCode()).as(r.uri() + ": " + r.body()).isIn(200, 400, 503);
                if (r.uri().getPath().startsWith("/store/")) {
                    if (r.statusCode() == 200) {
                        assertThat(r.body()).contains("<opensearch:totalResults>");
                    } else {
                        assertThat(r.body()).contains("<err:message>");
                        if (r.body().contains("code=\"search-busy\"")) assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                    }
                    continue;
                }
                Document p = Html.parse(r.body());
                if (r.statusCode() == 200) {
                    assertThat(Html.text(p, "count(//p[@class = 'search-count' or @class = 'no-results'])")).isEqualTo("1");
                } else {
                    assertThat(Html.text(p, "string(//p[@class = 'search-error'])")).as(r.uri().toString()).isNotBlank();
                    if (r.statusCode() == 503) assertThat(r.headers().firstValue("Retry-After")).as(r.body()).hasValue("1");
                }
            }
            List<HttpResponse<String>> others = pages.get();
            assertThat(others).isNotEmpty();
            for (HttpResponse<String> r : others) assertThat(r.statusCode()).as(r.uri() + ": " + r.body()).isEqualTo(200);
        } finally {
            searching.set(false);
            pool.shutdownNow();
        }
    }

    /** An article page of the site, from the first article of its journal. */
    static String firstPageOf(String site) {
        String a = firstArticle();
        return site + a.substring("/journals/ja".length());
    }
}
