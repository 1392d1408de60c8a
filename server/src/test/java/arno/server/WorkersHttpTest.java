package arno.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.testkit.Wait;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import arno.server.config.Config;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import org.junit.jupiter.api.Test;

/**
 * Pipelines run on a fixed number of workers in arrival order, with a bounded queue. The slow
 * request in these tests is the alpha site's /gated route, whose {@link GateFilter} holds its
 * worker until the test opens the gate.
 */
class WorkersHttpTest {

    @Test
    void oneWorkerServesManyClientsInTurn() throws Exception {
        try (TestServer arno = TestServer.start(TestServer.copy("testroot"), false, 1 << 20, null, 1, 100)) {
            assertThat(arno.server.workers()).isEqualTo(1);
            List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                requests.add(arno.client.sendAsync(HttpRequest.newBuilder(arno.uri("/alpha/hello/client" + i)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < 16; i++) {
                HttpResponse<String> r = requests.get(i).get(30, TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).contains("Hello, client" + i + "<");
            }
        }
    }

    /**
     * A connection's next request does not overtake requests that arrived before it on other
     * connections, as it did when Tomcat's request threads ran pipelines: a thread that had
     * answered a keep-alive connection served that connection's next request at once if it had
     * already arrived (here it is pipelined, so it has).
     */
    @Test
    void aConnectionsNextRequestWaitsBehindEarlierArrivals() throws Exception {
        GateFilter.close();
        try (TestServer arno = TestServer.start(TestServer.copy("testroot"), false, 1 << 20, null, 1, 100);
             Socket x = new Socket("127.0.0.1", arno.server.port())) {
            OutputStream out = x.getOutputStream();
            out.write(("GET /alpha/gated/first HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /alpha/hello/second HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            await(arno.server::running, 1);
            CompletableFuture<HttpResponse<String>> other = arno.client.sendAsync(
                    HttpRequest.newBuilder(arno.uri("/alpha/hello/other")).build(), HttpResponse.BodyHandlers.ofString());
            await(arno.server::waiting, 1);
            GateFilter.open();
            String both = new String(x.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(both).startsWith("HTTP/1.1 200").contains("Hello, first<").contains("Hello, second<");
            String third = other.get(30, TimeUnit.SECONDS).body();
            assertThat(third).contains("Hello, other<");
            // Request ids count up as workers start pipelines: first 1, then the other connection's 2, then 3.
            assertThat(List.of(sequence(both.substring(0, both.indexOf("Hello, second"))), sequence(third),
                    sequence(both.substring(both.indexOf("Hello, second"))))).containsExactly(1L, 2L, 3L);
        } finally {
            GateFilter.open();
        }
    }

    @Test
    void aFullQueueAnswersBusyAndLosesNothingQueued() throws Exception {
        GateFilter.close();
        try (TestServer arno = TestServer.start(TestServer.copy("testroot"), false, 1 << 20, null, 1, 1)) {
            CompletableFuture<HttpResponse<String>> slow = arno.client.sendAsync(
                    HttpRequest.newBuilder(arno.uri("/alpha/gated/slow")).build(), HttpResponse.BodyHandlers.ofString());
            await(arno.server::running, 1);
            CompletableFuture<HttpResponse<String>> queued = arno.client.sendAsync(
                    HttpRequest.newBuilder(arno.uri("/alpha/hello/queued")).build(), HttpResponse.BodyHandlers.ofString());
            await(arno.server::waiting, 1);

            HttpResponse<String> refused = arno.get("/alpha/hello/refused");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(refused.body()).contains("All 1 workers are busy and 1 requests are waiting");

            GateFilter.open();
            HttpResponse<String> s = slow.get(30, TimeUnit.SECONDS);
            assertThat(s.statusCode()).isEqualTo(200);
            assertThat(s.body()).contains("Hello, slow<");
            HttpResponse<String> q = queued.get(30, TimeUnit.SECONDS);
            assertThat(q.statusCode()).isEqualTo(200);
            assertThat(q.body()).contains("Hello, queued<");
            assertThat(arno.get("/alpha/hello/after").body()).contains("Hello, after<");
        } finally {
            GateFilter.open();
        }
    }

    /** Refused before the sites are compiled or a port is opened, whatever built the configuration. */
    @Test
    void workersAndQueueMustBePositive() throws Exception {
        java.nio.file.Path root = TestServer.copy("testroot");
        try {
            Config c = TestServer.config(root, false, 1 << 20, 1, 1);
            assertThatThrownBy(() -> ArnoServer.start(with(c, 0, 10), null))
                    .isInstanceOf(ArnoException.class).hasMessageContaining("workers must be at least 1")
                    .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.BAD_CONFIGURATION));
            assertThatThrownBy(() -> ArnoServer.start(with(c, 1, 0), null))
                    .isInstanceOf(ArnoException.class).hasMessageContaining("queue must hold at least 1");
        } finally {
            org.apache.commons.io.FileUtils.deleteQuietly(root.toFile());
        }
    }

    /** A port another socket holds: PORT_UNAVAILABLE naming address and port, and nothing left running. */
    @Test
    void aPortInUseIsRefusedNamingIt() throws Exception {
        java.nio.file.Path root = TestServer.copy("testroot");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            Config.Builder b = TestServer.config(root, false, 1 << 20, 1, 1).toBuilder();
            b.port = taken.getLocalPort();
            Config c = b.build();
            assertThatThrownBy(() -> ArnoServer.start(c, null))
                    .isInstanceOf(ArnoException.class)
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort()).hasMessageContaining("--port")
                    .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.PORT_UNAVAILABLE));
        } finally {
            org.apache.commons.io.FileUtils.deleteQuietly(root.toFile());
        }
    }

    /** {@code c} with other workers and queue, past the builder's checks, as a hand-made record could be. */
    private static Config with(Config c, int workers, int queue) {
        return new Config(c.home(), c.data(), c.sites(), c.production(), c.bind(), c.port(), c.hosts(), workers, queue,
                c.bodyLimit(), c.routeTimeout(), c.sourceCache(), c.pageCaches(), c.storeMapSize(), c.contentFrom(), c.changeRetention(),
                c.storeReads(), c.xmlLimits(), c.outbound(),
                c.batchRoots(), c.batchWorkers(), c.batchQueue(), c.trustedProxies(), c.compression(), c.logLevel(), c.logFile(),
                c.accessLog(), c.metrics(), c.metricsAllow(), c.bodyRate(), c.batchTimeLimit(), c.batchMinShare(), c.storeDeletes(),
                c.cluster(), c.pageCacheMemory());
    }

    /** The sequence number in the first request id that StampStage wrote into a page, e.g. 3 for "java r1a-3". */
    private static long sequence(String page) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("java [a-z0-9]+-([a-z0-9]+)<").matcher(page);
        assertThat(m.find()).as("a stamp in " + page).isTrue();
        return Long.parseLong(m.group(1), 36);
    }

    private static void await(IntSupplier value, int expected) {
        Wait.upTo(Duration.ofSeconds(10)).until(value::getAsInt, v -> v == expected);
    }
}
