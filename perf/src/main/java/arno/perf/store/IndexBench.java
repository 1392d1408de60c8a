package arno.perf.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import net.sf.saxon.Configuration;

import arno.store.IndexConfig;
import arno.store.Plan;
import arno.store.Search;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.ValueIndexes;
import arno.store.WriteTransaction;
import arno.xml.XmlPolicy;

/**
 * The value indexes' figures (issue 12, "Measured") on N generated Atom entries like the demo's
 * (PRISM DOI, volume and issue number, keyword categories, a status category on 1%, authors, a
 * publication date), in a journal / volume / issue / article hierarchy; for each N:
 *
 * <ol>
 * <li>insert rate without indexes and with the demo's (sites/…/demo/indexes.xml, installed
 *     before the entries), in transactions of {@value #BATCH} entries: entries per second, and the ratio;</li>
 * <li>index size on disk per entry: (disk with − disk without) / N, both after the same puts;</li>
 * <li>DOI lookup ({@code Snapshot.lookup("doi", …)}) of random stored DOIs in one snapshot: median and p99 in µs;</li>
 * <li>a category + issue conjunction through {@code store:search}'s Java API (plan, then every
 *     result verified): median and p99 in ms, results per search;</li>
 * <li>the platform's nested-predicate report written nested and flat, timed alternately in one
 *     JVM: medians and their ratio (goal ≈ 1: the same plan; the plans are checked equal).</li>
 * </ol>
 *
 * Each figure is one line starting with {@code IndexBench N=…}. Run alone on an idle machine:
 *
 * <pre>java -Xmx2g -cp "perf/target/classes:$(cat perf/target/classpath.txt)" arno.perf.store.IndexBench [N,N,…]</pre>
 *
 * (default 10000,100000,1000000; stores go to a temporary folder, removed afterwards).
 */
public final class IndexBench {

    static final int BATCH = 10_000;
    static final String ATOM = "http://www.w3.org/2005/Atom";
    static final String PRISM = "http://prismstandard.org/namespaces/basic/2.0/";
    static final Map<String, String> NS = Map.of("atom", ATOM, "prism", PRISM);
    static final int JOURNALS = 10;
    static final int VOLUMES = 50;
    static final int ISSUES = 4;
    static final String[] TERMS = new String[30];
    static final String[] SURNAMES = new String[200];

    static {
        for (int i = 0; i < TERMS.length; i++) {
            TERMS[i] = "term" + i;
        }
        for (int i = 0; i < SURNAMES.length; i++) {
            SURNAMES[i] = "Surname" + i;
        }
    }

    private IndexBench() {
    }

    public static void main(String[] args) throws Exception {
        String sizes = args.length > 0 ? args[0] : "10000,100000,1000000";
        byte[] config;
        try (InputStream in = IndexBench.class.getResourceAsStream("/arno/demo/indexes.xml")) {
            config = in.readAllBytes();
        }
        for (String s : sizes.split(",")) {
            run(Integer.parseInt(s.strip()), IndexConfig.parse(config, "demo indexes.xml", XmlPolicy.DEFAULT));
        }
    }

    /** The entry number {@code i}: its path and XML, the same for a given i in every store. */
    static String path(int i) {
        int journal = i % JOURNALS;
        int rest = i / JOURNALS;
        int volume = 1 + rest % VOLUMES;
        int issue = 1 + (rest / VOLUMES) % ISSUES;
        return "/journals/j" + journal + "/v" + volume + "/i" + issue + "/a" + i + ".atom";
    }

    static String doi(int i) {
        return "10.5555/j" + (i % JOURNALS) + "." + i;
    }

    static byte[] entry(int i) {
        Random r = new Random(i);
        int rest = i / JOURNALS;
        int volume = 1 + rest % VOLUMES;
        int issue = 1 + (rest / VOLUMES) % ISSUES;
        StringBuilder b = new StringBuilder(1024);
        b.append("<entry xmlns='").append(ATOM).append("' xmlns:prism='").append(PRISM).append("'>");
        b.append("<id>urn:arno:entry:").append(i).append("</id><title>Article ").append(i).append("</title>");
        b.append("<updated>2024-01-01T00:00:00Z</updated>");
        b.append("<published>").append(2000 + r.nextInt(25)).append('-').append(String.format(Locale.ROOT, "%02d-%02d",
                1 + r.nextInt(12), 1 + r.nextInt(28))).append("</published>");
        b.append("<prism:doi>").append(doi(i)).append("</prism:doi>");
        b.append("<prism:volume>").append(volume).append("</prism:volume><prism:number>").append(issue)
                .append("</prism:number>");
        b.append("<category scheme='urn:arno:kind' term='article'/>");
        for (int k = 0; k < 2; k++) {
            b.append("<category scheme='urn:arno:keyword' term='").append(TERMS[r.nextInt(TERMS.length)]).append("'/>");
        }
        if (r.nextInt(100) == 0) {
            b.append("<category scheme='urn:arno:status' term='retracted'/>");
        }
        for (int k = 1 + r.nextInt(3); k > 0; k--) {
            b.append("<author><name>").append(SURNAMES[r.nextInt(SURNAMES.length)]).append("</name></author>");
        }
        b.append("<summary>").append("An abstract of some length. ".repeat(8)).append("</summary>");
        b.append("<link rel='alternate' type='text/html' href='a").append(i).append(".html'/>");
        return b.append("</entry>").toString().getBytes(StandardCharsets.UTF_8);
    }

    static void run(int n, IndexConfig config) throws IOException {
        Path without = Files.createTempDirectory("arno-index-bench-plain");
        Path with = Files.createTempDirectory("arno-index-bench-indexed");
        StoreOptions options = StoreOptions.defaults().mapSize(64L << 30);
        try (Store plain = Store.open(without, options); Store indexed = Store.open(with, options)) {
            try (WriteTransaction w = indexed.write()) {
                ValueIndexes.install(w, config, null);
                w.commit();
            }
            long emptyPlain = plain.diskBytes();
            long emptyIndexed = indexed.diskBytes();
            double ratePlain = fill(plain, n);
            double rateIndexed = fill(indexed, n);
            System.out.printf(Locale.ROOT, "IndexBench N=%d insert: %,.0f entries/s with the demo indexes, %,.0f without"
                    + " (%.2f of the rate without)%n", n, rateIndexed, ratePlain, rateIndexed / ratePlain);
            long diskPlain = plain.diskBytes() - emptyPlain;
            long diskIndexed = indexed.diskBytes() - emptyIndexed;
            System.out.printf(Locale.ROOT, "IndexBench N=%d index size: %.0f B per entry (%,d B with indexes, %,d B"
                    + " without, %.0f B per entry in all)%n", n, (double) (diskIndexed - diskPlain) / n, diskIndexed,
                    diskPlain, (double) diskIndexed / n);
            Configuration saxon = new Configuration();
            try (Snapshot s = indexed.read()) {
                lookups(s, n);
                conjunction(s, n, saxon);
                nestedAndFlat(s, n, saxon);
            }
        } finally {
            delete(without);
            delete(with);
        }
    }

    private static double fill(Store store, int n) {
        long start = System.nanoTime();
        for (int from = 0; from < n; from += BATCH) {
            try (WriteTransaction w = store.write()) {
                for (int i = from; i < Math.min(n, from + BATCH); i++) {
                    w.put(path(i), entry(i));
                }
                w.commit();
            }
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private static void lookups(Snapshot s, int n) {
        Random r = new Random(1);
        int count = 20_000;
        for (int i = 0; i < 2_000; i++) {
            s.lookup("doi", doi(r.nextInt(n))); // warm-up
        }
        long[] t = new long[count];
        int found = 0;
        for (int i = 0; i < count; i++) {
            String doi = doi(r.nextInt(n));
            long t0 = System.nanoTime();
            found += s.lookup("doi", doi).size();
            t[i] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        System.out.printf(Locale.ROOT, "IndexBench N=%d doi lookup: median %.1f µs, p99 %.1f µs (%,d random stored DOIs,"
                + " %,d found)%n", n, t[count / 2] / 1e3, t[count * 99 / 100] / 1e3, count, found);
    }

    private static void conjunction(Snapshot s, int n, Configuration saxon) {
        Random r = new Random(2);
        int count = 200;
        long[] t = new long[count];
        long results = 0;
        Plan plan = null;
        for (int i = -20; i < count; i++) {
            String condition = "atom:entry[atom:category[@scheme = 'urn:arno:keyword'][@term = '"
                    + TERMS[r.nextInt(TERMS.length)] + "']][prism:volume = '" + (1 + r.nextInt(VOLUMES))
                    + "'][prism:number = " + (1 + r.nextInt(ISSUES)) + "]";
            long t0 = System.nanoTime();
            Search search = s.planSearch("/journals/", condition, NS, saxon);
            int found = search.results().size();
            long dt = System.nanoTime() - t0;
            if (i >= 0) {
                t[i] = dt;
                results += found;
                plan = search.plan();
            }
        }
        Arrays.sort(t);
        System.out.printf(Locale.ROOT, "IndexBench N=%d category+issue search: median %.2f ms, p99 %.2f ms, %.1f results"
                + " per search (%d searches; driven by %s)%n", n, t[count / 2] / 1e6, t[count * 99 / 100] / 1e6,
                (double) results / count, count, plan == null || plan.scan() ? "a scan" : plan.conjuncts().get(0).index());
    }

    /**
     * The platform's report: "articles in volume V issue N with category (scheme S, term T) by an
     * author named X, not retracted", written with nested predicates and flat.
     */
    private static void nestedAndFlat(Snapshot s, int n, Configuration saxon) {
        Random r = new Random(3);
        int count = 100;
        long[] nested = new long[count];
        long[] flat = new long[count];
        for (int i = -10; i < count; i++) {
            String term = TERMS[r.nextInt(TERMS.length)];
            String volume = String.valueOf(1 + r.nextInt(VOLUMES));
            int issue = 1 + r.nextInt(ISSUES);
            String surname = SURNAMES[r.nextInt(SURNAMES.length)];
            String a = "atom:entry[atom:category[@scheme = 'urn:arno:keyword'][@term = '" + term + "']]"
                    + "[prism:volume = '" + volume + "'][prism:number = " + issue + "]"
                    + "[atom:author[atom:name = '" + surname + "']]"
                    + "[not(atom:category[@scheme = 'urn:arno:status'][@term = 'retracted'])]";
            String b = "atom:entry/atom:category[@scheme = 'urn:arno:keyword' and @term = '" + term + "']"
                    + " and atom:entry/prism:volume = '" + volume + "' and atom:entry/prism:number = " + issue
                    + " and atom:entry/atom:author/atom:name = '" + surname + "'"
                    + " and not(atom:entry/atom:category[@scheme = 'urn:arno:status' and @term = 'retracted'])";
            // alternate which form goes first, so that neither profits from the other's warm pages
            boolean nestedFirst = (i & 1) == 0;
            long[] tn = new long[1];
            long[] tf = new long[1];
            Plan[] plans = new Plan[2];
            for (int k = 0; k < 2; k++) {
                boolean doNested = (k == 0) == nestedFirst;
                long t0 = System.nanoTime();
                Search search = s.planSearch("/journals/", doNested ? a : b, NS, saxon);
                search.results();
                long dt = System.nanoTime() - t0;
                if (doNested) {
                    tn[0] = dt;
                    plans[0] = search.plan();
                } else {
                    tf[0] = dt;
                    plans[1] = search.plan();
                }
            }
            if (!plans[0].equals(plans[1])) {
                throw new IllegalStateException("the nested and flat forms have different plans:\n" + plans[0].text()
                        + "\n" + plans[1].text());
            }
            if (i >= 0) {
                nested[i] = tn[0];
                flat[i] = tf[0];
            }
        }
        Arrays.sort(nested);
        Arrays.sort(flat);
        double mn = nested[count / 2] / 1e6;
        double mf = flat[count / 2] / 1e6;
        System.out.printf(Locale.ROOT, "IndexBench N=%d nested vs flat: nested median %.2f ms, flat median %.2f ms,"
                + " ratio %.2f (%d pairs, equal plans)%n", n, mn, mf, mn / mf, count);
    }

    private static void delete(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(files.toList());
            all.sort(Comparator.reverseOrder());
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        }
    }
}
