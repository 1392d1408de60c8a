package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Snapshot;
import arno.store.Store;
import arno.testkit.Http;
import arno.testkit.Wait;
import arno.xml.Accounts;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill -9 of the server while clients write through the store API loses no acknowledged write
 * and leaves nothing partial. The server is a real separate JVM ({@code arno.server.Main serve}
 * on this test's class path), killed with SIGKILL while four clients post articles, each with a
 * JATS variant; then the store is opened here as the next server would open it.
 */
class KillDuringWritesTest {
    private static final String USER = "writer:writer-password-1234";

    @TempDir
    Path tmp;

    @Test
    void everyAcknowledgedWriteSurvivesAKillAndNothingPartialIsLeft() throws Exception {
        Path data = tmp.resolve("data");
        Path sites = Files.createDirectories(tmp.resolve("sites"));
        new Accounts(Files.createDirectories(data.resolve("batch")).resolve("users"))
                .add("writer", "writer-password-1234", EnumSet.of(Accounts.Role.READ, Accounts.Role.WRITE));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "arno.server.Main", "serve",
                "--production", "--port", "0", "--data", data.toString(), "--sites", sites.toString())
                .redirectErrorStream(true).start();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean killed = new AtomicBoolean();
        try {
            String base = "http://127.0.0.1:" + port(server) + "/store";
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            post(http, base + "/", "journals", entry("journals", "Journals"));
            post(http, base + "/journals/", "ja", entry("journal", "Journal A"));
            post(http, base + "/journals/ja/", null, entry("volume", "Volume 1"));
            post(http, base + "/journals/ja/v1/", null, entry("issue", "Issue 1"));
            List<CompletableFuture<Void>> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                clients.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; !killed.get(); i++) {
                        String slug = "c" + client + "n" + i;
                        try {
                            String where = base + "/journals/ja/v1/i1/";
                            HttpResponse<String> r = send(http, HttpRequest.newBuilder(URI.create(where))
                                    .header("Slug", slug).header("Content-Type", "application/atom+xml")
                                    .POST(HttpRequest.BodyPublishers.ofString(entry("article", "Article " + slug))));
                            if (r.statusCode() != 201) throw new AssertionError(where + " " + slug + ": " + r.statusCode() + " " + r.body());
                            HttpResponse<String> v = send(http, HttpRequest.newBuilder(URI.create(where + slug + ".xml"))
                                    .header("If-None-Match", "*").header("Content-Type", "application/xml")
                                    .PUT(HttpRequest.BodyPublishers.ofString("<article><front><title>" + slug
                                            + "</title></front><body>" + "<p>text</p>".repeat(200) + "</body></article>")));
                            if (v.statusCode() != 201) throw new AssertionError(slug + ".xml: " + v.statusCode() + " " + v.body());
                            acknowledged.add(slug);
                        } catch (IOException e) {
                            if (!killed.get()) throw new AssertionError(e);
                            return; // the server died under this request: it was not acknowledged
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
            // Let the writes run until a good number are acknowledged, then kill mid-stream.
            Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                for (CompletableFuture<Void> f : clients) if (f.isDone()) f.join(); // a client's failure ends the test
                return acknowledged.size() >= 200;
            });
            killed.set(true);
            server.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no close
            server.waitFor(30, TimeUnit.SECONDS);
            for (CompletableFuture<Void> f : clients) f.get(30, TimeUnit.SECONDS);
        } finally {
            killed.set(true);
            server.destroyForcibly();
            server.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(200);
        try (Store store = Store.open(data.resolve("store")); Snapshot s = store.read()) {
            assertThat(store.check()).isEmpty();
            for (String slug : acknowledged) {
                String p = "/journals/ja/v1/i1/" + slug;
                assertThat(s.exists(p + ".atom")).as(p + ".atom").isTrue();
                assertThat(s.exists(p + ".xml")).as(p + ".xml").isTrue();
            }
            // Nothing partial: every stored article entry is whole, and a variant never lacks its entry.
            for (String name : s.children("/journals/ja/v1/i1/")) {
                String doc = "/journals/ja/v1/i1/" + name;
                if (name.endsWith(".xml")) {
                    assertThat(s.exists(doc.replace(".xml", ".atom"))).as("entry of " + doc).isTrue();
                } else if (name.endsWith(".atom")) {
                    String text = new net.sf.saxon.s9api.XdmNode(
                            s.document(doc, new net.sf.saxon.Configuration()).getRootNode()).getStringValue();
                    assertThat(text).as(doc).contains("Article ");
                }
            }
        }
    }

    private static String entry(String kind, String title) {
        return "<entry xmlns='http://www.w3.org/2005/Atom'><title>" + title + "</title>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/></entry>";
    }

    private static void post(HttpClient http, String url, String slug, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/atom+xml")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (slug != null) b.header("Slug", slug);
        HttpResponse<String> r = send(http, b);
        assertThat(r.statusCode()).as(url + " " + r.body()).isEqualTo(201);
    }

    private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.timeout(Duration.ofSeconds(30))
                .header("Authorization", Http.basic(USER))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Reads the server's output until it says where it listens. */
    private static int port(Process server) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        Pattern serving = Pattern.compile("serving on http://[^:]+:(\\d+)/");
        StringBuilder seen = new StringBuilder();
        for (String line; (line = r.readLine()) != null; ) {
            seen.append(line).append('\n');
            Matcher m = serving.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        while (r.readLine() != null) { /* keep the pipe from filling */ }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("the server ended without serving:\n" + seen);
    }
}
