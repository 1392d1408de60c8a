package arno.perf.cluster;

import arno.cluster.Applier;
import arno.cluster.ChangeLog;
import arno.cluster.PgWritePath;
import arno.cluster.Schema;
import arno.cluster.TestPostgres;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;
import arno.store.atom.WritePath;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.largeobject.LargeObject;
import org.postgresql.largeobject.LargeObjectManager;

/**
 * The cluster's figures (issue 23, "Measured"), on a real PostgreSQL made for the run (the tests'
 * {@link TestPostgres}, here with its durability settings on: fsync, full-page writes and
 * synchronous commit, as a production server has them) and nodes in this JVM, each with its own
 * LMDB copy, its write path and its applier, exactly as {@code ./arno serve --cluster} builds
 * them; one 2-core machine shows per-node cost and the cluster's overhead, not scale.
 *
 * <pre>
 * java -cp ... arno.perf.cluster.ClusterBench visible N       commit on node A → applied on node B, N writes one at a time
 * java -cp ... arno.perf.cluster.ClusterBench writes SECONDS  entries/s: single node (LMDB group commit), cluster of 1, of 3
 * java -cp ... arno.perf.cluster.ClusterBench postgres SECONDS  a server for other benchmarks: prints "URL jdbc:…", stops after SECONDS or when killed
 * java -cp ... arno.perf.cluster.ClusterBench binaries [MB]   bytea against large objects (MB of each size, 200): write and read MB/s, heap per read
 * </pre>
 */
public final class ClusterBench {
    private static final int CLIENTS = 16;

    private ClusterBench() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("arno.postgres.durable", "true");
        TestPostgres pg = new TestPostgres();
        pg.start();
        Path tmp = Files.createTempDirectory("arno-cluster-bench-");
        try {
            switch (args[0]) {
                case "visible" -> visible(pg, tmp, Integer.parseInt(args[1]));
                case "writes" -> writes(pg, tmp, Integer.parseInt(args[1]));
                case "postgres" -> postgres(pg, Integer.parseInt(args[1]));
                case "binaries" -> binaries(pg, args.length > 1 ? Integer.parseInt(args[1]) : 200);
                default -> throw new IllegalArgumentException("visible N | writes SECONDS | binaries, not " + args[0]);
            }
        } finally {
            pg.stop();
            try (var walk = Files.walk(tmp)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** A durable server with a migrated database for a benchmark run beside (perf/run-cluster-pages.sh). */
    private static void postgres(TestPostgres pg, int seconds) throws Exception {
        String db = database(pg);
        System.out.println("URL " + pg.url(db));
        System.out.flush();
        Thread.sleep(seconds * 1000L);
    }

    /** One node: its copy, its pool, its write path. */
    private record Node(Store store, AtomStore atom, HikariDataSource pool, PgWritePath path) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            atom.close();
            store.close();
            if (pool != null) pool.close();
        }
    }

    private static Node node(TestPostgres pg, String db, Path dir, String name) {
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(pg.url(db));
        h.setMaximumPoolSize(4);
        h.setPoolName(name);
        HikariDataSource pool = new HikariDataSource(h);
        // a copy as a node opens it: without a flush per commit (-Dcopy.sync=true: flushed, to tell the two apart)
        boolean unsynced = arno.cluster.UnsyncedCopy.supported() && !Boolean.getBoolean("copy.sync");
        Store store = Store.open(dir, StoreOptions.defaults().mapSize(8L << 30).noSync(unsynced));
        PgWritePath[] path = new PgWritePath[1];
        AtomStore atom = AtomStore.open(store, AtomOptions.defaults(), PgWritePath.factory(new ChangeLog(pool, name),
                () -> DriverManager.getConnection(pg.url(db)), PgWritePath.Options.defaults(), p -> path[0] = p));
        return new Node(store, atom, pool, path[0]);
    }

    private static Node single(Path dir) {
        Store store = Store.open(dir, StoreOptions.defaults().mapSize(8L << 30));
        return new Node(store, AtomStore.open(store, AtomOptions.defaults(), WritePath.LOCAL), null, null);
    }

    private static byte[] entry(String title, String kind) {
        return ("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>" + title + "</title>"
                + "<author><name>A. Writer</name></author><summary>" + "A summary of some length. ".repeat(12) + "</summary>"
                + (kind == null ? "" : "<category scheme=\"urn:arno:kind\" term=\"" + kind + "\"/>") + "</entry>")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String database(TestPostgres pg) throws java.sql.SQLException {
        String db = pg.newDatabase();
        Schema.migrate(pg.dataSource(db));
        return db;
    }

    /** Commit on A → applied on B: from A's answer to B's applier having the position, one write at a time. */
    private static void visible(TestPostgres pg, Path tmp, int n) throws Exception {
        String db = database(pg);
        try (Node a = node(pg, db, tmp.resolve("a"), "a"); Node b = node(pg, db, tmp.resolve("b"), "b")) {
            ResourcePath root = a.atom().createEntry(ResourcePath.ROOT, null, "journals", entry("Journals", "journals"), "bench").path();
            long[] micros = new long[n];
            long[] write = new long[n];
            Random random = new Random(1);
            for (int i = 0; i < n + 50; i++) {
                long t0 = System.nanoTime();
                AtomStore.Written w = a.atom().createEntry(root, null, "e" + i, entry("Entry " + i, null), "bench");
                long acked = System.nanoTime();
                long position = a.path().position(w.version()).orElseThrow();
                if (!b.path().applier().awaitApplied(position, Duration.ofSeconds(10))) throw new IllegalStateException("B did not apply " + position);
                long visible = System.nanoTime();
                if (i >= 50) { // the first 50 warm up
                    micros[i - 50] = (visible - acked) / 1000;
                    write[i - 50] = (acked - t0) / 1000;
                }
                Thread.sleep(random.nextInt(5));
            }
            Arrays.sort(micros);
            Arrays.sort(write);
            System.out.printf(Locale.ROOT, "visible on B after A's answer, %d writes: p50 %.2f ms, p99 %.2f ms, max %.2f ms%n", n,
                    micros[n / 2] / 1000.0, micros[(int) (n * 0.99)] / 1000.0, micros[n - 1] / 1000.0);
            System.out.printf(Locale.ROOT, "one write on A (commit in PostgreSQL, applied on A): p50 %.2f ms, p99 %.2f ms%n",
                    write[n / 2] / 1000.0, write[(int) (n * 0.99)] / 1000.0);
            System.out.printf(Locale.ROOT, "B: woken by %d notifications, %d commits applied%n", b.path().applier().notified(),
                    b.path().applier().commitsApplied());
        }
    }

    /** Entries per second from CLIENTS threads: single node, then a cluster of 1 and of 3 (clients spread over the nodes). */
    private static void writes(TestPostgres pg, Path tmp, int seconds) throws Exception {
        for (String run : List.of("single", "cluster-1", "cluster-3", "single", "cluster-1", "cluster-3")) {
            List<Node> nodes = new ArrayList<>();
            String db = run.equals("single") ? null : database(pg);
            int count = run.equals("cluster-3") ? 3 : 1;
            Path dir = Files.createTempDirectory(tmp, run);
            for (int i = 0; i < count; i++) {
                nodes.add(db == null ? single(dir.resolve("n" + i)) : node(pg, db, dir.resolve("n" + i), run + "-" + i));
            }
            try {
                ResourcePath root = nodes.get(0).atom().createEntry(ResourcePath.ROOT, null, "journals", entry("Journals", "journals"), "bench").path();
                // every node has the root before its clients write under it (position 1 is the model, not the root)
                long rootAt = nodes.get(0).path() == null ? 0 : nodes.get(0).path().applier().applied();
                for (Node n : nodes) {
                    if (n.path() != null) n.path().applier().awaitApplied(rootAt, Duration.ofSeconds(10));
                }
                AtomicLong done = new AtomicLong();
                AtomicLong failed = new AtomicLong();
                java.util.concurrent.ConcurrentHashMap<String, Long> reasons = new java.util.concurrent.ConcurrentHashMap<>();
                AtomicBoolean stop = new AtomicBoolean();
                ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
                List<Future<?>> futures = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    Node n = nodes.get(c % nodes.size());
                    int client = c;
                    futures.add(clients.submit(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            try {
                                n.atom().createEntry(root, null, "c" + client + "-" + i, entry("Entry " + i, null), "bench");
                                done.incrementAndGet();
                            } catch (RuntimeException e) {
                                failed.incrementAndGet();
                                // what failed, by message (numbers out), so that a failing run says why
                                reasons.merge(String.valueOf(e.getMessage()).replaceAll("[0-9]+", "N"), 1L, Long::sum);
                            }
                        }
                    }));
                }
                Thread.sleep(2000); // warm-up
                long from = done.get();
                long cpu0 = cpu();
                long t0 = System.nanoTime();
                Thread.sleep(seconds * 1000L);
                long entries = done.get() - from;
                double elapsed = (System.nanoTime() - t0) / 1e9;
                double cpu = (cpu() - cpu0) / 1e9;
                stop.set(true);
                for (Future<?> f : futures) f.get();
                clients.shutdown();
                long conflicts = nodes.stream().mapToLong(n -> n.path() == null ? 0 : n.path().conflicts()).sum();
                System.out.printf(Locale.ROOT, "%-10s %7.0f entries/s  (%d in %.1f s; %d failed; %d groups checked again; this JVM's CPU %.2f ms per entry)%n",
                        run, entries / elapsed, entries, elapsed, failed.get(), conflicts, cpu * 1000 / Math.max(1, entries));
                reasons.forEach((why, n) -> System.out.printf(Locale.ROOT, "           failed %d times: %s%n", n, why));
            } finally {
                for (Node n : nodes) n.close();
            }
        }
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Binary variants as {@code bytea} against large objects: write and read rates, and what a read allocates. */
    private static void binaries(TestPostgres pg, int totalMb) throws Exception {
        String db = pg.newDatabase();
        try (Connection c = DriverManager.getConnection(pg.url(db))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE b (id int PRIMARY KEY, content bytea)");
                s.execute("CREATE TABLE l (id int PRIMARY KEY, oid oid)");
            }
            for (int size : new int[] {100 << 10, 1 << 20, 10 << 20, 50 << 20}) {
                int count = (int) Math.max(4, ((long) totalMb << 20) / size);
                byte[] content = new byte[size];
                new Random(size).nextBytes(content);
                for (int round = 0; round < 2; round++) {
                    try (Statement s = c.createStatement()) {
                        s.execute("TRUNCATE b");
                        s.execute("SELECT lo_unlink(oid) FROM l");
                        s.execute("TRUNCATE l");
                    }
                    double byteaWrite = timed(() -> {
                        try (PreparedStatement p = c.prepareStatement("INSERT INTO b VALUES (?, ?)")) {
                            for (int i = 0; i < count; i++) {
                                p.setInt(1, i);
                                p.setBytes(2, content);
                                p.executeUpdate();
                            }
                        }
                    });
                    long[] allocated = {0};
                    double byteaRead = timed(() -> {
                        long before = allocated();
                        try (PreparedStatement p = c.prepareStatement("SELECT content FROM b WHERE id = ?")) {
                            for (int i = 0; i < count; i++) {
                                p.setInt(1, i);
                                try (ResultSet r = p.executeQuery()) {
                                    r.next();
                                    if (r.getBytes(1).length != size) throw new IllegalStateException();
                                }
                            }
                        }
                        allocated[0] = (allocated() - before) / count;
                    });
                    c.setAutoCommit(false);
                    LargeObjectManager lo = c.unwrap(PGConnection.class).getLargeObjectAPI();
                    double loWrite = timed(() -> {
                        try (PreparedStatement p = c.prepareStatement("INSERT INTO l VALUES (?, ?)")) {
                            for (int i = 0; i < count; i++) {
                                long oid = lo.createLO(LargeObjectManager.READWRITE);
                                try (LargeObject o = lo.open(oid, LargeObjectManager.WRITE)) {
                                    for (int at = 0; at < size; at += 1 << 16) o.write(content, at, Math.min(1 << 16, size - at));
                                }
                                p.setInt(1, i);
                                p.setLong(2, oid);
                                p.executeUpdate();
                                c.commit();
                            }
                        }
                    });
                    long[] loAllocated = {0};
                    double loRead = timed(() -> {
                        long before = allocated();
                        byte[] buffer = new byte[1 << 16];
                        try (PreparedStatement p = c.prepareStatement("SELECT oid FROM l WHERE id = ?")) {
                            for (int i = 0; i < count; i++) {
                                p.setInt(1, i);
                                long oid;
                                try (ResultSet r = p.executeQuery()) {
                                    r.next();
                                    oid = r.getLong(1);
                                }
                                long total = 0;
                                try (LargeObject o = lo.open(oid, LargeObjectManager.READ); InputStream in = o.getInputStream()) {
                                    for (int k; (k = in.read(buffer)) > 0; ) total += k;
                                }
                                if (total != size) throw new IllegalStateException(total + " != " + size);
                            }
                            c.commit();
                        }
                        loAllocated[0] = (allocated() - before) / count;
                    });
                    c.setAutoCommit(true);
                    double mb = (double) size * count / (1 << 20);
                    if (round == 1) {
                        System.out.printf(Locale.ROOT, "%6d KB x %3d  bytea: write %6.1f MB/s, read %6.1f MB/s, %7.1f KB allocated per read"
                                        + " | large object: write %6.1f MB/s, read %6.1f MB/s, %7.1f KB allocated per read%n",
                                size >> 10, count, mb / byteaWrite, mb / byteaRead, allocated[0] / 1024.0,
                                mb / loWrite, mb / loRead, loAllocated[0] / 1024.0);
                    }
                }
            }
        }
    }

    private interface Work {
        void run() throws Exception;
    }

    private static double timed(Work w) throws Exception {
        long t0 = System.nanoTime();
        w.run();
        return (System.nanoTime() - t0) / 1e9;
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
