package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import arno.server.config.Config;
import arno.store.Store;
import arno.testkit.Http;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./arno serve} through {@link Main#run}: a real server on an ephemeral port, and every
 * mistake a user can make ending in one line, exit status 1 or 2, before anything is written.
 */
@ExtendWith(CheckoutHome.class)
class ServeCommandTest {
    @TempDir
    Path tmp;
    Path data;
    Path sites;


    @BeforeEach
    void site() throws IOException {
        data = tmp.resolve("data");
        sites = Files.createDirectories(tmp.resolve("sites"));
        ServedSite.write(sites, """
                <route name="home" pattern="/">
                  <template xslt="t.xsl"/>
                </route>
                """);
    }

    private List<String> args(String... more) {
        List<String> a = new ArrayList<>(List.of("serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString()));
        a.addAll(List.of(more));
        return a;
    }

    private Cli serve(String... more) {
        return Cli.run(args(more).toArray(String[]::new));
    }

    @Test
    void servesTheSitesAndTheBatchServiceUntilStopped() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<HttpResponse<String>> responses = new ArrayList<>();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        IntConsumer during = port -> {
            String printed = err.toString(StandardCharsets.UTF_8);
            Matcher account = Pattern.compile("account for this data folder: (\\S+) ").matcher(printed);
            try {
                responses.add(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/t/")).build(),
                        HttpResponse.BodyHandlers.ofString()));
                HttpRequest.Builder batch = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/batch/"));
                if (account.find()) {
                    batch.header("Authorization", Http.basic(account.group(1)));
                }
                responses.add(client.send(batch.build(), HttpResponse.BodyHandlers.ofString()));
                responses.add(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/store/")).build(),
                        HttpResponse.BodyHandlers.ofString()));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        int status = Main.run(args().toArray(String[]::new), new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(err, true, StandardCharsets.UTF_8), Cli.serving(during));
        String printed = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as(printed).isZero();
        assertThat(responses).hasSize(3);
        assertThat(responses.get(0).statusCode()).isEqualTo(200);
        assertThat(responses.get(0).body()).isEqualTo("served t");
        // The batch service is mounted, and the development account printed at start-up opens it.
        assertThat(responses.get(1).statusCode()).as(responses.get(1).body()).isEqualTo(200);
        // The store API is mounted, on the store serve opened (created: content comes from the store by default).
        assertThat(responses.get(2).statusCode()).as(responses.get(2).body()).isEqualTo(200);
        assertThat(responses.get(2).headers().firstValue("Content-Type").orElse("")).startsWith("application/atomsvc+xml");
        assertThat(data.resolve("store")).isDirectory();
        assertThat(printed).contains("arno: batch service account for this data folder: ")
                .contains("(kept in " + data.resolve("batch/users") + ")")
                .containsPattern("arno: serving on http://127\\.0\\.0\\.1:[0-9]+/")
                // The server alone has no demo plugin: it says so, and serves what there is.
                .contains("the demo generator is not on the class path");
        assertThat(data.resolve("content/journals")).doesNotExist();
        // Stopped: the port is free again.
        HttpClient again = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI uri = responses.get(0).uri();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> again.send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString()))).isInstanceOf(IOException.class);
    }

    /**
     * Issue 21: under umask 022 the store, the accounts, batch reports and the page cache were
     * readable by every user of the machine. A served page cached to disk, a batch job, an account
     * added beside the running server: everything under the data folder is owner-only.
     */
    @Test
    void everythingWrittenUnderTheDataFolderIsOwnerOnly() throws Exception {
        ServedSite.write(sites, """
                <cache memory="1M"/>
                <route name="cached" pattern="/cached">
                  <cache/>
                  <template xslt="t.xsl"/>
                </route>
                """);
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.writeString(root.resolve("entry.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:template match="/"><entry><xsl:value-of select="article/title"/></entry></xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(root.resolve("a1.xml"), "<article><title>One</title></article>");
        Files.writeString(root.resolve("job.batch.xml"), """
                <batch xmlns="urn:arno:batch">
                  <stylesheet href="entry.xsl"/>
                  <input href="a1.xml" output="out/a1.xml"/>
                </batch>""");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<Object> seen = new ArrayList<>();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        IntConsumer during = port -> {
            Matcher account = Pattern.compile("account for this data folder: (\\S+) ").matcher(err.toString(StandardCharsets.UTF_8));
            assertThat(account.find()).isTrue();
            try {
                seen.add(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/t/cached")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode());
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
            seen.add(Cli.run("batch", "submit", root.resolve("job.batch.xml").toString(), "--user", account.group(1), "--wait",
                    "--server", "http://127.0.0.1:" + port));
            seen.add(OperationsServeTest.accounts("reader-password\n", "add", "reader", "--roles", "read", "--password-stdin",
                    "--data", data.toString()));
            seen.add(arno.xml.OwnerOnlyFiles.assertOwnerOnly(data)); // the run file exists while serving
        };
        int status = Main.run(args("--batch-root", root.toString()).toArray(String[]::new),
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true, StandardCharsets.UTF_8),
                Cli.serving(during));
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(seen.get(0)).isEqualTo(200);
        assertThat((Cli) seen.get(1)).satisfies(c -> assertThat(c.status()).as(c.err()).isZero());
        assertThat((Cli) seen.get(2)).satisfies(c -> assertThat(c.status()).as(c.err()).isZero());
        assertThat(root.resolve("out/a1.xml")).content().contains("<entry>One</entry>");
        @SuppressWarnings("unchecked")
        List<String> whileServing = (List<String>) seen.get(3);
        assertThat(whileServing).contains("arno-server", "batch/users", "store/data.mdb");
        // Stopped: the page cache has written its pages to disk too.
        List<String> checked = arno.xml.OwnerOnlyFiles.assertOwnerOnly(data);
        assertThat(checked).contains("", "store", "store/data.mdb", "store/lock.mdb", "batch", "batch/users", "batch/users.lock",
                "batch/jobs", "cache", "cache/t");
        assertThat(checked).anyMatch(f -> f.matches("batch/jobs/[^/]+/report\\.xml"));
        assertThat(checked).anyMatch(f -> f.startsWith("cache/t/") && !f.endsWith(".lock"));
    }

    /** An older Arno's data folder: its folders are made owner-only at the next start, and the log says so. */
    @Test
    void anOlderDataFolderIsMadeOwnerOnlyAtStart() throws Exception {
        Files.createDirectories(data.resolve("store"));
        Files.createDirectories(data.resolve("batch"));
        Files.setPosixFilePermissions(data.resolve("store"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(data.resolve("batch"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(data, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        try (arno.server.LogCapture log = new arno.server.LogCapture()) {
            Cli c = Cli.run(port -> { }, args().toArray(String[]::new));
            assertThat(c.status()).as(c.err()).isZero();
            assertThat(log.containing("could be read by other users"))
                    .containsExactly("store, batch in " + data + " could be read by other users of this machine; now only by this one");
            log.lines.clear();
            assertThat(Cli.run(port -> { }, args().toArray(String[]::new)).status()).isZero();
            assertThat(log.containing("could be read by other users")).isEmpty();
        }
        for (String f : new String[] {"store", "batch"}) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve(f))))
                    .as(f).isEqualTo("rwx------");
        }
        // the operator's own folder is theirs to set
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(data))).isEqualTo("rwxr-xr-x");
    }

    @Test
    void productionHasNoDevelopmentAccountAndNoDemoNote() {
        Cli c = Cli.run(port -> { }, args("--production").toArray(String[]::new));
        assertThat(c.status()).as(c.err()).isZero();
        assertThat(c.err()).doesNotContain("batch service account").doesNotContain("demo").contains("arno: serving on http://127.0.0.1:");
    }

    @Test
    void workersZeroIsOneLineAndNothingIsWritten() {
        serve("--workers", "0").failsWith("workers must be at least 1, not 0");
        assertThat(data).doesNotExist();
        serve("--queue", "0").failsWith("queue must hold at least 1 request, not 0");
        assertThat(data).doesNotExist();
    }

    @Test
    void aPortOutOfRangeIsOneLine() {
        Cli.run("serve", "--port", "70000", "--data", data.toString(), "--sites", sites.toString())
                .failsWith("port must be between 0 and 65535, not 70000");
        Cli.run("serve", "--port", "-1", "--data", data.toString(), "--sites", sites.toString())
                .failsWith("port must be between 0 and 65535, not -1");
        assertThat(data).doesNotExist();
    }

    @Test
    void aPortThatIsNotANumberIsAUsageError() {
        Cli.run("serve", "--port", "abc").isUsageError("'abc'", "arno serve");
    }

    @Test
    void aPortInUseIsOneLineAndNothingIsWritten() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            Cli.run("serve", "--port", Integer.toString(port), "--data", data.toString(), "--sites", sites.toString())
                    .failsWith("cannot listen on 127.0.0.1:" + port, "choose another --port");
        }
        assertThat(data).doesNotExist();
    }

    @Test
    void aBindAddressThatIsNotOneIsOneLine() {
        serve("--bind", "no-such-host.invalid").failsWith("bind address 'no-such-host.invalid'");
    }

    @Test
    void aMissingSitesFolderIsOneLine() {
        Path missing = tmp.resolve("no-sites");
        Cli.run("serve", "--port", "0", "--data", data.toString(), "--sites", missing.toString())
                .failsWith("sites folder", missing.toString(), "does not exist");
        assertThat(data).doesNotExist();
    }

    @Test
    void batchRootsMustExistAndMustNotExposeTheDataFolder() {
        Path missing = tmp.resolve("no-root");
        serve("--batch-root", missing.toString()).failsWith("batch root", missing.toString(), "does not exist");
        serve("--batch-root", tmp.toString()).failsWith("would expose the data folder");
        assertThat(data).doesNotExist();
    }

    @Test
    void anUnreadableSiteIsOneLineWithFileLineAndColumn() throws IOException {
        Path broken = sites.resolve("t/site.xml");
        Files.writeString(broken, """
                <site xmlns="urn:arno:site" name="t">
                  <prefix>/t</prefix>
                  <route name="home" pattern="/">
                    <tempalte xslt="t.xsl"/>
                  </route>
                </site>""");
        Files.createDirectories(data.resolve("content")); // content there: no note about demo content
        serve().failsWith("site.xml", "line 4", "column", "tempalte");
    }

    @Test
    void aLockedStoreIsOneLine() throws IOException {
        Path storeDir = Files.createDirectories(data.resolve("store"));
        try (Store held = Store.open(storeDir)) {
            serve().failsWith(storeDir.toString());
        }
    }

    @Test
    void anInvalidConfigurationFileIsOneLineWithFileLineAndColumn() throws IOException {
        Path file = Files.writeString(tmp.resolve("arno.xml"), "<arno xmlns='urn:arno:config'>\n  <http prot='80'/>\n</arno>");
        serve("--config", file.toString()).failsWith(file + " line 2 column", "prot");
        serve("--config", tmp.resolve("none.xml").toString()).failsWith("configuration file", "none.xml", "does not exist");
        assertThat(data).doesNotExist();
    }

    @Test
    void flagsOverrideTheFileWhichOverridesTheDefaults() throws IOException {
        Path file = Files.writeString(tmp.resolve("arno.xml"), """
                <arno xmlns="urn:arno:config">
                  <data>from-file</data>
                  <http port="9000"><host>file.example.org</host></http>
                  <pages workers="3" queue="7"/>
                  <batch><root>in</root></batch>
                </arno>""");
        Config fileOnly = parse("--config", file.toString());
        assertThat(fileOnly.data()).isEqualTo(tmp.resolve("from-file"));
        assertThat(fileOnly.port()).isEqualTo(9000);
        assertThat(fileOnly.workers()).isEqualTo(3);
        assertThat(fileOnly.queue()).isEqualTo(7);
        assertThat(fileOnly.hosts()).containsExactly("file.example.org");
        assertThat(fileOnly.batchRoots()).containsExactly(tmp.resolve("in"));
        assertThat(fileOnly.production()).isFalse();

        Config flags = parse("--config", file.toString(), "--data", data.toString(), "--port", "9100", "--workers", "5",
                "--host", "a.example.org", "--host", "b.example.org", "--batch-root", tmp.resolve("other").toString(),
                "--production", "--bind", "localhost");
        assertThat(flags.data()).isEqualTo(data);
        assertThat(flags.port()).isEqualTo(9100);
        assertThat(flags.workers()).isEqualTo(5);
        assertThat(flags.queue()).isEqualTo(7);
        assertThat(flags.hosts()).containsExactly("a.example.org", "b.example.org");
        assertThat(flags.batchRoots()).containsExactly(tmp.resolve("other"));
        assertThat(flags.production()).isTrue();
        assertThat(flags.bind()).isEqualTo("localhost");
    }

    private static Config parse(String... args) {
        ServeCommand command = new ServeCommand();
        new CommandLine(command).parseArgs(args);
        return command.configuration();
    }
}
