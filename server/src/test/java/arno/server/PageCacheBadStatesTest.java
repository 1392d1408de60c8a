package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.pipeline.PageCacheStats;
import arno.server.config.Config;
import arno.store.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The page caches' bad states on the wire (issue 13, item 7), with a real Arno on embedded Tomcat,
 * a real store and the site under src/test/resources/cacheroot: a disk tier that cannot be
 * opened or written leaves the cache in memory with one warning in the log; a crash in the middle
 * of a write leaves nothing that is served. (Damaged and torn entries: PageCacheHttpTest.) The
 * tests run as root, for whom permissions stop no write, so an unwritable folder is made by
 * putting a file where the folder should be.
 */
class PageCacheBadStatesTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Path root;
    private Store store;
    private ArnoServer server;

    @BeforeEach
    void copy() throws IOException {
        root = Files.createTempDirectory("arno-cache-bad");
        FileUtils.copyDirectory(Path.of("src/test/resources/cacheroot").toFile(), root.toFile());
        store = Store.open(root.resolve("store"));
        CountingStage.RUNS.clear();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        store.close();
        FileUtils.deleteQuietly(root.toFile());
    }

    private void start() {
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = root;
        b.production = true;
        b.port = 0;
        server = ArnoServer.start(b.build(), store, null);
    }

    private PageCacheStats stats() {
        return server.sites().cacheStats().get("c");
    }

    @Test
    void aDiskTierThatCannotBeOpenedLeavesThePagesInMemoryWithOneWarning() throws IOException {
        Files.createDirectories(root.resolve("cache"));
        Files.writeString(root.resolve("cache/c"), "a file where the folder should be");
        try (LogCapture log = new LogCapture()) {
            start();
            assertThat(get("/c/file/a").statusCode()).isEqualTo(200);
            assertThat(get("/c/file/a").statusCode()).isEqualTo(200);
            assertThat(CountingStage.runs("file")).as("the second is a memory hit").isEqualTo(1);
            assertThat(log.containing("cannot use its disk tier")).hasSize(1);
            assertThat(log.containing("cannot use its disk tier").get(0)).contains("site 'c'").contains("memory only");
        }
        assertThat(stats().diskFailure()).isNotNull();
        assertThat(stats().memory().hits()).isEqualTo(1);
    }

    @Test
    void aDiskThatFailsWhileServingTurnsTheCacheMemoryOnlyWithOneWarning() throws IOException {
        start();
        assertThat(get("/c/file/a").statusCode()).isEqualTo(200);
        Path folder = root.resolve("cache/c");
        assertThat(folder).isDirectory();
        // The disk goes away under the running server (full, unmounted, made read-only): a file takes its place.
        Files.move(folder, root.resolve("cache/c-aside"));
        Files.writeString(folder, "not a folder");
        try (LogCapture log = new LogCapture()) {
            // 1M of memory holds 256 pages by count (a key per 4K): 400 pages make memory evict, so write to disk.
            for (int i = 0; i < 400; i++) {
                assertThat(get("/c/file/a?p=" + i).statusCode()).isEqualTo(200);
            }
            assertThat(log.containing("memory only")).as(String.join("\n", log.lines)).hasSize(1);
            assertThat(log.containing("memory only").get(0)).contains(folder.toString());
        }
        PageCacheStats s = stats();
        assertThat(s.diskFailure()).isNotNull();
        assertThat(s.memory().evictions()).isGreaterThan(100);
        assertThat(s.ioErrors()).as("one failed write; none tried after it").isEqualTo(1);
        int runs = CountingStage.runs("file");
        assertThat(get("/c/file/a?p=399").statusCode()).isEqualTo(200);
        assertThat(CountingStage.runs("file")).as("still cached in memory").isEqualTo(runs);
    }

    @Test
    void aWriteInterruptedByACrashLeavesNothingThatIsServed() throws IOException {
        start();
        String page = get("/c/file/a").body();
        server.close(); // writes the page to DATA/cache/c
        server = null;
        List<Path> files = entries();
        assertThat(files).hasSize(1);
        // A crash between the write and the rename: the whole entry is there, under its temporary name only.
        Path temp = files.get(0).resolveSibling(files.get(0).getFileName().toString().replace(".entry", ".tmp"));
        Files.move(files.get(0), temp);
        // And a crash in the middle of the write of another: half a temporary file.
        Path half = root.resolve("cache/c/00000000000000ff.tmp");
        Files.write(half, java.util.Arrays.copyOf(Files.readAllBytes(temp), 40));
        start();
        assertThat(get("/c/file/a").body()).isEqualTo(page);
        assertThat(CountingStage.runs("file")).as("built again: a temporary file is never read").isEqualTo(2);
        assertThat(stats().disk().hits()).isZero();
        assertThat(temp).as("deleted at start-up").doesNotExist();
        assertThat(half).doesNotExist();
    }

    private List<Path> entries() throws IOException {
        try (Stream<Path> s = Files.list(root.resolve("cache/c"))) {
            return s.filter(p -> p.toString().endsWith(".entry")).toList();
        }
    }

    private HttpResponse<String> get(String path) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
