package arno.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import arno.batch.BatchOptions;
import arno.batch.BatchService;
import arno.batch.SharedJobs;
import arno.testkit.EmbeddedTomcat;
import arno.testkit.Http;
import arno.testkit.Wait;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch jobs across nodes (issue 23, item 8): several batch services, each with its own work
 * folder and its own Tomcat on a real socket, sharing one real PostgreSQL through {@link PgJobs}.
 * Inputs are fetched over HTTP from a content server that counts each fetch, so "ran once" is
 * counted, not assumed.
 */
class PgJobsTest {
    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    private static final String USER = "tester";
    private static final String PASSWORD = "secret-password";
    private static final Pattern ENTRY = Pattern.compile("<transformation index=\"(\\d+)\"[^>]*status=\"([a-z]+)\"");

    @TempDir
    Path tmp;

    private final HttpClient http = Http.client();
    private final List<AutoCloseable> open = new ArrayList<>();
    private HikariDataSource db;
    private EmbeddedTomcat content;
    /** Fetches of each input, by "job/index". */
    private final Map<String, AtomicInteger> fetches = new ConcurrentHashMap<>();
    private volatile long delayMillis;

    @BeforeEach
    void setUp() throws Exception {
        db = pool(PG.newDatabase());
        Schema.migrate(db);
        content = EmbeddedTomcat.builder().servlet("/in/*", new HttpServlet() {
            @Override protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                String key = req.getPathInfo().substring(1);
                fetches.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                resp.setContentType("application/xml");
                resp.getWriter().write("<doc key=\"" + key + "\"/>");
            }
        }).start();
        Files.createDirectories(tmp.resolve("root"));
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) open.get(i).close();
        content.close();
        db.close();
    }

    private HikariDataSource pool(String database) {
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(PG.url(database));
        h.setMaximumPoolSize(4);
        h.setMinimumIdle(0);
        return new HikariDataSource(h);
    }

    /** A record that can be cut off, as a node loses its database (or stalls) without releasing anything. */
    private static final class Cuttable implements SharedJobs {
        final SharedJobs in;
        volatile boolean cut;

        Cuttable(SharedJobs in) {
            this.in = in;
        }

        private SharedJobs in() {
            if (cut) throw new IllegalStateException("cut off from the database (test)");
            return in;
        }

        @Override public Duration lease() {
            return in.lease();
        }

        @Override public void create(String id, int priority, Properties state, Path batch, Path report) {
            in().create(id, priority, state, batch, report);
        }

        @Override public Properties state(String id) {
            return in().state(id);
        }

        @Override public List<Properties> list() {
            return in().list();
        }

        @Override public int waiting() {
            return in().waiting();
        }

        @Override public Properties claim(String id) {
            return in().claim(id);
        }

        @Override public InputStream batch(String id) {
            return in().batch(id);
        }

        @Override public InputStream report(String id, long length) {
            return in().report(id, length);
        }

        @Override public InputStream svrl(String id, long index) {
            return in().svrl(id, index);
        }

        @Override public void svrls(String id, BiConsumer<Long, InputStream> each) {
            in().svrls(id, each);
        }

        @Override public Lease save(String id, Properties state, Path report, long from, long to, Map<Long, Path> svrl) {
            return in().save(id, state, report, from, to, svrl);
        }

        @Override public void release(String id) {
            in().release(id);
        }

        @Override public boolean cancel(String id, Instant at) {
            return in().cancel(id, at);
        }
    }

    /** A node: its own work folder, batch service and Tomcat, on the shared database. */
    private final class Node implements AutoCloseable {
        final Cuttable shared;
        final BatchService service;
        final EmbeddedTomcat tomcat;
        private boolean closed;

        Node(String name, int runningJobs, Duration lease) {
            BatchOptions options = BatchOptions.builder(tmp.resolve("node-" + name)).roots(List.of(tmp.resolve("root")))
                    .workers(2).runningJobs(runningJobs).outbound(arno.xml.Outbound.Policy.DEFAULT.allowingPrivate()).build();
            BatchService.addAccount(options, USER, PASSWORD);
            shared = new Cuttable(PgJobs.open(db, name, new PgJobs.Options(lease)));
            service = BatchService.start(options, null, shared);
            tomcat = EmbeddedTomcat.builder().mount(ctx -> service.endpoint().mount(ctx, "batch", "/batch/*")).start();
            open.add(this);
        }

        String url(String path) {
            return "http://127.0.0.1:" + tomcat.port() + path;
        }

        HttpResponse<String> get(String path) {
            return Http.send(http, HttpRequest.newBuilder(URI.create(url(path)))
                    .header("Authorization", Http.basic(USER + ":" + PASSWORD)).build());
        }

        HttpResponse<String> delete(String path) {
            return Http.send(http, HttpRequest.newBuilder(URI.create(url(path))).DELETE()
                    .header("Authorization", Http.basic(USER + ":" + PASSWORD)).build());
        }

        /** Submits and returns the job's path, asserting 202. */
        String submit(String batch) {
            HttpResponse<String> r = Http.send(http, HttpRequest.newBuilder(URI.create(url("/batch/jobs")))
                    .header("Authorization", Http.basic(USER + ":" + PASSWORD)).header("Content-Type", "application/xml")
                    .POST(HttpRequest.BodyPublishers.ofString(batch)).build());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            return r.headers().firstValue("Location").orElseThrow();
        }

        String status(String job) {
            HttpResponse<String> r = get(job);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            Matcher m = Pattern.compile("<job [^>]*status=\"([a-z]+)\"").matcher(r.body());
            assertThat(m.find()).as(r.body()).isTrue();
            return m.group(1);
        }

        String awaitFinished(String job) {
            return Wait.upTo(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).alias(job + " finished")
                    .until(() -> status(job), s -> List.of("completed", "failed", "cancelled").contains(s));
        }

        String report(String job) {
            HttpResponse<String> r = get(job + "/report");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return r.body();
        }

        @Override public void close() {
            if (closed) return;
            closed = true;
            service.close();
            tomcat.close();
        }
    }

    /** A batch of {@code inputs} inputs named {@code name}, fetched from the content server, one at a time. */
    private String batch(String name, int inputs) {
        StringBuilder b = new StringBuilder("<batch xmlns=\"urn:arno:batch\" name=\"" + name + "\" parallelism=\"1\">\n"
                + "<stylesheet><xsl:stylesheet xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\" version=\"3.0\">"
                + "<xsl:template match=\"/\"><out xmlns=\"\"><xsl:copy-of select=\".\"/></out></xsl:template>"
                + "</xsl:stylesheet></stylesheet>\n");
        for (int i = 1; i <= inputs; i++) {
            b.append("<input href=\"").append(content.url("/in/" + name + "/" + i)).append("\" output=\"")
                    .append(tmp.resolve("root/out/" + name + "/" + i + ".xml").toUri()).append("\"/>\n");
        }
        return b.append("</batch>\n").toString();
    }

    /** Each input's entries in a report: index → statuses. */
    private static Map<Integer, List<String>> entries(String report) {
        Map<Integer, List<String>> out = new TreeMap<>();
        Matcher m = ENTRY.matcher(report);
        while (m.find()) out.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>()).add(m.group(2));
        return out;
    }

    private int fetched(String name, int index) {
        AtomicInteger n = fetches.get(name + "/" + index);
        return n == null ? 0 : n.get();
    }

    private List<String> column(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) out.add(r.getString(1));
        }
        return out;
    }

    @Test
    void aJobSubmittedOnOneNodeRunsOnceAndReadsTheSameFromEveryNode() throws Exception {
        Node a = new Node("a", 2, Duration.ofSeconds(30));
        Node b = new Node("b", 2, Duration.ofSeconds(30));
        String batch = batch("one", 12);
        String job = a.submit(batch);
        assertThat(column("SELECT id FROM arno.batch_jobs")).containsExactly(job.substring(job.lastIndexOf('/') + 1));

        assertThat(b.awaitFinished(job)).isEqualTo("completed");
        Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(a.status(job)).isEqualTo("completed"));
        for (int i = 1; i <= 12; i++) assertThat(fetched("one", i)).as("input %s fetched", i).isEqualTo(1);
        String fromA = a.report(job);
        String fromB = b.report(job);
        assertThat(fromB).isEqualTo(fromA);
        assertThat(entries(fromB)).hasSize(12).allSatisfy((i, s) -> assertThat(s).containsExactly("ok"));
        assertThat(fromB).contains("<totals inputs=\"12\" succeeded=\"12\" failed=\"0\" not-run=\"0\"");
        assertThat(b.get(job + "/report?format=html").body()).contains("completed: 12 of 12 done");
        assertThat(b.get(job + "/batch").body()).isEqualTo(batch);
        assertThat(b.get(job).body()).contains("succeeded=\"12\"");
        assertThat(a.get("/batch/jobs").body()).isEqualTo(b.get("/batch/jobs").body());
        assertThat(b.get("/batch/jobs/20990101-000000-zzzz").statusCode()).isEqualTo(404);
    }

    /** A Schematron job's SVRL is kept with its report: read from any node, and there for a node that resumes it. */
    @Test
    void aSchematronJobsSvrlIsReadFromAnotherNode() throws Exception {
        Node a = new Node("a", 2, Duration.ofSeconds(30));
        Node b = new Node("b", 2, Duration.ofSeconds(30));
        StringBuilder batch = new StringBuilder("<batch xmlns=\"urn:arno:batch\" name=\"sch\">\n<schematron>"
                + "<sch:schema xmlns:sch=\"http://purl.oclc.org/dsdl/schematron\" queryBinding=\"xslt2\"><sch:pattern>"
                + "<sch:rule context=\"doc\"><sch:assert test=\"ends-with(@key, '/1')\" id=\"first\">not the first</sch:assert>"
                + "</sch:rule></sch:pattern></sch:schema></schematron>\n");
        for (int i = 1; i <= 3; i++) batch.append("<input href=\"").append(content.url("/in/sch/" + i)).append("\"/>\n");
        String job = a.submit(batch.append("</batch>\n").toString());
        assertThat(b.awaitFinished(job)).isEqualTo("completed");
        String report = b.report(job);
        assertThat(report).contains("failed-asserts=\"1\"").contains("schematron-summary");
        for (Node n : List.of(a, b)) {
            assertThat(n.get(job + "/svrl/1").body()).contains("svrl:schematron-output").doesNotContain("failed-assert");
            assertThat(n.get(job + "/svrl/2").body()).contains("failed-assert").contains("not the first");
            assertThat(n.get(job + "/svrl/9").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void nodesRacingToClaimNeverRunAJobTwice() throws Exception {
        Node a = new Node("a", 2, Duration.ofSeconds(30));
        Node b = new Node("b", 2, Duration.ofSeconds(30));
        Node c = new Node("c", 2, Duration.ofSeconds(30));
        List<Node> nodes = List.of(a, b, c);
        List<String> jobs = new ArrayList<>();
        for (int j = 0; j < 12; j++) jobs.add(nodes.get(j % 3).submit(batch("race" + j, 3)));
        for (String job : jobs) assertThat(nodes.get(1).awaitFinished(job)).isEqualTo("completed");
        for (int j = 0; j < 12; j++) {
            for (int i = 1; i <= 3; i++) assertThat(fetched("race" + j, i)).as("race%s input %s", j, i).isEqualTo(1);
            String report = c.report(jobs.get(j));
            assertThat(report.split("<run ", -1)).as("one run of job %s", j).hasSize(2);
        }
    }

    @Test
    void claimsAtTheSameMomentGetDifferentJobs() throws Exception {
        Path batchFile = Files.writeString(tmp.resolve("b.xml"), "<batch/>");
        PgJobs submitter = PgJobs.open(db, "s", PgJobs.Options.defaults());
        for (int j = 0; j < 200; j++) {
            Properties p = new Properties();
            p.setProperty("id", "job-" + j);
            p.setProperty("status", "QUEUED");
            submitter.create("job-" + j, j % 3, p, batchFile, null);
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<String>>> claims = new ArrayList<>();
            for (int n = 0; n < 8; n++) {
                // a connection of its own each, so that the claims really are at the same moment
                HikariDataSource own = pool(dbName());
                open.add(own);
                PgJobs node = PgJobs.open(own, "n" + n, PgJobs.Options.defaults());
                claims.add(pool.submit(() -> {
                    go.await();
                    List<String> mine = new ArrayList<>();
                    for (Properties p; (p = node.claim(null)) != null; ) mine.add(p.getProperty("id"));
                    return mine;
                }));
            }
            go.countDown();
            List<String> all = new ArrayList<>();
            for (Future<List<String>> f : claims) all.addAll(f.get());
            assertThat(all).hasSize(200).doesNotHaveDuplicates();
            assertThat(submitter.claim(null)).as("none left while leases hold").isNull();
        } finally {
            pool.shutdownNow();
        }
    }

    /** A claim passes over a job another claim is taking at that moment (its row locked) rather than wait for it or take it too. */
    @Test
    void aClaimSkipsAJobAnotherClaimIsTaking() throws Exception {
        Path batchFile = Files.writeString(tmp.resolve("b.xml"), "<batch/>");
        PgJobs node = PgJobs.open(db, "n", PgJobs.Options.defaults());
        for (String id : List.of("first", "second")) {
            Properties p = new Properties();
            p.setProperty("id", id);
            p.setProperty("status", "QUEUED");
            node.create(id, 0, p, batchFile, null);
        }
        try (Connection other = db.getConnection()) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("SELECT id FROM arno.batch_jobs WHERE id = 'first' FOR UPDATE");
            }
            ExecutorService one = Executors.newSingleThreadExecutor();
            try {
                Future<Properties> claimed = one.submit(() -> node.claim(null));
                assertThat(claimed.get(5, java.util.concurrent.TimeUnit.SECONDS).getProperty("id")).isEqualTo("second");
            } finally {
                other.rollback();
                one.shutdownNow();
            }
        }
        assertThat(node.claim(null).getProperty("id")).isEqualTo("first");
    }

    @Test
    void aNodeThatStopsRenewingHasItsJobResumedByAnotherExactlyOnce() throws Exception {
        delayMillis = 150;
        Node a = new Node("a", 2, Duration.ofSeconds(2));
        String job = a.submit(batch("dead", 30));
        String id = job.substring(job.lastIndexOf('/') + 1);
        // running on A, and some of its report sent
        Wait.upTo(Duration.ofSeconds(30)).until(() -> Long.parseLong(column(
                "SELECT report_length FROM arno.batch_jobs WHERE id = '" + id + "'").get(0)) > 0
                && entries(new String(a.shared.in.report(id, Long.parseLong(a.shared.in.state(id).getProperty(
                        SharedJobs.REPORT_LENGTH))).readAllBytes(), StandardCharsets.UTF_8)).size() >= 4);
        assertThat(column("SELECT owner_node FROM arno.batch_jobs")).containsExactly("a");
        a.shared.cut = true; // A neither renews nor releases: as if it had died
        Thread.sleep(300); // a save under way when it was cut has committed by now
        Set<Integer> sent = entries(new String(a.shared.in.report(id, Long.parseLong(a.shared.in.state(id).getProperty(
                SharedJobs.REPORT_LENGTH))).readAllBytes(), StandardCharsets.UTF_8)).keySet();

        Node b = new Node("b", 2, Duration.ofSeconds(2));
        assertThat(b.awaitFinished(job)).isEqualTo("completed");
        assertThat(column("SELECT owner_node FROM arno.batch_jobs")).containsExactly("b");
        String report = b.report(job);
        Map<Integer, List<String>> entries = entries(report);
        assertThat(entries).as(report).hasSize(30).allSatisfy((i, s) -> assertThat(s).containsExactly("ok"));
        assertThat(report).contains("<totals inputs=\"30\" succeeded=\"30\" failed=\"0\" not-run=\"0\"");
        assertThat(report).contains("resumed=\"true\"");
        // what A had sent is not run again; what it ran and could not send is, once
        assertThat(sent).hasSizeGreaterThanOrEqualTo(4);
        List<Integer> twice = new ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            if (sent.contains(i)) assertThat(fetched("dead", i)).as("input %s, sent by A", i).isEqualTo(1);
            else assertThat(fetched("dead", i)).as("input %s, not sent by A", i).isBetween(1, 2);
            if (fetched("dead", i) == 2) twice.add(i);
        }
        // A ran on for up to a lease after the cut, sending nothing: those inputs ran on both nodes (their outputs
        // written twice: at least once, batch/README.md), and the report still lists each of them once, as B ran it
        assertThat(twice).as("inputs A ran but could not send").isNotEmpty().allSatisfy(i -> assertThat(sent).doesNotContain(i));
        assertThat(report.split("<transformation index=", -1)).as(report).hasSize(31);
        // A stopped running it by itself once it could not renew for a lease: it fetches nothing more
        int total = fetches.values().stream().mapToInt(AtomicInteger::get).sum();
        Thread.sleep(1_000);
        assertThat(fetches.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(total);
        a.close();
        assertThat(b.report(job)).isEqualTo(report);
    }

    @Test
    void aNodeWhoseLeaseWasTakenWritesNothingMore() throws Exception {
        Path batchFile = Files.writeString(tmp.resolve("b.xml"), "<batch/>");
        Path report = Files.writeString(tmp.resolve("report.xml"), "<report>0123456789");
        PgJobs first = PgJobs.open(db, "first", new PgJobs.Options(Duration.ofSeconds(2)));
        PgJobs second = PgJobs.open(db, "second", new PgJobs.Options(Duration.ofSeconds(2)));
        Properties p = new Properties();
        p.setProperty("id", "j");
        p.setProperty("status", "QUEUED");
        first.create("j", 0, p, batchFile, null);
        assertThat(first.claim(null)).isNotNull();
        assertThat(second.claim(null)).as("held by the first").isNull();
        p.setProperty("status", "RUNNING");
        assertThat(first.save("j", p, report, 0, 8, Map.of())).isEqualTo(SharedJobs.Lease.HELD);
        PG.execute(dbName(), "UPDATE arno.batch_jobs SET lease_until = now() - interval '1 second'");
        Properties resumed = second.claim(null);
        assertThat(resumed.getProperty(SharedJobs.REPORT_LENGTH)).isEqualTo("8");
        assertThat(first.save("j", p, report, 8, 18, Map.of())).isEqualTo(SharedJobs.Lease.LOST);
        assertThat(second.state("j").getProperty(SharedJobs.REPORT_LENGTH)).isEqualTo("8");
        assertThat(new String(second.report("j", 8).readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("<report>");
        first.release("j");
        assertThat(column("SELECT owner_node FROM arno.batch_jobs")).containsExactly("second");
        // a restarted node (a new process of the same name) takes back nothing of its old leases: it gives them up
        PgJobs.open(db, "second", PgJobs.Options.defaults());
        assertThat(column("SELECT coalesce(owner_node, '-') FROM arno.batch_jobs")).containsExactly("-");
    }

    private String dbName() throws Exception {
        return column("SELECT current_database()").get(0);
    }

    @Test
    void aJobRunningOnOneNodeIsCancelledFromAnother() throws Exception {
        delayMillis = 200;
        Node a = new Node("a", 2, Duration.ofSeconds(30));
        String job = a.submit(batch("cancel", 20));
        Wait.upTo(Duration.ofSeconds(30)).until(() -> fetched("cancel", 2) > 0);
        Node b = new Node("b", 2, Duration.ofSeconds(30));
        HttpResponse<String> cancelled = b.delete(job);
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(202);
        assertThat(cancelled.body()).contains("cancelled=\"");
        long asked = System.nanoTime();
        assertThat(b.awaitFinished(job)).isEqualTo("cancelled");
        assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(10));
        String report = b.report(job);
        assertThat(report).contains("<cancelled at=\"");
        // every input accounted for once: an entry (ok, or cancelled) or a not-run
        Set<Integer> seen = new HashSet<>(entries(report).keySet());
        Matcher notRun = Pattern.compile("<not-run index=\"(\\d+)\"").matcher(report);
        int notRunCount = 0;
        while (notRun.find()) {
            notRunCount++;
            assertThat(seen.add(Integer.parseInt(notRun.group(1)))).as("input %s accounted once", notRun.group(1)).isTrue();
        }
        assertThat(seen).hasSize(20);
        assertThat(notRunCount).isPositive();
        assertThat(fetched("cancel", 20)).isZero();
        assertThat(b.delete(job).statusCode()).isEqualTo(409);
        assertThat(a.report(job)).isEqualTo(report);
    }

    /** A job waiting for room on any node, cancelled on one: that node takes it and cancels it at once. */
    @Test
    void aWaitingJobIsCancelledAtOnceByTheNodeAsked() throws Exception {
        delayMillis = 300;
        Node a = new Node("a", 1, Duration.ofSeconds(30));
        Node b = new Node("b", 1, Duration.ofSeconds(30));
        String busyA = a.submit(batch("busy1", 20));
        String busyB = b.submit(batch("busy2", 20));
        Wait.upTo(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(a.status(busyA)).isEqualTo("running");
            assertThat(a.status(busyB)).isEqualTo("running");
        });
        String waiting = a.submit(batch("waiting", 3));
        Thread.sleep(1_500); // two ticks: no node has room for it
        assertThat(b.status(waiting)).isEqualTo("queued");
        HttpResponse<String> cancelled = b.delete(waiting);
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(202);
        assertThat(cancelled.body()).contains("status=\"cancelled\"");
        String report = a.report(waiting);
        assertThat(report).contains("<cancelled at=\"").doesNotContain("<transformation").doesNotContain("<run ")
                .contains("<totals inputs=\"3\" succeeded=\"0\" failed=\"0\" not-run=\"3\"");
        assertThat(report.split("<not-run ", -1)).hasSize(4);
        assertThat(fetched("waiting", 1)).isZero();
        assertThat(a.status(busyA)).isEqualTo("running");
        assertThat(a.delete(busyA).statusCode()).isEqualTo(202);
        assertThat(a.delete(busyB).statusCode()).isEqualTo(202);
    }
}
