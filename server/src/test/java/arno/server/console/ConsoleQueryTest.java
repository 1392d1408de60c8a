package arno.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import arno.fulltext.FulltextConfig;
import arno.fulltext.FulltextIndex;
import arno.server.ArnoServer;
import arno.server.config.Config;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.Http;
import arno.testkit.Wait;
import arno.xml.Accounts;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's query box over real HTTP (embedded Tomcat, the LMDB store): what a query may
 * read (the store, and nothing of the machine: no file, not the accounts file, no environment
 * variable, no loopback URL) and what stops it (the time limit inside a loop that reads and
 * writes nothing, the heap brake, abandoning a query stuck in one step), each time with a clear
 * error on the page and the console answering the next request; store:ft-search over the
 * server's full-text index, and its refusals.
 */
class ConsoleQueryTest {
    private static final String ADMIN = "root:console-password";

    @TempDir
    Path root;
    Store store;
    ArnoServer server;
    Console console;
    Path accountsFile;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void store() {
        store = Store.open(root.resolve("store"));
        try (WriteTransaction w = store.write()) {
            for (int i = 0; i < 5; i++) w.put("/docs/" + i + ".xml", ("<doc n='" + i + "'/>").getBytes(StandardCharsets.UTF_8));
            w.commit();
        }
        accountsFile = root.resolve("users");
        new Accounts(accountsFile).add("root", "console-password", Accounts.ALL_ROLES);
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        if (console != null) console.close();
        store.close();
    }

    private void start(Console.Limits limits) {
        try {
            Files.createDirectories(root.resolve("sites"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = root;
        b.port = 0;
        Config config = b.build();
        server = ArnoServer.bind(config, store);
        console = new Console(server, config, store, null, new Accounts(accountsFile), limits);
        server.mount("console", Console.PATH + "/*", console.endpoint());
        server.serve();
    }

    @Test
    void theQueryBoxReadsTheStoreAndNothingOfTheMachine() throws IOException {
        start(Console.Limits.DEFAULT);
        assertThat(result(query("string-join(collection('store:/docs/')/doc/@n, ',')"))).isEqualTo("0,1,2,3,4");
        Files.writeString(root.resolve("run"), "token=secret-loopback-token");
        for (String file : new String[] {accountsFile.toUri().toString(), root.resolve("run").toUri().toString(),
                "file:///etc/passwd", "run"}) {
            Document page = query("unparsed-text('" + file + "')");
            assertThat(error(page)).as(file).contains("outside the allowed folders");
            assertThat(page.text()).doesNotContain("secret-loopback-token").doesNotContain("root:x:0:0");
            assertThat(error(query("doc('" + file + "')"))).as(file).contains("outside the allowed folders");
        }
        assertThat(error(query("collection('" + root.toUri() + "')"))).contains("outside the allowed folders");
        // the environment: none of it
        String path = System.getenv("PATH");
        assertThat(path).isNotEmpty();
        Document env = query("count(available-environment-variables()), environment-variable('PATH')");
        assertThat(result(env)).isEqualTo("0");
        assertThat(env.text()).doesNotContain(path);
        // loopback and private addresses: refused, the server's own console first
        for (String url : new String[] {"http://127.0.0.1:" + server.port() + "/_arno/", "http://localhost:" + server.port() + "/",
                "http://169.254.169.254/latest/meta-data/"}) {
            assertThat(error(query("doc('" + url + "')"))).as(url).contains("is refused").contains("address");
        }
    }

    @Test
    void aRunawayQueryIsStoppedAtTheTimeLimitAndTheConsoleAnswers() {
        start(new Console.Limits(Duration.ofSeconds(1), Duration.ofSeconds(30), 256 * 1024, 0.99));
        for (String q : new String[] {"sort(1 to 20000000)", "for $i in 1 to 20000000 order by -$i return $i",
                "declare function local:f($n) { if ($n = 0) then 0 else local:f($n - 1) }; local:f(2000000000)"}) {
            Document page = query(q);
            assertThat(error(page)).as(q).contains("query-timeout").contains("time limit of 1s");
            assertThat(result(query("1 + 1"))).isEqualTo("2");
        }
        assertThat(store.openSnapshots()).isZero();
    }

    @Test
    void aQueryThatFillsTheHeapIsStoppedBeforeItDoes() {
        // the share of the heap that lets this query hold about 200 MB more than the heap holds now
        System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long max = Runtime.getRuntime().maxMemory();
        assertThat(max - used).as("room for the test").isGreaterThan(1L << 30);
        double share = (double) (used + (200L << 20)) / max;
        start(new Console.Limits(Duration.ofMinutes(5), Duration.ofSeconds(30), 256 * 1024, share));
        // twenty million items held by the sort (about a gigabyte)
        Document page = query("count(sort(1 to 20000000))");
        assertThat(error(page)).contains("query-memory").contains("the query was stopped to keep the server's memory");
        assertThat(result(query("1 + 1"))).isEqualTo("2");
    }

    @Test
    void aQueryStuckInOneStepIsAbandonedAndTheConsoleAnswersMeanwhile() throws InterruptedException {
        // A regular expression that backtracks for a second or more (no checkpoint inside one call of
        // matches()); 32 letters is about the most Saxon's backtracking limit lets run, so the limits
        // are short instead: abandoned after 200 + 200 ms, well before the regex can end by itself.
        start(new Console.Limits(Duration.ofMillis(200), Duration.ofMillis(200), 256 * 1024, 0.99));
        String stuck = "matches(string-join((1 to 32) ! 'a') || '!', '^(a|aa)+$')";
        assertThat(error(query(stuck))).contains("did not stop at its time limit of").contains("abandoned");
        assertThat(error(query("1 + 1"))).contains("abandoned at its time limit is still running");
        assertThat(get("/_arno/").statusCode()).isEqualTo(200);
        assertThat(get("/_arno/store").statusCode()).isEqualTo(200);
        // it ends by itself, and then the box runs queries again
        Wait.upTo(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(() -> result(query("1 + 1")), "2"::equals);
        assertThat(store.openSnapshots()).isZero();
    }

    @Test
    void theQueryBoxSearchesTheFullTextIndexAndSaysWhenItCannot() throws Exception {
        start(Console.Limits.DEFAULT);
        // No index beside the store: the error the pages give.
        assertThat(error(query("store:ft-search('river')"))).startsWith("search-unavailable:")
                .contains("no full-text index");
        try (FulltextIndex index = FulltextIndex.open(store, root.resolve("fulltext"), FulltextIndex.Options.defaults())) {
            // An index not ready (no configuration yet): unavailable, saying why; the console answers on.
            Wait.upTo(Duration.ofSeconds(30)).until(() -> index.status().state(), FulltextIndex.State.UNCONFIGURED::equals);
            assertThat(error(query("store:ft-search('river')"))).startsWith("search-unavailable:")
                    .contains("no full-text configuration");
            assertThat(result(query("1 + 1"))).isEqualTo("2");
            long v;
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
                w.put("/journals/ja/a1.atom", article(1, "The River Runs", "A river and a bridge.").getBytes(StandardCharsets.UTF_8));
                w.put("/journals/ja/a2.atom", article(2, "Deserts", "Sand.").getBytes(StandardCharsets.UTF_8));
                v = w.commit();
            }
            assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).as("index ready: %s", index.status()).isTrue();
            // The store:results element as it is, with the one hit and its snippet.
            Document page = query("store:ft-search('river')");
            assertThat(error(page)).startsWith("(no error");
            String results = result(page);
            assertThat(results).startsWith("<store:results").contains("total=\"1\"").contains("version=\"" + v + "\"")
                    .contains("path=\"/journals/ja/a1\"").contains("<store:match>River</store:match>");
            assertThat(result(query("let $r := store:ft-search('river OR sand', map{'sort': 'date'})"
                    + " return string-join(($r/@total, $r/store:hit/@path), ' ')"))).isEqualTo("2 /journals/ja/a2 /journals/ja/a1");
            // A query the index refuses: its error, with the position.
            assertThat(error(query("store:ft-search('*')"))).startsWith("bad-query:").contains("position 1");
        }
    }

    private static String article(int n, String title, String summary) {
        return "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:test:a" + n + "</id><title>" + title + "</title>"
                + "<updated>2024-01-0" + n + "T00:00:00Z</updated><published>2024-01-0" + n + "T00:00:00Z</published>"
                + "<category scheme=\"urn:arno:kind\" term=\"article\"/><summary>" + summary + "</summary></entry>";
    }

    // ---- HTTP

    private Document query(String q) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/_arno/store/query"))
                .header("Authorization", Http.basic(ADMIN)).header("Origin", "http://127.0.0.1:" + server.port())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("query=" + URLEncoder.encode(q, StandardCharsets.UTF_8))).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Jsoup.parse(r.body());
    }

    private HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).header("Authorization", Http.basic(ADMIN)).build());
    }

    private static String error(Document page) {
        Element e = page.getElementById("query-error");
        return e == null ? "(no error; result: " + result(page) + ")" : e.text();
    }

    private static String result(Document page) {
        Element e = page.getElementById("result");
        return e == null ? null : e.wholeText().strip();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private HttpResponse<String> send(HttpRequest r) {
        return Http.send(client, r);
    }
}
