package arno.sites.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import arno.sites.cluster.Traffic.Outcome;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster's failure tests (issue 23, item 10) on real processes: PostgreSQL, three nodes and
 * HAProxy ({@link ClusterRig}), with a writer and readers going through HAProxy all the time
 * ({@link Traffic}). Each test prints its error window (a line starting {@code cluster failure:}),
 * which perf/RESULTS.md ("Cluster") records, and leaves the cluster whole for the next.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFailureTest {
    @RegisterExtension
    static final ClusterRig RIG = new ClusterRig();

    /** The applier's poll interval (Applier.Options' default): the guarantee when notifications are lost. */
    private static final Duration POLL = Duration.ofSeconds(1);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Whatever the test before did (or failed to undo), each starts on a whole cluster. */
    @BeforeEach
    void whole() throws Exception {
        RIG.heal();
    }

    @Test
    @Order(1)
    void aNodeKilledDuringAWriteBurstLosesNoAcknowledgedWriteAndCatchesUpWhenRestarted() throws Exception {
        ClusterRig.Node victim = RIG.node(2);
        Traffic t = new Traffic(RIG.front(), RIG.account(), "kill", 4, 2);
        long killed;
        long down;
        long restarted;
        long up;
        try {
            awaitAcknowledged(t, 40);
            killed = System.nanoTime();
            victim.kill();
            Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).alias("HAProxy marks " + victim.name() + " down")
                    .until(() -> RIG.haproxyStatus().getOrDefault(victim.name(), "").startsWith("DOWN"));
            down = System.nanoTime();
            awaitAcknowledged(t, t.acknowledged.size() + 30); // the burst goes on, on two nodes
            victim.start();
            restarted = System.nanoTime();
            victim.awaitReady(Duration.ofMinutes(2));
            Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).alias("HAProxy takes " + victim.name() + " back")
                    .until(() -> "UP".equals(RIG.haproxyStatus().get(victim.name())));
            up = System.nanoTime();
            awaitAcknowledged(t, t.acknowledged.size() + 30); // and on three again
        } finally {
            t.close();
        }
        long end = System.nanoTime();
        // The window: from the kill until HAProxy has dropped the node, and a second more for requests that
        // were already on their way to it. Outside it, no client sees an error.
        long windowEnd = down + Duration.ofSeconds(1).toNanos();
        List<Outcome> readsIn = Traffic.between(t.reads, killed, windowEnd);
        List<Outcome> writesIn = Traffic.between(t.writes, killed, windowEnd);
        List<Outcome> readErrors = Traffic.errors(readsIn);
        long lastError = readErrors.stream().mapToLong(Outcome::nanos).max().orElse(killed);
        report(String.format(Locale.ROOT, "kill -9 of %s during a write burst: HAProxy marked it DOWN %d ms after the kill;"
                        + " readers in the window (kill → down + 1 s): %s, the last %d ms after the kill; the two writers in it: %s;"
                        + " restarted, ready and UP in HAProxy %d ms later; %d writes acknowledged in all, the slowest in %d ms",
                victim.name(), ms(down - killed), Traffic.summary(readsIn), ms(lastError - killed), Traffic.summary(writesIn),
                ms(up - restarted), t.acknowledged.size(), t.slowestWrite()));
        assertThat(Traffic.errors(Traffic.between(t.reads, 0, killed))).as("reads before the kill").isEmpty();
        assertThat(Traffic.errors(Traffic.between(t.writes, 0, killed))).as("writes before the kill").isEmpty();
        assertThat(Traffic.errors(Traffic.between(t.reads, windowEnd, end))).as("reads after the window").isEmpty();
        assertThat(Traffic.errors(Traffic.between(t.writes, windowEnd, end))).as("writes after the window").isEmpty();
        // every acknowledged write, on every node, the restarted one included
        assertEveryNodeHas(t.acknowledged);
    }

    @Test
    @Order(2)
    void postgresqlRestartedDuringWritesKeepsReadsServedAndFailsWritesClearlyUntilItIsBack() throws Exception {
        Traffic t = new Traffic(RIG.front(), RIG.account(), "pg", 3, 1);
        long stopping;
        long started;
        long firstWriteAfter;
        try {
            awaitAcknowledged(t, 20);
            stopping = System.nanoTime();
            RIG.postgres().stopServer();
            long stopped = System.nanoTime();
            // the outage: long enough for the writer to meet it several times
            // the outage: long enough for the writer to be refused (which takes the pool's 5 s to give up, twice)
            Wait.upTo(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(50)).alias("a write refused during the outage")
                    .until(() -> !Traffic.errors(Traffic.between(t.writes, stopping, Long.MAX_VALUE)).isEmpty()
                            && System.nanoTime() - stopped > Duration.ofSeconds(2).toNanos());
            RIG.postgres().startAgain();
            started = System.nanoTime();
            int before = t.acknowledged.size();
            awaitAcknowledged(t, before + 1);
            // the first write acknowledged after the stop (it may have been sent during the outage, and waited)
            firstWriteAfter = Traffic.between(t.writes, stopping, Long.MAX_VALUE).stream().filter(Outcome::ok)
                    .mapToLong(Outcome::answered).min().orElseThrow();
            awaitAcknowledged(t, before + 20);
        } finally {
            t.close();
            if (!RIG.postgres().running()) RIG.postgres().startAgain();
        }
        List<Outcome> outage = Traffic.between(t.writes, stopping, firstWriteAfter);
        List<Outcome> reads = new ArrayList<>(t.reads);
        long slowestRefusal = Traffic.errors(outage).stream().mapToLong(o -> o.answered() - o.nanos()).max().orElse(0);
        report(String.format(Locale.ROOT, "PostgreSQL stopped (pg_ctl stop -m fast) and started again %d ms later:"
                        + " writes failed from the stop until %d ms after the start: %s, a refusal taking up to %d ms;"
                        + " readers throughout: %s",
                ms(started - stopping), ms(firstWriteAfter - started), Traffic.summary(outage), ms(slowestRefusal),
                Traffic.summary(reads)));
        assertThat(Traffic.errors(reads)).as("reads are served from each node's copy throughout").isEmpty();
        assertThat(Traffic.errors(outage)).as("writes refused during the outage").isNotEmpty();
        for (Outcome o : Traffic.errors(Traffic.between(t.writes, 0, Long.MAX_VALUE))) {
            assertThat(o.answered() >= stopping && o.nanos() <= firstWriteAfter).as("a write failed outside the outage: " + o).isTrue();
            assertThat(o.status()).as(o.toString()).isEqualTo(503);
            // an err:error with its code; the message is the store API's safe phrase for a 5xx, the cause is in the
            // node's log under the error's id
            assertThat(o.detail()).as(o.toString()).contains("<err:error xmlns:err=\"urn:arno:error\" code=\"database-unavailable\"")
                    .contains("status=\"503\"").contains(" id=\"E-");
        }
        assertEveryNodeHas(t.acknowledged);
    }

    @Test
    @Order(3)
    void aChangeWaitsNoLongerThanThePollIntervalWhenTheListeningConnectionsAreKilled() throws Exception {
        assertThat(terminateListeners()).as("one listening connection per node").isEqualTo(3);
        // Each node replaces a lost listening connection at its next wait, so one kill costs little: kill them all
        // again and again, every 20 ms, while the writes go on, so that notifications are mostly lost and polling
        // is what delivers the changes.
        AtomicBoolean killing = new AtomicBoolean(true);
        AtomicInteger killed = new AtomicInteger();
        CompletableFuture<Void> killer = CompletableFuture.runAsync(() -> {
            while (killing.get()) {
                try {
                    killed.addAndGet(terminateListeners());
                    Thread.sleep(20);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        List<Long> latencies = new ArrayList<>();
        try (Traffic t = new Traffic(RIG.front(), RIG.account(), "listen-readers", 2, 0)) {
            for (int round = 0; round < 8; round++) {
                HttpResponse<String> w = post(RIG.node(1 + round % 3), "listen-" + round);
                long written = System.nanoTime();
                long position = Long.parseLong(w.headers().firstValue("Arno-Position").orElseThrow());
                long slowest = 0;
                for (ClusterRig.Node n : RIG.nodes()) {
                    Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).alias(n.name() + " applies " + position)
                            .until(() -> n.position().orElse(0) >= position);
                    slowest = Math.max(slowest, System.nanoTime() - written);
                }
                latencies.add(slowest);
            }
            assertThat(Traffic.errors(new ArrayList<>(t.reads))).as("reads").isEmpty();
        } finally {
            killing.set(false);
            killer.get(30, TimeUnit.SECONDS);
        }
        report(String.format(Locale.ROOT, "listening connections killed (pg_terminate_backend) every 20 ms, %d in all,"
                + " during %d writes: each visible on every node after %s ms (poll interval %d ms)", killed.get(),
                latencies.size(), latencies.stream().map(l -> Long.toString(ms(l))).toList(), POLL.toMillis()));
        // the poll interval, and what reading the health over HTTP on a busy two-core machine adds
        assertThat(latencies).allSatisfy(l -> assertThat(Duration.ofNanos(l)).isLessThan(POLL.plusMillis(750)));
        assertThat(killed.get()).as("listening connections killed").isGreaterThan(3);
    }

    /** Ends every node's listening connection, as an operator's pg_terminate_backend would; how many. */
    private static int terminateListeners() throws Exception {
        try (Connection c = DriverManager.getConnection(RIG.postgres().url()); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        + " WHERE application_name = 'arno-applier'")) {
            r.next();
            return r.getInt(1);
        }
    }

    private HttpResponse<String> post(ClusterRig.Node n, String slug) {
        String entry = "<entry xmlns='http://www.w3.org/2005/Atom'><title>Rig " + slug + "</title>"
                + "<category scheme='urn:arno:kind' term='journal'/></entry>";
        HttpResponse<String> r = Http.send(http, HttpRequest.newBuilder(n.uri(Traffic.COLLECTION))
                .header("Authorization", Http.basic(RIG.account())).header("Slug", slug)
                .header("Content-Type", "application/atom+xml;type=entry")
                .POST(HttpRequest.BodyPublishers.ofString(entry)).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return r;
    }

    private static void awaitAcknowledged(Traffic t, int count) {
        try {
            Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).alias(count + " writes acknowledged")
                    .until(() -> t.acknowledged.size() >= count);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            List<Outcome> all = new ArrayList<>(t.writes);
            throw new AssertionError(t.acknowledged.size() + " of " + count + " writes acknowledged; the last answers: "
                    + all.subList(Math.max(0, all.size() - 5), all.size()), e);
        }
    }

    /** Every node reaches the last acknowledged position and reads each acknowledged entry. */
    private void assertEveryNodeHas(Map<String, Long> acknowledged) {
        long last = acknowledged.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        for (ClusterRig.Node n : RIG.nodes()) {
            Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).alias(n.name() + " applies " + last)
                    .until(() -> n.position().orElse(0) >= last);
            for (String path : acknowledged.keySet()) {
                HttpResponse<String> r = Http.send(http, HttpRequest.newBuilder(n.uri(path))
                        .header("Authorization", Http.basic(RIG.account())).build());
                assertThat(r.statusCode()).as(n.name() + " " + path + ": " + r.body()).isEqualTo(200);
                assertThat(r.body()).as(n.name() + " " + path).contains(">Rig ");
            }
        }
    }

    private static void report(String line) {
        System.out.println("cluster failure: " + line);
        System.err.println("cluster failure: " + line);
    }

    private static long ms(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
