package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.batch.client.BatchClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ./arno batch ... against a real server: progress, exit codes, status and reports. */
class ClientTest {
    @TempDir static Path tmp;
    static TestServer server;

    @BeforeAll static void start() {
        server = new TestServer(tmp);
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

    private static String batch(String stylesheet, String... inputs) {
        StringBuilder s = new StringBuilder("<batch xmlns=\"urn:arno:batch\">\n  <stylesheet href=\"" + stylesheet + "\"/>\n");
        for (String i : inputs) s.append("  <input href=\"in/").append(i).append(".xml\" output=\"cli-out/").append(i).append(".xml\"/>\n");
        return s.append("</batch>\n").toString();
    }

    record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of("batch"));
        all.addAll(List.of(args));
        if (!all.contains("--server")) {
            all.add("--server");
            all.add(server.url(""));
        }
        int code = BatchClient.run(all, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String user() {
        return TestServer.USER + ":" + TestServer.PASSWORD;
    }

    @Test void submitWaitShowsProgressAndExitsZeroWhenAllSucceed() {
        Run r = run("submit", server.root.resolve("good.batch.xml").toString(), "--user", user(), "--wait");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("/batch/jobs/").contains("completed: 3 succeeded, 0 failed");
        assertThat(r.err()).contains("[##############################] 100.0% 3/3 failed 0");
        assertThat(server.root.resolve("cli-out/a3.xml")).exists();
    }

    @Test void submitWaitExitsNonZeroWhenATransformationFailed() {
        Run r = run("submit", server.root.resolve("bad.batch.xml").toString(), "--user", user(), "--wait");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("failed: 1 succeeded, 1 failed");

        String job = r.out().lines().findFirst().orElseThrow();
        Run status = run("status", job.substring(job.lastIndexOf('/') + 1));
        assertThat(status.code()).isZero();
        assertThat(status.out()).contains("status    failed").contains("2 of 2 done");

        Run report = run("report", job);
        assertThat(report.out()).contains("<report").contains("Q{urn:test}no-title");
        Run html = run("report", job, "--html", "--failed");
        assertThat(html.out()).startsWith("<!DOCTYPE html>").contains("untitled.xml").doesNotContain("in/a1.xml");
    }

    @Test void aRefusedBatchPrintsWhereItIsWrong() {
        Run malformed = run("submit", server.root.resolve("malformed.batch.xml").toString(), "--user", user());
        assertThat(malformed.code()).isEqualTo(1);
        assertThat(malformed.err()).contains("error: batch document is not well-formed").contains("malformed-batch")
                .contains("malformed.batch.xml, line 3, column");

        Run broken = run("submit", server.root.resolve("broken.batch.xml").toString(), "--user", user());
        assertThat(broken.code()).isEqualTo(1);
        assertThat(broken.err()).contains("does not compile").contains("broken.xsl, line 7, column 31");

        Run anonymous = run("submit", server.root.resolve("good.batch.xml").toString());
        assertThat(anonymous.code()).isEqualTo(1);
        assertThat(anonymous.err()).contains("needs an account");
    }

    @Test void usageErrorsExitTwoAndAnUnreachableServerThree() {
        assertThat(run("frobnicate").code()).isEqualTo(2);
        assertThat(run("submit").code()).isEqualTo(2);
        assertThat(run("status", "x", "--wait").code()).isEqualTo(2);
        Run unreachable = run("status", "x", "--server", "http://localhost:1");
        assertThat(unreachable.code()).isEqualTo(3);
        assertThat(unreachable.err()).contains("cannot reach");
    }

    @Test void cancelStopsARunningJob() {
        server.closeGate();
        TestResources.write(server.root.resolve("gated.batch.xml"), "<batch xmlns=\"urn:arno:batch\" parallelism=\"1\">\n"
                + "  <stylesheet href=\"xsl/article-to-entry.xsl\"/>\n"
                + "  <input href=\"" + server.url("/files/gate/in/a1.xml") + "\" output=\"cli-out/gated1.xml\"/>\n"
                + "  <input href=\"in/a2.xml\" output=\"cli-out/gated2.xml\"/>\n</batch>\n");
        Run submitted = run("submit", server.root.resolve("gated.batch.xml").toString(), "--user", user());
        assertThat(submitted.code()).isZero();
        String job = submitted.out().strip();
        server.awaitGateReached();
        Run cancelled = run("cancel", job, "--user", user());
        assertThat(cancelled.code()).as(cancelled.err()).isZero();
        assertThat(cancelled.out()).contains("cancelled " + job);
        server.openGate();
        assertThat(TestServer.status(server.awaitFinished(job))).isEqualTo("cancelled");
        assertThat(server.root.resolve("cli-out/gated2.xml")).doesNotExist();
    }

    @Test void listShowsTheJobs() {
        run("submit", server.root.resolve("good.batch.xml").toString(), "--user", user(), "--wait");
        Run list = run("list");
        assertThat(list.code()).isZero();
        assertThat(list.out()).contains("completed");
    }
}
