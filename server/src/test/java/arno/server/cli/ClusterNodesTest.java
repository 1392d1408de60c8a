package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cluster.ChangeLog;
import arno.cluster.TestPostgres;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A cluster's nodes (issue 23, items 6 and 7), two {@code ./arno serve --cluster} in this JVM on a
 * real PostgreSQL: a node whose copy was wiped while the log was pruned rebuilds it from the
 * database and then answers as its peer does, byte for byte with the same ETag and Last-Modified;
 * a node that cannot apply the log is not ready once it lags beyond the configured bound, and
 * ready again when it has caught up; the nodes are registered, counted in health and listed in
 * the console (headless Chromium).
 */
@ExtendWith(CheckoutHome.class)
class ClusterNodesTest {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** This test's nodes, in the order started. */
    private final List<ServingNode> started = new ArrayList<>();

    private ServingNode node(Path config, Path data) {
        ServingNode n = new ServingNode("--data", data.toString(), "--config", config.toString());
        started.add(n);
        return n;
    }

    /** The cluster's development account, from whichever node made it. */
    private String account() {
        return ServingNode.account(started);
    }

    /** The configuration file of a test's nodes: the database and {@code <cluster>}'s attributes. */
    private Path config(String url, String attributes) throws Exception {
        Path file = tmp.resolve("arno-" + Math.abs(attributes.hashCode()) + ".xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='" + url.replace("&", "&amp;") + "' "
                + attributes + "/></arno>");
        return file;
    }

    private Path data(String name) throws Exception {
        Path data = tmp.resolve(name);
        Files.createDirectories(data.resolve("content"));
        return data;
    }

    private HttpResponse<String> post(ServingNode n, String collection, String slug, String kind, String title) throws Exception {
        String entry = "<entry xmlns='http://www.w3.org/2005/Atom'><title>" + title + "</title>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/></entry>";
        HttpResponse<String> r = Http.send(client, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port() + collection))
                .header("Authorization", Http.basic(account())).header("Slug", slug)
                .header("Content-Type", "application/atom+xml;type=entry")
                .POST(HttpRequest.BodyPublishers.ofString(entry)).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return r;
    }

    @Test
    void aWipedNodeRebuildsItsCopyFromTheDatabaseAndAnswersAsItsPeer() throws Exception {
        String database = PG.newDatabase();
        // the log keeps one commit, pruned at every heartbeat: a wiped node cannot replay it
        Path config = config(PG.url(database), "heartbeat='200ms' retain-positions='1' retain='0s'");
        ServingNode a = node(config, data("a"));
        ServingNode b = node(config, data("b"));
        ServingNode b2 = null;
        try {
            a.port();
            b.port();
            List<String> paths = new ArrayList<>();
            paths.add(post(a, "/store/", "journals", "journals", "Journals").headers().firstValue("Location").orElseThrow());
            for (int i = 0; i < 5; i++) {
                // all on a, which applies each before it answers: a never lags behind a log that keeps one commit
                paths.add(post(a, "/store/journals/", "j" + i, "journal", "Journal " + i)
                        .headers().firstValue("Location").orElseThrow());
            }
            paths.add("/store/journals/");
            long head = new ChangeLog(PG.dataSource(database), "test").head();
            Wait.upTo(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(new ChangeLog(PG.dataSource(database), "test").pruned()).isEqualTo(head - 1));
            assertThat(b.stop()).as(b.err()).isZero();
            wipe(tmp.resolve("b/store"));

            b2 = node(config, data("b"));
            b2.port();
            ServingNode rebuilt = b2;
            Wait.upTo(Duration.ofSeconds(20)).untilAsserted(() -> {
                HttpResponse<String> health = rebuilt.get("/_arno/health");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                assertThat(health.body()).contains("\"state\":\"ready\"").contains("\"position\":" + head + ",");
            });
            for (String path : paths) {
                HttpResponse<String> there = a.get(path);
                HttpResponse<String> here = b2.get(path);
                assertThat(here.statusCode()).as(path + ": " + here.body()).isEqualTo(200);
                assertThat(here.body()).as(path).isEqualTo(there.body());
                for (String h : List.of("ETag", "Last-Modified")) {
                    assertThat(here.headers().firstValue(h)).as(path + " " + h).isEqualTo(there.headers().firstValue(h)).isPresent();
                }
            }
            // and it follows the log from there
            String later = post(a, "/store/journals/", "later", "journal", "Later").headers().firstValue("Location").orElseThrow();
            ServingNode follower = b2;
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(follower.get(later).body()).contains("Later"));
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            if (b2 != null) assertThat(b2.stop()).as(b2.err()).isZero();
            else b.stop();
        }
    }

    /**
     * A node's copy is written without a flush per commit; a marker names the machine's boot while
     * it is open and a clean stop removes it. A copy whose marker names another boot (its machine
     * stopped while it was open: here damaged too) is rebuilt from the database, never opened.
     */
    @Test
    void aCopyOpenWhenItsMachineStoppedIsRebuiltNotTrusted() throws Exception {
        String database = PG.newDatabase();
        Path config = config(PG.url(database), "heartbeat='200ms'");
        ServingNode a = node(config, data("a"));
        ServingNode b = node(config, data("b"));
        ServingNode b2 = null;
        try {
            a.port();
            b.port();
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
            assertThat(Files.readString(tmp.resolve("b/store").resolve(arno.cluster.UnsyncedCopy.MARKER)).strip()).isEqualTo(boot);
            String path = post(a, "/store/", "journals", "journals", "Journals").headers().firstValue("Location").orElseThrow();
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(b.get(path).statusCode()).isEqualTo(200));
            assertThat(b.stop()).as(b.err()).isZero();
            assertThat(tmp.resolve("b/store").resolve(arno.cluster.UnsyncedCopy.MARKER)).doesNotExist();
            // as if the machine had stopped under it: the marker of another boot, and pages that never reached the disk
            Files.writeString(tmp.resolve("b/store").resolve(arno.cluster.UnsyncedCopy.MARKER), "another-boot");
            try (java.nio.channels.FileChannel data = java.nio.channels.FileChannel.open(tmp.resolve("b/store/data.mdb"),
                    java.nio.file.StandardOpenOption.WRITE)) {
                data.write(java.nio.ByteBuffer.wrap(new byte[8192]), 0);
            }
            b2 = node(config, data("b"));
            b2.port();
            ServingNode rebuilt = b2;
            Wait.upTo(Duration.ofSeconds(20)).untilAsserted(() -> {
                HttpResponse<String> health = rebuilt.get("/_arno/health");
                assertThat(health.body()).contains("\"state\":\"ready\"");
            });
            // rebuilt (the damaged copy would not even open), and marked again as open in this boot
            assertThat(Files.readString(tmp.resolve("b/store").resolve(arno.cluster.UnsyncedCopy.MARKER)).strip()).isEqualTo(boot);
            assertThat(b2.get(path).body()).isEqualTo(a.get(path).body()).contains("Journals");
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            if (b2 != null) assertThat(b2.stop()).as(b2.err()).isZero();
            else b.stop();
        }
    }

    /**
     * An index added through a running node goes through the cluster's log: every node's copy builds
     * it (the other node's too), and neither copy holds a commit the log lacks.
     */
    @Test
    void anIndexAddedThroughARunningNodeReachesEveryNode() throws Exception {
        String database = PG.newDatabase();
        Path config = config(PG.url(database), "heartbeat='200ms'");
        ServingNode a = node(config, data("a"));
        ServingNode b = node(config, data("b"));
        boolean stopped = false;
        try {
            a.port();
            b.port();
            post(a, "/store/", "journals", "journals", "Journals");
            Path file = Files.writeString(tmp.resolve("indexes.xml"), "<indexes xmlns='urn:arno:indexes'"
                    + " xmlns:atom='http://www.w3.org/2005/Atom'><index name='title' match='atom:entry' value='atom:title'/></indexes>");
            StoreCommandTest.Result added = cli("store", "index", "add", file.toString(), "--data",
                    tmp.resolve("a").toString(), "--config", config.toString());
            assertThat(added.code()).as(added.err()).isZero();
            assertThat(added.err()).contains("written through the cluster's log");
            long head = new ChangeLog(PG.dataSource(database), "test").head();
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(b.get("/_arno/health").body())
                    .contains("\"position\":" + head + ","));
            assertThat(a.stop()).as(a.err()).isZero();
            assertThat(b.stop()).as(b.err()).isZero();
            stopped = true;
            for (String node : List.of("a", "b")) {
                StoreCommandTest.Result list = cli("store", "index", "list", "--data", tmp.resolve(node).toString());
                assertThat(list.out()).as(node).contains("name=\"title\"");
                StoreCommandTest.Result q = cli("query", "--data", tmp.resolve(node).toString(),
                        "store:lookup('title', 'Journals') ! base-uri(root())");
                assertThat(q.code()).as(node + ": " + q.err()).isZero();
                assertThat(q.out()).as(node).contains("/journals.atom");
            }
        } finally {
            if (!stopped) {
                a.stop();
                b.stop();
            }
        }
    }

    /**
     * A running node whose copy the log left behind (pruned past it while it could not apply)
     * rebuilds it by itself, on the same port, and is ready again at the log's head: no restart
     * by an operator (issue 23, item 6).
     */
    @Test
    void aRunningNodeLeftBehindByTheLogRebuildsItsCopyByItself() throws Exception {
        String database = PG.newDatabase();
        Path config = config(PG.url(database), "heartbeat='200ms' retain-positions='1' retain='0s'");
        ServingNode a = node(config, data("a"));
        try {
            int port = a.port();
            String journals = post(a, "/store/", "journals", "journals", "Journals").headers().firstValue("Location").orElseThrow();
            // a commit the node cannot apply (not XML) holds its applier; two more commits after it let the
            // heartbeat's pruning (the log keeps one) remove it from the log before it could be applied
            ChangeLog log = new ChangeLog(PG.dataSource(database), "test");
            try (ChangeLog.Transaction t = log.begin()) {
                t.put("/stuck.xml", "application/xml", false, "<not closed".getBytes(StandardCharsets.UTF_8), List.of());
                t.commit();
            }
            for (int i = 0; i < 2; i++) {
                try (ChangeLog.Transaction t = log.begin()) {
                    t.put("/later" + i + ".xml", "application/xml", false, ("<later n='" + i + "'/>").getBytes(StandardCharsets.UTF_8),
                            List.of());
                    t.commit();
                }
            }
            long head = log.head();
            Wait.upTo(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(log.pruned()).isEqualTo(head - 1));
            // the document mended where the database keeps it, so that a copy rebuilt from it can hold it
            PG.execute(database, "UPDATE arno.document_versions SET content = convert_to('<mended/>', 'UTF8') WHERE path = '/stuck.xml'");
            Wait.upTo(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(a.err()).contains("rebuilding this node's copy now").contains("the copy is rebuilt; serving again on port " + port);
                HttpResponse<String> health = a.get("/_arno/health");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                assertThat(health.body()).contains("\"state\":\"ready\"").contains("\"position\":" + head + ",");
            });
            assertThat(a.port()).isEqualTo(port);
            assertThat(a.get(journals).body()).contains("Journals");
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
        }
    }

    @Test
    void aNodeLaggingBeyondItsBoundIsNotReadyUntilItCatchesUpAndTheConsoleListsTheNodes() throws Exception {
        String database = PG.newDatabase();
        Path config = config(PG.url(database), "heartbeat='200ms' max-lag-positions='5' max-lag='1s'");
        ServingNode a = node(config, data("a"));
        ServingNode b = node(config, data("b"));
        try {
            a.port();
            b.port();
            for (ServingNode n : List.of(a, b)) {
                Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> {
                    HttpResponse<String> health = n.get("/_arno/health");
                    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                    assertThat(health.body()).contains("\"state\":\"ready\"").contains("\"nodes\":2,\"nodesReady\":2");
                });
            }
            // a commit no node can apply (not XML): the appliers hold there, and the lag grows past one second
            ChangeLog log = new ChangeLog(PG.dataSource(database), "test");
            try (ChangeLog.Transaction t = log.begin()) {
                t.put("/stuck.xml", "application/xml", false, "<not closed".getBytes(StandardCharsets.UTF_8), List.of());
                t.commit();
            }
            for (ServingNode n : List.of(a, b)) {
                Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> {
                    HttpResponse<String> health = n.get("/_arno/health");
                    assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
                    assertThat(health.body()).contains("\"live\":true,\"ready\":false").contains("\"state\":\"lagging\"")
                            .contains("\"lag\":{\"positions\":1,");
                });
            }
            // the commit mended: both apply it and are ready again
            PG.execute(database, "UPDATE arno.document_versions SET content = convert_to('<mended/>', 'UTF8') WHERE path = '/stuck.xml'");
            for (ServingNode n : List.of(a, b)) {
                Wait.upTo(Duration.ofSeconds(15)).untilAsserted(() -> {
                    HttpResponse<String> health = n.get("/_arno/health");
                    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                    assertThat(health.body()).contains("\"state\":\"ready\"").contains("\"lag\":{\"positions\":0,\"ms\":0}");
                });
            }
            // every node registered with its position, lag and last apply, in the console
            long head = log.head();
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(a.get("/_arno/health").body()).contains("\"nodes\":2,\"nodesReady\":2"));
            ChromeDriver browser = browser(account());
            try {
                Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> {
                    browser.get("http://127.0.0.1:" + a.port() + "/_arno/");
                    List<WebElement> rows = browser.findElements(By.cssSelector("table#nodes tr"));
                    assertThat(rows).hasSize(3); // a header and two nodes
                    for (WebElement row : rows.subList(1, 3)) {
                        List<WebElement> cells = row.findElements(By.tagName("td"));
                        assertThat(cells.get(0).getText()).matches(".*[/\\\\][ab]");
                        assertThat(cells.get(1).getText()).startsWith("http://");
                        assertThat(cells.get(2).getText()).isEqualTo(Long.toString(head));
                        assertThat(cells.get(3).getText()).isEqualTo("0 positions");
                        assertThat(cells.get(4).getText()).matches("\\d{4}-.*Z");
                        assertThat(cells.get(6).getText()).isEqualTo("ready");
                    }
                });
                assertThat(browser.findElement(By.tagName("main")).getText()).contains("Cluster nodes")
                        .contains("position " + head + " of " + head + ", ready");
            } finally {
                browser.quit();
            }
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            assertThat(b.stop()).as(b.err()).isZero();
        }
    }

    @Test
    void theNodeSettingsAreReadWithDefaultsAndChecked() throws Exception {
        arno.server.config.Config base = arno.server.config.Config.defaults(tmp);
        Path file = tmp.resolve("arno.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='jdbc:postgresql://db/arno'/></arno>");
        assertThat(arno.server.config.ConfigFile.read(file, base).toBuilder().build().cluster().nodes())
                .isEqualTo(arno.server.config.Config.Nodes.DEFAULTS)
                .isEqualTo(new arno.server.config.Config.Nodes(Duration.ofSeconds(2), 1000, Duration.ofSeconds(10), 100_000,
                        Duration.ofDays(7), Duration.ofSeconds(5)));
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='jdbc:postgresql://db/arno'"
                + " read-your-writes-wait='500ms' max-lag-positions='7' max-lag='3s' retain-positions='50' retain='0s'"
                + " heartbeat='1s'/></arno>");
        assertThat(arno.server.config.ConfigFile.read(file, base).toBuilder().build().cluster().nodes())
                .isEqualTo(new arno.server.config.Config.Nodes(Duration.ofMillis(500), 7, Duration.ofSeconds(3), 50, Duration.ZERO,
                        Duration.ofSeconds(1)));
        // each checked with the rest of the configuration, naming the setting
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='jdbc:postgresql://db/arno' max-lag-positions='0'/></arno>");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> arno.server.config.ConfigFile.read(file, base).toBuilder().build())
                .hasMessageContaining("cluster/@max-lag-positions must be at least 1, not 0");
        arno.server.config.Config.Builder b = base.toBuilder();
        b.clusterDatabase = "jdbc:postgresql://db/arno";
        b.clusterNodes = new arno.server.config.Config.Nodes(Duration.ZERO, 1, Duration.ofSeconds(1), 1, Duration.ZERO,
                Duration.ofSeconds(1));
        org.assertj.core.api.Assertions.assertThatThrownBy(b::build)
                .hasMessageContaining("cluster/@read-your-writes-wait must be a positive time, not PT0S");
    }

    /** Headless Chromium sending {@code account}'s credentials with every request (as ConsoleBrowserTest). */
    private ChromeDriver browser(String account) {
        ChromeOptions o = new ChromeOptions();
        o.setBinary("/usr/bin/chromium");
        o.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + tmp.resolve("chromium-profile"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        ChromeDriver d = new ChromeDriver(service, o);
        d.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        d.executeCdpCommand("Network.enable", Map.of());
        d.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of("Authorization", Http.basic(account))));
        return d;
    }

    /** A command line run in this JVM beside the nodes (whose logs may reach System.err meanwhile). */
    private static StoreCommandTest.Result cli(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int code = arno.server.Main.run(args, new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        return new StoreCommandTest.Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void wipe(Path folder) throws Exception {
        try (Stream<Path> all = Files.walk(folder)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
