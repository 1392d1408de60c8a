package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Wait;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * Bounded batch work (issue 14), over HTTP against the real service and real Saxon: a stylesheet
 * that loops for ever is stopped at its time limit (the batch's or the service's) with an error
 * naming the input and the limit; cancelling a job stops its running transformations and the
 * report accounts for every input; stopping the service is not held by a looping stylesheet.
 */
class BoundedTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "err", "urn:arno:error");
    /** Loops for ever through a tail-recursive template with a parameter: no output, no nodes, no stack. */
    private static final String LOOP = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:xs="http://www.w3.org/2001/XMLSchema">
              <xsl:template match="/">
                <xsl:call-template name="loop"><xsl:with-param name="n" select="1"/></xsl:call-template>
              </xsl:template>
              <xsl:template name="loop">
                <xsl:param name="n" as="xs:integer"/>
                <xsl:call-template name="loop"><xsl:with-param name="n" select="$n + 1"/></xsl:call-template>
              </xsl:template>
            </xsl:stylesheet>""";
    /** Loops for ever through a tail-recursive function, inside one XPath expression. */
    private static final String FUNCTION_LOOP = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:f="urn:f">
              <xsl:function name="f:loop" as="xs:integer">
                <xsl:param name="n" as="xs:integer"/>
                <xsl:sequence select="if ($n lt 0) then $n else f:loop($n + 1)"/>
              </xsl:function>
              <xsl:template match="/"><out><xsl:try><xsl:value-of select="f:loop(1)"/>
                <xsl:catch>caught</xsl:catch></xsl:try></out></xsl:template>
            </xsl:stylesheet>""";
    /** Calls itself with nothing: never ends by itself. */
    private static final String BARE_LOOP = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/"><xsl:call-template name="spin"/></xsl:template>
              <xsl:template name="spin"><xsl:call-template name="spin"/></xsl:template>
            </xsl:stylesheet>""";
    /** Counts down a million by tail recursion: must still work with the guard in place. */
    private static final String DEEP = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:xs="http://www.w3.org/2001/XMLSchema">
              <xsl:template match="/"><done><xsl:call-template name="count">
                <xsl:with-param name="n" select="1000000"/></xsl:call-template></done></xsl:template>
              <xsl:template name="count">
                <xsl:param name="n" as="xs:integer"/>
                <xsl:if test="$n gt 0"><xsl:call-template name="count"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template></xsl:if>
              </xsl:template>
            </xsl:stylesheet>""";

    @TempDir Path tmp;
    TestServer server;

    @AfterEach void stop() {
        if (server != null) server.close();
    }

    private void start(Duration serviceLimit) {
        server = new TestServer(tmp, b -> b.workers(2).timeLimit(serviceLimit));
        TestResources.write(server.root.resolve("xsl/loop.xsl"), LOOP);
        TestResources.write(server.root.resolve("xsl/function-loop.xsl"), FUNCTION_LOOP);
        TestResources.write(server.root.resolve("xsl/bare-loop.xsl"), BARE_LOOP);
        TestResources.write(server.root.resolve("xsl/deep.xsl"), DEEP);
        TestResources.write(server.root.resolve("in/a.xml"), TestResources.article("a", "A", 1));
    }

    private static String batch(String stylesheet, String timeLimit, int inputs) {
        StringBuilder s = new StringBuilder("<batch xmlns=\"urn:arno:batch\" parallelism=\"2\""
                + (timeLimit == null ? "" : " time-limit=\"" + timeLimit + "\"") + ">\n"
                + "  <stylesheet href=\"xsl/" + stylesheet + "\"/>\n");
        for (int i = 0; i < inputs; i++) s.append("  <input href=\"in/a.xml\" output=\"out/").append(i).append(".xml\"/>\n");
        return s.append("</batch>").toString();
    }

    private static XmlAssert xml(String document) {
        return XmlAssert.assertThat(document).withNamespaceContext(NS);
    }

    private static String credentials() {
        return TestServer.USER + ":" + TestServer.PASSWORD;
    }

    @Test void aLoopingStylesheetFailsAtTheBatchsTimeLimitWithTheInputAndTheLimit() {
        start(Duration.ofMinutes(10));
        String job = server.submit(batch("loop.xsl", "PT1S", 1));
        String finished = server.awaitFinished(job);
        assertThat(TestServer.status(finished)).isEqualTo("failed");
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("/b:report/b:transformation/@status").isEqualTo("failed");
        xml(report).valueByXPath("/b:report/b:transformation/err:error/@code").isEqualTo("transformation-timeout");
        xml(report).valueByXPath("contains(/b:report/b:transformation/err:error/err:message, 'in/a.xml')").isEqualTo(true);
        xml(report).valueByXPath("contains(/b:report/b:transformation/err:error/err:message, 'time limit of 1 s')").isEqualTo(true);
        assertThat(server.root.resolve("out/0.xml")).doesNotExist();
    }

    @Test void theServicesLimitAppliesWhenTheBatchSetsNoneAndXslTryCannotCatchIt() {
        start(Duration.ofSeconds(1));
        String job = server.submit(batch("function-loop.xsl", null, 2));
        assertThat(TestServer.status(server.awaitFinished(job))).isEqualTo("failed");
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("count(/b:report/b:transformation[err:error/@code = 'transformation-timeout'])").isEqualTo(2);
        xml(report).valueByXPath("/b:report/b:totals/@failed").isEqualTo(2);
    }

    @Test void aCallWithoutParametersThatRecursesEndsAndDeepTailRecursionStillWorks() {
        start(Duration.ofMinutes(10));
        String bare = server.submit(batch("bare-loop.xsl", null, 1));
        assertThat(TestServer.status(server.awaitFinished(bare))).isEqualTo("failed");
        xml(server.get(bare + "/report").body()).valueByXPath("/b:report/b:transformation/err:error/@code")
                .isEqualTo("transformation-error");
        String deep = server.submit(batch("deep.xsl", null, 1));
        assertThat(TestServer.status(server.awaitFinished(deep))).isEqualTo("completed");
        assertThat(server.root.resolve("out/0.xml")).content().contains("<done");
    }

    @Test void deleteOnALargeRunningJobStopsItsTransformationsAndTheReportAccountsForEveryInput() {
        start(Duration.ofMinutes(10));
        String job = server.submit(batch("loop.xsl", null, 2000));
        awaitRunning(job, 2);

        HttpResponse<String> deleted = server.delete(job, credentials());
        assertThat(deleted.statusCode()).isEqualTo(202);
        assertThat(deleted.body()).contains("cancelled=\"");
        String finished = server.awaitFinished(job);
        assertThat(TestServer.status(finished)).isEqualTo("cancelled");
        assertThat(finished).contains("succeeded=\"0\"").contains("not-run=\"2000\"");

        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("/b:report/b:cancelled/@under-way").isEqualTo(2);
        xml(report).valueByXPath("count(/b:report/b:transformation[@status = 'cancelled'])").isEqualTo(2);
        xml(report).valueByXPath("count(/b:report/b:transformation)").isEqualTo(2);
        xml(report).valueByXPath("count(/b:report/b:not-run)").isEqualTo(1998);
        // Each input once: cancelled while under way, or never started.
        java.util.Set<String> indexes = new java.util.HashSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<(?:transformation|not-run) index=\"(\\d+)\"").matcher(report);
        while (m.find()) assertThat(indexes.add(m.group(1))).as("input " + m.group(1) + " once").isTrue();
        assertThat(indexes).hasSize(2000);
        xml(report).valueByXPath("/b:report/b:totals/@not-run").isEqualTo(2000);
    }

    @Test void stoppingTheServiceIsNotHeldByALoopingStylesheetAndTheJobResumes() throws Exception {
        start(Duration.ofMinutes(10));
        String job = server.submit(batch("loop.xsl", null, 3));
        awaitRunning(job, 2);

        Thread stopper = new Thread(server::stop);
        stopper.start();
        stopper.join(JobRun.ABANDON_AFTER.plusSeconds(20).toMillis());
        assertThat(stopper.isAlive()).as("the service stopped although its stylesheet loops").isFalse();

        // Nothing was reported for the stopped transformations: after the restart they run again.
        server.start();
        String id = job.substring(job.lastIndexOf('/') + 1);
        String url = server.url("/batch/jobs/" + id);
        awaitRunning(url, 2);
        xml(server.get(url + "/report").body()).valueByXPath("count(/b:report/b:transformation)").isEqualTo(0);
        assertThat(server.delete(url, credentials()).statusCode()).isEqualTo(202);
        assertThat(TestServer.status(server.awaitFinished(url))).isEqualTo("cancelled");
    }

    /** Waits until {@code n} transformations of the job are under way. */
    private void awaitRunning(String job, int n) {
        Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .alias("job " + job + " has " + n + " transformations under way")
                .until(() -> server.get(job).body(), status -> status.contains("running=\"" + n + "\""));
    }
}
