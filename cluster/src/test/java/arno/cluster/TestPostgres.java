package arno.cluster;

import arno.testkit.Local;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real PostgreSQL server for a test class, made from the machine's PostgreSQL binaries (Debian's
 * {@code postgresql} package, {@code /usr/lib/postgresql/VERSION/bin}) in a temporary folder: no
 * Docker, no server of the machine's, nothing left behind.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final TestPostgres PG = new TestPostgres();
 * ... DriverManager.getConnection(PG.url()) ...      // the database "arno", or PG.url(PG.newDatabase())
 * </pre>
 *
 * <p>Before the class's first test: {@code initdb} (trust authentication, UTF-8, no locale) into
 * {@code TMP/arno-pg-…/data} (in fact a copy of such a folder made once per JVM, see {@link #template}), then {@code pg_ctl start} on a free port of 127.0.0.1 only, with its
 * unix socket in the same temporary folder (never {@code /var/run/postgresql}), and the database
 * {@code arno}. {@code initdb} refuses to run as root, so as root both run as the {@code postgres}
 * user ({@code runuser -u postgres --}), which then owns the folder. Durability settings are off
 * ({@code fsync}, {@code full_page_writes}): a test's server never survives a crash anyway.
 *
 * <p>After the class's last test, and from a shutdown hook if the JVM ends first: {@code pg_ctl
 * stop -m fast}, then the postmaster's pid killed if it is still there, then the folder deleted.
 * A failed start stops whatever it started before it reports.
 */
public final class TestPostgres implements BeforeAllCallback, AfterAllCallback {

    /** Where Debian installs the server binaries, one folder per major version. */
    private static final Path DEBIAN = Path.of("/usr/lib/postgresql");
    private static final int START_ATTEMPTS = 3;

    private final AtomicInteger databases = new AtomicInteger();
    private Path folder;
    private Path bin;
    private int port;
    private long pid = -1;
    private Thread hook;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    /** A JDBC URL of the database {@code arno}, as the superuser {@code postgres}. */
    public String url() {
        return url("arno");
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    public int port() {
        return port;
    }

    /** The postmaster's process id. */
    long pid() {
        return pid;
    }

    /** A new empty database, for a test that must not see another's tables; returns its name. */
    public String newDatabase() {
        String name = "arno_" + databases.incrementAndGet();
        execute("postgres", "CREATE DATABASE " + name);
        return name;
    }

    /** A plain (unpooled) data source of {@code database}. */
    public javax.sql.DataSource dataSource(String database) {
        org.postgresql.ds.PGSimpleDataSource d = new org.postgresql.ds.PGSimpleDataSource();
        d.setURL(url(database));
        return d;
    }

    /** Runs {@code sql} in {@code database} (autocommit). */
    public void execute(String database, String sql) {
        try (Connection c = DriverManager.getConnection(url(database)); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    public synchronized void start() throws IOException, InterruptedException {
        if (folder != null) {
            return;
        }
        try {
            prepare(binaries(DEBIAN, System.getProperty("arno.postgres.bin")), "arno-pg-", "stop test PostgreSQL");
            // a copy of this JVM's initialized folder (cp -a keeps the postgres user's ownership and modes)
            run(60, "cp", "-a", template(bin).toString(), data().toString());
            startOnFreePort();
        } catch (IOException | InterruptedException | RuntimeException e) {
            stop();
            throw e;
        }
    }

    /**
     * A data folder made by {@code initdb} (as described above) with the database {@code arno},
     * its server stopped: made once per JVM and copied for each server, because {@code initdb}
     * took 2.4 s on a busy 2-core machine and a copy a tenth of that, for the 20-odd servers of a
     * test run. Deleted with its holder when the JVM ends.
     */
    private static TestPostgres template;

    private static synchronized Path template(Path bin) throws IOException, InterruptedException {
        if (template == null) {
            TestPostgres t = new TestPostgres();
            try {
                t.prepare(bin, "arno-pg-template-", "delete the test PostgreSQL template");
                t.run(120, bin.resolve("initdb").toString(), "-D", t.data().toString(), "-U", "postgres", "--auth=trust",
                        "-E", "UTF8", "--no-locale", "--no-sync");
                t.startOnFreePort();
                t.execute("postgres", "CREATE DATABASE arno");
                t.stopServer();
            } catch (IOException | InterruptedException | RuntimeException e) {
                t.stop();
                throw e;
            }
            template = t;
        }
        return template.data();
    }

    /**
     * This server's folder, with the folder for its socket (both the postgres user's when we are
     * root), and the hook that stops the server and deletes them if the JVM ends first.
     */
    private void prepare(Path binaries, String prefix, String hookName) throws IOException {
        bin = binaries;
        folder = Files.createTempDirectory(prefix);
        hook = new Thread(this::stop, hookName);
        Runtime.getRuntime().addShutdownHook(hook);
        Files.createDirectories(folder.resolve("sock"));
        if (asRoot()) {
            UserPrincipal postgres = folder.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(folder, postgres);
            Files.setOwner(folder.resolve("sock"), postgres);
        }
    }

    private void startOnFreePort() throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            port = Local.freePort();
            try {
                pgCtlStart();
                return;
            } catch (IllegalStateException e) {
                // another process may have taken the port between Local.freePort() and the start
                if (attempt == START_ATTEMPTS) throw e;
            }
        }
    }

    /**
     * A streaming replica of this running server, started on a port of its own: {@code
     * pg_basebackup -R -X stream} (PostgreSQL 15's defaults {@code wal_level=replica} and {@code
     * max_wal_senders=10} allow it; initdb's trust rules let 127.0.0.1 replicate), asynchronous as
     * PostgreSQL's default is. Stop it ({@link #stop()}) as this server; {@link #promote()} makes it a primary.
     */
    public synchronized TestPostgres replica() throws IOException, InterruptedException {
        if (folder == null || pid <= 0) throw new IllegalStateException("the test PostgreSQL is not running");
        TestPostgres r = new TestPostgres();
        try {
            r.prepare(bin, "arno-pg-replica-", "stop test PostgreSQL replica");
            r.run(120, bin.resolve("pg_basebackup").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres",
                    "-D", r.data().toString(), "-R", "-X", "stream", "-c", "fast", "--no-sync");
            r.startOnFreePort();
            return r;
        } catch (IOException | InterruptedException | RuntimeException e) {
            r.stop();
            throw e;
        }
    }

    /** Promotes this replica ({@code pg_ctl promote}, waiting until it takes writes). */
    public synchronized void promote() throws IOException, InterruptedException {
        if (folder == null || pid <= 0) throw new IllegalStateException("the test PostgreSQL is not running");
        run(60, bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-w", "-t", "60", "promote");
    }

    private void pgCtlStart() throws IOException, InterruptedException {
        run(120, bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-l", folder.resolve("server.log").toString(),
                "-w", "-t", "60", "-o", "-p " + port + " -k " + folder.resolve("sock")
                        + " -c listen_addresses=127.0.0.1" + durability()
                        + " -c max_connections=100",
                "start");
        pid = Long.parseLong(Files.readAllLines(data().resolve("postmaster.pid"), StandardCharsets.US_ASCII).get(0).trim());
    }

    /**
     * Stops the running server as an operator restarting it would ({@code pg_ctl stop -m fast}:
     * sessions are ended, their open transactions rolled back), keeping its data for {@link
     * #startAgain()}; a failure test's database outage.
     */
    public synchronized void stopServer() throws IOException, InterruptedException {
        if (folder == null || pid <= 0) throw new IllegalStateException("the test PostgreSQL is not running");
        run(60, bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-m", "fast", "-w", "-t", "30", "stop");
        pid = 0;
    }

    /** Whether the server runs (false between {@link #stopServer()} and {@link #startAgain()}). */
    public synchronized boolean running() {
        return pid > 0;
    }

    /** Starts the server {@link #stopServer()} stopped, on the same port with the same data. */
    public synchronized void startAgain() throws IOException, InterruptedException {
        if (folder == null || pid != 0) throw new IllegalStateException("the test PostgreSQL was not stopped by stopServer()");
        pgCtlStart();
    }

    /**
     * Stops the server ({@code pg_ctl stop -m fast}; the pid killed if it is still alive) and deletes
     * its folder. Safe to call twice and after a failed start.
     */
    public synchronized void stop() {
        if (folder == null) {
            return;
        }
        try {
            if (Files.exists(data().resolve("postmaster.pid"))) {
                try {
                    run(60, bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-m", "fast", "-w", "-t", "30", "stop");
                } catch (RuntimeException | IOException | InterruptedException e) {
                    System.err.println("pg_ctl stop failed, killing the postmaster: " + e.getMessage());
                }
            }
            if (pid > 0) {
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroyForcibly();
                    p.onExit().orTimeout(30, TimeUnit.SECONDS).join();
                });
            }
            Local.deleteTree(folder);
        } finally {
            pid = -1;
            folder = null;
            if (hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs (or ran) anyway
                }
            }
            hook = null;
        }
    }

    /**
     * Tests need no durability; the benchmarks ({@code -Darno.postgres.durable=true}) want a server
     * that syncs its commits as a production one does, and buffers of a production size.
     */
    private static String durability() {
        return Boolean.getBoolean("arno.postgres.durable") ? " -c shared_buffers=256MB"
                : " -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c shared_buffers=32MB";
    }

    private Path data() {
        return folder.resolve("data");
    }

    /**
     * The newest PostgreSQL server binaries under {@code root} (or those of the folder {@code given},
     * when not null); a clear failure when there are none.
     */
    static Path binaries(Path root, String given) throws IOException {
        if (given != null) {
            Path p = Path.of(given);
            if (Files.isExecutable(p.resolve("initdb")) && Files.isExecutable(p.resolve("pg_ctl"))) return p;
            throw new IllegalStateException("-Darno.postgres.bin=" + given + " holds no initdb and pg_ctl");
        }
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                        .forEach(found::add);
            }
        }
        found.sort(Comparator.comparingInt(b -> major(b.getParent().getFileName().toString())));
        if (found.isEmpty() || major(found.get(found.size() - 1).getParent().getFileName().toString()) < 15) {
            throw new IllegalStateException("the cluster tests need the PostgreSQL 15 (or newer) server binaries, initdb and"
                    + " pg_ctl, in " + root + "/VERSION/bin, and found none: install them with 'apt-get install postgresql'"
                    + " (the tests make and stop their own server; none needs to run), or name the folder with"
                    + " -Darno.postgres.bin=DIR");
        }
        return found.get(found.size() - 1);
    }

    private static int major(String version) {
        try {
            return Integer.parseInt(version);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Runs a PostgreSQL command (as the postgres user when we are root); its output is in the failure. */
    private void run(int seconds, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        if (asRoot()) {
            line.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        line.addAll(List.of(command));
        Process p = new ProcessBuilder(line).directory(folder.toFile()).redirectErrorStream(true).start();
        // pg_ctl's server keeps no handle on our pipe (its output goes to -l), so reading to the end returns
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", line) + " did not end within " + seconds + " s");
        }
        if (p.exitValue() != 0) {
            String log = "";
            Path server = folder.resolve("server.log");
            if (Files.exists(server)) log = "\nserver.log:\n" + Files.readString(server);
            throw new IllegalStateException(String.join(" ", line) + " failed (exit " + p.exitValue() + "):\n"
                    + new String(out, StandardCharsets.UTF_8) + log);
        }
    }
}
