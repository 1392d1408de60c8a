package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Wait;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * Page work first (issue 14, item 10), over HTTP against the real service, real Saxon and a real
 * Tomcat: while the server's {@link PagePressure} says pages wait, no transformation starts (a flag
 * the test holds, not a timing), it starts when the flag clears, the minimum share still runs a
 * batch under pressure that never clears, and cancel and stop work while workers give way.
 *
 * <p>The waits are bounded by the share: with {@link #TINY} a worker may give way for
 * {@code PAUSE * (1 - s) / s}, about 28 hours, so anything that happens within a test's seconds
 * happened because the flag changed or the job was cancelled or stopped, never because a bound passed.
 */
class PagesFirstTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch");
    private static final double TINY = 1e-6;
    private static final String COPY = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/"><copied><xsl:copy-of select="/*"/></copied></xsl:template>
            </xsl:stylesheet>""";

    @TempDir Path tmp;
    TestServer server;
    /** The pages' state as the test sets it, and how often the batch asked. */
    final AtomicBoolean busy = new AtomicBoolean();
    final AtomicInteger asked = new AtomicInteger();
    volatile CountDownLatch firstAsked = new CountDownLatch(1);
    /** Pages become busy from this ask on (to catch a transformation in its middle). */
    volatile int busyFrom = Integer.MAX_VALUE;
    final PagePressure pressure = () -> {
        int n = asked.incrementAndGet();
        firstAsked.countDown();
        return busy.get() || n >= busyFrom;
    };
    /** Counts down a hundred thousand by tail recursion: about 390 guard checkpoints. */
    private static final String COUNT = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:xs="http://www.w3.org/2001/XMLSchema">
              <xsl:template match="/"><done><xsl:call-template name="count">
                <xsl:with-param name="n" select="100000"/></xsl:call-template></done></xsl:template>
              <xsl:template name="count">
                <xsl:param name="n" as="xs:integer"/>
                <xsl:if test="$n gt 0"><xsl:call-template name="count"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template></xsl:if>
              </xsl:template>
            </xsl:stylesheet>""";

    @AfterEach void stop() {
        busy.set(false);
        if (server != null) server.close();
    }

    private void start(double share) {
        server = new TestServer(tmp, b -> b.workers(2).pagePressure(pressure).minShare(share));
        TestResources.write(server.root.resolve("xsl/copy.xsl"), COPY);
        TestResources.write(server.root.resolve("xsl/count.xsl"), COUNT);
        TestResources.write(server.root.resolve("in/a.xml"), TestResources.article("a", "A", 1));
    }

    private static String batch(int inputs) {
        StringBuilder s = new StringBuilder("<batch xmlns=\"urn:arno:batch\" parallelism=\"2\">\n"
                + "  <stylesheet href=\"xsl/copy.xsl\"/>\n");
        for (int i = 0; i < inputs; i++) s.append("  <input href=\"in/a.xml\" output=\"out/").append(i).append(".xml\"/>\n");
        return s.append("</batch>").toString();
    }

    private static XmlAssert xml(String document) {
        return XmlAssert.assertThat(document).withNamespaceContext(NS);
    }

    private void awaitAsked() throws InterruptedException {
        assertThat(firstAsked.await(30, TimeUnit.SECONDS)).as("a batch worker asked whether pages wait").isTrue();
    }

    @Test void whilePagesWaitNoTransformationStartsAndWhenTheyClearTheBatchRuns() throws Exception {
        start(TINY);
        busy.set(true);
        String job = server.submit(batch(3));
        awaitAsked();
        // A worker is giving way; give the other every chance to start something if it wrongly could.
        TestServer.sleep(300);
        String status = server.get(job).body();
        assertThat(TestServer.status(status)).isEqualTo("running");
        assertThat(status).contains("succeeded=\"0\"").contains("failed=\"0\"");
        xml(server.get(job + "/report").body()).valueByXPath("count(/b:report/b:transformation)").isEqualTo(0);
        assertThat(server.root.resolve("out/0.xml")).doesNotExist();

        busy.set(false);
        String finished = server.awaitFinished(job);
        assertThat(TestServer.status(finished)).isEqualTo("completed");
        assertThat(finished).contains("succeeded=\"3\"");
        for (int i = 0; i < 3; i++) assertThat(server.root.resolve("out/" + i + ".xml")).content().contains("<copied");
    }

    @Test void aRunningTransformationGivesWayAtItsCheckpointsAndTheWaitIsNotCountedAgainstItsTimeLimit() throws Exception {
        start(TINY);
        // Asked before the transformation, at its start, at its first traced call: busy from the next checkpoint.
        busyFrom = 4;
        String job = server.submit("<batch xmlns=\"urn:arno:batch\" time-limit=\"PT2S\">\n"
                + "  <stylesheet href=\"xsl/count.xsl\"/>\n  <input href=\"in/a.xml\" output=\"out/count.xml\"/>\n</batch>");
        Wait.upTo(Duration.ofSeconds(30)).alias("the transformation reached a checkpoint").until(() -> asked.get() >= 4);
        // Held in its middle for longer than its time limit.
        TestServer.sleep(2500);
        String status = server.get(job).body();
        assertThat(status).contains("running=\"1\"").contains("succeeded=\"0\"").contains("failed=\"0\"");
        assertThat(server.root.resolve("out/count.xml")).doesNotExist();

        busyFrom = Integer.MAX_VALUE;
        String finished = server.awaitFinished(job);
        assertThat(TestServer.status(finished)).as(server.get(job + "/report").body()).isEqualTo("completed");
        assertThat(server.root.resolve("out/count.xml")).content().contains("<done");
    }

    @Test void underPressureThatNeverClearsTheMinimumShareStillRunsTheBatch() throws Exception {
        // s = 0.5: a worker's first wait is one PAUSE, then it waits as long as it ran.
        start(0.5);
        busy.set(true);
        long t0 = System.nanoTime();
        String job = server.submit(batch(3));
        String finished = server.awaitFinished(job);
        long elapsed = System.nanoTime() - t0;
        assertThat(TestServer.status(finished)).isEqualTo("completed");
        assertThat(finished).contains("succeeded=\"3\"");
        assertThat(busy.get()).as("pages were waiting all along").isTrue();
        assertThat(asked.get()).isPositive();
        // Every worker gave way for one PAUSE before its first transformation.
        assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(Yield.PAUSE);
    }

    @Test void whenNoPagesWaitTheBatchRunsWithoutGivingWay() {
        // With pages waiting, each worker's first transformation would wait about 28 hours.
        start(TINY);
        String job = server.submit(batch(20));
        String finished = server.awaitFinished(job);
        assertThat(TestServer.status(finished)).isEqualTo("completed");
        assertThat(finished).contains("succeeded=\"20\"");
        assertThat(asked.get()).as("asked before each transformation at least").isGreaterThanOrEqualTo(20);
    }

    @Test void aShareOfOneNeverAsks() {
        start(1.0);
        busy.set(true);
        String finished = server.awaitFinished(server.submit(batch(3)));
        assertThat(finished).contains("succeeded=\"3\"");
        assertThat(asked.get()).isZero();
    }

    @Test void cancellingAJobWhoseWorkersGiveWayEndsItAndEveryInputIsCancelledOrNotRun() throws Exception {
        start(TINY);
        busy.set(true);
        String job = server.submit(batch(4));
        awaitAsked();
        assertThat(server.delete(job, TestServer.USER + ":" + TestServer.PASSWORD).statusCode()).isEqualTo(202);
        String finished = server.awaitFinished(job);
        assertThat(TestServer.status(finished)).isEqualTo("cancelled");
        assertThat(finished).contains("succeeded=\"0\"").contains("failed=\"0\"").contains("not-run=\"4\"");
        String report = server.get(job + "/report").body();
        // Those handed out (one or two: the job's parallelism) were giving way: named under way, then cancelled.
        java.util.regex.Matcher underWay = java.util.regex.Pattern.compile("<cancelled [^>]*under-way=\"(\\d+)\"").matcher(report);
        assertThat(underWay.find()).as(report).isTrue();
        int handedOut = Integer.parseInt(underWay.group(1));
        assertThat(handedOut).isBetween(1, 2);
        xml(report).valueByXPath("count(/b:report/b:transformation[@status = 'cancelled'])").isEqualTo(handedOut);
        xml(report).valueByXPath("count(/b:report/b:transformation[@status != 'cancelled'])").isEqualTo(0);
        java.util.Set<String> indexes = new java.util.HashSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<(?:transformation|not-run) index=\"(\\d+)\"").matcher(report);
        while (m.find()) assertThat(indexes.add(m.group(1))).as("input " + m.group(1) + " once").isTrue();
        assertThat(indexes).containsExactlyInAnyOrder("1", "2", "3", "4");
        assertThat(server.root.resolve("out/0.xml")).doesNotExist();
    }

    @Test void stoppingTheServiceWhileWorkersGiveWayIsPromptAndTheJobResumes() throws Exception {
        start(TINY);
        busy.set(true);
        String job = server.submit(batch(4));
        awaitAsked();

        Thread stopper = new Thread(server::stop);
        long t0 = System.nanoTime();
        stopper.start();
        stopper.join(30_000);
        assertThat(stopper.isAlive()).isFalse();
        // Far less than the wait for a transformation that does not stop (ABANDON_AFTER).
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(JobRun.ABANDON_AFTER);

        busy.set(false);
        server.start();
        String id = job.substring(job.lastIndexOf('/') + 1);
        String finished = server.awaitFinished(server.url("/batch/jobs/" + id));
        assertThat(TestServer.status(finished)).isEqualTo("completed");
        assertThat(finished).contains("succeeded=\"4\"");
    }
}
