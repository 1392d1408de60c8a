package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.EmbeddedTomcat;
import arno.testkit.Http;
import arno.testkit.Wait;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test kit's embedded Tomcat on an ephemeral port with the batch servlet at
 * /batch/* and, at /files/*, a small file server over the test's root folder:
 * GET serves files, PUT stores them, and GETs under /files/gate/ wait until
 * the test opens the gate, which makes "a job that is running" deterministic.
 */
final class TestServer implements AutoCloseable {
    static final String USER = "tester";
    static final String PASSWORD = "secret-password";

    final Path root;
    final Path work;
    private final Consumer<BatchOptions.Builder> settings;
    private EmbeddedTomcat tomcat;
    BatchService service;
    int port;
    volatile CountDownLatch gate = new CountDownLatch(1);
    volatile CountDownLatch gateReached = new CountDownLatch(1);
    final Map<String, String> puts = new ConcurrentHashMap<>();
    /** GETs the file server has answered: a refused fetch must not add one. */
    final java.util.concurrent.atomic.AtomicInteger gets = new java.util.concurrent.atomic.AtomicInteger();
    final HttpClient http = Http.client();

    TestServer(Path tmp, Consumer<BatchOptions.Builder> settings) {
        this.root = tmp.resolve("root");
        this.work = tmp.resolve("work");
        this.settings = settings;
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        BatchService.addAccount(options(), USER, PASSWORD);
        start();
    }

    TestServer(Path tmp) {
        this(tmp, b -> { });
    }

    /**
     * The root, two workers, and an outbound policy that allows private addresses: the tests'
     * inputs, stylesheets and outputs at URLs are this server's own /files/ on loopback, which the
     * default policy refuses (tests of that refusal set {@code Outbound.Policy.DEFAULT} again).
     */
    BatchOptions options() {
        BatchOptions.Builder b = BatchOptions.builder(work).roots(List.of(root)).workers(2)
                .outbound(arno.xml.Outbound.Policy.DEFAULT.allowingPrivate());
        settings.accept(b);
        return b.build();
    }

    void start() {
        service = BatchService.start(options());
        // A restart listens where the first start did: accepted batches name this server's URLs.
        tomcat = EmbeddedTomcat.builder().port(port).mount(ctx -> service.endpoint().mount(ctx, "batch", "/batch/*"))
                .servlet("/files/*", new FileServlet()).start();
        port = tomcat.port();
    }

    /** Stops Tomcat and the service (as a server shutdown does) and starts both again on the same folders. */
    void restart() {
        stop();
        start();
    }

    void stop() {
        service.close();
        tomcat.close();
    }

    @Override public void close() {
        gate.countDown();
        stop();
    }

    /** Closes the gate for the next GETs under /files/gate/. */
    void closeGate() {
        gate = new CountDownLatch(1);
        gateReached = new CountDownLatch(1);
    }

    void openGate() {
        gate.countDown();
    }

    void awaitGateReached() {
        try {
            assertThat(gateReached.await(30, TimeUnit.SECONDS)).as("a transformation reached the gate").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String url(String path) {
        return "http://localhost:" + port + path;
    }

    HttpResponse<String> post(String batch) {
        return post(batch, USER + ":" + PASSWORD, null);
    }

    HttpResponse<String> post(String batch, String credentials, String contentLocation) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url("/batch/jobs")))
                .header("Content-Type", "application/xml")
                .POST(HttpRequest.BodyPublishers.ofString(batch));
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        if (contentLocation != null) b.header("Content-Location", contentLocation);
        return send(b.build());
    }

    /** A GET with the test account: every batch resource but the schema needs one. */
    HttpResponse<String> get(String pathOrUrl) {
        return get(pathOrUrl, USER + ":" + PASSWORD);
    }

    HttpResponse<String> get(String pathOrUrl, String credentials) {
        String u = pathOrUrl.startsWith("http") ? pathOrUrl : url(pathOrUrl);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(u)).GET();
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        return send(b.build());
    }

    HttpResponse<String> delete(String pathOrUrl, String credentials) {
        String u = pathOrUrl.startsWith("http") ? pathOrUrl : url(pathOrUrl);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(u)).DELETE();
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        return send(b.build());
    }

    HttpResponse<String> send(HttpRequest request) {
        return Http.send(http, request);
    }

    /** Submits and returns the job URL, asserting 202. */
    String submit(String batch) {
        HttpResponse<String> r = post(batch);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return r.headers().firstValue("Location").orElseThrow();
    }

    private static final Pattern STATUS = Pattern.compile("<job [^>]*status=\"([a-z]+)\"");

    static String status(String statusXml) {
        Matcher m = STATUS.matcher(statusXml);
        assertThat(m.find()).as(statusXml).isTrue();
        return m.group(1);
    }

    /** Polls the job until it has finished; returns its final status document. */
    String awaitFinished(String jobUrl) {
        return Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).alias("job " + jobUrl + " finished")
                .until(() -> get(jobUrl).body(), body -> List.of("completed", "failed", "cancelled").contains(status(body)));
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * GET serves files under root; GET /gate/... waits for the gate; GET /redirect/X answers 302 to X on
     * 127.0.0.1; PUT stores bodies in {@link #puts}.
     */
    private final class FileServlet extends HttpServlet {
        @Override protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            String path = req.getPathInfo();
            gets.incrementAndGet();
            if (path.startsWith("/redirect/")) {
                // to the same file by the loopback address: a hop the outbound policy must check again
                resp.sendRedirect("http://127.0.0.1:" + port + "/files/" + path.substring("/redirect/".length()));
                return;
            }
            if (path.startsWith("/gate/")) {
                gateReached.countDown();
                try {
                    gate.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                path = path.substring("/gate".length());
            }
            Path file = root.resolve(path.substring(1)).normalize();
            if (!file.startsWith(root) || !Files.isRegularFile(file)) {
                resp.sendError(404);
                return;
            }
            resp.setContentType("application/xml");
            Files.copy(file, resp.getOutputStream());
        }

        @Override protected void doPut(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            puts.put(req.getPathInfo(), new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            resp.setStatus(201);
        }
    }
}
