package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.cluster.TestPostgres;
import arno.server.config.Config;
import arno.server.config.ConfigFile;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./arno serve --cluster URL}: two nodes in this JVM (two servers, two ports, two data
 * folders) on one real PostgreSQL, each writing through the log and applying the other's writes;
 * the settings checked. (The demo loaded once into a cluster is the sites module's
 * {@code ClusterDemoTest}: the demo generator is not on this module's class path.)
 */
@ExtendWith(CheckoutHome.class)
class ClusterServeTest {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ServingNode node(String url, Path data) {
        return new ServingNode("--data", data.toString(), "--cluster", url);
    }

    @Test
    void aWriteOnOneNodeIsReadOnTheOtherAndBothAreReady() throws Exception {
        String url = PG.url(PG.newDatabase());
        ServingNode a = node(url, emptyContent("a"));
        ServingNode b = null;
        try {
            a.port();
            b = node(url, emptyContent("b"));
            b.port();
            // the development account, made once in the cluster's database by the first node; the other says so
            assertThat(a.err()).contains("account for this cluster: arno:");
            assertThat(b.err()).contains("account for this cluster: arno, created by the node that found no accounts");
            for (ServingNode n : List.of(a, b)) {
                HttpResponse<String> health = n.get("/_arno/health");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                assertThat(health.body()).contains("\"ready\":true").contains("\"cluster\":{\"position\":")
                        .contains("\"caughtUp\":true");
            }
            // written on A: answered with its position, readable on B within seconds, at the same version
            HttpResponse<String> created = post(a, a.account(), "/store/", "journals", "journals", "Journals");
            long position = Long.parseLong(created.headers().firstValue("Arno-Position").orElseThrow());
            assertThat(position).isPositive();
            ServingNode reader = b;
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> {
                HttpResponse<String> r = reader.get(created.headers().firstValue("Location").orElseThrow());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).contains("Journals");
                assertThat(r.headers().firstValue("ETag")).isEqualTo(created.headers().firstValue("ETag"));
            });
            // and the other way round, each write at a later position
            HttpResponse<String> second = post(b, a.account(), "/store/journals/", "jb", "journal", "Journal B");
            long secondPosition = Long.parseLong(second.headers().firstValue("Arno-Position").orElseThrow());
            assertThat(secondPosition).isGreaterThan(position);
            // read-your-writes: the writer is given its position as a cookie too; a request naming the
            // position is answered by the other node at once (it waits for its copy), never with an older copy
            assertThat(second.headers().allValues("Set-Cookie"))
                    .anySatisfy(c -> assertThat(c).startsWith("arno-position=" + secondPosition + ";").contains("HttpOnly"));
            String jb = second.headers().firstValue("Location").orElseThrow();
            HttpResponse<String> mine = a.get(jb, "Arno-Min-Position", Long.toString(secondPosition));
            assertThat(mine.statusCode()).as(mine.body()).isEqualTo(200);
            assertThat(mine.body()).contains("Journal B");
            HttpResponse<String> mineByCookie = a.get(jb, "Cookie", "arno-position=" + secondPosition);
            assertThat(mineByCookie.statusCode()).as(mineByCookie.body()).isEqualTo(200);
            // a position the log has not reached: 503 busy after the bounded wait, with Retry-After
            HttpResponse<String> ahead = a.get(jb, "Arno-Min-Position", Long.toString(secondPosition + 1000));
            assertThat(ahead.statusCode()).as(ahead.body()).isEqualTo(503);
            assertThat(ahead.headers().firstValue("Retry-After")).contains("1");
            assertThat(ahead.body()).contains("code=\"busy\"").contains("not yet " + (secondPosition + 1000));
            // a position that is no number: 400 naming the header
            HttpResponse<String> bad = a.get(jb, "Arno-Min-Position", "latest");
            assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
            assertThat(bad.body()).contains("bad-parameter").contains("Arno-Min-Position").contains("'latest'");
            Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(a.get(second.headers().firstValue("Location").orElseThrow()).statusCode()).isEqualTo(200));
            assertThat(a.get("/_arno/health").body()).contains("\"cluster\":{\"position\":" + (position + 1) + ",");
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            if (b != null) assertThat(b.stop()).as(b.err()).isZero();
        }
    }

    /**
     * The accounts are the cluster's: a node's accounts file imported into a cluster that has none;
     * a password changed or an account removed (by {@code ./arno accounts --cluster}) holds on both
     * nodes at the next request, though each remembered the old check; failures split over the two
     * nodes throttle as on one.
     */
    @Test
    void accountsAndFailedLoginsAreTheClustersOnEveryNode() throws Exception {
        String url = PG.url(PG.newDatabase());
        Path dataA = emptyContent("a");
        try (arno.xml.Accounts file = new arno.xml.Accounts(dataA.resolve("batch/users"))) {
            file.add("editor", "editor-password", arno.xml.Accounts.ALL_ROLES);
        }
        ServingNode a = node(url, dataA);
        ServingNode b = null;
        try {
            a.port();
            b = node(url, emptyContent("b"));
            b.port();
            assertThat(a.err()).as("accounts were imported: no development account").doesNotContain("account for this");
            assertThat(b.err()).doesNotContain("account for this");
            for (ServingNode n : List.of(a, b)) assertThat(console(n, "editor:editor-password").statusCode()).isEqualTo(200);

            // a new password: the old one is refused on both at once (each had it remembered), the new one taken
            Cli passwd = OperationsServeTest.accounts("editor-password-2\n", "passwd", "editor", "--password-stdin",
                    "--data", tmp.resolve("tool").toString(), "--cluster", url);
            assertThat(passwd.status()).as(passwd.err()).isZero();
            assertThat(passwd.out()).isEqualTo("changed the password of editor in the cluster's database " + url + "\n");
            for (ServingNode n : List.of(b, a)) {
                assertThat(console(n, "editor:editor-password").statusCode()).isEqualTo(401);
                assertThat(console(n, "editor:editor-password-2").statusCode()).isEqualTo(200);
            }
            // an account added, used on B, removed: refused on both at the next request
            Cli add = OperationsServeTest.accounts("robot-password\n", "add", "robot", "--roles", "admin", "--password-stdin",
                    "--data", tmp.resolve("tool").toString(), "--cluster", url);
            assertThat(add.status()).as(add.err()).isZero();
            assertThat(console(b, "robot:robot-password").statusCode()).isEqualTo(200);
            assertThat(console(a, "robot:robot-password").statusCode()).isEqualTo(200);
            Cli remove = OperationsServeTest.accounts("", "remove", "robot", "--data", tmp.resolve("tool").toString(), "--cluster", url);
            assertThat(remove.status()).as(remove.err()).isZero();
            for (ServingNode n : List.of(b, a)) {
                HttpResponse<String> gone = console(n, "robot:robot-password");
                assertThat(gone.statusCode()).as(gone.body()).isEqualTo(401);
            }
            Cli list = OperationsServeTest.accounts("", "list", "--data", tmp.resolve("tool").toString(), "--cluster", url);
            assertThat(list.out().lines().skip(1).toList()).singleElement().asString().startsWith("editor ");

            // failed logins from this address: the four refused above (two on each node) and three more on each
            // are the ten free ones; the eleventh (on A) closes the address, and B refuses the right password at
            // once, as one node would (counted per node, B would have had five)
            for (int i = 0; i < 6; i++) {
                assertThat(console(i % 2 == 0 ? a : b, "editor:wrong-password").statusCode()).isEqualTo(401);
            }
            assertThat(console(a, "editor:wrong-password").statusCode()).isEqualTo(401);
            HttpResponse<String> throttled = console(b, "editor:editor-password-2");
            assertThat(throttled.statusCode()).as(throttled.body()).isEqualTo(429);
            assertThat(throttled.headers().firstValue("Retry-After")).contains("1");
        } finally {
            assertThat(a.stop()).as(a.err()).isZero();
            if (b != null) assertThat(b.stop()).as(b.err()).isZero();
        }
    }

    /** The console's page (it needs the admin role) with {@code account} ("name:password"). */
    private HttpResponse<String> console(ServingNode n, String account) throws Exception {
        return n.get("/_arno/", "Authorization", Http.basic(account));
    }

    /** A data folder whose content folder exists (and is empty): no demo, no note about one. */
    private Path emptyContent(String name) throws Exception {
        Path data = tmp.resolve(name);
        Files.createDirectories(data.resolve("content"));
        return data;
    }

    private HttpResponse<String> post(ServingNode n, String account, String collection, String slug, String kind, String title)
            throws Exception {
        String entry = "<entry xmlns='http://www.w3.org/2005/Atom'><title>" + title + "</title>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/></entry>";
        HttpResponse<String> r = Http.send(client, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port() + collection))
                .header("Authorization", Http.basic(account)).header("Slug", slug)
                .header("Content-Type", "application/atom+xml;type=entry")
                .POST(HttpRequest.BodyPublishers.ofString(entry)).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return r;
    }

    @Test
    void aDatabaseThatCannotBeReachedIsOneLine() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closed + "/arno?user=arno";
        Cli.run("serve", "--port", "0", "--data", emptyContent("data").toString(), "--cluster", url)
                .failsWith("cannot reach the cluster's database " + url);
    }

    @Test
    void theClusterSettingIsCheckedWithTheRest() throws Exception {
        Config base = Config.defaults(tmp);
        Path file = tmp.resolve("arno.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='mysql://db/arno'/></arno>");
        assertThatThrownBy(() -> ConfigFile.read(file, base).toBuilder().build())
                .hasMessageContaining("must be a PostgreSQL URL").hasMessageContaining("not 'mysql://db/arno'");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='jdbc:postgresql://db/arno?user=a&amp;password=x'/></arno>");
        assertThatThrownBy(() -> ConfigFile.read(file, base).toBuilder().build()).hasMessageContaining("must not hold a password");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='postgresql://db:5433/arno?user=a' "
                + "password-file='secret'/></arno>");
        Config c = ConfigFile.read(file, base).toBuilder().build();
        assertThat(c.cluster()).isEqualTo(new Config.Cluster("jdbc:postgresql://db:5433/arno?user=a", tmp.resolve("secret")));
        Config.Builder flags = c.toBuilder();
        flags.clusterDatabase = "jdbc:postgresql://other/arno";
        assertThat(flags.build().cluster().database()).as("the flag wins").isEqualTo("jdbc:postgresql://other/arno");
        assertThat(base.toBuilder().build().cluster()).as("no cluster by default").isNull();
        Config.Builder alone = base.toBuilder();
        alone.clusterPasswordFile = tmp.resolve("secret");
        assertThatThrownBy(alone::build).hasMessageContaining("needs a cluster database");
        // on the command line too, before anything is written
        Cli.run("serve", "--port", "0", "--data", tmp.resolve("d").toString(), "--cluster", "db.example.org")
                .failsWith("must be a PostgreSQL URL", "not 'db.example.org'");
        assertThat(tmp.resolve("d")).doesNotExist();
        Cli.run("serve", "--port", "0", "--data", tmp.resolve("d").toString(), "--cluster", "postgresql://db/arno",
                "--content-from", "files").failsWith("cluster mode shares the store");
    }
}
