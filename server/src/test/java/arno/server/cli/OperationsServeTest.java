package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operating a real {@code ./arno serve} over sockets: {@code /_arno/health}, {@code
 * /_arno/metrics} (parsed as Prometheus' text exposition format; a page request moves its
 * counter; who may read it), and the production rule that the write APIs stay closed until
 * {@code ./arno accounts add} creates an account that may write, which opens them at once.
 */
@ExtendWith(CheckoutHome.class)
class OperationsServeTest {
    @TempDir
    Path tmp;
    Path data;
    Path sites;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void site() throws IOException {
        data = tmp.resolve("data");
        sites = Files.createDirectories(tmp.resolve("sites"));
        ServedSite.write(sites, """
                <cache memory="1M"/>
                <route name="home" pattern="/">
                  <template xslt="t.xsl"/>
                </route>
                <route name="cached" pattern="/cached">
                  <cache/>
                  <template xslt="t.xsl"/>
                </route>
                """);
    }

    @Test
    void healthSaysReadyWithItsPartsAndNoPaths() throws Exception {
        List<HttpResponse<String>> r = new ArrayList<>();
        String printed = serve(port -> {
            r.add(get(port, "/_arno/health", null, null));
            r.add(send(HttpRequest.newBuilder(url(port, "/_arno/health")).method("HEAD", HttpRequest.BodyPublishers.noBody())));
            r.add(send(HttpRequest.newBuilder(url(port, "/_arno/health")).POST(HttpRequest.BodyPublishers.ofString("x"))));
        });
        HttpResponse<String> health = r.get(0);
        assertThat(health.statusCode()).as(printed).isEqualTo(200);
        assertThat(health.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        assertThat(health.headers().firstValue("Cache-Control")).hasValue("no-store");
        String body = health.body().strip();
        // Every part is there, and no folder of this machine is.
        assertThat(body).matches(Pattern.quote("{\"live\":true,\"ready\":true,\"store\":{\"used\":true,\"open\":true,\"version\":")
                + "[0-9]+" + Pattern.quote("},\"sites\":{\"compiled\":true,\"names\":[\"t\"]},\"batch\":{\"running\":true}}"));
        assertThat(body).doesNotContain(tmp.toString());
        assertThat(r.get(1).statusCode()).isEqualTo(200);
        assertThat(r.get(1).body()).isEmpty();
        assertThat(r.get(2).statusCode()).isEqualTo(405);
    }

    /**
     * Issue 21: polled from the first connection the port accepts, no part answers 404 for not
     * being mounted yet, and health never says ready before the store API and the metrics answer.
     * A client knocks on a port picked up front before serve starts, and keeps knocking until it
     * has seen every path answer a few times.
     */
    @Test
    void fromTheFirstAcceptedConnectionEveryPartAnswersAndHealthIsNotReadyEarly() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        List<String> paths = List.of("/_arno/health", "/store/", "/_arno/metrics");
        List<String[]> answers = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch knocking = new java.util.concurrent.CountDownLatch(1);
        java.util.Map<String, Integer> seen = new java.util.concurrent.ConcurrentHashMap<>();
        Thread client = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                String path = paths.get(i % paths.size());
                try (java.net.Socket socket = new java.net.Socket()) {
                    socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
                    socket.setSoTimeout(30_000);
                    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    answers.add(new String[] {path, response.length() > 12 ? response.substring(9, 12) : response, response});
                    seen.merge(path, 1, Integer::sum);
                } catch (IOException notListening) {
                    knocking.countDown();
                    Thread.onSpinWait();
                }
            }
        }, "knocking-client");
        client.setDaemon(true);
        client.start();
        assertThat(knocking.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        // The client stops before serve does: a connection accepted while Tomcat shuts down may be
        // closed unanswered, which is shutdown, not start-up (CI saw one such empty answer).
        IntConsumer during = p -> {
            Wait.upTo(Duration.ofSeconds(30)).alias("every path answered three times")
                    .until(() -> paths.stream().allMatch(path -> seen.getOrDefault(path, 0) >= 3));
            stop.set(true);
            try {
                client.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status;
        try {
            status = Main.run(new String[] {"serve", "--port", Integer.toString(port), "--data", data.toString(), "--sites",
                    sites.toString()}, new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true, StandardCharsets.UTF_8),
                    Cli.serving(during));
        } finally {
            stop.set(true);
            client.join(60_000);
        }
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<String[]> all;
        synchronized (answers) {
            all = new ArrayList<>(answers);
        }
        for (String path : paths) assertThat(all).as(path).anyMatch(a -> a[0].equals(path));
        // The very first answer, and every one after it: no part missing, and health ready whenever it answers.
        for (String[] a : all) {
            assertThat(a[1]).as(a[0] + " answered\n" + a[2]).isNotEqualTo("404").isNotEqualTo("503");
            if (a[0].equals("/_arno/health")) assertThat(a[2]).contains("\"ready\":true");
        }
    }

    @Test
    void aBrokenSiteInDevelopmentMakesTheServerUnready() throws Exception {
        List<HttpResponse<String>> r = new ArrayList<>();
        serve(port -> {
            r.add(get(port, "/_arno/health", null, null));
            try {
                Files.writeString(sites.resolve("t/site.xml"), "<site xmlns='urn:arno:site' name='t'><prefix>/t</prefix><rout/></site>");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            r.add(get(port, "/_arno/health", null, null));
        });
        assertThat(r.get(0).statusCode()).isEqualTo(200);
        assertThat(r.get(1).statusCode()).isEqualTo(503);
        assertThat(r.get(1).body()).contains("\"live\":true,\"ready\":false").contains("\"sites\":{\"compiled\":false}")
                .doesNotContain("site.xml").doesNotContain(tmp.toString());
    }

    @Test
    void metricsAreThePrometheusTextFormatAndAPageMovesItsCounter() throws Exception {
        List<HttpResponse<String>> r = new ArrayList<>();
        serve(port -> {
            r.add(get(port, "/t/", null, null));
            r.add(get(port, "/t/", null, null));
            r.add(get(port, "/t/no-such-page", null, null));
            r.add(get(port, "/t/cached", null, null));
            r.add(get(port, "/t/cached", null, null)); // from the page cache, without a worker
            r.add(get(port, "/_arno/metrics", null, null));
            r.add(get(port, "/t/", null, null));
            r.add(get(port, "/_arno/metrics", null, null));
        });
        assertThat(r.get(0).statusCode()).isEqualTo(200);
        assertThat(r.get(2).statusCode()).isEqualTo(404);
        assertThat(r.get(4).body()).isEqualTo("served t");
        HttpResponse<String> first = r.get(5);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type").orElse("").replace(" ", "")).startsWith("text/plain;version=0.0.4");
        Exposition before = Exposition.parse(first.body());
        Exposition after = Exposition.parse(r.get(7).body());

        String home = "arno_requests_seconds_count{route=\"home\",site=\"t\",status=\"2xx\"}";
        assertThat(before.types).containsEntry("arno_requests_seconds", "histogram");
        assertThat(before.value(home)).isEqualTo(2);
        assertThat(after.value(home)).isEqualTo(3);
        // a page no route answers is counted under the site, without a route, and never by its path
        assertThat(before.value("arno_requests_seconds_count{route=\"-\",site=\"t\",status=\"4xx\"}")).isEqualTo(1);
        assertThat(first.body()).doesNotContain("no-such-page");
        assertThat(before.samples.keySet()).anyMatch(k -> k.startsWith("arno_requests_seconds_bucket{") && k.contains("le=\"")
                && k.contains("route=\"home\""));
        assertThat(before.value("arno_requests_seconds_sum{route=\"home\",site=\"t\",status=\"2xx\"}")).isGreaterThan(0);

        assertThat(before.types).containsEntry("arno_workers", "gauge").containsEntry("arno_workers_busy", "gauge")
                .containsEntry("arno_workers_queue", "gauge");
        assertThat(before.value("arno_workers")).isGreaterThanOrEqualTo(1);
        assertThat(before.value("arno_workers_queue")).isZero();
        assertThat(before.value("arno_store_version")).isGreaterThanOrEqualTo(0);
        assertThat(before.value("arno_store_size_bytes")).isGreaterThan(0);
        assertThat(before.value("arno_store_snapshots_open")).isGreaterThanOrEqualTo(0);
        assertThat(before.value("arno_batch_queue")).isZero();
        for (String state : List.of("queued", "running", "completed", "failed", "cancelled")) {
            assertThat(before.value("arno_batch_jobs{state=\"" + state + "\"}")).isZero();
        }
        assertThat(before.types).containsEntry("arno_cache_hits_total", "counter").containsEntry("arno_cache_misses_total", "counter")
                .containsEntry("arno_cache_evictions_total", "counter").containsEntry("arno_cache_invalidations_total", "counter")
                .containsEntry("arno_cache_entries", "gauge").containsEntry("arno_cache_size_bytes", "gauge")
                .containsEntry("arno_cache_arc_p", "gauge");
        assertThat(before.samples).containsKey("arno_cache_hits_total{site=\"t\",tier=\"fragments\"}");
        // the page cache: one miss then one hit, and both requests timed under their route
        assertThat(before.value("arno_cache_misses_total{site=\"t\",tier=\"pages-memory\"}")).isEqualTo(1);
        assertThat(before.value("arno_cache_hits_total{site=\"t\",tier=\"pages-memory\"}")).isEqualTo(1);
        assertThat(before.value("arno_cache_entries{site=\"t\",tier=\"pages-memory\"}")).isEqualTo(1);
        assertThat(before.value("arno_cache_size_bytes{site=\"t\",tier=\"pages-memory\"}")).isGreaterThan(0);
        // the one memory budget of every site's pages, and the site's cap within it
        assertThat(before.value("arno_page_cache_budget_bytes")).isGreaterThan(0);
        assertThat(before.value("arno_page_cache_budget_used_bytes"))
                .isEqualTo(before.value("arno_cache_size_bytes{site=\"t\",tier=\"pages-memory\"}"));
        assertThat(before.value("arno_page_cache_budget_entries")).isEqualTo(1);
        assertThat(before.value("arno_cache_cap_bytes{site=\"t\",tier=\"pages-memory\"}")).isGreaterThan(0)
                .isLessThanOrEqualTo(before.value("arno_page_cache_budget_bytes"));
        assertThat(before.samples).containsKey("arno_cache_hits_total{site=\"t\",tier=\"pages-disk\"}")
                .doesNotContainKey("arno_cache_misses_total{site=\"t\",tier=\"pages-disk\"}");
        assertThat(before.value("arno_requests_seconds_count{route=\"cached\",site=\"t\",status=\"2xx\"}")).isEqualTo(2);
        assertThat(before.types).containsKeys("jvm_memory_used_bytes", "jvm_threads_live_threads", "jvm_gc_memory_allocated_bytes_total",
                "jvm_classes_loaded_classes", "process_uptime_seconds");
        assertThat(before.types).containsEntry("arno_jvm_heap_after_gc_bytes", "gauge").containsEntry("arno_jvm_heap_after_old_gc_bytes", "gauge").containsEntry("arno_jvm_gc_collections_total", "counter");
    }

    @Test
    void metricsAnswerThisMachineTheAllowedAddressesAndAdmins() throws Exception {
        // Through a trusted proxy on loopback, a request is judged by its client's address.
        Path config = Files.writeString(tmp.resolve("arno.xml"), """
                <arno xmlns="urn:arno:config">
                  <proxies trusted="127.0.0.1"/>
                  <metrics allow="198.51.100.0/24"/>
                </arno>""");
        List<HttpResponse<String>> r = new ArrayList<>();
        String printed = serve(port -> {
            r.add(get(port, "/_arno/metrics", null, "203.0.113.9"));
            r.add(get(port, "/_arno/metrics", "arno:wrong-password", "203.0.113.9"));
            r.add(get(port, "/_arno/metrics", null, "198.51.100.7"));
            r.add(get(port, "/_arno/metrics", null, null));
            // a name is not an address: never resolved, so never loopback
            r.add(get(port, "/_arno/metrics", null, "localhost"));
        }, "--config", config.toString());
        Matcher account = Pattern.compile("account for this data folder: (\\S+) ").matcher(printed);
        assertThat(account.find()).as(printed).isTrue();
        assertThat(r.get(0).statusCode()).isEqualTo(401);
        assertThat(r.get(0).headers().firstValue("WWW-Authenticate").orElse("")).startsWith("Basic realm=\"arno-metrics\"");
        assertThat(r.get(0).body()).contains("code=\"unauthorized\"").contains("admin role").doesNotContain("arno_");
        assertThat(r.get(1).statusCode()).isEqualTo(401);
        assertThat(r.get(2).statusCode()).isEqualTo(200);
        assertThat(r.get(3).statusCode()).isEqualTo(200);
        assertThat(r.get(4).statusCode()).as(r.get(4).body()).isEqualTo(401);

        // the development account has the admin role: it may read them from anywhere
        List<HttpResponse<String>> admin = new ArrayList<>();
        serve(port -> admin.add(get(port, "/_arno/metrics", account.group(1), "203.0.113.9")), "--config", config.toString());
        assertThat(admin.get(0).statusCode()).as(admin.get(0).body()).isEqualTo(200);
        assertThat(admin.get(0).body()).contains("# TYPE arno_workers_busy gauge");
    }

    @Test
    void metricsOffAnswerNothingThere() throws Exception {
        Path config = Files.writeString(tmp.resolve("arno.xml"), "<arno xmlns='urn:arno:config'><metrics enabled='false'/></arno>");
        List<HttpResponse<String>> r = new ArrayList<>();
        serve(port -> {
            r.add(get(port, "/_arno/metrics", null, null));
            r.add(get(port, "/_arno/health", null, null));
        }, "--config", config.toString());
        assertThat(r.get(0).statusCode()).isEqualTo(404);
        assertThat(r.get(1).statusCode()).isEqualTo(200);
    }

    @Test
    void metricsAddressesAreCheckedBeforeAnythingStarts() throws Exception {
        Path config = Files.writeString(tmp.resolve("arno.xml"), "<arno xmlns='urn:arno:config'><metrics allow='10.1.0.0/8'/></arno>");
        Cli.run("serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString(), "--config", config.toString())
                .failsWith("metrics address '10.1.0.0/8' has bits set after its prefix of 8; did you mean 10.0.0.0/8?");
        Files.writeString(config, "<arno xmlns='urn:arno:config'><metrics allow='scraper.example.org'/></arno>");
        Cli.run("serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString(), "--config", config.toString())
                .failsWith(config + " line 1", "scraper.example.org");
        assertThat(data).doesNotExist();
    }

    @Test
    void productionKeepsTheWriteApisClosedUntilAnAccountMayWrite() throws Exception {
        List<HttpResponse<String>> r = new ArrayList<>();
        List<Cli> commands = new ArrayList<>();
        String printed = serve(port -> {
            r.add(post(port, "/store/", null));
            r.add(post(port, "/batch/", null));
            r.add(get(port, "/store/", null, null));
            // a reader does not open them
            commands.add(accounts("reader-password\n", "add", "reader", "--roles", "read", "--password-stdin", "--data", data.toString()));
            r.add(post(port, "/store/", null));
            // a writer does, at once, without a restart; its new hash logs in
            commands.add(accounts("writer-password\n", "add", "writer", "--roles", "read,write", "--password-stdin", "--data", data.toString()));
            r.add(post(port, "/store/", null));
            r.add(get(port, "/batch/", "writer:writer-password", null));
            // failures are slowed: after the free ones, a 429 with Retry-After and no hash
            for (int i = 0; i < 12; i++) r.add(get(port, "/batch/", "writer:wrong-password", null));
        }, "--production");
        assertThat(printed).contains("arno: the write APIs (store writes, batch submissions) stay closed")
                .contains("arno:   ./arno accounts add NAME --roles read,write --data " + data);
        for (int i : new int[] {0, 1, 3}) {
            assertThat(r.get(i).statusCode()).as(r.get(i).body()).isEqualTo(403);
            assertThat(r.get(i).body()).contains("code=\"forbidden\"").contains("no account has the write role")
                    .contains("./arno accounts add NAME --roles read,write").doesNotContain(data.toString());
        }
        assertThat(r.get(0).body()).contains("writing to the store is closed");
        assertThat(r.get(1).body()).contains("submitting and cancelling batch jobs is closed");
        assertThat(r.get(2).statusCode()).isEqualTo(200);
        assertThat(commands).allSatisfy(c -> assertThat(c.status()).as(c.err()).isZero());
        assertThat(r.get(4).statusCode()).as(r.get(4).body()).isEqualTo(401); // open: the API asks for credentials
        assertThat(r.get(5).statusCode()).as(r.get(5).body()).isEqualTo(200);
        List<HttpResponse<String>> wrong = r.subList(6, r.size());
        assertThat(wrong.subList(0, 10)).allSatisfy(w -> assertThat(w.statusCode()).isEqualTo(401));
        assertThat(wrong.get(10).statusCode()).isEqualTo(401); // the failure that closes the account for 1 s
        assertThat(wrong.get(11).statusCode()).as(wrong.get(11).body()).isEqualTo(429);
        assertThat(wrong.get(11).headers().firstValue("Retry-After")).hasValue("1");
        assertThat(wrong.get(11).body()).contains("code=\"too-many-attempts\"");
    }

    /**
     * Issue 21: failures counted per name from any address let anyone keep an account locked. Behind a
     * trusted proxy, wrong passwords from one client throttle that client, and the account's owner
     * logs in from another address at once.
     */
    @Test
    void wrongPasswordsFromOneClientDoNotLockTheAccountOutForAnother() throws Exception {
        Path config = Files.writeString(tmp.resolve("arno.xml"), """
                <arno xmlns="urn:arno:config">
                  <proxies trusted="127.0.0.1"/>
                </arno>""");
        Cli added = accounts("writer-password\n", "add", "writer", "--roles", "read,write", "--password-stdin", "--data", data.toString());
        assertThat(added.status()).as(added.err()).isZero();
        List<HttpResponse<String>> attacker = new ArrayList<>();
        List<HttpResponse<String>> owner = new ArrayList<>();
        serve(port -> {
            for (int i = 0; i < 12; i++) attacker.add(get(port, "/batch/", "writer:wrong-password", "203.0.113.66"));
            attacker.add(get(port, "/batch/", "writer:writer-password", "203.0.113.66"));
            owner.add(get(port, "/batch/", "writer:writer-password", "198.51.100.7"));
        }, "--config", config.toString());
        assertThat(attacker.subList(0, 11)).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(401));
        assertThat(attacker.get(11).statusCode()).as(attacker.get(11).body()).isEqualTo(429);
        assertThat(attacker.get(12).statusCode()).as("the attacker's address, even with the right password").isEqualTo(429);
        assertThat(owner.get(0).statusCode()).as(owner.get(0).body()).isEqualTo(200);
    }

    // ---- helpers

    /** Serves with the test's folders and {@code more} flags while {@code during} runs; returns what serve printed. */
    private String serve(IntConsumer during, String... more) {
        List<String> a = new ArrayList<>(List.of("serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString()));
        a.addAll(List.of(more));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(a.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(err, true, StandardCharsets.UTF_8), Cli.serving(during));
        String printed = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as(printed).isZero();
        return printed;
    }

    /** {@code ./arno accounts ...} with {@code stdin} as its standard input. */
    static Cli accounts(String stdin, String... args) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            List<String> a = new ArrayList<>(List.of("accounts"));
            a.addAll(List.of(args));
            return Cli.run(a.toArray(String[]::new));
        } finally {
            System.setIn(saved);
        }
    }

    private static URI url(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private HttpResponse<String> get(int port, String path, String credentials, String forwardedFor) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url(port, path));
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        if (forwardedFor != null) b.header("X-Forwarded-For", forwardedFor);
        return send(b);
    }

    private HttpResponse<String> post(int port, String path, String credentials) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url(port, path)).header("Content-Type", "application/xml")
                .POST(HttpRequest.BodyPublishers.ofString("<x/>"));
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        return send(b);
    }

    private HttpResponse<String> send(HttpRequest.Builder b) {
        return Http.send(client, b.timeout(Duration.ofSeconds(30)).build());
    }

    /**
     * Prometheus' text exposition format (0.0.4), read strictly: every line is a HELP or TYPE
     * comment or a sample {@code name{label="value",...} number}; every sample belongs to a family
     * typed before it (a histogram's {@code _bucket}, {@code _count}, {@code _sum}; a counter's
     * name as typed); no sample appears twice.
     */
    record Exposition(Map<String, String> types, Map<String, Double> samples) {
        private static final Pattern TYPE = Pattern.compile("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)");
        private static final Pattern HELP = Pattern.compile("# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*");
        private static final Pattern SAMPLE = Pattern.compile(
                "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\"\\\\n])*\",?)*\\})? "
                        + "(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|NaN|[+-]Inf)( -?[0-9]+)?");

        static Exposition parse(String text) {
            Map<String, String> types = new LinkedHashMap<>();
            Map<String, Double> samples = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                if (line.isEmpty()) continue;
                Matcher t = TYPE.matcher(line);
                if (t.matches()) {
                    assertThat(types.put(t.group(1), t.group(2))).as("TYPE twice: " + line).isNull();
                    continue;
                }
                if (line.startsWith("# HELP")) {
                    assertThat(line).matches(HELP);
                    continue;
                }
                Matcher s = SAMPLE.matcher(line);
                assertThat(s.matches()).as("not a sample line: " + line).isTrue();
                String name = s.group(1);
                String family = types.containsKey(name) ? name : name.replaceFirst("_(bucket|count|sum)$", "");
                assertThat(types).as("no TYPE before " + line).containsKey(family);
                if (!family.equals(name)) assertThat(types.get(family)).as(line).isIn("histogram", "summary");
                String key = name + (s.group(2) == null ? "" : s.group(2));
                String v = s.group(3);
                double value = v.equals("NaN") ? Double.NaN : v.equals("+Inf") ? Double.POSITIVE_INFINITY
                        : v.equals("-Inf") ? Double.NEGATIVE_INFINITY : Double.parseDouble(v);
                assertThat(samples.put(key, value)).as("sample twice: " + line).isNull();
            }
            return new Exposition(types, samples);
        }

        double value(String key) {
            assertThat(samples).as("the sample " + key).containsKey(key);
            return samples.get(key);
        }
    }
}
