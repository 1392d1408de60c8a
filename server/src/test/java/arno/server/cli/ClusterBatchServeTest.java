package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cluster.TestPostgres;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch in {@code ./arno serve --cluster URL} (issue 23, item 8): two nodes in this JVM on one real
 * PostgreSQL; a job submitted to one is run once and read alike from both. The cluster's batch in
 * depth (claims, leases, a node that dies, cancelling) is {@code PgJobsTest} in the cluster module.
 */
@ExtendWith(CheckoutHome.class)
class ClusterBatchServeTest {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** This test's nodes, in the order started. */
    private final List<ServingNode> started = new ArrayList<>();

    private ServingNode node(String url, Path data, Path root) throws Exception {
        Files.createDirectories(data.resolve("content"));
        ServingNode n = new ServingNode("--data", data.toString(), "--cluster", url, "--batch-root", root.toString(),
                "--cluster-batch-lease", "3s");
        started.add(n);
        return n;
    }

    private HttpResponse<String> authed(ServingNode n, String path) throws Exception {
        return ServingNode.send(HttpRequest.newBuilder(n.uri(path)).header("Authorization", Http.basic(ServingNode.account(started))));
    }

    private String status(ServingNode n, String job) throws Exception {
        Matcher m = Pattern.compile("<job [^>]*status=\"([a-z]+)\"").matcher(authed(n, job).body());
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    @Test
    void aJobSubmittedToOneNodeRunsOnceAndItsReportReadsTheSameOnBoth() throws Exception {
        String url = PG.url(PG.newDatabase());
        Path root = Files.createDirectories(tmp.resolve("shared"));
        StringBuilder batch = new StringBuilder("<batch xmlns=\"urn:arno:batch\" name=\"across\">\n<stylesheet>"
                + "<xsl:stylesheet xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\" version=\"3.0\">"
                + "<xsl:template match=\"/\"><out xmlns=\"\"><xsl:value-of select=\"/in\"/></out></xsl:template>"
                + "</xsl:stylesheet></stylesheet>\n");
        for (int i = 1; i <= 5; i++) {
            Files.writeString(root.resolve("in" + i + ".xml"), "<in>" + i + "</in>");
            batch.append("<input href=\"").append(root.resolve("in" + i + ".xml").toUri()).append("\" output=\"")
                    .append(root.resolve("out" + i + ".xml").toUri()).append("\"/>\n");
        }
        batch.append("</batch>\n");
        List<ServingNode> nodes = new ArrayList<>();
        try {
            ServingNode a = node(url, tmp.resolve("a"), root);
            nodes.add(a);
            a.port();
            ServingNode b = node(url, tmp.resolve("b"), root);
            nodes.add(b);
            b.port();
            HttpResponse<String> submitted = Http.send(client, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port()
                            + "/batch/jobs")).header("Authorization", Http.basic(ServingNode.account(started)))
                    .header("Content-Type", "application/xml").POST(HttpRequest.BodyPublishers.ofString(batch.toString())).build());
            assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(202);
            String job = submitted.headers().firstValue("Location").orElseThrow();
            Wait.upTo(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(status(b, job)).isEqualTo("completed");
                assertThat(status(a, job)).isEqualTo("completed");
            });
            String report = authed(b, job + "/report").body();
            assertThat(report).contains("<totals inputs=\"5\" succeeded=\"5\" failed=\"0\" not-run=\"0\"");
            assertThat(report.split("<run ", -1)).as("run once").hasSize(2);
            assertThat(authed(a, job + "/report").body()).isEqualTo(report);
            for (int i = 1; i <= 5; i++) assertThat(Files.readString(root.resolve("out" + i + ".xml"))).contains("<out>" + i + "</out>");
        } finally {
            for (ServingNode n : nodes) assertThat(n.stop()).isZero();
        }
    }

    @Test
    void theBatchLeaseIsSetInTheConfigurationFileOrOnTheCommandLine() throws Exception {
        arno.server.config.Config base = arno.server.config.Config.defaults(tmp);
        Path file = tmp.resolve("arno.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='postgresql://db/arno' batch-lease='5s'/></arno>");
        assertThat(arno.server.config.ConfigFile.read(file, base).toBuilder().build().cluster().batchLease())
                .isEqualTo(Duration.ofSeconds(5));
        Files.writeString(file, "<arno xmlns='urn:arno:config'><cluster database='postgresql://db/arno'/></arno>");
        assertThat(arno.server.config.ConfigFile.read(file, base).toBuilder().build().cluster().batchLease())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aBatchLeaseUnderTwoSecondsIsRefused() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data").resolve("content")).getParent();
        Cli.run("serve", "--port", "0", "--data", data.toString(), "--cluster", "jdbc:postgresql://127.0.0.1:1/arno",
                "--cluster-batch-lease", "1s").failsWith("--cluster-batch-lease must be at least 2s, not PT1S");
    }
}
