package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cluster.TestPostgres;
import arno.server.Main;
import arno.server.cli.ServeCommand;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The demo as a two-node cluster, as docs/operations.md tells a user to try it: {@code ./arno
 * serve --cluster URL} twice, two ports, two data folders, one real PostgreSQL. The first node
 * finds the database empty and loads the demo through the log; the second applies it. Both render
 * the demo's pages alike, and a cached page on one follows a write on the other.
 */
class ClusterDemoTest {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    private static String home;

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void checkoutHome() {
        home = System.getProperty("arno.home");
        System.setProperty("arno.home", Path.of("..").toAbsolutePath().normalize().toString());
    }

    @AfterAll
    static void restoreHome() {
        if (home == null) System.clearProperty("arno.home");
        else System.setProperty("arno.home", home);
    }

    /** A node serving until {@link #stop()}; its standard error kept. */
    private final class Node {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final CompletableFuture<Integer> port = new CompletableFuture<>();
        final CountDownLatch stop = new CountDownLatch(1);
        final CompletableFuture<Integer> status;

        Node(String url, Path data) {
            List<String> args = List.of("serve", "--port", "0", "--data", data.toString(), "--articles", "5", "--cluster", url);
            CommandLine.IFactory defaults = CommandLine.defaultFactory();
            CommandLine.IFactory serving = new CommandLine.IFactory() {
                @Override
                public <K> K create(Class<K> type) throws Exception {
                    return type == ServeCommand.class ? type.cast(new ServeCommand(p -> {
                        port.complete(p);
                        try {
                            stop.await(5, TimeUnit.MINUTES);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    })) : defaults.create(type);
                }
            };
            status = CompletableFuture.supplyAsync(() -> Main.run(args.toArray(String[]::new),
                    new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true, StandardCharsets.UTF_8), serving));
            status.whenComplete((s, e) -> port.completeExceptionally(new AssertionError("serve ended with " + s + ": " + err())));
        }

        int port() throws Exception {
            return port.get(3, TimeUnit.MINUTES);
        }

        String err() {
            return err.toString(StandardCharsets.UTF_8);
        }

        String account() {
            Matcher m = Pattern.compile("account for this cluster: (\\S+:\\S+) ").matcher(err());
            assertThat(m.find()).as(err()).isTrue();
            return m.group(1);
        }

        int stop() throws Exception {
            stop.countDown();
            return status.get(1, TimeUnit.MINUTES);
        }

        HttpResponse<String> get(String path) throws Exception {
            return Http.send(client, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path)).build());
        }
    }

    @Test
    void theFirstNodeLoadsTheDemoOnceAndBothServeIt() throws Exception {
        String url = PG.url(PG.newDatabase());
        Node a = new Node(url, tmp.resolve("a"));
        Node b = null;
        try {
            a.port();
            b = new Node(url, tmp.resolve("b"));
            b.port();
            assertThat(a.err()).contains("arno: loading").contains("account for this cluster: arno:");
            // the development account is the cluster's, made once: the second node names it
            assertThat(b.err()).as("the demo is loaded once, by the first node").doesNotContain("arno: loading")
                    .contains("account for this cluster: arno, created by the node that found no accounts");
            for (Node n : List.of(a, b)) {
                HttpResponse<String> health = n.get("/_arno/health");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                assertThat(health.body()).contains("\"caughtUp\":true");
            }
            // a demo page renders alike on both (and is now in both nodes' page caches)
            HttpResponse<String> pageA = a.get("/journal-a/");
            HttpResponse<String> pageB = b.get("/journal-a/");
            assertThat(pageA.statusCode()).as(pageA.body()).isEqualTo(200);
            assertThat(pageB.statusCode()).as(pageB.body()).isEqualTo(200);
            assertThat(pageB.body()).isEqualTo(pageA.body());
            assertThat(b.get("/journal-a/").body()).isEqualTo(pageB.body());

            // the journal renamed on A: B's cached page follows the log
            HttpResponse<String> ja = a.get("/store/journals/ja.atom");
            assertThat(ja.statusCode()).as(ja.body()).isEqualTo(200);
            // both copies number their versions alike (each holds nothing but the log's commits)
            assertThat(b.get("/store/journals/ja.atom").headers().firstValue("ETag")).isEqualTo(ja.headers().firstValue("ETag"));
            String renamed = ja.body().replaceFirst("<title([^>]*)>[^<]*</title>", "<title$1>Journal A, renamed</title>");
            assertThat(renamed).contains("Journal A, renamed");
            HttpResponse<String> put = Http.send(client, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port()
                    + "/store/journals/ja.atom")).header("Authorization", Http.basic(a.account()))
                    .header("If-Match", ja.headers().firstValue("ETag").orElseThrow())
                    .header("Content-Type", "application/atom+xml;type=entry")
                    .PUT(HttpRequest.BodyPublishers.ofString(renamed)).build());
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(put.headers().firstValue("Arno-Position")).isPresent();
            Node reader = b;
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(reader.get("/journal-a/").body())
                    .contains("Journal A, renamed"));

            // the demo's full-text configuration came through the log too: each node's index finds an article by its title
            HttpResponse<String> article = a.get("/store/journals/ja/v1/i1/a0001.atom");
            assertThat(article.statusCode()).as(article.body()).isEqualTo(200);
            Matcher title = Pattern.compile("<title[^>]*>([^<]*)</title>").matcher(article.body());
            assertThat(title.find()).as(article.body()).isTrue();
            String word = java.util.Arrays.stream(title.group(1).split("\\W+")).filter(w -> w.length() > 5).findFirst().orElseThrow();
            for (Node n : List.of(a, b)) {
                Wait.upTo(Duration.ofSeconds(60)).untilAsserted(() -> {
                    HttpResponse<String> found = n.get("/store/search?q=" + word);
                    assertThat(found.statusCode()).as(found.body()).isEqualTo(200);
                    assertThat(found.body()).contains("/journals/ja/v1/i1/a0001").containsPattern("totalResults>[1-9]");
                });
            }
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            if (b != null) assertThat(b.stop()).as(b.err()).isZero();
        }
    }

    /** {@code ./arno query --data DATA QUERY} (a node's copy, the node stopped): its standard output, stripped. */
    private static String query(Path data, String query) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"query", "--data", data.toString(), query}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(query + ": " + err.toString(StandardCharsets.UTF_8)).isZero();
        return out.toString(StandardCharsets.UTF_8).strip();
    }

    /** How many rows {@code sql} counts in {@code database}. */
    private static long count(String database, String sql) throws Exception {
        try (java.sql.Connection c = PG.dataSource(database).getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    /**
     * The demo's index definitions go through the cluster's log once, written by the node that
     * loads the demo: every node's store builds the indexes from them as it applies the log, a
     * node joining later as it rebuilds its copy from the database, and no copy installs them by
     * itself (a commit the log would lack). An index lookup and a search planned on the indexes
     * answer alike on each node's copy.
     */
    @Test
    void theDemosIndexesGoThroughTheLogOnceAndEveryNodeIndexesWithThem() throws Exception {
        String database = PG.newDatabase();
        String url = PG.url(database);
        Node a = new Node(url, tmp.resolve("a"));
        Node b = null;
        Node c = null;
        String lookup = "count(store:lookup('category', 'urn:arno:kind', 'article'))";
        // an article found by its DOI through the doi index is the one the category index gave
        String byDoi = "let $e := store:lookup('category', 'urn:arno:kind', 'article')[1]/.."
                + " return (base-uri(store:lookup('doi', string($e/*:doi))) = base-uri($e), string($e/*:doi))";
        String search = "declare namespace atom = 'http://www.w3.org/2005/Atom'; count(store:search('/', \"atom:entry[atom:category[@scheme = 'urn:arno:kind'][@term = 'article']]\"))";
        try {
            a.port();
            b = new Node(url, tmp.resolve("b"));
            b.port();
            assertThat(a.err()).containsPattern("arno: 5 index\\(es\\) configured: doi, category, issue-id, surname, published;"
                    + " written through the cluster's log \\(position \\d+\\)");
            // b installs nothing of its own: it applies the log
            assertThat(b.err()).doesNotContain("index(es) configured");
            assertThat(count(database, "SELECT count(*) FROM arno.documents WHERE path = '/_config/indexes.xml'")).isOne();
            assertThat(count(database, "SELECT count(*) FROM arno.changes WHERE path = '/_config/indexes.xml'")).isOne();
            for (String path : List.of("/store/journals/ja.atom", "/journal-a/")) {
                HttpResponse<String> there = a.get(path);
                assertThat(there.statusCode()).as(there.body()).isEqualTo(200);
                assertThat(b.get(path).body()).isEqualTo(there.body());
            }
            assertThat(b.get("/store/journals/ja.atom").headers().firstValue("ETag"))
                    .isEqualTo(a.get("/store/journals/ja.atom").headers().firstValue("ETag"));
            assertThat(b.stop()).as(b.err()).isZero();
            // a node joining later: its new copy rebuilt from the database, the definitions with it
            c = new Node(url, tmp.resolve("c"));
            c.port();
            assertThat(c.err()).doesNotContain("index(es) configured").doesNotContain("arno: loading");
            assertThat(c.stop()).as(c.err()).isZero();
            assertThat(a.stop()).as(a.err()).isZero();
        } finally {
            for (Node n : java.util.Arrays.asList(a, b, c)) {
                if (n != null && !n.status.isDone()) n.stop();
            }
        }
        String articles = query(tmp.resolve("a"), lookup);
        assertThat(Integer.parseInt(articles)).isEqualTo(5);
        String doi = query(tmp.resolve("a"), byDoi);
        assertThat(doi).startsWith("true").contains("10.5555/");
        for (String node : List.of("b", "c")) {
            assertThat(query(tmp.resolve(node), lookup)).as(node).isEqualTo(articles);
            assertThat(query(tmp.resolve(node), byDoi)).as(node).isEqualTo(doi);
            assertThat(query(tmp.resolve(node), search)).as(node).isEqualTo(articles);
        }
    }

    @Test
    void twoNodesStartingTogetherLoadTheDemoOnce() throws Exception {
        String database = PG.newDatabase();
        String url = PG.url(database);
        Node a = new Node(url, tmp.resolve("a"));
        Node b = new Node(url, tmp.resolve("b"));
        try {
            a.port();
            b.port();
            // the advisory lock: one loads, the other waits for it and then finds the demo there
            assertThat(List.of(a.err().contains("arno: loading"), b.err().contains("arno: loading")))
                    .as(a.err() + b.err()).containsExactlyInAnyOrder(true, false);
            // its index definitions too, through the log; neither copy installs them by itself
            assertThat(List.of(a.err().contains("index(es) configured"), b.err().contains("index(es) configured")))
                    .as(a.err() + b.err()).containsExactlyInAnyOrder(true, false);
            assertThat(count(database, "SELECT count(*) FROM arno.changes WHERE path = '/_config/indexes.xml'")).isOne();
            HttpResponse<String> pageA = a.get("/journal-a/");
            assertThat(pageA.statusCode()).isEqualTo(200);
            assertThat(b.get("/journal-a/").body()).isEqualTo(pageA.body());
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            assertThat(b.stop()).as(b.err()).isZero();
        }
    }
}
