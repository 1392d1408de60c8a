package arno.server.war;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.apache.commons.io.FileUtils;
import arno.server.Parts;
import arno.server.config.Config;
import arno.store.Store;
import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import arno.server.store.IndexTasks;
import arno.testkit.Http;
import arno.testkit.Wait;
import arno.xml.XmlPolicy;
import arno.xml.Accounts;
import java.io.PrintWriter;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Deploys the WAR into a real standalone Tomcat 11 (the distribution from Maven Central, started
 * as its own process) and uses what the embedded server has: pages read from the store (the test
 * generates content and loads it into {@code DATA/store} as {@code ./arno serve} does on a first
 * run, then removes the files, so a page can only come from the store), the store API, health,
 * metrics, static files, page caches; then undeploys the WAR with Tomcat still running and checks
 * that the store was closed (its lock released: this process can open it). The WAR finds its
 * stylesheets in its own jars.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneTomcatIT {
    static Process tomcat;
    static Path home;
    static Path data;
    static int port;
    /** Page workers the configuration file sets: never the default (one per core). */
    static final int WORKERS = Runtime.getRuntime().availableProcessors() + 1;
    static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void deploy() throws Exception {
        home = Path.of(System.getProperty("tomcat.home"));
        Path war = Path.of(System.getProperty("arno.war"));
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path serverXml = home.resolve("conf/server.xml");
        // Start from the distribution's own file: Maven unpacks Tomcat once per target folder,
        // so a second run would otherwise find the first run's port and keep it.
        Path pristine = home.resolve("conf/server.xml.dist");
        if (!Files.exists(pristine)) Files.copy(serverXml, pristine);
        String xml = Files.readString(pristine)
                .replace("port=\"8080\"", "port=\"" + port + "\" address=\"127.0.0.1\"")
                .replace("port=\"8005\"", "port=\"-1\"")
                // the deployer looks for added and removed WARs every second, not every 10 (Tomcat's default)
                .replace("<Engine name=\"Catalina\" defaultHost=\"localhost\">",
                        "<Engine name=\"Catalina\" defaultHost=\"localhost\" backgroundProcessorDelay=\"1\">");
        Files.writeString(serverXml, xml);
        for (String app : List.of("ROOT", "docs", "examples", "manager", "host-manager")) {
            FileUtils.deleteDirectory(home.resolve("webapps").resolve(app).toFile());
        }
        Files.copy(war, home.resolve("webapps/arno.war"), StandardCopyOption.REPLACE_EXISTING);
        data = home.resolve("arno-data-it");
        FileUtils.deleteDirectory(data.toFile());
        // The WAR serves the operator's content and never makes any: the test supplies it, in the store.
        Path content = data.resolve("content");
        arno.demo.Generator.generate(content, 8, 1);
        Config.Builder b = Config.defaults(home).toBuilder();
        b.data = data;
        Config config = b.build();
        try (Store store = Store.open(config.store(), Parts.storeOptions(config));
                AtomStore atom = AtomStore.open(store, Parts.atomOptions(config))) {
            IndexTasks.addResource(store, "/arno/demo/indexes.xml", new XmlPolicy(config.xmlLimits()), new PrintWriter(System.err, true));
            assertThat(TreeLoader.load(atom, content, "it", (done, total) -> { }).entries()).isGreaterThan(8);
            // The demo's full-text configuration, as ./arno serve's demo load writes it: the WAR's index builds from it.
            atom.putConfiguration(arno.fulltext.FulltextConfig.URI, arno.fulltext.FulltextConfig.defaultXml());
        }
        FileUtils.deleteDirectory(content.toFile());
        // The one configuration file, named by arno.config (here the system property; web.xml leaves the parameter empty).
        Path configFile = home.resolve("arno-it-config.xml");
        Files.writeString(configFile, "<arno xmlns='urn:arno:config'><pages workers='" + WORKERS + "'/></arno>");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        tomcat = new ProcessBuilder(java,
                "-Dcatalina.home=" + home, "-Dcatalina.base=" + home, "-Djava.io.tmpdir=" + home.resolve("temp"),
                "-Darno.data=" + data, "-Darno.config=" + configFile,
                "-cp", home.resolve("bin/bootstrap.jar") + File.pathSeparator + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start")
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("logs/it-console.log").toFile())
                .start();
        Wait.upTo(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            if (!tomcat.isAlive()) throw new IllegalStateException("Tomcat exited: " + console());
            int status;
            try {
                status = get("/arno/journal-a/").statusCode();
            } catch (IOException notYet) {
                status = -1; // not listening yet
            }
            assertThat(status).as(() -> "Arno's answer (-1: none yet); Tomcat's console:\n" + console()).isEqualTo(200);
        });
    }

    @AfterAll
    static void undeploy() throws InterruptedException {
        if (tomcat != null) {
            tomcat.destroy();
            if (!tomcat.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) tomcat.destroyForcibly();
        }
    }

    @Test
    @Order(1)
    void servesTheDemoSitesUnderTheContextPath() throws Exception {
        HttpResponse<String> home = get("/arno/journal-a/");
        assertThat(home.statusCode()).isEqualTo(200);
        assertThat(home.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
        assertThat(home.body()).contains("<html").contains("href=\"/arno/journal-a/");
        assertThat(get("/arno/journal-b/").statusCode()).isEqualTo(200);
        HttpResponse<String> missing = get("/arno/journal-a/no/such/page/here");
        assertThat(missing.statusCode()).isEqualTo(404);
        // The issue pages read the content, which is in the store only (the files were removed).
        assertThat(Files.exists(data.resolve("content"))).isFalse();
        HttpResponse<String> toc = get("/arno/journal-a/v1/i1");
        assertThat(toc.statusCode()).isEqualTo(200);
        assertThat(toc.body()).contains("/arno/journal-a/v1/i1/");
    }

    @Test
    @Order(1)
    void theStoreApiAnswersUnderTheContextPath() throws Exception {
        HttpResponse<String> service = get("/arno/store/");
        assertThat(service.statusCode()).isEqualTo(200);
        assertThat(service.headers().firstValue("Content-Type").orElse("")).startsWith("application/atomsvc+xml");
        assertThat(service.body()).contains("<collection");
        // In production (the WAR's default) with no account that may write, writing is closed and says how to open it.
        HttpResponse<String> put = send(HttpRequest.newBuilder(uri("/arno/store/it-test.atom"))
                .PUT(HttpRequest.BodyPublishers.ofString("<entry xmlns='http://www.w3.org/2005/Atom'/>")));
        assertThat(put.statusCode()).isEqualTo(403);
        assertThat(put.body()).contains("accounts add");
        // The batch service is mounted too (its list needs an account: 401, not the sites' 404).
        assertThat(get("/arno/batch/").statusCode()).isIn(200, 401);
    }

    /**
     * Writing opens, without a restart, once an account has the write role; an entry read through
     * the API (its typed links shown under the context path) is written back unchanged, so the
     * store service strips the WAR's {@code /arno/store} from the hrefs it is sent.
     */
    @Test
    @Order(2)
    void anEntryReadFromTheApiIsWrittenBackOnceAnAccountMayWrite() throws Exception {
        String article = "/arno/store/journals/ja/v1/i1/a0001.atom";
        HttpResponse<String> read = get(article);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).contains("href=\"/arno/store/journals/ja/v1/i1/a0001/f1.atom\"");
        Config.Builder b = Config.defaults(home).toBuilder();
        b.data = data;
        new Accounts(b.build().accounts()).create("it-writer", "it-writer-password", Set.of(Accounts.Role.READ, Accounts.Role.WRITE));
        String auth = Http.basic("it-writer:it-writer-password");
        HttpResponse<String> put = send(HttpRequest.newBuilder(uri(article)).header("Authorization", auth)
                .header("Content-Type", "application/atom+xml;type=entry")
                .header("If-Match", read.headers().firstValue("ETag").orElseThrow())
                .PUT(HttpRequest.BodyPublishers.ofString(read.body())));
        assertThat(put.statusCode()).as(put.body()).isIn(200, 204);
        assertThat(get("/arno/journal-a/v1/i1/a0001").statusCode()).isEqualTo(200);
    }

    @Test
    @Order(3)
    void healthIsReadyWithTheStoreOpenAndBatchRunning() throws Exception {
        HttpResponse<String> health = get("/arno/_arno/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body().replace(" ", "")).contains("\"ready\":true").contains("\"used\":true")
                .contains("\"open\":true").contains("\"running\":true");
    }

    @Test
    @Order(4)
    void staticFilesAreServedWithValidatorsAndRanges() throws Exception {
        Path css = home.resolve("webapps/arno/WEB-INF/arno/sites/journal-a/static/site.css");
        HttpResponse<String> file = get("/arno/journal-a/static/site.css");
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
        assertThat(file.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(file.body()).isEqualTo(Files.readString(css));
        String etag = file.headers().firstValue("ETag").orElseThrow();
        assertThat(file.headers().firstValue("Last-Modified")).isPresent();
        HttpResponse<String> again = send(HttpRequest.newBuilder(uri("/arno/journal-a/static/site.css"))
                .header("If-None-Match", etag));
        assertThat(again.statusCode()).isEqualTo(304);
        HttpResponse<String> part = send(HttpRequest.newBuilder(uri("/arno/journal-a/static/site.css"))
                .header("Range", "bytes=0-9"));
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(part.body()).isEqualTo(Files.readString(css).substring(0, 10));
        // The sites' shared static folder, and nothing outside the folders.
        assertThat(get("/arno/static/journal.css").statusCode()).isEqualTo(200);
        assertThat(get("/arno/journal-a/static/../site.xml").statusCode()).isIn(400, 404);
        assertThat(get("/arno/journal-a/static/no-such.css").statusCode()).isEqualTo(404);
        // No dot-files (issue 21), however the dot is spelled.
        Files.writeString(css.resolveSibling(".env"), "SECRET=1");
        for (String path : List.of("/arno/journal-a/static/.env", "/arno/journal-a/static/%2eenv")) {
            HttpResponse<String> hidden = get(path);
            assertThat(hidden.statusCode()).as(path).isEqualTo(404);
            assertThat(hidden.body()).as(path).doesNotContain("SECRET");
        }
    }

    /** The configuration file's page workers, as the metrics report them. */
    @Test
    @Order(3)
    void theConfigurationFileIsRead() throws Exception {
        HttpResponse<String> metrics = get("/arno/_arno/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body().lines()).contains("arno_workers " + WORKERS + ".0");
    }

    @Test
    @Order(5)
    void aSecondRequestIsAPageCacheHit() throws Exception {
        double before = hits("journal-a");
        assertThat(get("/arno/journal-a/v1/i2").statusCode()).isEqualTo(200);
        assertThat(hits("journal-a")).isEqualTo(before);
        assertThat(get("/arno/journal-a/v1/i2").statusCode()).isEqualTo(200);
        assertThat(hits("journal-a")).isEqualTo(before + 1);
    }

    /**
     * Undeploys the WAR with Tomcat still running: the context's end closes the store, so this
     * process can open it (the store's lock file is held by the process that has it open), and
     * the container reports no thread the WAR left running.
     */
    @Test
    @Order(6)
    void undeployingClosesTheStore() throws Exception {
        Files.delete(home.resolve("webapps/arno.war"));
        Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(console()).contains("Arno: stopped"));
        assertThat(console()).contains("Arno: stopped; the store is closed");
        Config.Builder b = Config.defaults(home).toBuilder();
        b.data = data;
        Config config = b.build();
        try (Store store = Store.open(config.store(), Parts.storeOptions(config)); arno.store.Snapshot s = store.read()) {
            assertThat(s.version()).isPositive();
        }
        String log = console();
        assertThat(log).doesNotContain("SEVERE");
        // Every thread of Arno's own (page workers, batch workers, the change-feed follower, the page
        // caches' writers, the login hashers) has ended. One kind may remain for a while, ending by
        // itself: the JDK's HttpClient (Outbound's) has a selector thread that ends once its client is
        // collected (Java 17 has no HttpClient.close()).
        List<String> left = java.util.regex.Pattern.compile("started a thread named \\[([^\\]]*)\\] but has failed to stop it")
                .matcher(log).results().map(m -> m.group(1)).toList();
        assertThat(left).allMatch(name -> name.matches("HttpClient-\\d+-SelectorManager"), "the JDK HttpClient's selector");
        assertThat(get("/arno/journal-a/").statusCode()).isEqualTo(404);
    }

    /**
     * Deploying the WAR again into the same running Tomcat: the store opens again (in a new class
     * loader: the native libraries of LMDB must load again) and the pages are served from it.
     */
    @Test
    @Order(7)
    void redeployingServesAgain() throws Exception {
        // Copied beside it and moved in at once: the deployer, looking every second, found a WAR copied
        // in place half written ("zip END header not found"), failed it and waited a minute to try again.
        Path partial = home.resolve("temp/arno.war");
        Files.copy(Path.of(System.getProperty("arno.war")), partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(partial, home.resolve("webapps/arno.war"), StandardCopyOption.ATOMIC_MOVE);
        Wait.upTo(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(get("/arno/_arno/health").statusCode()).as(() -> console()).isEqualTo(200));
        assertThat(get("/arno/journal-a/v1/i1").statusCode()).isEqualTo(200);
    }

    /** The page caches' memory-tier hits of {@code site}, from /_arno/metrics (Prometheus text). */
    static double hits(String site) throws Exception {
        HttpResponse<String> metrics = get("/arno/_arno/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        String prefix = "arno_cache_hits_total{site=\"" + site + "\",tier=\"pages-memory\"} ";
        return metrics.body().lines().filter(l -> l.startsWith(prefix)).mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
                .findFirst().orElseThrow(() -> new AssertionError("no " + prefix + "in\n" + metrics.body()));
    }

    static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** The WAR carries Lucene and builds its index beside the store: /store/search finds an article by a word of its title. */
    @Test
    @Order(2)
    void fullTextSearchAnswersFromTheWarsOwnJars() throws Exception {
        try (var jars = Files.list(home.resolve("webapps/arno/WEB-INF/lib"))) {
            assertThat(jars.map(p -> p.getFileName().toString()).toList())
                    .anyMatch(n -> n.startsWith("arno-fulltext-")).anyMatch(n -> n.startsWith("lucene-core-9."))
                    .anyMatch(n -> n.startsWith("lucene-analysis-common-9.")).anyMatch(n -> n.startsWith("lucene-queryparser-9."))
                    .anyMatch(n -> n.startsWith("lucene-highlighter-9.")).anyMatch(n -> n.startsWith("lucene-facet-9."));
        }
        HttpResponse<String> article = get("/arno/store/journals/ja/v1/i1/a0001.atom");
        assertThat(article.statusCode()).as(article.body()).isEqualTo(200);
        java.util.regex.Matcher title = java.util.regex.Pattern.compile("<title[^>]*>([^<]*)</title>").matcher(article.body());
        assertThat(title.find()).isTrue();
        String word = java.util.Arrays.stream(title.group(1).split("\\W+")).filter(w -> w.length() > 5).findFirst().orElseThrow();
        Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            HttpResponse<String> found = get("/arno/store/search?q=" + word);
            assertThat(found.statusCode()).as(found.body()).isEqualTo(200);
            assertThat(found.body()).contains("/journals/ja/v1/i1/a0001").containsPattern("totalResults>[1-9]");
        });
        assertThat(Files.isDirectory(data.resolve("fulltext"))).as("the index beside the store").isTrue();
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)));
    }

    static String console() {
        try {
            return Files.readString(home.resolve("logs/it-console.log"));
        } catch (IOException e) {
            return "(no console log: " + e + ")";
        }
    }
}
