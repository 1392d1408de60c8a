package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.config.Config;
import arno.store.Store;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.http.StoreServlet;
import arno.testkit.Http;
import arno.testkit.Wait;
import arno.xml.Accounts;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xmlunit.assertj3.XmlAssert;

/**
 * Operating Arno at its HTTP edge, on a real embedded Tomcat over sockets: gzip for text when the
 * client accepts it (pages, the store API, with strong ETags suffixed and understood back), never
 * for binaries nor twice for a page cache's own gzip form; X-Forwarded-* believed from trusted
 * proxies only, as req:request shows; the access log's line; a client that goes away mid-page.
 * The site is src/test/resources/opsroot.
 */
class OperatingHttpTest {
    private final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Path root;
    private ArnoServer server;
    private Store store;
    private AtomStore atom;

    @BeforeEach
    void copy() throws IOException {
        root = Files.createTempDirectory("arno-ops-test");
        FileUtils.copyDirectory(Path.of("src/test/resources/opsroot").toFile(), root.toFile());
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        if (atom != null) atom.close();
        if (store != null) store.close();
        FileUtils.deleteQuietly(root.toFile());
    }

    private Config.Builder config() {
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = root;
        b.port = 0;
        b.production = true;
        return b;
    }

    private void start(Config.Builder b) {
        server = ArnoServer.start(b.build(), store);
    }

    /** Starts with {@code mounts} mounted before it serves (an endpoint's filters must be). */
    private void start(Config.Builder b, java.util.function.Consumer<ArnoServer> mounts) {
        server = ArnoServer.bind(b.build(), store);
        mounts.accept(server);
        server.serve();
    }

    // ---- Compression

    @Test
    void textIsGzippedOnlyForClientsThatAcceptItAndSaysSoInVary() throws IOException {
        start(config());
        HttpResponse<byte[]> plain = get("/ops/page");
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.headers().firstValue("Content-Encoding")).isEmpty();
        String page = new String(plain.body(), StandardCharsets.UTF_8);
        assertThat(page).contains("<p>100: text that compresses well");
        // A cache in between must know that the answer depends on Accept-Encoding, whichever was sent.
        assertThat(vary(plain)).contains("accept-encoding");

        HttpResponse<byte[]> zipped = get("/ops/page", "Accept-Encoding", "gzip, deflate, br");
        assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(vary(zipped)).contains("accept-encoding");
        // a page that writes no Vary gets one, as the other headers are written (not Tomcat's lower case)
        assertThat(plain.headers().allValues("Vary")).containsExactly("Accept-Encoding");
        assertThat(zipped.headers().allValues("Vary")).containsExactly("Accept-Encoding");
        assertThat(gunzip(zipped.body())).isEqualTo(page);
        assertThat(zipped.body().length).isLessThan(page.length() / 5);
        // at Compression.LEVEL (1), not Tomcat's 6: the size level 1 gives, nearer than level 6's
        int one = gzip(page, 1).length;
        int six = gzip(page, 6).length;
        assertThat(one).as("the page's sizes at levels 1 and 6 differ").isNotEqualTo(six);
        assertThat(Math.abs(zipped.body().length - one)).as("%d bytes sent; level 1 gives %d, level 6 %d", zipped.body().length, one, six)
                .isLessThan(Math.abs(zipped.body().length - six));

        // gzip refused with a quality of zero (RFC 9110 12.5.3).
        assertThat(get("/ops/page", "Accept-Encoding", "gzip;q=0, br").headers().firstValue("Content-Encoding")).isEmpty();
        // Only gzip is offered: a client that takes something else gets the bytes as they are.
        HttpResponse<byte[]> other = get("/ops/page", "Accept-Encoding", "br, deflate");
        assertThat(other.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(new String(other.body(), StandardCharsets.UTF_8)).isEqualTo(page);
    }

    @Test
    void binaryTypesAndSmallBodiesAreNeverCompressed() {
        start(config());
        HttpResponse<byte[]> png = get("/ops/png", "Accept-Encoding", "gzip");
        assertThat(png.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("image/png"));
        assertThat(png.body().length).isGreaterThan(20_000);
        assertThat(png.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(vary(png)).doesNotContain("accept-encoding");
        // Under the minimum size (a length Tomcat knows, as the page fits the response buffer): gzip would not pay.
        HttpResponse<byte[]> small = get("/ops/page?n=2", "Accept-Encoding", "gzip");
        assertThat(small.body().length).isLessThan(Compression.MIN_SIZE);
        assertThat(small.headers().firstValue("Content-Encoding")).isEmpty();
    }

    @Test
    void compressionCanBeSwitchedOff() {
        Config.Builder b = config();
        b.compression = false;
        start(b);
        HttpResponse<byte[]> page = get("/ops/page", "Accept-Encoding", "gzip");
        assertThat(page.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(new String(page.body(), StandardCharsets.UTF_8)).contains("<p>100: ");
    }

    @Test
    void aStrongEtagIsSuffixedOnTheGzippedFormAndUnderstoodWhenItComesBack() throws IOException {
        start(config());
        HttpResponse<byte[]> plain = get("/ops/xml");
        assertThat(plain.headers().firstValue("ETag")).hasValue("\"v1\"");
        HttpResponse<byte[]> zipped = get("/ops/xml", "Accept-Encoding", "gzip");
        assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(zipped.headers().firstValue("ETag")).hasValue("\"v1--gzip\"");
        // The page's own Vary is kept as it wrote it; Accept-Encoding joins it.
        assertThat(zipped.headers().allValues("Vary")).containsExactly("Accept-Language", "Accept-Encoding");
        XmlAssert.assertThat(gunzip(zipped.body())).and(new String(plain.body(), StandardCharsets.UTF_8)).areIdentical();
        // Revalidating the gzipped copy: the page compares its own "v1" and answers 304.
        HttpResponse<byte[]> again = get("/ops/xml", "Accept-Encoding", "gzip", "If-None-Match", "\"v1--gzip\"");
        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(get("/ops/xml", "If-None-Match", "\"v1\"").statusCode()).isEqualTo(304);
        assertThat(get("/ops/xml", "Accept-Encoding", "gzip", "If-None-Match", "\"v2--gzip\"").statusCode()).isEqualTo(200);
    }

    @Test
    void aPageCachesOwnGzipFormIsNotCompressedAgain() throws IOException {
        start(config());
        HttpResponse<byte[]> miss = get("/ops/cached", "Accept-Encoding", "gzip");
        HttpResponse<byte[]> hit = get("/ops/cached", "Accept-Encoding", "gzip");
        String page = new String(get("/ops/cached").body(), StandardCharsets.UTF_8);
        assertThat(page).contains("<p>100: ");
        for (HttpResponse<byte[]> r : List.of(miss, hit)) {
            assertThat(r.headers().allValues("Content-Encoding")).containsExactly("gzip");
            // One gunzip gives the page: gzipped once, not twice.
            assertThat(gunzip(r.body())).isEqualTo(page);
        }
    }

    @Test
    void theStoreApisXmlAndAtomAreCompressedItsBinariesAreNotAndConditionalWritesStillMatch() throws IOException {
        store = Store.open(root.resolve("store"));
        atom = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store"));
        Accounts accounts = new Accounts(root.resolve("users"));
        accounts.add("editor", "editor-password", EnumSet.of(Accounts.Role.READ, Accounts.Role.WRITE));
        start(config(), s -> s.mount("store", "/store/*",
                new StoreServlet(atom, accounts, StoreServlet.ReadPolicy.PUBLIC, 1 << 20).endpoint()));
        String longTitle = "On stores ".repeat(300);
        String issue = "/journals/ja/v1/i1";
        for (String[] c : new String[][] {{"/", "journals", "journals"}, {"/journals/", "journal", "ja"},
                {"/journals/ja/", "volume", "v1"}, {"/journals/ja/v1/", "issue", "i1"}, {issue + "/", "article", "a1"}}) {
            HttpResponse<byte[]> r = write("POST", c[0], "application/atom+xml;type=entry", entry(c[1], c[1].equals("article") ? longTitle : c[2]),
                    "Slug", c[2]);
            assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(201);
        }
        String a1 = issue + "/a1";
        assertThat(write("PUT", a1 + ".xml", "application/xml", "<article><title>" + longTitle + "</title></article>",
                "If-None-Match", "*").statusCode()).isEqualTo(201);
        byte[] png = new byte[40_000];
        png[0] = (byte) 0x89; png[1] = 'P'; png[2] = 'N'; png[3] = 'G'; // and then very compressible bytes, still an image
        HttpResponse<byte[]> media = send(request("/store" + a1 + "/").header("Content-Type", "image/png").header("Slug", "plot")
                .POST(HttpRequest.BodyPublishers.ofByteArray(png)).build());
        assertThat(media.statusCode()).isEqualTo(201);
        String pngPath = media.headers().firstValue("Location").orElseThrow().replace(".atom", ".png");

        HttpResponse<byte[]> entry = get("/store" + a1 + ".atom", "Accept-Encoding", "gzip");
        assertThat(entry.statusCode()).isEqualTo(200);
        assertThat(entry.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/atom+xml"));
        assertThat(entry.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(gunzip(entry.body())).contains("On stores On stores");

        HttpResponse<byte[]> identity = get("/store" + a1 + ".xml");
        String etag = identity.headers().firstValue("ETag").orElseThrow();
        assertThat(etag).doesNotStartWith("W/");
        HttpResponse<byte[]> xml = get("/store" + a1 + ".xml", "Accept-Encoding", "gzip");
        assertThat(xml.headers().firstValue("Content-Encoding")).hasValue("gzip");
        String zippedTag = xml.headers().firstValue("ETag").orElseThrow();
        assertThat(zippedTag).isEqualTo(arno.http.Conditional.gzipTag(etag)).isNotEqualTo(etag);
        assertThat(gunzip(xml.body())).isEqualTo(new String(identity.body(), StandardCharsets.UTF_8));
        assertThat(get("/store" + a1 + ".xml", "Accept-Encoding", "gzip", "If-None-Match", zippedTag).statusCode()).isEqualTo(304);

        HttpResponse<byte[]> binary = get(pngPath, "Accept-Encoding", "gzip");
        assertThat(binary.statusCode()).isEqualTo(200);
        assertThat(binary.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(binary.body()).isEqualTo(png);

        // A client that read the gzipped form writes back with its ETag: the store sees its own and accepts.
        HttpResponse<byte[]> put = write("PUT", a1 + ".xml", "application/xml", "<article><title>two</title></article>",
                "If-Match", zippedTag);
        assertThat(put.statusCode()).as(new String(put.body(), StandardCharsets.UTF_8)).isEqualTo(200);
        assertThat(new String(get("/store" + a1 + ".xml").body(), StandardCharsets.UTF_8)).contains("two");
        // And a stale one is still refused.
        assertThat(write("PUT", a1 + ".xml", "application/xml", "<article><title>three</title></article>",
                "If-Match", zippedTag).statusCode()).isEqualTo(412);
    }

    private static String entry(String kind, String title) {
        return "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:arno='urn:arno:atom'><title>" + title + "</title>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/></entry>";
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).header("Authorization",
                Http.basic("editor:editor-password"));
    }

    private HttpResponse<byte[]> write(String method, String path, String type, String body, String... headers) {
        HttpRequest.Builder b = request("/store" + path).header("Content-Type", type)
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) b.headers(headers);
        return send(b.build());
    }

    // ---- Behind a proxy

    private static final String[] FORWARDED = {"X-Forwarded-For", "203.0.113.7, 10.1.2.3", "X-Forwarded-Proto", "https",
            "X-Forwarded-Host", "journals.example.org"};

    @Test
    void forwardedHeadersFromATrustedProxyMakeTheClientsAddressSchemeAndHost() {
        Config.Builder b = config();
        // Loopback is the proxy the test plays; 10.0.0.0/8 a second proxy hop behind it.
        b.trustedProxies = List.of("127.0.0.1", "10.0.0.0/8");
        start(b);
        XmlAssert.assertThat(body(get("/ops/echo", FORWARDED))).nodesByXPath("/echo[@scheme = 'https' and @host = 'journals.example.org'"
                + " and @port = '443' and @remote-address = '203.0.113.7' and @url = 'https://journals.example.org/ops/echo']").exist();
        // With a port of its own.
        XmlAssert.assertThat(body(get("/ops/echo", "X-Forwarded-For", "198.51.100.1", "X-Forwarded-Proto", "https",
                        "X-Forwarded-Host", "journals.example.org", "X-Forwarded-Port", "8443")))
                .nodesByXPath("/echo[@port = '8443' and @remote-address = '198.51.100.1'"
                        + " and @url = 'https://journals.example.org:8443/ops/echo']").exist();
        // A client that puts a forged address before its own is seen as itself: the rightmost untrusted entry.
        XmlAssert.assertThat(body(get("/ops/echo", "X-Forwarded-For", "192.0.2.1, 198.51.100.9")))
                .nodesByXPath("/echo[@remote-address = '198.51.100.9' and @scheme = 'http']").exist();
    }

    @Test
    void forwardedHeadersFromAnyoneElseAreIgnored() {
        // Default: no proxy is trusted.
        start(config());
        String untrusted = body(get("/ops/echo", FORWARDED));
        XmlAssert.assertThat(untrusted).nodesByXPath("/echo[@scheme = 'http' and @host = '127.0.0.1'"
                + " and @port = '" + server.port() + "' and @remote-address = '127.0.0.1']").exist();
        server.close();
        // Trusting other addresses does not make loopback a proxy.
        Config.Builder b = config();
        b.trustedProxies = List.of("10.0.0.0/8", "fd00::/8");
        start(b);
        XmlAssert.assertThat(body(get("/ops/echo", FORWARDED))).nodesByXPath("/echo[@scheme = 'http' and @host = '127.0.0.1'"
                + " and @remote-address = '127.0.0.1']").exist();
    }

    // ---- The access log

    /** The combined format, then the request id and the microseconds taken. */
    private static final Pattern LINE = Pattern.compile(
            "(\\S+) (\\S+) (\\S+) \\[([^\\]]+)\\] \"([^\"]*)\" (\\d{3}) (\\S+) \"([^\"]*)\" \"([^\"]*)\" (\\S+) (\\d+)");

    @Test
    void theAccessLogHasACombinedLinePerRequestWithTheRequestIdAndTheTimeTaken() throws IOException, InterruptedException {
        Path log = root.resolve("logs/access.log");
        Config.Builder b = config();
        b.accessLog = log;
        b.trustedProxies = List.of("127.0.0.1");
        start(b);
        String echo = body(get("/ops/echo", "Referer", "https://example.org/from", "User-Agent", "ops-test/1.0"));
        String id = echo.replaceAll("(?s).*id=\"([^\"]+)\".*", "$1");
        assertThat(id).isNotBlank().doesNotContain("<");
        HttpResponse<byte[]> page = get("/ops/page?n=3");
        assertThat(get("/nowhere").statusCode()).isEqualTo(404);
        get("/ops/echo", "X-Forwarded-For", "203.0.113.7");
        get("/ops/cached");
        get("/ops/cached"); // a page cache hit: no pipeline, still an id
        // A line is written when its request has ended, which may be just after the client has its answer.
        Wait.upTo(Duration.ofSeconds(10)).until(() -> Files.readAllLines(log, StandardCharsets.UTF_8).size(), n -> n >= 6);
        server.close();
        server = null;

        List<Matcher> lines = new ArrayList<>();
        for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = LINE.matcher(l);
            assertThat(m.matches()).as("access log line: %s", l).isTrue();
            lines.add(m);
        }
        assertThat(lines).hasSize(6);
        Matcher first = lines.get(0);
        assertThat(first.group(1)).isEqualTo("127.0.0.1");
        assertThat(first.group(2)).isEqualTo("-");
        assertThat(first.group(3)).isEqualTo("-");
        assertThat(java.time.ZonedDateTime.parse(first.group(4), java.time.format.DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z",
                java.util.Locale.ENGLISH))).isBetween(java.time.ZonedDateTime.now().minusMinutes(5), java.time.ZonedDateTime.now().plusMinutes(1));
        assertThat(first.group(5)).isEqualTo("GET /ops/echo HTTP/1.1");
        assertThat(first.group(6)).isEqualTo("200");
        // Bytes as sent after the headers: a streamed page is chunked, so the chunks' framing counts too.
        assertThat(Long.parseLong(first.group(7))).isBetween((long) echo.getBytes(StandardCharsets.UTF_8).length,
                echo.getBytes(StandardCharsets.UTF_8).length + 16L);
        assertThat(first.group(8)).isEqualTo("https://example.org/from");
        assertThat(first.group(9)).isEqualTo("ops-test/1.0");
        assertThat(first.group(10)).isEqualTo(id);
        assertThat(Long.parseLong(first.group(11))).isPositive().isLessThan(60_000_000L);

        assertThat(lines.get(1).group(5)).isEqualTo("GET /ops/page?n=3 HTTP/1.1");
        assertThat(Long.parseLong(lines.get(1).group(7))).isBetween((long) page.body().length, page.body().length + 16L);
        assertThat(lines.get(1).group(10)).isNotEqualTo(id).isNotEqualTo("-");
        assertThat(lines.get(2).group(6)).isEqualTo("404");
        assertThat(lines.get(2).group(10)).isNotEqualTo("-"); // the error page is a pipeline too
        // Behind a trusted proxy the line names the client.
        assertThat(lines.get(3).group(1)).isEqualTo("203.0.113.7");
        assertThat(lines.get(5).group(10)).isNotEqualTo("-").isNotEqualTo(lines.get(4).group(10));
        List<String> ids = lines.stream().map(m -> m.group(10)).toList();
        assertThat(ids).doesNotHaveDuplicates();
    }

    // ---- A client that goes away

    @Test
    void aClientThatGoesAwayMidPageIsLoggedAsAnAbortNotAsAFailure() throws Exception {
        start(config());
        try (Records records = new Records()) {
            for (boolean reset : new boolean[] {false, true}) {
                int before = records.containing("client went away").size();
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                    if (reset) s.setSoLinger(true, 0); // close with RST: "connection reset" rather than "broken pipe"
                    OutputStream out = s.getOutputStream();
                    out.write("GET /ops/page?n=100000 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    InputStream in = s.getInputStream();
                    assertThat(in.read()).isEqualTo('H'); // the page has begun
                }
                Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> records.containing("client went away").size(), n -> n > before);
                assertThat(records.containing("client went away")).hasSize(before + 1);
            }
            // The server still answers.
            assertThat(get("/ops/page?n=2").statusCode()).isEqualTo(200);
            assertThat(records.all).noneMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue());
            assertThat(records.all).noneMatch(r -> String.valueOf(r.getMessage()).contains("E-"));
            assertThat(records.containing("client went away")).allMatch(r -> r.getLevel() == Level.INFO);
        }
    }

    /**
     * Many clients going away at once, each while its page is being written or still waits for a
     * worker (what a load generator does when it stops): the container then closes exchanges on
     * its own threads while workers still hold them. No worker may die of it (each death printed
     * a stack trace and made a new thread), and the server keeps answering.
     */
    @Test
    void clientsGoingAwayTogetherLeaveEveryWorkerAlive() throws Exception {
        start(config());
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            for (int round = 0; round < 5; round++) {
                List<Socket> sockets = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    s.getOutputStream().write("GET /ops/page?n=5000 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    sockets.add(s);
                }
                assertThat(sockets.get(0).getInputStream().read()).isEqualTo('H'); // the first page has begun
                for (Socket s : sockets) {
                    s.setSoLinger(true, 0);
                    s.close();
                }
            }
            // every page ends, one way or another, and the server still answers on the same workers
            assertThat(get("/ops/page?n=2").statusCode()).isEqualTo(200);
            Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> get("/ops/page?n=2").statusCode(), code -> code == 200);
            assertThat(uncaught).isEmpty();
            int workers = arno.pipeline.ArnoServlet.DEFAULT_WORKERS;
            assertThat(Thread.getAllStackTraces().keySet()).map(Thread::getName).filteredOn(n -> n.startsWith("arno-worker-"))
                    .allMatch(n -> Integer.parseInt(n.substring("arno-worker-".length())) <= workers, "a first worker");
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    /** Every record Arno and Tomcat log while open (with its level, which LogCapture does not keep). */
    private static final class Records extends Handler implements AutoCloseable {
        private static final Logger ROOT = Logger.getLogger("");
        final List<LogRecord> all = new CopyOnWriteArrayList<>();

        Records() {
            setLevel(Level.ALL);
            ROOT.addHandler(this);
        }

        List<LogRecord> containing(String text) {
            return all.stream().filter(r -> String.valueOf(r.getMessage()).contains(text)).toList();
        }

        @Override
        public void publish(LogRecord r) {
            all.add(r);
        }

        @Override public void flush() {}

        @Override
        public void close() {
            ROOT.removeHandler(this);
        }
    }

    // ---- HTTP

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private HttpResponse<byte[]> get(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) b.headers(headers);
        return send(b.GET().build());
    }

    private HttpResponse<byte[]> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String body(HttpResponse<byte[]> r) {
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static String vary(HttpResponse<?> r) {
        return String.join(",", r.headers().allValues("Vary")).toLowerCase(java.util.Locale.ROOT);
    }

    private static String gunzip(byte[] bytes) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static byte[] gzip(String text, int level) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(out) {
            {
                def.setLevel(level);
            }
        }) {
            z.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }
}
