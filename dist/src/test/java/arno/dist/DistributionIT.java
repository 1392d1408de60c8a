package arno.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The distribution as an operator gets it: the tarball unpacked into a temporary folder far from
 * the source tree, {@code bin/arno serve} started with plain Java (no Maven, no checkout on the
 * class path), the demo served over HTTP, then a clean stop on SIGTERM.
 */
class DistributionIT {
    private static final Pattern SERVING = Pattern.compile("serving on (http://\\S+?):(\\d+)/");
    private Path work;
    private Process process;

    @BeforeEach
    void unpack() throws Exception {
        work = Files.createTempDirectory("arno-dist");
        Path tarball = Path.of(System.getProperty("arno.tarball"));
        assertThat(tarball).exists();
        Process tar = new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", work.toString()).inheritIO().start();
        assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).isZero();
    }

    @AfterEach
    void stop() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        try (var files = Files.walk(work)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void theUnpackedTarballServesTheDemoWithJavaAlone() throws Exception {
        Path home;
        try (var entries = Files.list(work)) {
            home = entries.findFirst().orElseThrow();
        }
        assertThat(home.getFileName().toString()).startsWith("arno-");
        assertThat(home.resolve("bin/arno")).isExecutable();
        assertThat(home.resolve("sites/journal-a/site.xml")).exists();
        assertThat(home.resolve("sites/static/journal.css")).exists();
        assertThat(home.resolve("conf/config-example.xml")).exists();
        assertThat(home.resolve("conf/arno.service")).exists();
        try (var jars = Files.list(home.resolve("lib"))) {
            assertThat(jars.map(p -> p.getFileName().toString()).toList())
                    .anyMatch(n -> n.startsWith("arno-server-")).anyMatch(n -> n.startsWith("Saxon-HE-"))
                    .anyMatch(n -> n.startsWith("arno-fulltext-"))
                    // Lucene's five jars: full-text search (fulltext/README.md)
                    .anyMatch(n -> n.startsWith("lucene-core-9.")).anyMatch(n -> n.startsWith("lucene-analysis-common-9."))
                    .anyMatch(n -> n.startsWith("lucene-queryparser-9.")).anyMatch(n -> n.startsWith("lucene-highlighter-9."))
                    .anyMatch(n -> n.startsWith("lucene-facet-9."));
        }

        // Started from the temporary folder: nothing of the checkout is on its class path or in its home.
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/arno").toString(), "serve", "--port", "0", "--articles", "3")
                .directory(work.toFile()).redirectErrorStream(true);
        pb.environment().remove("ARNO_HOME");
        pb.environment().remove("CLASSPATH");
        process = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        StringBuilder log = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) lines.add(line);
            } catch (IOException e) {
                // the process ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        String base = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (base == null && System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line == null) {
                assertThat(process.isAlive()).as("bin/arno serve ended early:%n%s", log).isTrue();
                continue;
            }
            log.append(line).append('\n');
            Matcher m = SERVING.matcher(line);
            if (m.find()) base = m.group(1).replace("localhost", "127.0.0.1") + ":" + m.group(2);
        }
        assertThat(base).as("bin/arno serve did not say where it serves:%n%s", log).isNotNull();

        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> home1 = client.send(HttpRequest.newBuilder(URI.create(base + "/journal-a/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(home1.statusCode()).as(log.toString()).isEqualTo(200);
        assertThat(home1.body()).contains("Journal of Coastal Hydrology").contains("/static/journal.css");
        HttpResponse<String> css = client.send(HttpRequest.newBuilder(URI.create(base + "/static/journal.css")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(css.statusCode()).isEqualTo(200);
        assertThat(css.body()).contains("--primary");
        HttpResponse<String> store = client.send(HttpRequest.newBuilder(URI.create(base + "/store/journals/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(store.statusCode()).as("the demo was loaded into the store").isEqualTo(200);
        // Full-text search from the distribution's own jars: an article found by a word of its title, once the index is built.
        HttpResponse<String> article = client.send(HttpRequest.newBuilder(URI.create(base + "/store/journals/ja/v1/i1/a0001.atom")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(article.statusCode()).as(article.body()).isEqualTo(200);
        Matcher title = Pattern.compile("<title[^>]*>([^<]*)</title>").matcher(article.body());
        assertThat(title.find()).isTrue();
        String word = java.util.Arrays.stream(title.group(1).split("\\W+")).filter(w -> w.length() > 5).findFirst().orElseThrow();
        HttpResponse<String> found = null;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); System.nanoTime() < end; Thread.sleep(200)) {
            found = client.send(HttpRequest.newBuilder(URI.create(base + "/store/search?q=" + word)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (found.statusCode() != 503) break;
        }
        assertThat(found.statusCode()).as(found.body()).isEqualTo(200);
        assertThat(found.body()).contains("/journals/ja/v1/i1/a0001").containsPattern("totalResults>[1-9]");

        process.destroy(); // SIGTERM: a clean stop
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
        assertThat(home.resolve("data/store")).as("the data folder is beside bin/ (ARNO_HOME)").exists();
    }
}
