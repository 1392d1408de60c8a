package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.LocalLoad;
import arno.server.Main;
import arno.server.RunFile;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./arno store load} while {@code ./arno serve} holds the store: the command finds the
 * server through the run file and the server loads the files (its writer, its group commits),
 * serving all the while; what the load stores is then read back over the store API and, after
 * the server has stopped, straight from the store.
 */
@ExtendWith(CheckoutHome.class)
class StoreLoadWhileServingTest {
    @TempDir
    Path tmp;
    Path data;
    Path sites;
    Path content;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();


    @BeforeEach
    void folders() throws IOException {
        data = tmp.resolve("data");
        sites = Files.createDirectories(tmp.resolve("sites"));
        content = tmp.resolve("content");
        write("/journals.atom", entry("journals", "Journals"));
        write("/journals/jx.atom", entry("journal", "Journal X"));
        for (int v = 1; v <= 3; v++) {
            write("/journals/jx/v" + v + ".atom", entry("volume", "Volume " + v));
            write("/journals/jx/v" + v + "/i1.atom", entry("issue", "Issue " + v + ".1"));
            for (int a = 1; a <= 5; a++) {
                String p = "/journals/jx/v" + v + "/i1/a" + a;
                write(p + ".atom", entry("article", "Article " + v + "." + a));
                write(p + ".xml", "<article><front><article-title>Article " + v + "." + a + "</article-title></front></article>");
            }
        }
    }

    private void write(String path, String text) throws IOException {
        Path f = content.resolve(path.substring(1));
        Files.createDirectories(f.getParent());
        Files.writeString(f, text, StandardCharsets.UTF_8);
    }

    private static String entry(String kind, String title) {
        return "<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>" + title + "</title>"
                + "<category scheme=\"urn:arno:kind\" term=\"" + kind + "\"/></entry>";
    }

    /** Runs {@code serve} on an ephemeral port with {@code during} while it serves; returns what it printed. */
    private String serving(IntConsumer during) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString()},
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true, StandardCharsets.UTF_8),
                Cli.serving(during));
        String printed = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as(printed).isZero();
        return printed;
    }

    private HttpResponse<String> get(int port, String path) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void loadsResourcesThroughTheRunningServer() {
        List<Cli> loads = new ArrayList<>();
        List<HttpResponse<String>> reads = new ArrayList<>();
        serving(port -> {
            assertThat(RunFile.find(data)).as("the run file while serving").isPresent();
            loads.add(Cli.run("store", "load", "--resources", content.toString(), "--data", data.toString()));
            reads.add(get(port, "/store/journals/jx/v2/i1/a3.atom"));
            reads.add(get(port, "/store/journals/jx/v2/i1/a3.xml"));
            reads.add(get(port, "/store/journals/jx/v2/i1/"));
        });
        Cli load = loads.get(0);
        assertThat(load.status()).as(load.err()).isZero();
        assertThat(load.err()).contains("holds the store; loading through it")
                .containsPattern("loaded .* in [0-9.]+ s: 23 entries, 15 variants")
                .doesNotContain(LocalLoad.END.substring(0, 1));
        assertThat(reads.get(0).statusCode()).as(reads.get(0).body()).isEqualTo(200);
        assertThat(reads.get(0).body()).contains("Article 2.3").contains("rel=\"alternate\"");
        assertThat(reads.get(1).body()).contains("<article-title>Article 2.3</article-title>");
        assertThat(reads.get(2).body()).contains("Article 2.1").contains("Article 2.5");
        // Stopped: the run file is gone, and what the server loaded is in the store for good.
        assertThat(RunFile.find(data)).isEmpty();
        assertThat(data.resolve(RunFile.NAME)).doesNotExist();
        try (Store s = Store.openExisting(data.resolve("store"), StoreOptions.defaults()); Snapshot snap = s.read()) {
            assertThat(snap.exists("/journals/jx/v3/i1/a5.atom")).isTrue();
            assertThat(snap.exists("/journals/jx/v3/i1/a5.xml")).isTrue();
        }
    }

    @Test
    void indexesAreAddedListedAndRemovedThroughTheRunningServer() throws IOException {
        Path config = tmp.resolve("indexes.xml");
        Files.writeString(config, "<indexes xmlns='urn:arno:indexes' xmlns:atom='http://www.w3.org/2005/Atom'>"
                + "<index name='title' match='atom:entry' value='atom:title'/></indexes>");
        Path broken = tmp.resolve("broken.xml");
        Files.writeString(broken, "<indexes xmlns='urn:arno:indexes'><index name='x'/></indexes>");
        List<Cli> runs = new ArrayList<>();
        List<HttpResponse<String>> pages = new ArrayList<>();
        serving(port -> {
            runs.add(Cli.run("store", "load", "--resources", content.toString(), "--data", data.toString()));
            runs.add(Cli.run("store", "index", "add", config.toString(), "--data", data.toString()));
            runs.add(Cli.run("store", "index", "list", "--data", data.toString()));
            runs.add(Cli.run("store", "paths", "--data", data.toString()));
            runs.add(Cli.run("store", "index", "add", broken.toString(), "--data", data.toString()));
            runs.add(Cli.run("store", "index", "remove", "title", "--data", data.toString()));
            pages.add(get(port, "/store/"));
        });
        Cli add = runs.get(1);
        assertThat(add.status()).as(add.err()).isZero();
        assertThat(add.err()).contains("holds the store; asking it").contains("title").doesNotContain("store-locked");
        Cli list = runs.get(2);
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).contains("name=\"title\"").contains("atom:entry");
        Cli paths = runs.get(3);
        assertThat(paths.status()).as(paths.err()).isZero();
        assertThat(paths.out()).contains("entry");
        Cli bad = runs.get(4);
        assertThat(bad.status()).as("a broken configuration is refused before the server is asked").isNotZero();
        assertThat(bad.err()).doesNotContain("asking it");
        Cli remove = runs.get(5);
        assertThat(remove.status()).as(remove.err()).isZero();
        assertThat(pages.get(0).statusCode()).as("still serving").isEqualTo(200);
        try (Store s = Store.openExisting(data.resolve("store"), StoreOptions.defaults()); Snapshot snap = s.read()) {
            assertThat(snap.indexes().toString()).doesNotContain("title");
        }
    }

    @Test
    void loadsPlainDocumentsThroughTheRunningServerAndReportsTheBadOnes() throws IOException {
        Path docs = Files.createDirectories(tmp.resolve("docs"));
        Files.writeString(docs.resolve("good.xml"), "<good/>");
        Files.writeString(docs.resolve("bad.xml"), "<bad>\n  <unclosed>\n</bad>");
        List<Cli> loads = new ArrayList<>();
        List<HttpResponse<String>> pages = new ArrayList<>();
        serving(port -> {
            loads.add(Cli.run("store", "load", docs.toString(), "--prefix", "/reports", "--data", data.toString()));
            pages.add(get(port, "/store/"));
        });
        Cli load = loads.get(0);
        assertThat(load.status()).as(load.err()).isEqualTo(1);
        assertThat(load.err()).contains("bad.xml").contains("line 3").contains("1 failed");
        assertThat(pages.get(0).statusCode()).as("still serving").isEqualTo(200);
        try (Store s = Store.openExisting(data.resolve("store"), StoreOptions.defaults()); Snapshot snap = s.read()) {
            assertThat(snap.exists("/reports/good.xml")).isTrue();
            assertThat(snap.exists("/reports/bad.xml")).isFalse();
        }
    }

    @Test
    void aFulltextConfigurationTheIndexWouldRefuseIsNotStoredByALoadNorOverHttp() throws Exception {
        Path cfg = Files.createDirectories(tmp.resolve("cfg"));
        Files.writeString(cfg.resolve("fulltext.xml"), "<fulltext xmlns=\"urn:arno:fulltext\">\n"
                + "  <field name=\"title\" select=\"title\"/>\n  <field name=\"body\" select=\"((body\"/>\n</fulltext>");
        List<Cli> loads = new ArrayList<>();
        List<HttpResponse<String>> answers = new ArrayList<>();
        serving(port -> {
            loads.add(Cli.run("store", "load", cfg.resolve("fulltext.xml").toString(), "--prefix", "/_config",
                    "--data", data.toString()));
            try {
                answers.add(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/store/_config/fulltext.xml"))
                        .PUT(HttpRequest.BodyPublishers.ofString("<fulltext xmlns=\"urn:arno:fulltext\"/>"))
                        .header("Content-Type", "application/xml").build(), HttpResponse.BodyHandlers.ofString()));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
            answers.add(get(port, "/store/"));
        });
        Cli load = loads.get(0);
        assertThat(load.status()).as(load.err()).isEqualTo(1);
        assertThat(load.err()).contains("fulltext.xml").contains("line 3")
                .contains("the field 'body' has the XPath '((body', which does not compile");
        assertThat(answers.get(0).statusCode()).as(answers.get(0).body()).isIn(401, 403);
        assertThat(answers.get(1).statusCode()).as("still serving").isEqualTo(200);
        try (Store s = Store.openExisting(data.resolve("store"), StoreOptions.defaults()); Snapshot snap = s.read()) {
            assertThat(snap.exists("/_config/fulltext.xml")).isFalse();
        }
    }

    @Test
    void refusesAWrongTokenAGetAndBadParameters() {
        List<HttpResponse<String>> answers = new ArrayList<>();
        serving(port -> {
            try {
                URI uri = URI.create("http://127.0.0.1:" + port + LocalLoad.PATH);
                answers.add(client.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer not-the-token")
                        .POST(HttpRequest.BodyPublishers.ofString("path=/etc")).build(), HttpResponse.BodyHandlers.ofString()));
                answers.add(client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()));
                String token = RunFile.find(data).orElseThrow().token();
                for (String form : List.of("task=nonsense", "batch=many")) {
                    answers.add(client.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString()));
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(answers.get(0).statusCode()).isEqualTo(401);
        assertThat(answers.get(0).body()).contains("unauthorized").contains(RunFile.NAME);
        assertThat(answers.get(1).statusCode()).isEqualTo(405);
        assertThat(answers.get(2).statusCode()).isEqualTo(400);
        assertThat(answers.get(2).body()).contains("bad-parameter").contains("task must be one of").contains("not 'nonsense'");
        assertThat(answers.get(3).statusCode()).isEqualTo(400);
        assertThat(answers.get(3).body()).contains("bad-parameter").contains("batch must be a number, not 'many'");
    }

    @Test
    void aServerServingFilesLeavesTheStoreToTheCommand() {
        List<Cli> loads = new ArrayList<>();
        List<RunFile> found = new ArrayList<>();
        IntConsumer during = port -> {
            found.add(RunFile.find(data).orElseThrow());
            loads.add(Cli.run("store", "load", "--resources", content.toString(), "--data", data.toString()));
        };
        int status = Main.run(new String[] {"serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString(),
                "--content-from", "files"}, new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(new ByteArrayOutputStream(), true), Cli.serving(during));
        assertThat(status).isZero();
        assertThat(found.get(0).store()).as("the run file says the server holds no store").isFalse();
        Cli load = loads.get(0);
        assertThat(load.status()).as(load.err()).isZero();
        assertThat(load.err()).doesNotContain("loading through it").contains("23 entries, 15 variants");
    }

    @Test
    void aStaleRunFileFromAKilledServerIsIgnored() throws IOException {
        // A server killed with -9 leaves its file; its pid is dead, so the command opens the store itself.
        Files.createDirectories(data);
        Files.writeString(data.resolve(RunFile.NAME), "pid=" + Long.MAX_VALUE + "\nurl=http://127.0.0.1:9\ntoken=x\n");
        Cli load = Cli.run("store", "load", "--resources", content.toString(), "--data", data.toString());
        assertThat(load.status()).as(load.err()).isZero();
        assertThat(load.err()).doesNotContain("loading through it").contains("23 entries, 15 variants");
    }
}
