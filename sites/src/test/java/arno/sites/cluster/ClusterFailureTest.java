package arno.sites.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cluster.TestPostgres;
import arno.sites.cluster.Traffic.Outcome;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
    /** Short, so a job on a killed node is resumed by another within seconds (the default is 30 s). */
    private static final Duration BATCH_LEASE = Duration.ofSeconds(3);

    @RegisterExtension
    static final ClusterRig RIG = new ClusterRig().nodeArgs("--cluster-batch-lease", BATCH_LEASE.toSeconds() + "s");

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
            // while the node starts, one reader and one writer go on, ten requests a second (see Traffic.active)
            t.active(1, 1, 100);
            victim.start();
            restarted = System.nanoTime();
            victim.awaitReady(Duration.ofMinutes(2));
            Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).alias("HAProxy takes " + victim.name() + " back")
                    .until(() -> "UP".equals(RIG.haproxyStatus().get(victim.name())));
            up = System.nanoTime();
            t.allActive();
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
        // answered before the kill: one sent just before it and cut by it belongs to the window
        assertThat(Traffic.errors(Traffic.answeredBefore(t.reads, killed))).as("reads before the kill").isEmpty();
        assertThat(Traffic.errors(Traffic.answeredBefore(t.writes, killed))).as("writes before the kill").isEmpty();
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
        long stopped;
        long started;
        long firstWriteAfter;
        try {
            awaitAcknowledged(t, 20);
            stopping = System.nanoTime();
            RIG.postgres().stopServer();
            stopped = System.nanoTime();
            // the outage: long enough for the writer to be refused (which takes the pool's 5 s to give up, twice;
            // or, for a write whose COMMIT the stop cut, the apply timeout's 30 s of asking what became of it)
            Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).alias("a write refused during the outage")
                    .until(() -> !Traffic.errors(Traffic.between(t.writes, stopping, Long.MAX_VALUE)).isEmpty()
                            && System.nanoTime() - stopped > Duration.ofSeconds(2).toNanos());
            RIG.postgres().startAgain();
            started = System.nanoTime();
            int before = t.acknowledged.size();
            // the first write acknowledged after the stop (it may have been sent during the outage, and waited);
            // sent once the server was down: one sent while pg_ctl was stopping it may still have committed,
            // and its acknowledgement, late, says nothing of the outage's end
            long sentDown = stopped;
            Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).alias("a write sent during the outage acknowledged")
                    .until(() -> Traffic.between(t.writes, sentDown, Long.MAX_VALUE).stream().anyMatch(Outcome::ok));
            firstWriteAfter = Traffic.between(t.writes, stopped, Long.MAX_VALUE).stream().filter(Outcome::ok)
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

    @Test
    @Order(4)
    void aNodeWipedAndRestartedResynchronisesAndServesEveryDemoPageAsAPeerDoes() throws Exception {
        ClusterRig.Node victim = RIG.node(3);
        ClusterRig.Node peer = RIG.node(1);
        // commits of the log the rebuilt copy must hold: one before the kill, one while the node is down
        String before = URI.create(post(RIG.node(2), "wiped-before").headers().firstValue("Location").orElseThrow()).getPath();
        victim.kill();
        long killed = System.nanoTime();
        victim.wipeStore();
        String whileDown = URI.create(post(RIG.node(2), "wiped-while-down").headers().firstValue("Location").orElseThrow()).getPath();
        victim.start();
        long started = System.nanoTime();
        victim.awaitReady(Duration.ofMinutes(2));
        long ready = System.nanoTime();
        Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).alias("HAProxy takes " + victim.name() + " back")
                .until(() -> "UP".equals(RIG.haproxyStatus().get(victim.name())));
        long up = System.nanoTime();
        String log = Files.readString(victim.log());
        String rebuilt = log.substring(log.lastIndexOf("---- start ")).contains("resync: ") ? "rebuilt from PostgreSQL" : "NOT rebuilt";
        long head = peer.position().orElseThrow();
        Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).alias(victim.name() + " applies " + head)
                .until(() -> victim.position().orElse(0) >= head);

        // every page of the demo: crawled from the journals' homes on the peer, each fetched from both nodes directly
        List<String> pages = crawl(peer, List.of("/journal-a/", "/journal-b/"), 500);
        int bytes = 0;
        for (String page : pages) {
            HttpResponse<byte[]> a = getBytes(peer.uri(page), false);
            HttpResponse<byte[]> b = getBytes(victim.uri(page), false);
            assertThat(a.statusCode()).as(peer.name() + " " + page).isEqualTo(200);
            assertThat(b.statusCode()).as(victim.name() + " " + page).isEqualTo(200);
            assertThat(b.body()).as(victim.name() + " " + page + " against " + peer.name()).isEqualTo(a.body());
            bytes += a.body().length;
        }
        // and store entries: the same bytes, ETag and Last-Modified
        List<String> entries = storeEntries(peer, Traffic.COLLECTION, 8);
        for (String entry : entries) {
            HttpResponse<byte[]> a = getBytes(peer.uri(entry), true);
            HttpResponse<byte[]> b = getBytes(victim.uri(entry), true);
            assertThat(a.statusCode()).as(peer.name() + " " + entry).isEqualTo(200);
            assertThat(b.statusCode()).as(victim.name() + " " + entry).isEqualTo(200);
            assertThat(b.body()).as(entry).isEqualTo(a.body());
            for (String h : List.of("ETag", "Last-Modified")) {
                assertThat(b.headers().firstValue(h)).as(entry + " " + h).isPresent().isEqualTo(a.headers().firstValue(h));
            }
        }
        report(String.format(Locale.ROOT, "%s killed, its store deleted and started again: %s, ready %d ms after the start,"
                        + " UP in HAProxy %d ms later (%d ms from the kill); %d demo pages (%,d bytes) byte-identical to %s's,"
                        + " %d store entries with equal bytes, ETag and Last-Modified", victim.name(), rebuilt,
                ms(ready - started), ms(up - ready), ms(up - killed), pages.size(), bytes, peer.name(), entries.size()));
        assertThat(rebuilt).isEqualTo("rebuilt from PostgreSQL");
        assertThat(pages).as("demo pages").hasSizeGreaterThan(20);
        assertThat(entries).as("store entries").hasSizeGreaterThanOrEqualTo(2);
        assertEveryNodeHas(Map.of(before, head, whileDown, head));
    }

    @Test
    @Order(5)
    void aBatchJobWhoseNodeIsKilledMidJobCompletesExactlyOnceOnAnotherNode() throws Exception {
        int inputs = 60;
        String input = "store:" + URI.create(post(RIG.node(1), "batch-input").headers().firstValue("Location").orElseThrow())
                .getPath().substring("/store".length());
        // each input a few hundred milliseconds of arithmetic, one at a time: a job of several seconds
        StringBuilder batch = new StringBuilder("<batch xmlns=\"urn:arno:batch\" name=\"killed mid-job\" parallelism=\"1\">\n"
                + "<stylesheet><xsl:stylesheet xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\" version=\"3.0\">"
                + "<xsl:template match=\"/\"><out xmlns=\"\"><xsl:value-of select=\"sum((1 to 30000000)[. mod 7 = 0])\"/></out>"
                + "</xsl:template></xsl:stylesheet></stylesheet>\n");
        for (int i = 0; i < inputs; i++) batch.append("<input href=\"").append(input).append("\"/>\n");
        batch.append("</batch>\n");
        HttpResponse<String> submitted = Http.send(http, HttpRequest.newBuilder(RIG.front().resolve("/batch/jobs"))
                .header("Authorization", Http.basic(RIG.account())).header("Content-Type", "application/xml")
                .POST(HttpRequest.BodyPublishers.ofString(batch.toString())).build());
        assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(202);
        String job = URI.create(submitted.headers().firstValue("Location").orElseThrow()).getPath();
        String id = job.substring(job.lastIndexOf('/') + 1);
        long submittedAt = System.nanoTime();

        // the node that claimed it, once it has sent a few entries of its report to PostgreSQL (which another node reads)
        String[] owner = new String[1];
        Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).alias("a node runs " + id)
                .until(() -> (owner[0] = jobRow(id)[0]) != null);
        ClusterRig.Node victim = RIG.nodes().stream().filter(n -> n.owns(owner[0])).findFirst().orElseThrow(
                () -> new AssertionError("no node of the rig owns " + id + ": " + owner[0]));
        ClusterRig.Node other = RIG.nodes().stream().filter(n -> n != victim).findFirst().orElseThrow();
        int[] doneBefore = new int[1];
        Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).alias(victim.name() + " reports inputs of " + id)
                .until(() -> (doneBefore[0] = occurrences(reportOf(other, job), "status=\"ok\"")) >= 3);
        long claimed = System.nanoTime();
        victim.kill();
        long killed = System.nanoTime();
        String[] successor = new String[1];
        Wait.upTo(BATCH_LEASE.plusSeconds(30)).pollInterval(Duration.ofMillis(50)).alias("another node resumes " + id)
                .until(() -> {
                    String[] row = jobRow(id);
                    successor[0] = row[0];
                    return (row[0] != null && !victim.owns(row[0])) || "COMPLETED".equals(row[1]);
                });
        long resumed = System.nanoTime();
        Wait.upTo(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).alias(id + " completed")
                .until(() -> "COMPLETED".equals(jobRow(id)[1]));
        long completed = System.nanoTime();

        String report = reportOf(other, job);
        ClusterRig.Node taker = RIG.nodes().stream().filter(n -> n.owns(successor[0])).findFirst().orElse(null);
        report(String.format(Locale.ROOT, "batch job of %d inputs: %s ran it, %d inputs reported when it was killed"
                        + " (%d ms after the submission); %s resumed it %d ms after the kill (lease %d s) and completed it %d ms"
                        + " after the kill; report read from %s: %d runs, %d ok entries", inputs, victim.name(), doneBefore[0],
                ms(claimed - submittedAt), taker == null ? "another node (seen only as completed)" : taker.name(),
                ms(resumed - killed), BATCH_LEASE.toSeconds(), ms(completed - killed), other.name(),
                occurrences(report, "<run "), occurrences(report, "status=\"ok\"")));
        assertThat(doneBefore[0]).as("inputs done before the kill").isLessThan(inputs);
        assertThat(taker).as("the node that resumed the job").isNotNull().isNotSameAs(victim);
        assertThat(report).contains("resumed=\"true\"")
                .contains("<totals inputs=\"" + inputs + "\" succeeded=\"" + inputs + "\" failed=\"0\" not-run=\"0\"");
        for (int i = 1; i <= inputs; i++) {
            assertThat(occurrences(report, "<transformation index=\"" + i + "\" ")).as("entries of input " + i).isEqualTo(1);
        }
        assertThat(occurrences(report, "status=\"ok\"")).as("ok entries").isEqualTo(inputs);
        assertThat(occurrences(report, "<transformation ")).as("entries").isEqualTo(inputs);
        assertThat(getBytes(taker.uri(job + "/report"), true).body()).as("the report alike on every node")
                .isEqualTo(report.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The last test: it leaves the cluster on the promoted replica, with the old primary stopped
     * (the rig's teardown stops both).
     */
    @Test
    @Order(6)
    void aPrimaryLostAndItsReplicaPromotedLosesTheUnreplicatedWritesAndEveryNodeRebuildsFromTheNewPrimary() throws Exception {
        TestPostgres primary = RIG.postgres();
        TestPostgres replica = RIG.replica();
        String replicated = URI.create(post(RIG.node(1), "replicated").headers().firstValue("Location").orElseThrow()).getPath();
        awaitReplayed(primary, replica);
        // Asynchronous replication's window held open: the replica stopped, so that what the primary acknowledges
        // from here is what a replica lags behind by when its primary dies (milliseconds, in a healthy pair).
        replica.stopServer();
        Map<String, Long> unreplicated = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> w = post(RIG.node(1 + i % 3), "unreplicated-" + i);
            unreplicated.put(URI.create(w.headers().firstValue("Location").orElseThrow()).getPath(),
                    Long.parseLong(w.headers().firstValue("Arno-Position").orElseThrow()));
        }
        long oldHead = unreplicated.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        for (ClusterRig.Node n : RIG.nodes()) {
            Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).alias(n.name() + " applies " + oldHead)
                    .until(() -> n.position().orElse(0) >= oldHead);
        }
        primary.stopServer(); // the primary lost
        long lostAt = System.nanoTime();
        replica.startAgain(); // a standby whose primary is gone: it has what it had received
        replica.promote();
        long promoted = System.nanoTime();
        long newHead;
        try (Connection c = DriverManager.getConnection(replica.url()); Statement st = c.createStatement();
                ResultSet r = st.executeQuery("SELECT position FROM arno.log_head")) {
            r.next();
            newHead = r.getLong(1);
        }
        // every node restarted on the new primary (as a supervisor would after a failover): each finds its copy
        // ahead of the database and rebuilds it
        RIG.database(replica.url());
        List<String> rebuilt = new ArrayList<>();
        for (ClusterRig.Node n : RIG.nodes()) {
            n.kill();
            n.start();
        }
        for (ClusterRig.Node n : RIG.nodes()) {
            n.awaitReady(Duration.ofMinutes(2));
            String log = Files.readString(n.log());
            String last = log.substring(log.lastIndexOf("---- start "));
            if (last.contains("resync: ")) rebuilt.add(n.name());
        }
        RIG.awaitHealthy();
        long whole = System.nanoTime();

        int lost = 0;
        for (String path : unreplicated.keySet()) {
            for (ClusterRig.Node n : RIG.nodes()) {
                int status = getBytes(n.uri(path), true).statusCode();
                if (n == RIG.node(1) && status == 404) lost++;
                assertThat(status).as(n.name() + " " + path + ": acknowledged before the failover, not in the new primary")
                        .isEqualTo(404);
            }
        }
        for (ClusterRig.Node n : RIG.nodes()) {
            assertThat(n.position()).as(n.name() + "'s position: the new primary's head").hasValue(newHead);
            assertThat(getBytes(n.uri(replicated), true).statusCode()).as(n.name() + " " + replicated).isEqualTo(200);
        }
        // every node serves what the new primary holds, alike
        ClusterRig.Node first = RIG.node(1);
        List<String> compared = new ArrayList<>(Traffic.PAGES);
        compared.addAll(storeEntries(first, Traffic.COLLECTION, 8));
        compared.add(Traffic.COLLECTION);
        for (String path : compared) {
            byte[] expected = getBytes(first.uri(path), true).body();
            for (ClusterRig.Node n : RIG.nodes()) {
                assertThat(getBytes(n.uri(path), true).body()).as(n.name() + " " + path + " against " + first.name())
                        .isEqualTo(expected);
            }
        }
        // and writes acknowledged after the promotion are everyone's
        Map<String, Long> after = new java.util.HashMap<>();
        for (ClusterRig.Node n : RIG.nodes()) {
            HttpResponse<String> w = post(n, "after-failover-" + n.name());
            after.put(URI.create(w.headers().firstValue("Location").orElseThrow()).getPath(),
                    Long.parseLong(w.headers().firstValue("Arno-Position").orElseThrow()));
        }
        assertEveryNodeHas(after);
        report(String.format(Locale.ROOT, "primary stopped and its asynchronous replica (pg_basebackup -R) promoted"
                        + " (%d ms): %d of %d writes acknowledged after the replica's last received commit lost (positions %d to %d;"
                        + " the new primary's head %d); every node restarted on the new primary, rebuilt: %s, ready and UP %d ms"
                        + " after the promotion; %d pages and entries alike on every node; %d writes after the promotion on every node",
                ms(promoted - lostAt), lost, unreplicated.size(), newHead + 1, oldHead, newHead, rebuilt, ms(whole - promoted),
                compared.size(), after.size()));
        assertThat(rebuilt).as("nodes that rebuilt their copy").hasSize(3);
        assertThat(lost).as("acknowledged writes the new primary lacks").isEqualTo(unreplicated.size());
        assertThat(newHead).isLessThan(oldHead);
    }

    /** Until the replica has replayed everything the primary has written so far. */
    private static void awaitReplayed(TestPostgres primary, TestPostgres replica) throws Exception {
        String lsn;
        try (Connection c = DriverManager.getConnection(primary.url()); Statement st = c.createStatement();
                // the insert position: with the tests' synchronous_commit=off a commit may still sit in the WAL
                // buffers, before the write position, and a replica stopped then would lack it
                ResultSet r = st.executeQuery("SELECT pg_current_wal_insert_lsn()")) {
            r.next();
            lsn = r.getString(1);
        }
        Wait.upTo(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).alias("the replica replays " + lsn).until(() -> {
            try (Connection c = DriverManager.getConnection(replica.url());
                    java.sql.PreparedStatement st = c.prepareStatement("SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn")) {
                st.setString(1, lsn);
                try (ResultSet r = st.executeQuery()) {
                    return r.next() && r.getBoolean(1);
                }
            }
        });
    }

    /** A job's owner_node and status in PostgreSQL. */
    private static String[] jobRow(String id) throws Exception {
        try (Connection c = DriverManager.getConnection(RIG.postgres().url());
                java.sql.PreparedStatement s = c.prepareStatement("SELECT owner_node, status FROM arno.batch_jobs WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) return new String[2];
                return new String[] {r.getString(1), r.getString(2)};
            }
        }
    }

    private String reportOf(ClusterRig.Node n, String job) {
        HttpResponse<String> r = Http.send(http, HttpRequest.newBuilder(n.uri(job + "/report"))
                .header("Authorization", Http.basic(RIG.account())).build());
        assertThat(r.statusCode()).as(n.name() + " " + job + "/report: " + r.body()).isEqualTo(200);
        return r.body();
    }

    private HttpResponse<byte[]> getBytes(URI uri, boolean withAccount) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        if (withAccount) b.header("Authorization", Http.basic(RIG.account()));
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(uri.toString(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every page reachable from {@code starts} on node {@code n} through links of the journals'
     * sites (their own paths; stylesheets and images too), at most {@code max}; each answered 200.
     */
    private List<String> crawl(ClusterRig.Node n, List<String> starts, int max) {
        java.util.LinkedHashSet<String> seen = new java.util.LinkedHashSet<>(starts);
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(starts);
        java.util.regex.Pattern link = java.util.regex.Pattern.compile("(?:href|src)=\"([^\"#?]+)");
        while (!todo.isEmpty() && seen.size() < max) {
            String page = todo.poll();
            HttpResponse<byte[]> r = getBytes(n.uri(page), false);
            assertThat(r.statusCode()).as(n.name() + " " + page).isEqualTo(200);
            if (!r.headers().firstValue("Content-Type").orElse("").startsWith("text/html")) continue;
            java.util.regex.Matcher m = link.matcher(new String(r.body(), StandardCharsets.UTF_8));
            while (m.find()) {
                if (m.group(1).contains(":")) continue; // another site's, or mailto:
                String href = URI.create("http://x" + page).resolve(m.group(1).replace("&amp;", "&")).getPath();
                boolean ours = href.startsWith("/journal-a/") || href.startsWith("/journal-b/") || href.startsWith("/static/");
                if (ours && seen.add(href)) todo.add(href);
            }
        }
        return new ArrayList<>(seen);
    }

    /** Up to {@code max} entries of a store collection, as API paths ({@code /store/.../X.atom}), from its feed. */
    private List<String> storeEntries(ClusterRig.Node n, String collection, int max) {
        HttpResponse<byte[]> feed = getBytes(n.uri(collection), true);
        assertThat(feed.statusCode()).as(collection).isEqualTo(200);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("href=\"([^\"]+\\.atom)\"")
                .matcher(new String(feed.body(), StandardCharsets.UTF_8));
        java.util.LinkedHashSet<String> entries = new java.util.LinkedHashSet<>();
        while (m.find() && entries.size() < max) {
            String path = n.uri(collection).resolve(m.group(1)).getPath();
            if (path.startsWith(collection) && !path.equals(collection)) entries.add(path);
        }
        return new ArrayList<>(entries);
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

    /** How often {@code part} occurs in {@code text}. */
    private static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) n++;
        return n;
    }

    private static void report(String line) {
        System.out.println("cluster failure: " + line);
        System.err.println("cluster failure: " + line);
    }

    private static long ms(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
