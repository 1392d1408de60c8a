package arno.sites.cluster;

import arno.cluster.TestPostgres;
import arno.testkit.Http;
import arno.testkit.Wait;
import arno.xml.Accounts;
import arno.testkit.Local;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A cluster of real processes on 127.0.0.1 for failure tests (issue 23, item 10): one PostgreSQL
 * ({@link TestPostgres}), three Arno nodes, each a JVM of its own ({@code arno.server.Main serve
 * --cluster URL} on this test's class path, in development mode with the demo, whose generator is
 * this module's), and HAProxy in front of them (round robin, health checks on {@code
 * /_arno/health} every 200 ms, down after 2 failures, up after 2 successes).
 *
 * <pre>
 * &#64;RegisterExtension
 * static final ClusterRig RIG = new ClusterRig();
 * ... RIG.front() ...  RIG.node(1).kill() ... RIG.node(1).start() ... RIG.awaitHealthy() ...
 * </pre>
 *
 * <p>Started before the class's first test, stopped after its last (and from a shutdown hook if
 * the JVM ends first): every process by its own pid, HAProxy and the nodes first, then PostgreSQL.
 * Each process writes its output to a log in the rig's temporary folder ({@code node-N.log},
 * {@code haproxy.log}, PostgreSQL's {@code server.log} in its own folder); when a test fails the
 * logs' last lines are printed. Every wait is bounded.
 *
 * <p>All three nodes share one account, {@link #account()}, written into each data folder before
 * its node first starts (accounts are per data folder, `batch/users`).
 */
public final class ClusterRig implements BeforeAllCallback, AfterAllCallback, AfterTestExecutionCallback {
    /**
     * HAProxy's health check: often, so a dead node (its port refuses the connection at once) leaves
     * the rotation in well under a second. A live node's answer may take up to {@code timeout check}
     * (2 s): without it the whole check had the interval, 200 ms, and on two busy cores all three
     * nodes once answered late twice in a row and the front answered 503 (a probe beside the test).
     */
    static final int CHECK_INTERVAL_MS = 200;
    static final int FALL = 2;
    static final int RISE = 2;
    /** Demo articles the first node generates and loads: enough pages, quick to load. */
    private static final int ARTICLES = 5;
    private static final Duration START = Duration.ofMinutes(3);
    private static final int LOG_TAIL = 60;

    private final TestPostgres pg = new TestPostgres();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String account = "rig:" + Accounts.randomPassword();
    private final List<Node> nodes = new ArrayList<>();
    private final List<TestPostgres> replicas = new ArrayList<>();
    private final List<String> nodeArgs = new ArrayList<>();
    /** The database URL nodes start with; {@link #postgres()}'s unless a test moved them ({@link #database(String)}). */
    private volatile String database;
    private Path folder;
    private Process haproxy;
    private int frontPort;
    private int statsPort;
    private Thread hook;

    /** Adds options to every node's {@code serve} command line (before {@link #start()}), as {@code --cluster-batch-lease 3s}. */
    public ClusterRig nodeArgs(String... args) {
        nodeArgs.addAll(List.of(args));
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) printLogs();
    }

    /**
     * PostgreSQL, the three nodes at once (one of them loads the demo: nodes starting together load
     * it once, as ClusterDemoTest shows), then HAProxy once all are ready.
     */
    public synchronized void start() throws Exception {
        folder = Files.createTempDirectory("arno-rig-");
        hook = new Thread(this::stop, "stop the cluster rig");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            pg.start();
            for (int i = 1; i <= 3; i++) nodes.add(new Node(i, Local.freePort(), folder.resolve("data-" + i)));
            for (Node n : nodes) n.start();
            for (Node n : nodes) n.awaitReady(START);
            startHaproxy();
            awaitHealthy();
        } catch (Exception | Error e) {
            printLogs();
            stop();
            throw e;
        }
    }

    /** Stops everything this rig started, each by its pid, and deletes the folder; safe to call twice. */
    public synchronized void stop() {
        if (folder == null) return;
        try {
            if (haproxy != null) stopProcess(haproxy);
            for (Node n : nodes) n.stop();
            for (TestPostgres r : replicas) r.stop();
            pg.stop();
            Local.deleteTree(folder);
        } finally {
            folder = null;
            haproxy = null;
            if (hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // it runs anyway
                }
            }
        }
    }

    /** The database server, to stop and start it again, or to run SQL in {@code arno}. */
    public TestPostgres postgres() {
        return pg;
    }

    /**
     * The database URL every node starts with from now on (a promoted replica's, say); running
     * nodes keep theirs until restarted.
     */
    public void database(String url) {
        database = url;
    }

    /** A streaming replica of {@link #postgres()} ({@link TestPostgres#replica()}), stopped with the rig, after the nodes. */
    public synchronized TestPostgres replica() throws IOException, InterruptedException {
        TestPostgres r = pg.replica();
        replicas.add(r);
        return r;
    }

    /** Node {@code n}, 1 to 3. */
    public Node node(int n) {
        return nodes.get(n - 1);
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** HAProxy's address, {@code http://127.0.0.1:PORT}: what clients use. */
    public URI front() {
        return URI.create("http://127.0.0.1:" + frontPort);
    }

    /** {@code name:password} of the account every node has (all roles). */
    public String account() {
        return account;
    }

    /** The rig's temporary folder (logs, data folders, HAProxy's configuration). */
    public Path folder() {
        return folder;
    }

    /**
     * Makes the rig whole again after a test, passed or failed: PostgreSQL started if a test
     * stopped it, every node that is not running started; then {@link #awaitHealthy()}.
     */
    public void heal() throws IOException, InterruptedException {
        if (!pg.running()) pg.startAgain();
        for (Node n : nodes) if (!n.alive()) n.start();
        awaitHealthy();
    }

    /** Until every node is ready and HAProxy has each in its rotation (at most a minute). */
    public void awaitHealthy() {
        for (Node n : nodes) n.awaitReady(Duration.ofMinutes(1));
        Wait.upTo(Duration.ofMinutes(1)).alias("HAProxy has every node up").until(() -> {
            Map<String, String> s = haproxyStatus();
            return nodes.stream().allMatch(n -> "UP".equals(s.get(n.name())));
        });
    }

    /**
     * HAProxy's view of its servers, from its stats page's CSV: node name → status ({@code UP},
     * {@code DOWN}, {@code UP 1/2} while rising, ...).
     */
    public Map<String, String> haproxyStatus() {
        HttpResponse<String> r = get(URI.create("http://127.0.0.1:" + statsPort + "/stats;csv"), Duration.ofSeconds(2));
        Map<String, String> status = new TreeMap<>();
        if (r == null || r.statusCode() != 200) return status;
        List<String> lines = r.body().lines().toList();
        List<String> header = List.of(lines.get(0).replaceFirst("^# ", "").split(","));
        int px = header.indexOf("pxname");
        int sv = header.indexOf("svname");
        int st = header.indexOf("status");
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f.length > st && "nodes".equals(f[px]) && f[sv].startsWith("node")) status.put(f[sv], f[st]);
        }
        return status;
    }

    /** A GET, or null when it failed to connect or answer in time. */
    HttpResponse<String> get(URI uri, Duration timeout) {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** One Arno node: a port and a data folder that stay the same across its restarts. */
    public final class Node {
        private final int index;
        private final int port;
        private final Path data;
        private final Path log;
        private Process process;

        Node(int index, int port, Path data) throws IOException {
            this.index = index;
            this.port = port;
            this.data = data;
            this.log = folder.resolve("node-" + index + ".log");
            // the shared account, before the node's first start (development mode then creates none of its own);
            // hashed once, for the first node, and its line copied to the others
            Path users = Files.createDirectories(data.resolve("batch")).resolve("users");
            if (nodes.isEmpty()) {
                String[] a = account.split(":", 2);
                new Accounts(users).add(a[0], a[1], Accounts.ALL_ROLES);
            } else {
                Files.copy(nodes.get(0).data.resolve("batch/users"), users, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
            }
        }

        /** {@code node1} ... as HAProxy names it. */
        public String name() {
            return "node" + index;
        }

        public int port() {
            return port;
        }

        public Path data() {
            return data;
        }

        public URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }

        /** Starts the node's JVM (its output appended to its log); see {@link #awaitReady}. */
        public synchronized void start() throws IOException {
            if (process != null && process.isAlive()) throw new IllegalStateException(name() + " runs already");
            String java = ProcessHandle.current().info().command().orElse("java");
            Files.writeString(log, "---- start " + Instant.now() + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            // C1 only: a node's start spent about 5 s of CPU in C2 (three nodes start at once, on two cores
            // in CI), and the test's traffic is light. The price is the account's PBKDF2 hash, 600,000 rounds:
            // about 2 s at C1, once per start, paid by awaitReady's login, which waits for it (a busy refusal
            // is asked again). ClusterFailureTest: 166 s C2, 169 s C1 with one scenario's 30 s apply time-out
            // in it (random: a COMMIT cut by the stop), the other scenarios 157 s against 125 s.
            List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-Darno.home=" + checkout(), "-cp", System.getProperty("java.class.path"), "arno.server.Main", "serve",
                    "--port", Integer.toString(port), "--data", data.toString(), "--articles", Integer.toString(ARTICLES),
                    "--cluster", database == null ? pg.url() : database));
            command.addAll(nodeArgs);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        }

        /** SIGKILL: no shutdown hook runs, nothing is closed; returns once the process is gone. */
        public synchronized void kill() throws InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException(name() + " survived SIGKILL");
        }

        /** SIGTERM (the node stops as on Ctrl-C), SIGKILL after 30 s. */
        public synchronized void stop() {
            if (process != null) stopProcess(process);
        }

        public boolean alive() {
            return process != null && process.isAlive();
        }

        /**
         * Until health says ready; fails early, with the log, if the process ends. Then logs in once
         * with the rig's account, so that no test's first write waits for the password's hash
         * (which a node remembers once verified). The login is a list of batch jobs, which needs the
         * read role: the store's reads are public, so a read there checked no password, and on a
         * loaded machine the first writes of a burst then queued behind a cold JVM's first hash and
         * were refused as busy after the check's 10 s.
         */
        public void awaitReady(Duration atMost) {
            Wait.upTo(atMost).pollInterval(Duration.ofMillis(100)).alias(name() + " ready").until(() -> {
                if (!alive()) throw new AssertionError(name() + " ended (exit " + process.exitValue() + "):\n" + tail(log));
                return ready();
            });
            Wait.upTo(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).alias(name() + " takes the rig's account")
                    .until(() -> {
                        try {
                            return http.send(HttpRequest.newBuilder(uri("/batch/jobs")).timeout(Duration.ofSeconds(30))
                                    .header("Authorization", Http.basic(account)).build(),
                                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                        } catch (IOException e) {
                            return false;
                        }
                    });
        }

        /** Whether {@code /_arno/health} answers 200 with {@code "ready":true}. */
        public boolean ready() {
            HttpResponse<String> r = get(uri("/_arno/health"), Duration.ofSeconds(2));
            return r != null && r.statusCode() == 200 && r.body().contains("\"ready\":true");
        }

        /** The log position the node's copy has applied, from its health; empty if it does not answer. */
        public OptionalLong position() {
            HttpResponse<String> r = get(uri("/_arno/health"), Duration.ofSeconds(2));
            if (r == null) return OptionalLong.empty();
            Matcher m = Pattern.compile("\"cluster\":\\{\"position\":(\\d+)").matcher(r.body());
            return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
        }

        public Path log() {
            return log;
        }

        /** Deletes the node's store copy (stopped or killed first), as an operator does to have it rebuilt. */
        public void wipeStore() {
            if (alive()) throw new IllegalStateException(name() + " runs: stop it before wiping its store");
            Local.deleteTree(data.resolve("store"));
        }

        /** The node's id in {@code arno.nodes} and a batch job's {@code owner_node}: host, colon, data folder. */
        public boolean owns(String ownerNode) {
            return ownerNode != null && ownerNode.endsWith(":" + data);
        }
    }

    private void startHaproxy() throws IOException {
        frontPort = Local.freePort();
        statsPort = Local.freePort();
        StringBuilder servers = new StringBuilder();
        for (Node n : nodes) servers.append("  server ").append(n.name()).append(" 127.0.0.1:").append(n.port()).append(" check\n");
        Path cfg = folder.resolve("haproxy.cfg");
        Files.writeString(cfg, """
                # the failure tests' load balancer (ClusterRig); the guide's example is docs/cluster.md
                global
                  maxconn 2000
                defaults
                  mode http
                  timeout connect 1s
                  timeout client 30s
                  timeout server 60s
                  retries 2
                  option redispatch
                frontend arno
                  bind 127.0.0.1:%d
                  default_backend nodes
                frontend stats
                  bind 127.0.0.1:%d
                  stats enable
                  stats uri /stats
                backend nodes
                  balance roundrobin
                  option httpchk GET /_arno/health
                  http-check expect status 200
                  timeout check 2s
                  default-server inter %d fall %d rise %d
                %s""".formatted(frontPort, statsPort, CHECK_INTERVAL_MS, FALL, RISE, servers));
        Path log = folder.resolve("haproxy.log");
        haproxy = new ProcessBuilder(haproxyBinary(), "-db", "-f", cfg.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        Wait.upTo(Duration.ofSeconds(30)).alias("HAProxy's stats page").until(() -> {
            if (!haproxy.isAlive()) throw new AssertionError("haproxy ended (exit " + haproxy.exitValue() + "):\n" + tail(log));
            return !haproxyStatus().isEmpty();
        });
    }

    /** Debian's HAProxy ({@code apt-get install haproxy}, which {@code .ci/run} does); a clear failure without it. */
    static String haproxyBinary() {
        for (String p : List.of("/usr/sbin/haproxy", "/usr/local/sbin/haproxy", "/usr/bin/haproxy")) {
            if (Files.isExecutable(Path.of(p))) return p;
        }
        throw new IllegalStateException("the cluster's failure tests need HAProxy (/usr/sbin/haproxy) and found none:"
                + " install it with 'apt-get install haproxy' (.ci/run does)");
    }

    /** The checkout (this module's parent folder): the nodes' arno.home, where the demo sites are. */
    private static Path checkout() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    private void printLogs() {
        if (folder == null) return;
        StringBuilder out = new StringBuilder("---- cluster rig logs (" + folder + ")\n");
        try (Stream<Path> logs = Files.list(folder)) {
            for (Path p : logs.filter(p -> p.toString().endsWith(".log")).sorted(Comparator.naturalOrder()).toList()) {
                out.append("---- ").append(p.getFileName()).append(" (last ").append(LOG_TAIL).append(" lines)\n").append(tail(p));
            }
        } catch (IOException e) {
            out.append("cannot list the logs: ").append(e.getMessage()).append('\n');
        }
        System.err.print(out);
        System.out.print(out);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL), lines.size())) + "\n";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")\n";
        }
    }

    /** SIGTERM, then SIGKILL after 30 s; returns once the process is gone. */
    private static void stopProcess(Process p) {
        if (!p.isAlive()) return;
        p.destroy();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
