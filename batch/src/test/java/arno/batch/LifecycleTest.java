package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * A job's life over HTTP: queued, running (its status and report readable
 * meanwhile), refused when the queue is full, cancelled, and resumed after the
 * service stops. A transformation that reads its input from the test server's
 * gate runs until the test opens the gate.
 */
class LifecycleTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch");

    @TempDir Path tmp;
    TestServer server;

    @BeforeEach void start() {
        server = new TestServer(tmp, b -> b.queueBound(1).runningJobs(1).workers(2));
        TestResources.copy("article-to-entry.xsl", server.root.resolve("xsl"));
        for (int i = 1; i <= 5; i++) {
            TestResources.write(server.root.resolve("in/a" + i + ".xml"), TestResources.article("a" + i, "T" + i, 1));
        }
    }

    @AfterEach void stop() {
        server.close();
    }

    private String batch(String name, String... inputs) {
        StringBuilder s = new StringBuilder("<batch xmlns=\"urn:arno:batch\" name=\"" + name + "\" parallelism=\"1\">\n"
                + "  <stylesheet href=\"xsl/article-to-entry.xsl\"/>\n");
        for (String input : inputs) {
            String href = input.startsWith("gate/") ? server.url("/files/" + input) : input;
            String out = "out/" + name + "/" + Path.of(input).getFileName();
            s.append("  <input href=\"").append(href).append("\" output=\"").append(out).append("\"/>\n");
        }
        return s.append("</batch>").toString();
    }

    private static XmlAssert xml(String document) {
        return XmlAssert.assertThat(document).withNamespaceContext(NS);
    }

    private static String credentials() {
        return TestServer.USER + ":" + TestServer.PASSWORD;
    }

    @Test void aFullQueueAnswers503WithRetryAfterAndCancelTellsWhatWasUnderWay() {
        server.closeGate();
        String running = server.submit(batch("running", "in/a1.xml", "gate/in/a2.xml", "in/a3.xml", "in/a4.xml"));
        server.awaitGateReached();
        String waiting = server.submit(batch("waiting", "in/a1.xml"));

        HttpResponse<String> refused = server.post(batch("refused", "in/a1.xml"));
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        assertThat(refused.body()).contains("code=\"busy\"");

        // While it runs: status with progress, and a report that is well-formed so far.
        String status = server.get(running).body();
        assertThat(TestServer.status(status)).isEqualTo("running");
        assertThat(status).contains("total=\"4\"").contains("done=\"1\"").contains("running=\"1\"").contains("remaining=\"3\"");
        assertThat(TestServer.status(server.get(waiting).body())).isEqualTo("queued");
        String partial = server.get(running + "/report").body();
        xml(partial).valueByXPath("count(/b:report/b:transformation)").isEqualTo(1);
        assertThat(server.get(running + "/report?format=html").body()).contains("<table").contains("running: 1 of 4 done");
        assertThat(server.get(waiting + "/report").body()).contains("<report").contains("name=\"waiting\"");

        // Cancelling the waiting job ends it at once; the running one stops a2 and runs nothing more.
        assertThat(server.delete(waiting, credentials()).statusCode()).isEqualTo(202);
        assertThat(TestServer.status(server.get(waiting).body())).isEqualTo("cancelled");
        assertThat(server.delete(running, credentials()).statusCode()).isEqualTo(202);
        server.openGate();
        String finished = server.awaitFinished(running);
        assertThat(TestServer.status(finished)).isEqualTo("cancelled");
        assertThat(finished).contains("succeeded=\"1\"").contains("not-run=\"3\"");
        String report = server.get(running + "/report").body();
        xml(report).valueByXPath("/b:report/b:cancelled/@under-way").isEqualTo(1);
        xml(report).valueByXPath("/b:report/b:cancelled/b:under-way/@index").isEqualTo(2);
        // Every input accounted for: a1 done, a2 stopped while under way, a3 and a4 never started.
        xml(report).valueByXPath("/b:report/b:transformation[@index='1']/@status").isEqualTo("ok");
        xml(report).valueByXPath("/b:report/b:transformation[@index='2']/@status").isEqualTo("cancelled");
        xml(report).valueByXPath("count(/b:report/b:not-run)").isEqualTo(2);
        xml(report).valueByXPath("/b:report/b:not-run[1]/@index").isEqualTo(3);
        xml(report).valueByXPath("/b:report/b:not-run[2]/@index").isEqualTo(4);
        xml(report).valueByXPath("/b:report/b:totals/@not-run").isEqualTo(3);
        assertThat(server.root.resolve("out/running/a2.xml")).doesNotExist();
        assertThat(server.root.resolve("out/running/a3.xml")).doesNotExist();

        // A finished job cannot be cancelled; cancelling needs an account.
        assertThat(server.delete(running, credentials()).statusCode()).isEqualTo(409);
        assertThat(server.delete(running, null).statusCode()).isEqualTo(401);
    }

    @Test void acceptedJobsSurviveARestartAndRunningJobsResumeWhereTheyWere() throws Exception {
        server.closeGate();
        String first = server.submit(batch("first", "in/a1.xml", "in/a2.xml", "gate/in/a3.xml", "in/a4.xml", "in/a5.xml"));
        server.awaitGateReached();
        String second = server.submit(batch("second", "in/a1.xml", "in/a2.xml"));
        String firstId = first.substring(first.lastIndexOf('/') + 1);
        String secondId = second.substring(second.lastIndexOf('/') + 1);

        // Stop the service while a3 is under way: stopping stops it (it runs again after the restart), a4 and a5 are left.
        Thread stopper = new Thread(server::stop);
        stopper.start();
        Thread.sleep(300);
        server.openGate();
        stopper.join(30_000);
        assertThat(stopper.isAlive()).isFalse();

        // As if the process had died in the middle of writing an entry: junk after the good part.
        Path report = server.work.resolve("jobs").resolve(firstId).resolve("report.xml");
        Files.writeString(report, "<transformation index=\"4\" status=\"ok\"><message>half", StandardOpenOption.APPEND);

        server.start();
        String done = server.awaitFinished(server.url("/batch/jobs/" + firstId));
        assertThat(TestServer.status(done)).isEqualTo("completed");
        assertThat(done).contains("succeeded=\"5\"").contains("failed=\"0\"");
        String text = server.get("/batch/jobs/" + firstId + "/report").body();
        xml(text).valueByXPath("count(/b:report/b:transformation)").isEqualTo(5);
        for (int i = 1; i <= 5; i++) {
            xml(text).valueByXPath("count(/b:report/b:transformation[@index='" + i + "'])").isEqualTo(1);
        }
        xml(text).valueByXPath("count(/b:report/b:run)").isEqualTo(2);
        xml(text).valueByXPath("/b:report/b:run[2]/@resumed").isEqualTo("true");
        xml(text).valueByXPath("/b:report/b:run[2]/@done-before").isEqualTo(2);
        for (int i = 1; i <= 5; i++) assertThat(server.root.resolve("out/first/a" + i + ".xml")).exists();

        // The job that was only queued runs too.
        assertThat(TestServer.status(server.awaitFinished(server.url("/batch/jobs/" + secondId)))).isEqualTo("completed");
    }

    @Test void aResumedSchematronJobCountsEveryInputInItsRuleSummary() throws Exception {
        TestResources.copy("checks.sch", server.root.resolve("sch"));
        TestResources.write(server.root.resolve("in/bad.xml"), "<article id=\"x1\"><sec><p>untitled</p></sec></article>");
        server.closeGate();
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" parallelism="1">
                  <schematron href="sch/checks.sch"/>
                  <input href="in/bad.xml"/>
                  <input href="%s"/>
                  <input href="in/bad.xml"/>
                </batch>""".formatted(server.url("/files/gate/in/bad.xml")));
        String id = job.substring(job.lastIndexOf('/') + 1);
        server.awaitGateReached();
        Thread stopper = new Thread(server::stop);
        stopper.start();
        Thread.sleep(300);
        server.openGate();
        stopper.join(30_000);
        server.start();
        server.awaitFinished(server.url("/batch/jobs/" + id));
        String report = server.get("/batch/jobs/" + id + "/report").body();
        // input 1 ran before the restart, 2 (stopped by it) and 3 after; the summary counts all three
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='section']/@fired").isEqualTo(3);
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='section']/@failed-asserts").isEqualTo(3);
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='section']/@inputs").isEqualTo(3);
    }
}
