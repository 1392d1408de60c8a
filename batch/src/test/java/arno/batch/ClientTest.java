package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.batch.client.BatchClient;
import arno.xml.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client library against a real server: submit, wait with progress, status, reports, refusals, cancel, list. */
class ClientTest {
    @TempDir static Path tmp;
    static TestServer server;
    static BatchClient client;

    @BeforeAll static void start() {
        server = new TestServer(tmp);
        client = new BatchClient(URI.create(server.url("")), TestServer.USER + ":" + TestServer.PASSWORD);
        TestResources.copy("article-to-entry.xsl", server.root.resolve("xsl"));
        TestResources.copy("broken.xsl", server.root.resolve("xsl"));
        for (int i = 1; i <= 3; i++) {
            TestResources.write(server.root.resolve("in/a" + i + ".xml"), TestResources.article("a" + i, "T" + i, i));
        }
        TestResources.write(server.root.resolve("in/untitled.xml"), TestResources.article("a9", null, 1));
        // Batch files with paths relative to themselves, as people write them.
        TestResources.write(server.root.resolve("good.batch.xml"), batch("xsl/article-to-entry.xsl", "a1", "a2", "a3"));
        TestResources.write(server.root.resolve("bad.batch.xml"), batch("xsl/article-to-entry.xsl", "a1", "untitled"));
        TestResources.write(server.root.resolve("broken.batch.xml"), batch("xsl/broken.xsl", "a1"));
        TestResources.write(server.root.resolve("malformed.batch.xml"), "<batch xmlns=\"urn:arno:batch\">\n<stylesheet>\n</batch>");
    }

    @AfterAll static void stop() {
        server.close();
    }

    static String batch(String stylesheet, String... inputs) {
        StringBuilder s = new StringBuilder("<batch xmlns=\"urn:arno:batch\">\n  <stylesheet href=\"" + stylesheet + "\"/>\n");
        for (String i : inputs) s.append("  <input href=\"in/").append(i).append(".xml\" output=\"cli-out/").append(i).append(".xml\"/>\n");
        return s.append("</batch>\n").toString();
    }

    @Test void submitAndAwaitReportsProgressUntilAllSucceeded() throws Exception {
        URI job = client.submit(server.root.resolve("good.batch.xml"));
        assertThat(job.toString()).startsWith(server.url("/batch/jobs/"));
        List<String> bars = new ArrayList<>();
        BatchClient.Status done = client.await(job, s -> bars.add(s.bar()));
        assertThat(done.succeeded()).isTrue();
        assertThat(done.summary()).isEqualTo("completed: 3 succeeded, 0 failed, 0 not run of 3");
        assertThat(bars.get(bars.size() - 1)).startsWith("[##############################] 100.0% 3/3 failed 0");
        assertThat(server.root.resolve("cli-out/a3.xml")).exists();
    }

    @Test void aFailedTransformationShowsInStatusAndReports() throws Exception {
        URI job = client.submit(server.root.resolve("bad.batch.xml"));
        BatchClient.Status done = client.await(job, s -> { });
        assertThat(done.succeeded()).isFalse();
        assertThat(done.summary()).startsWith("failed: 1 succeeded, 1 failed");
        assertThat(client.status(client.job(done.id())).state()).isEqualTo("failed");
        try (InputStream in = client.report(job, false, false)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("<report").contains("Q{urn:test}no-title");
        }
        try (InputStream in = client.report(job, true, true)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).startsWith("<!DOCTYPE html>")
                    .contains("untitled.xml").doesNotContain("in/a1.xml");
        }
    }

    @Test void aRefusedBatchComesBackAsTheServersErrorWithItsPlace() {
        assertThatThrownBy(() -> client.submit(server.root.resolve("malformed.batch.xml")))
                .isInstanceOfSatisfying(BatchClient.Refused.class, r -> {
                    assertThat(r.code()).isEqualTo(ErrorCode.MALFORMED_XML);
                    assertThat(r.httpStatus()).isEqualTo(400);
                    assertThat(r.getMessage()).startsWith("batch document is not well-formed XML");
                    assertThat(r.where().uri()).endsWith("malformed.batch.xml");
                    assertThat(r.where().line()).isEqualTo(3);
                    assertThat(r.job()).isNull();
                });
    }

    @Test void aBatchThatFailsAtOnceNamesItsJob() {
        assertThatThrownBy(() -> client.submit(server.root.resolve("broken.batch.xml")))
                .isInstanceOfSatisfying(BatchClient.Refused.class, r -> {
                    assertThat(r.code()).isEqualTo(ErrorCode.STYLESHEET_ERROR);
                    assertThat(r.httpStatus()).isEqualTo(422);
                    assertThat(r.getMessage()).contains("does not compile");
                    assertThat(r.details()).anySatisfy(d -> {
                        assertThat(d.where().uri()).endsWith("broken.xsl");
                        assertThat(d.where().line()).isEqualTo(7);
                    });
                    assertThat(r.job()).isNotNull();
                    assertThat(r.job().toString()).startsWith(server.url("/batch/jobs/"));
                });
    }

    @Test void withoutAnAccountEverythingIsRefused() {
        BatchClient anonymous = new BatchClient(URI.create(server.url("")), null);
        assertThatThrownBy(() -> anonymous.submit(server.root.resolve("good.batch.xml")))
                .isInstanceOfSatisfying(BatchClient.Refused.class, r -> assertThat(r.code()).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(anonymous::list)
                .isInstanceOfSatisfying(BatchClient.Refused.class, r -> assertThat(r.httpStatus()).isEqualTo(401));
    }

    @Test void anUnreachableServerIsAnIoError() {
        BatchClient nowhere = new BatchClient(URI.create("http://127.0.0.1:1"), "a:b");
        assertThatThrownBy(() -> nowhere.status(nowhere.job("x"))).isInstanceOf(IOException.class);
    }

    @Test void cancelStopsARunningJob() throws Exception {
        server.closeGate();
        TestResources.write(server.root.resolve("gated.batch.xml"), "<batch xmlns=\"urn:arno:batch\" parallelism=\"1\">\n"
                + "  <stylesheet href=\"xsl/article-to-entry.xsl\"/>\n"
                + "  <input href=\"" + server.url("/files/gate/in/a1.xml") + "\" output=\"cli-out/gated1.xml\"/>\n"
                + "  <input href=\"in/a2.xml\" output=\"cli-out/gated2.xml\"/>\n</batch>\n");
        URI job = client.submit(server.root.resolve("gated.batch.xml"));
        server.awaitGateReached();
        client.cancel(job);
        server.openGate();
        BatchClient.Status done = client.await(job, s -> { });
        try (InputStream in = client.report(job, false, false)) {
            assertThat(done.state()).as(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("cancelled");
        }
        assertThat(server.root.resolve("cli-out/gated2.xml")).doesNotExist();
    }

    @Test void listShowsTheJobs() throws Exception {
        URI job = client.submit(server.root.resolve("good.batch.xml"));
        client.await(job, s -> { });
        assertThat(client.list()).anySatisfy(s -> {
            assertThat(client.job(s.id())).isEqualTo(job);
            assertThat(s.state()).isEqualTo("completed");
        });
    }
}
