package arno.perf.cluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.postgresql.ds.PGSimpleDataSource;

import arno.cluster.ChangeLog;
import arno.cluster.Resync;
import arno.cluster.Schema;
import arno.cluster.TestPostgres;
import arno.store.Store;
import arno.store.StoreOptions;

/**
 * How long a node takes to rebuild its copy from PostgreSQL ({@link Resync}, issue 23 item 6):
 * loads N entries into a cluster database through the change log (Atom entries of about 1 KB, a
 * journal's worth per folder, {@code --per-commit} of them per commit), then rebuilds an empty
 * copy from it, timed, and prints documents per second and the copy's size. Not JMH: one rebuild
 * is minutes at scale, and what counts is the wall time an operator waits.
 *
 * <pre>
 * CP=$(perf/classpath.sh)
 * java -cp "$CP" arno.perf.cluster.ResyncBench 100000
 * java -cp "$CP" arno.perf.cluster.ResyncBench 100000 --per-commit 1 --database 'jdbc:postgresql://127.0.0.1/arno?user=arno'
 * </pre>
 *
 * Without {@code --database} it starts its own PostgreSQL in a temporary folder (the tests'
 * {@code TestPostgres}: the Debian binaries, fsync off) and stops it at the end; a database given
 * is used as it is (it must be empty: the bench writes the cluster's tables into it).
 */
public final class ResyncBench {

    private ResyncBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ResyncBench ENTRIES [--per-commit K (10)] [--database JDBC-URL]");
            System.exit(2);
        }
        int entries = Integer.parseInt(args[0]);
        int perCommit = 10;
        String url = null;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--per-commit" -> perCommit = Integer.parseInt(args[i + 1]);
                case "--database" -> url = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        TestPostgres pg = null;
        Path dir = Files.createTempDirectory("arno-resync-bench-");
        try {
            if (url == null) {
                pg = new TestPostgres();
                pg.start();
                url = pg.url(pg.newDatabase());
            }
            PGSimpleDataSource db = new PGSimpleDataSource();
            db.setURL(url);
            Schema.migrate(db);
            ChangeLog log = new ChangeLog(db, "bench");
            long t0 = System.nanoTime();
            load(log, entries, perCommit);
            long loadMs = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf(Locale.ROOT, "loaded %d entries in %d commits in %.1f s%n", entries, log.head(), loadMs / 1000.0);

            Path copy = dir.resolve("store");
            StoreOptions options = StoreOptions.defaults().mapSize(16L << 30);
            Resync.Result r = Resync.rebuild(db, copy, options);
            long bytes;
            try (Store s = Store.open(copy, options)) {
                bytes = s.diskBytes();
            }
            System.out.printf(Locale.ROOT, "resync: %d documents at position %d in %.1f s (%.0f documents/s), copy %.1f MB%n",
                    r.documents(), r.position(), r.millis() / 1000.0, r.documents() * 1000.0 / Math.max(1, r.millis()),
                    bytes / 1e6);
        } finally {
            if (pg != null) pg.stop();
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
            }
        }
    }

    /** Entries of about 1 KB, 1,000 to a journal folder, each referring to its journal. */
    static void load(ChangeLog log, int entries, int perCommit) throws Exception {
        String filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(12);
        for (int i = 0; i < entries; ) {
            try (ChangeLog.Transaction t = log.begin()) {
                for (int k = 0; k < perCommit && i < entries; k++, i++) {
                    String journal = "/journals/j" + (i / 1000);
                    String path = journal + "/a" + i + ".atom";
                    String xml = "<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:arno:a" + i + "</id><title>Article " + i
                            + "</title><category scheme=\"urn:arno:kind\" term=\"article\"/><summary>" + filler + "</summary>"
                            + "<link rel=\"up\" href=\"" + journal + ".atom\"/></entry>";
                    t.put(path, "application/atom+xml", false, xml.getBytes(StandardCharsets.UTF_8), List.of(journal + ".atom"));
                }
                t.commit();
            }
            if (i % 10_000 == 0) System.out.printf(Locale.ROOT, "  %d entries loaded%n", i);
        }
    }
}
