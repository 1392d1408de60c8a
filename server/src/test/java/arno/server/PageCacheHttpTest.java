package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cache.Ticker;
import arno.pipeline.PageCacheBudget;
import arno.pipeline.PageCacheStats;
import arno.server.config.Config;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The page caches on the wire: a real Arno on embedded Tomcat with a real LMDB store, the site
 * under src/test/resources/cacheroot, whose cached routes count their pipeline runs
 * ({@link CountingStage}), so a hit is seen not to run the pipeline.
 */
class PageCacheHttpTest {
    private final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Path root;
    private Store store;
    private ArnoServer server;
    /** The page caches' clock in tests that move time: nanoseconds since the epoch. */
    private final AtomicLong now = new AtomicLong(System.currentTimeMillis() * 1_000_000L);

    @BeforeEach
    void copy() throws IOException {
        root = Files.createTempDirectory("arno-cache-test");
        FileUtils.copyDirectory(Path.of("src/test/resources/cacheroot").toFile(), root.toFile());
        store = Store.open(root.resolve("store"));
        put("/docs/s.xml", "<doc><title>one</title></doc>");
        CountingStage.RUNS.clear();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        store.close();
        FileUtils.deleteQuietly(root.toFile());
    }

    private void start(boolean development, Ticker clock) {
        start(development, clock, true);
    }

    private void start(boolean development, Ticker clock, boolean pageCaches) {
        Config.Builder b = Config.defaults(root).toBuilder();
        b.pageCaches = pageCaches;
        b.data = root;
        b.production = !development;
        b.port = 0;
        server = ArnoServer.start(b.build(), store, clock);
    }

    private void restart(boolean development) {
        server.close();
        server = null;
        start(development, null);
    }

    @Test
    void aHitDoesNotRunThePipelineAndCarriesValidators() {
        start(true, null);
        HttpResponse<String> first = get("/c/file/a");
        HttpResponse<String> second = get("/c/file/a");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(CountingStage.runs("file")).isEqualTo(1);
        assertThat(second.body()).isEqualTo(first.body()).contains("File A");
        assertThat(second.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"))
                .hasValue("text/html;charset=UTF-8");
        assertThat(first.headers().firstValue("ETag")).isPresent().isEqualTo(second.headers().firstValue("ETag"));
        assertThat(second.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(second.headers().firstValue("Last-Modified")).isPresent();
        assertThat(second.headers().firstValue("Vary")).hasValueSatisfying(v -> assertThat(v).contains("Accept-Language"));
        PageCacheStats stats = server.sites().cacheStats().get("c");
        assertThat(stats.memory().hits()).isEqualTo(1);
        assertThat(stats.misses()).isEqualTo(1);
        assertThat(stats.memory().entries()).isEqualTo(1);
        assertThat(stats.memory().bytes()).isGreaterThan(first.body().length());
        HttpResponse<String> head = send(HttpRequest.newBuilder(uri("/c/file/a")).method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValueAsLong("Content-Length")).hasValue(first.body().getBytes(StandardCharsets.UTF_8).length);
        assertThat(CountingStage.runs("file")).isEqualTo(1);
    }

    @Test
    void withPageCachesOffEveryPageIsBuiltAfresh() {
        start(true, null, false);
        HttpResponse<String> first = get("/c/file/a");
        HttpResponse<String> second = get("/c/file/a");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body()).contains("File A");
        assertThat(CountingStage.runs("file")).isEqualTo(2);
        assertThat(server.sites().cacheStats()).isEmpty();
    }

    @Test
    void theChosenParametersAndHeadersMakeTheKey() {
        start(true, null);
        assertThat(get("/c/file/a?p=1").body()).contains("<p id=\"p\">1</p>");
        assertThat(get("/c/file/a?p=2").body()).contains("<p id=\"p\">2</p>");
        assertThat(CountingStage.runs("file")).isEqualTo(2);
        // Another parameter is not part of the key: the same page.
        assertThat(get("/c/file/a?q=9&p=1").body()).contains("<p id=\"p\">1</p>");
        assertThat(CountingStage.runs("file")).isEqualTo(2);
        assertThat(get("/c/file/a?p=1", "Accept-Language", "fr").body()).contains("<p id=\"lang\">fr</p>");
        assertThat(get("/c/file/a?p=1", "Accept-Language", "de").body()).contains("<p id=\"lang\">de</p>");
        assertThat(CountingStage.runs("file")).isEqualTo(4);
        assertThat(get("/c/file/a?p=1", "Accept-Language", "fr").body()).contains("<p id=\"lang\">fr</p>");
        assertThat(CountingStage.runs("file")).isEqualTo(4);
    }

    @Test
    void conditionalRequestsAreAnswered304FromTheCache() {
        start(true, null);
        HttpResponse<String> first = get("/c/stored/s");
        String etag = first.headers().firstValue("ETag").orElseThrow();
        assertThat(first.headers().firstValue("Cache-Control")).hasValue("max-age=60");
        HttpResponse<String> again = get("/c/stored/s", "If-None-Match", etag);
        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertThat(again.headers().firstValue("ETag")).hasValue(etag);
        String lastModified = first.headers().firstValue("Last-Modified").orElseThrow();
        assertThat(get("/c/stored/s", "If-Modified-Since", lastModified).statusCode()).isEqualTo(304);
        assertThat(get("/c/stored/s", "If-None-Match", "\"other\"").statusCode()).isEqualTo(200);
        // a failing If-Match is 412 from the cache too (RFC 9110 13.1.1)
        assertThat(get("/c/stored/s", "If-Match", "\"other\"").statusCode()).isEqualTo(412);
        assertThat(get("/c/stored/s", "If-Match", etag).statusCode()).isEqualTo(200);
        assertThat(CountingStage.runs("stored")).isEqualTo(1);
        // A new version of the document makes a new page with a new tag: the old tag gets the page.
        put("/docs/s.xml", "<doc><title>two</title></doc>");
        HttpResponse<String> changed = get("/c/stored/s", "If-None-Match", etag);
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body()).isEqualTo("two");
        assertThat(changed.headers().firstValue("ETag")).isPresent().isNotEqualTo(java.util.Optional.of(etag));
    }

    @Test
    void clientsThatAcceptGzipGetTheStoredCompressedForm() throws IOException {
        start(true, null);
        String plain = get("/c/file/a").body();
        HttpResponse<byte[]> zipped = bytes("/c/file/a", "Accept-Encoding", "gzip, deflate");
        assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(zipped.body().length).isLessThan(plain.length() / 4);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(zipped.body()))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(plain);
        }
        assertThat(bytes("/c/file/a", "Accept-Encoding", "gzip;q=0").headers().firstValue("Content-Encoding")).isEmpty();
        // the two forms differ in bytes, so not in their strong ETag; either revalidates the page
        String identity = get("/c/file/a").headers().firstValue("ETag").orElseThrow();
        String gzipped = zipped.headers().firstValue("ETag").orElseThrow();
        assertThat(gzipped).isEqualTo(identity.substring(0, identity.length() - 1) + "--gzip\"");
        assertThat(bytes("/c/file/a", "Accept-Encoding", "gzip", "If-None-Match", gzipped).statusCode()).isEqualTo(304);
        assertThat(bytes("/c/file/a", "If-None-Match", identity).statusCode()).isEqualTo(304);
        assertThat(CountingStage.runs("file")).isEqualTo(1);
    }

    @Test
    void onlyWhatMayBeKeptIsKept() {
        start(true, null);
        for (String route : List.of("big", "cookie", "nostore", "missing", "uncached")) {
            HttpResponse<String> first = get("/c/" + route);
            HttpResponse<String> second = get("/c/" + route);
            assertThat(second.body()).as(route).isEqualTo(first.body()).isNotEmpty();
            assertThat(CountingStage.runs(route)).as(route + " runs").isEqualTo(2);
        }
        assertThat(get("/c/big").body().length()).isGreaterThan(100);
        assertThat(get("/c/cookie").headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c).contains("seen=yes"));
        assertThat(get("/c/missing").statusCode()).isEqualTo(404);
        assertThat(server.sites().cacheStats().get("c").memory().entries()).isZero();
    }

    @Test
    void aPageThatReadACookieOrCredentialIsNeverSharedBetweenUsers() {
        start(false, null);
        HttpResponse<String> alice = get("/c/echo/cookie", "Cookie", "session=alice");
        assertThat(alice.body()).isEqualTo("session: alice");
        assertThat(alice.headers().firstValue("Cache-Control")).hasValue("private");
        assertThat(get("/c/echo/cookie", "Cookie", "session=bob").body()).isEqualTo("session: bob");
        assertThat(get("/c/echo/cookie", "Cookie", "session=alice").body()).isEqualTo("session: alice");
        assertThat(CountingStage.runs("echo-cookie")).as("built for each").isEqualTo(3);
        // Without a session the page is everyone's: kept once, keyed on there being no cookie.
        assertThat(get("/c/echo/cookie").body()).isEqualTo("session: none");
        assertThat(get("/c/echo/cookie").body()).isEqualTo("session: none");
        assertThat(CountingStage.runs("echo-cookie")).isEqualTo(4);
        assertThat(get("/c/echo/cookie", "Cookie", "session=bob").body()).isEqualTo("session: bob");
        assertThat(CountingStage.runs("echo-cookie")).isEqualTo(5);

        assertThat(get("/c/echo/auth", "Authorization", "Basic YWxpY2U6YQ==").body()).isEqualTo("user: Basic YWxpY2U6YQ==");
        assertThat(get("/c/echo/auth", "Authorization", "Basic Ym9iOmI=").body()).isEqualTo("user: Basic Ym9iOmI=");
        assertThat(get("/c/echo/auth").body()).isEqualTo("user: anonymous");
        assertThat(get("/c/echo/auth").body()).isEqualTo("user: anonymous");
        assertThat(get("/c/echo/auth", "Authorization", "Basic YWxpY2U6YQ==").body()).isEqualTo("user: Basic YWxpY2U6YQ==");
        assertThat(CountingStage.runs("echo-auth")).isEqualTo(4);
        assertThat(server.sites().cacheStats().get("c").memory().entries()).as("the two anonymous pages only").isEqualTo(2);
    }

    @Test
    void aPageThatOnlyLooksWhetherThereIsASessionIsKeptOncePerAnswer() {
        start(false, null);
        assertThat(get("/c/echo/signed").body()).isEqualTo("sign in");
        assertThat(get("/c/echo/signed", "Cookie", "session=alice").body()).isEqualTo("sign out");
        assertThat(get("/c/echo/signed", "Cookie", "session=bob").body()).isEqualTo("sign out");
        assertThat(get("/c/echo/signed").body()).isEqualTo("sign in");
        assertThat(CountingStage.runs("echo-signed")).isEqualTo(2);
        assertThat(get("/c/echo/signed").headers().firstValue("Vary")).hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("cookie"));
    }

    @Test
    void aForwardedHostOrAnotherHostCannotPoisonThePage() throws IOException {
        start(false, null);
        String home = "http://127.0.0.1:" + server.port() + "/c/echo/host";
        HttpResponse<String> poisoned = get("/c/echo/host", "X-Forwarded-Host", "evil.example");
        assertThat(poisoned.body()).contains("http://evil.example/c/echo/host");
        assertThat(poisoned.headers().firstValue("Vary")).hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("x-forwarded-host"));
        assertThat(get("/c/echo/host").body()).contains(home).doesNotContain("evil");
        // Once the route has learned what its pages read, each page is kept, and kept apart.
        assertThat(get("/c/echo/host", "X-Forwarded-Host", "evil.example").body()).isEqualTo(poisoned.body());
        int built = CountingStage.runs("echo-host");
        for (int i = 0; i < 2; i++) {
            assertThat(get("/c/echo/host").body()).contains(home).doesNotContain("evil");
            assertThat(get("/c/echo/host", "X-Forwarded-Host", "evil.example").body()).isEqualTo(poisoned.body());
        }
        assertThat(CountingStage.runs("echo-host")).isEqualTo(built);
        // The Host the client named: another name for the same server is another page.
        String other = raw("GET /c/echo/host HTTP/1.1\r\nHost: other.example:" + server.port() + "\r\nConnection: close\r\n\r\n");
        assertThat(other).startsWith("HTTP/1.1 200").contains("http://other.example:" + server.port() + "/c/echo/host");
        assertThat(get("/c/echo/host").body()).contains(home);
        assertThat(CountingStage.runs("echo-host")).isEqualTo(built + 1);
    }

    @Test
    void aHeaderTheRouteDoesNotVaryOnStillMakesItsOwnPage() {
        start(false, null);
        for (int round = 0; round < 2; round++) {
            assertThat(get("/c/echo/lang").body()).isEqualTo("language: default");
            assertThat(get("/c/echo/lang", "Accept-Language", "fr").body()).isEqualTo("language: fr");
            assertThat(get("/c/echo/lang", "Accept-Language", "de").body()).isEqualTo("language: de");
        }
        // The first page was kept before the route learned that its pages read Accept-Language.
        assertThat(CountingStage.runs("echo-lang")).isEqualTo(4);
        get("/c/echo/lang");
        get("/c/echo/lang", "Accept-Language", "fr");
        assertThat(CountingStage.runs("echo-lang")).isEqualTo(4);
    }

    @Test
    void aPageThatReadsNothingOfTheRequestIsStillOnePageForEveryone() {
        start(false, null);
        HttpResponse<String> first = get("/c/plain", "Cookie", "session=alice", "Authorization", "Basic YQ==");
        assertThat(first.body()).isEqualTo("plain");
        assertThat(first.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(first.headers().firstValue("Vary")).isEmpty();
        assertThat(get("/c/plain", "Cookie", "session=bob").body()).isEqualTo("plain");
        assertThat(get("/c/plain", "X-Forwarded-Host", "evil.example", "Accept-Language", "fr").body()).isEqualTo("plain");
        assertThat(get("/c/plain?x=1").body()).isEqualTo("plain");
        assertThat(CountingStage.runs("plain")).isEqualTo(1);
        assertThat(server.sites().cacheStats().get("c").memory().hits()).isEqualTo(3);
    }

    /** A request over a plain socket, for a Host header java.net.http will not send. */
    private String raw(String request) throws IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aChangedFileOrStoredDocumentGivesAFreshPageOnTheNextRequest() throws IOException {
        start(true, null); // development: files are looked at on every hit
        assertThat(get("/c/file/a").body()).contains("File A");
        assertThat(get("/c/stored/s").body()).isEqualTo("one");
        Files.writeString(root.resolve("content/docs/a.xml"), "<doc><title>File A, edited</title></doc>");
        put("/docs/s.xml", "<doc><title>two</title></doc>");
        assertThat(get("/c/file/a").body()).contains("File A, edited");
        assertThat(get("/c/stored/s").body()).isEqualTo("two");
        assertThat(CountingStage.runs("file")).isEqualTo(2);
        assertThat(CountingStage.runs("stored")).isEqualTo(2);
        // A document that appears under a listed folder changes the listing.
        assertThat(get("/c/listing").body()).isEqualTo("two");
        assertThat(get("/c/listing").body()).isEqualTo("two");
        put("/docs/t.xml", "<doc><title>three</title></doc>");
        assertThat(get("/c/listing").body()).isEqualTo("three,two");
        assertThat(CountingStage.runs("listing")).isEqualTo(2);
    }

    @Test
    void cachedPagesNameWhatTheyReadInTheStoreForCachesDownstream() throws IOException {
        put("/_config/indexes.xml", "<indexes xmlns='urn:arno:indexes'>"
                + "<index name='code' match='doc' value='code'/></indexes>");
        start(false, null);
        assertThat(get("/c/stored/s").headers().firstValue("Surrogate-Key")).hasValue("/docs/s.xml");
        assertThat(get("/c/listing").headers().firstValue("Surrogate-Key")).hasValueSatisfying(
                k -> assertThat(k.split(" ")).contains("/docs/"));
        assertThat(get("/c/lookup/K").headers().firstValue("Surrogate-Key")).as("a lookup depends on any commit").hasValue("*");
        // content: asked the store first (it holds no /docs/a.xml, so the file was read): that absence is a dependency.
        assertThat(get("/c/file/a").headers().firstValue("Surrogate-Key")).hasValue("/docs/a.xml");
        // The rule a follower applies, purging the changed path, its folders and "*", covers what this cache evicts.
        HttpResponse<String> stored = get("/c/stored/s");
        put("/docs/s.xml", "<doc><title>changed</title></doc>");
        assertThat(List.of("/docs/s.xml", "/docs/", "/", "*")).containsAnyElementsOf(
                List.of(stored.headers().firstValue("Surrogate-Key").orElseThrow().split(" ")));
    }

    @Test
    void aBodyByReferenceStreamsAStoredBinaryOrAContentFileWithItsValidators() throws IOException {
        byte[] png = new byte[300_000];
        new java.util.Random(5).nextBytes(png);
        try (WriteTransaction w = store.write()) {
            w.putBinary("/docs/x.png", "image/png", new java.io.ByteArrayInputStream(png));
            w.commit();
        }
        byte[] pdf = "%PDF-1.4 a file under the content folder".getBytes(StandardCharsets.US_ASCII);
        Files.write(root.resolve("content/docs/y.pdf"), pdf);
        start(false, null);

        HttpResponse<byte[]> stored = bytes("/c/binary/store/x.png");
        assertThat(stored.statusCode()).isEqualTo(200);
        assertThat(stored.body()).isEqualTo(png);
        assertThat(stored.headers().firstValue("Content-Type")).hasValue("image/png");
        assertThat(stored.headers().firstValueAsLong("Content-Length")).hasValue(png.length);
        String etag = stored.headers().firstValue("ETag").orElseThrow();
        assertThat(stored.headers().firstValue("Last-Modified")).isPresent();
        // Conditional: 304 without a body; HEAD: the headers only.
        HttpResponse<byte[]> again = bytes("/c/binary/store/x.png", "If-None-Match", etag);
        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        HttpResponse<String> head = send(HttpRequest.newBuilder(uri("/c/binary/store/x.png"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
        assertThat(head.headers().firstValueAsLong("Content-Length")).hasValue(png.length);
        assertThat(head.body()).isEmpty();
        // Streamed, not kept: the bytes are already where they come from.
        assertThat(server.sites().cacheStats().get("c").memory().entries()).isZero();

        // content: takes the file when the store has nothing there.
        HttpResponse<byte[]> file = bytes("/c/binary/content/y.pdf");
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body()).isEqualTo(pdf);
        assertThat(file.headers().firstValue("Content-Type")).hasValue("application/pdf");
        // A new version is a new ETag; nothing there is the site's 404; an XML document is refused.
        try (WriteTransaction w = store.write()) {
            w.putBinary("/docs/x.png", "image/png", new java.io.ByteArrayInputStream(new byte[] {1, 2, 3}));
            w.commit();
        }
        HttpResponse<byte[]> changed = bytes("/c/binary/store/x.png", "If-None-Match", etag);
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body()).containsExactly(1, 2, 3);
        assertThat(get("/c/binary/store/missing.png").statusCode()).isEqualTo(404);
        assertThat(get("/c/binary/content/..%2F..%2Fsites%2Fc%2Fsite.xml").statusCode()).isIn(400, 404);
        HttpResponse<String> xml = get("/c/binary/store/s.xml");
        assertThat(xml.statusCode()).isEqualTo(500);
    }

    @Test
    void aPageThatLookedUpAValueIndexIsRebuiltAfterAnyCommit() throws IOException {
        put("/_config/indexes.xml", "<indexes xmlns='urn:arno:indexes'>"
                + "<index name='code' match='doc' value='code'/></indexes>");
        put("/docs/x.xml", "<doc><title>ex</title><code>K</code></doc>");
        start(false, null);
        assertThat(get("/c/lookup/K").body()).isEqualTo("ex");
        assertThat(get("/c/lookup/K").body()).isEqualTo("ex");
        assertThat(CountingStage.runs("lookup")).as("the second from the cache").isEqualTo(1);
        // A new document with the same code: not a document the page read, but the lookup would find it.
        put("/docs/y.xml", "<doc><title>why</title><code>K</code></doc>");
        assertThat(get("/c/lookup/K").body()).isEqualTo("ex,why");
        assertThat(get("/c/lookup/L").body()).isEmpty();
    }

    @Test
    void inProductionFilesAreLookedAtOncePerRevalidationIntervalAndTtlExpires() throws IOException {
        start(false, now::get);
        assertThat(get("/c/file/a").body()).contains("File A");
        assertThat(get("/ttl").statusCode()).isEqualTo(404); // no site at /ttl: the route is /c/ttl
        assertThat(get("/c/ttl").body()).isEqualTo("plain");
        Path a = root.resolve("content/docs/a.xml");
        Files.writeString(a, "<doc><title>File A, edited</title></doc>");
        Files.setLastModifiedTime(a, FileTime.fromMillis(System.currentTimeMillis() + 5000));
        assertThat(get("/c/file/a").body()).as("within the 2 s interval").contains("File A<");
        now.addAndGet(Duration.ofMillis(2100).toNanos());
        assertThat(get("/c/file/a").body()).as("after the interval").contains("File A, edited");
        assertThat(get("/c/ttl").body()).isEqualTo("plain");
        assertThat(CountingStage.runs("ttl")).isEqualTo(1);
        now.addAndGet(Duration.ofSeconds(8).toNanos());
        assertThat(get("/c/ttl").body()).isEqualTo("plain");
        assertThat(CountingStage.runs("ttl")).as("built again after 10 s").isEqualTo(2);
        assertThat(server.sites().cacheStats().get("c").stale()).isEqualTo(2);
    }

    @Test
    void theDiskTierSurvivesARestartAndADamagedEntryIsRebuilt() throws IOException {
        start(false, null);
        String page = get("/c/file/a").body();
        assertThat(CountingStage.runs("file")).isEqualTo(1);
        restart(false); // close writes memory's pages to DATA/cache/c
        List<Path> files = entries();
        assertThat(files).hasSize(1);
        assertThat(get("/c/file/a").body()).isEqualTo(page);
        assertThat(CountingStage.runs("file")).as("served from disk after the restart").isEqualTo(1);
        assertThat(server.sites().cacheStats().get("c").disk().hits()).isEqualTo(1);
        server.close();
        server = null;
        Path file = entries().get(0);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 10)); // a torn write
        start(false, null);
        assertThat(get("/c/file/a").body()).isEqualTo(page);
        assertThat(CountingStage.runs("file")).as("rebuilt").isEqualTo(2);
        assertThat(server.sites().cacheStats().get("c").corrupt()).isEqualTo(1);
        // A damaged value with an intact header is found at the lookup, dropped, and rebuilt.
        restart(false);
        file = entries().get(0);
        bytes = Files.readAllBytes(file);
        bytes[bytes.length - 20] ^= 0x55;
        Files.write(file, bytes);
        assertThat(get("/c/file/a").body()).isEqualTo(page);
        assertThat(CountingStage.runs("file")).isEqualTo(3);
        assertThat(server.sites().cacheStats().get("c").corrupt()).isEqualTo(1);
    }

    @Test
    void theChangeFeedFollowerEvictsDependentPages() throws InterruptedException {
        start(false, null);
        assertThat(get("/c/stored/s").body()).isEqualTo("one");
        assertThat(get("/c/file/a").statusCode()).isEqualTo(200);
        assertThat(server.sites().cacheStats().get("c").memory().entries()).isEqualTo(2);
        put("/docs/s.xml", "<doc><title>two</title></doc>");
        Wait.upTo(Duration.ofSeconds(5)).until(() -> server.sites().cacheStats().get("c").invalidations(), n -> n > 0);
        PageCacheStats stats = server.sites().cacheStats().get("c");
        assertThat(stats.invalidations()).isEqualTo(1);
        assertThat(stats.memory().entries()).as("the file page stays").isEqualTo(1);
        assertThat(get("/c/stored/s").body()).isEqualTo("two");
        assertThat(CountingStage.runs("stored")).isEqualTo(2);
    }

    /**
     * Writers commit versions 1, 2, 3… of a document while readers fetch its page over HTTP: every
     * page shows a version at least the last one committed before its request started, however the
     * cache's puts, hits, checks and the follower's evictions interleave.
     */
    @Test
    void aRequestThatStartsAfterACommitNeverGetsAnOlderPage() throws Exception {
        start(false, null);
        put("/docs/f.xml", "<doc><title>0</title></doc>");
        AtomicLong committed = new AtomicLong();
        AtomicLong next = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicLong pages = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            threads.add(new Thread(() -> {
                while (running.get()) {
                    long n;
                    try (WriteTransaction t = store.write()) {
                        // Numbers grow in commit order: taken inside the write transaction, which writers hold one at a time.
                        n = next.incrementAndGet();
                        t.put("/docs/f.xml", ("<doc><title>" + n + "</title></doc>").getBytes(StandardCharsets.UTF_8));
                        t.commit();
                    }
                    committed.accumulateAndGet(n, Math::max);
                    sleep(15);
                }
            }));
        }
        for (int r = 0; r < 4; r++) {
            threads.add(new Thread(() -> {
                while (running.get()) {
                    long floor = committed.get();
                    HttpResponse<String> page = get("/c/stored/f");
                    long seen = Long.parseLong(page.body().trim());
                    pages.incrementAndGet();
                    if (seen < floor) failures.add("saw version " + seen + " after " + floor + " was committed");
                }
            }));
        }
        threads.forEach(Thread::start);
        Thread.sleep(3000);
        running.set(false);
        for (Thread t : threads) t.join(10_000);
        assertThat(failures).isEmpty();
        PageCacheStats stats = server.sites().cacheStats().get("c");
        assertThat(pages.get()).isGreaterThan(100);
        assertThat(committed.get()).isGreaterThan(20);
        assertThat(stats.memory().hits()).as("the cache answered some of them").isPositive();
        assertThat(CountingStage.runs("stored")).as("and the pipeline others").isGreaterThan(20);
    }

    // ----- Helpers. -----

    /**
     * Issue 25: every site's pages in memory share one budget. Two sites (c and a copy of it, c2),
     * each allowed 1 MB by its site.xml, under a budget of five pages: the pages of both together
     * never pass it, both keep some, each site's figures add up to the budget's, and a page pushed
     * out of memory by the other site's pages is on its own site's disk, served without running
     * the pipeline again.
     */
    @Test
    void everySitesPagesShareOneMemoryBudget() throws IOException {
        Path c2 = root.resolve("sites/c2");
        FileUtils.copyDirectory(root.resolve("sites/c").toFile(), c2.toFile());
        Files.writeString(c2.resolve("site.xml"), Files.readString(c2.resolve("site.xml"))
                .replace("name=\"c\"", "name=\"c2\"").replace("<prefix>/c</prefix>", "<prefix>/c2</prefix>"));
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = root;
        b.port = 0;
        b.pageCacheMemory = 40_000;
        server = ArnoServer.start(b.build(), store, null);
        for (int i = 0; i < 12; i++) {
            for (String site : List.of("c", "c2")) {
                assertThat(get("/" + site + "/file/a?p=" + i).statusCode()).isEqualTo(200);
                PageCacheBudget budget = server.sites().cacheBudget();
                Map<String, PageCacheStats> stats = server.sites().cacheStats();
                assertThat(budget.budget()).isEqualTo(40_000);
                assertThat(budget.bytes()).as("after %s's page %d", site, i).isLessThanOrEqualTo(40_000)
                        .isEqualTo(stats.get("c").memory().bytes() + stats.get("c2").memory().bytes());
                assertThat(budget.entries()).isEqualTo(stats.get("c").memory().entries() + stats.get("c2").memory().entries());
            }
        }
        Map<String, PageCacheStats> stats = server.sites().cacheStats();
        assertThat(stats.get("c").memory().bytes() / stats.get("c").memory().entries()).as("a page's weight").isLessThan(10_000);
        assertThat(stats.get("c").memoryCap()).as("site.xml's 1M, within the budget").isEqualTo(40_000);
        assertThat(stats.get("c").memory().entries()).isPositive();
        assertThat(stats.get("c2").memory().entries()).isPositive();
        assertThat(stats.get("c").memory().evictions() + stats.get("c2").memory().evictions()).isPositive();
        int runs = CountingStage.runs("file");
        assertThat(get("/c/file/a?p=0").statusCode()).isEqualTo(200);
        assertThat(CountingStage.runs("file")).as("c's first page, pushed out of memory, came from c's disk").isEqualTo(runs);
        assertThat(server.sites().cacheStats().get("c").disk().hits()).isEqualTo(1);
    }

    /** With a budget of 0 each site keeps its own memory tier of its site.xml's size, as before issue 25. */
    @Test
    void aBudgetOfZeroGivesEachSiteItsOwnTier() {
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = root;
        b.port = 0;
        b.pageCacheMemory = 0;
        server = ArnoServer.start(b.build(), store, null);
        get("/c/file/a");
        assertThat(server.sites().cacheBudget()).isNull();
        assertThat(server.sites().cacheStats().get("c").memoryCap()).isEqualTo(1 << 20);
        assertThat(server.sites().cacheStats().get("c").memory().entries()).isEqualTo(1);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<Path> entries() throws IOException {
        try (Stream<Path> s = Files.list(root.resolve("cache/c"))) {
            return s.filter(p -> p.toString().endsWith(".entry")).toList();
        }
    }

    private long put(String path, String xml) {
        try (WriteTransaction w = store.write()) {
            w.put(path, xml.getBytes(StandardCharsets.UTF_8));
            return w.commit();
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) b.headers(headers);
        return send(b.GET().build());
    }

    private HttpResponse<byte[]> bytes(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) b.headers(headers);
        try {
            return client.send(b.GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        return Http.send(client, request);
    }
}
