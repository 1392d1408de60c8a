package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.LocalCache;
import arno.server.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./arno cache stats} and {@code ./arno cache clear} against a real {@code ./arno serve}
 * (embedded Tomcat on an ephemeral port, a real store) serving the page cache tests' site
 * (src/test/resources/cacheroot/sites): the command finds the server through the run file and
 * prints what the server's caches hold after real requests.
 */
class CacheCommandTest {
    private static final Path SITES = Path.of("src/test/resources/cacheroot/sites").toAbsolutePath();

    @TempDir
    Path tmp;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private void serving(IntConsumer during) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"serve", "--production", "--port", "0", "--data", tmp.resolve("data").toString(),
                        "--sites", SITES.toString()},
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true, StandardCharsets.UTF_8),
                Cli.serving(during));
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
    }

    private int get(int port, String path) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The row of {@code tier} in a printed table, split at its runs of spaces (the note is the rest). */
    private static List<String> row(String table, String tier) {
        for (String line : table.lines().toList()) {
            String[] cells = line.trim().split("\\s+", LocalCache.COLUMNS.size());
            if (cells.length > 2 && cells[1].equals(tier)) return List.of(cells);
        }
        throw new AssertionError("no row " + tier + " in\n" + table);
    }

    @Test
    void statsShowsTheRunningServersCachesAndClearDropsThem() {
        String data = tmp.resolve("data").toString();
        List<Cli> runs = new ArrayList<>();
        serving(port -> {
            assertThat(get(port, "/c/stored/s")).isNotEqualTo(200); // not in the store: an error page, not kept
            assertThat(get(port, "/c/ttl")).isEqualTo(200);
            assertThat(get(port, "/c/ttl")).isEqualTo(200);
            assertThat(get(port, "/c/ttl")).isEqualTo(200);
            assertThat(get(port, "/c/uncached")).isEqualTo(200);
            runs.add(Cli.run("cache", "stats", "--data", data));
            runs.add(Cli.run("cache", "clear", "c", "--data", data));
            runs.add(Cli.run("cache", "stats", "--data", data));
            runs.add(Cli.run("cache", "clear", "nosuch", "--data", data));
            runs.add(Cli.run("cache", "clear", "--data", data));
        });
        Cli stats = runs.get(0);
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.out().lines().findFirst().orElse("")).startsWith("SITE").contains("TIER").contains("HITS")
                .contains("MISSES").contains("EVICTIONS").contains("INVALIDATIONS").contains(" P ");
        // ttl: one miss then two memory hits; the 404 was a miss too, and not kept.
        assertThat(row(stats.out(), "pages-memory")).startsWith("c", "pages-memory", "1").element(4).isEqualTo("2");
        assertThat(row(stats.out(), "pages-memory").get(5)).isEqualTo("2");
        assertThat(row(stats.out(), "pages-disk")).startsWith("c", "pages-disk", "0", "0", "0", "-");
        // Every site's pages share the server's one budget (a quarter of the heap by default): its row, and the site's cap.
        assertThat(row(stats.out(), "pages-budget")).startsWith("*", "pages-budget", "1").element(9).asString()
                .contains("of a budget of " + arno.pipeline.PipelineConfig.DEFAULT_PAGE_CACHE_MEMORY + " bytes").contains("shared by 1 sites");
        assertThat(row(stats.out(), "pages-budget").get(3)).isEqualTo(row(stats.out(), "pages-memory").get(3));
        assertThat(row(stats.out(), "pages-memory").get(9)).contains("cap ");
        assertThat(row(stats.out(), "fragments")).startsWith("c", "fragments", "0");
        assertThat(row(stats.out(), "sources").get(9)).contains("fetched 0");
        assertThat(row(stats.out(), "files").get(9)).contains("of at most 65536");

        assertThat(runs.get(1).status()).as(runs.get(1).err()).isZero();
        assertThat(runs.get(1).out()).contains("cleared 1 entries of site c");
        assertThat(row(runs.get(2).out(), "pages-memory")).startsWith("c", "pages-memory", "0");
        runs.get(3).failsWith("no site 'nosuch'", "[c]");
        assertThat(runs.get(4).out()).contains("cleared 0 entries of site c");
    }

    @Test
    void withNoServerRunningItSaysHowToStartOne() {
        Cli.run("cache", "stats", "--data", tmp.toString()).failsWith("no Arno server is running", "./arno serve");
        Cli.run("cache", "clear", "--data", tmp.toString()).failsWith("no Arno server is running");
    }

    @Test
    void aCommandIsNeeded() {
        Cli.run("cache").isUsageError("a cache command is needed", "arno cache");
    }
}
