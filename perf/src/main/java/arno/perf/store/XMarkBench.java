package arno.perf.store;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import javax.xml.transform.stream.StreamSource;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.XMark;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XQueryCompiler;
import net.sf.saxon.s9api.XQueryEvaluator;
import net.sf.saxon.s9api.XQueryExecutable;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;

/**
 * A query workload in the manner of XMark (Schmidt et al., "XMark: a benchmark for XML data
 * management", VLDB 2002) on the stored tree against TinyTree: an auction site document
 * ({@code site/regions/*}{@code /item}, {@code people/person}, {@code open_auctions},
 * {@code closed_auctions}, {@code categories}) generated deterministically at 3, 10 and 50 MB,
 * and twenty queries after XMark's Q1–Q20: lookups by id, ordered access, value comparisons,
 * descendant counts by name, nested-loop joins on attribute equality (people × closed auctions by
 * buyer, a three-way join with items), grouping, a text search, missing elements, ordered output,
 * {@code //x[@y = 'z']} scans, and one XSLT join through {@code xsl:key} (Saxon builds key indexes
 * with an unnamed element scan, see {@code Axes}).
 *
 * <p>Per size: each query runs on TinyTree and on the stored tree alternately (which one goes
 * first swaps every round, so load from other processes hits both alike); every result is
 * serialised and compared, and the harness fails on the first difference; the measured rounds'
 * times are summed per tree. Prints per query and in total the sums and the ratio stored /
 * TinyTree (goal: total within 1.3).
 *
 * <pre>java -Xmx3g -cp … arno.perf.store.XMarkBench [SIZES_MB=3,10,50] [ROUNDS=6] [WARMUP=2] [QUERY_REGEX]</pre>
 *
 * (A regex keeps only the queries whose names it finds, e.g. {@code Q8} to profile one.)
 */
public final class XMarkBench {

    private XMarkBench() {
    }

    /** One compiled query: XQuery, or the XSLT of {@link XMark#KEY_JOIN}. */
    record Query(String name, XQueryExecutable xquery, XsltExecutable xslt) {

        XdmValue run(XdmNode doc) throws SaxonApiException {
            if (xquery != null) {
                XQueryEvaluator e = xquery.load();
                e.setContextItem(doc);
                return e.evaluate();
            }
            Xslt30Transformer t = xslt.load30();
            t.setGlobalContextItem(doc);
            return t.applyTemplates(doc);
        }
    }

    static List<Query> compile(Processor p, String only) throws SaxonApiException {
        XQueryCompiler xq = p.newXQueryCompiler();
        List<Query> out = new ArrayList<>();
        java.util.regex.Pattern keep = java.util.regex.Pattern.compile(only);
        for (Map.Entry<String, String> e : XMark.QUERIES.entrySet()) {
            if (!keep.matcher(e.getKey()).find()) {
                continue;
            }
            if (e.getValue().equals(XMark.KEY_JOIN)) {
                out.add(new Query(e.getKey(), null, p.newXsltCompiler().compile(new StreamSource(
                        new StringReader(XMark.KEY_JOIN)))));
            } else {
                out.add(new Query(e.getKey(), xq.compile(e.getValue()), null));
            }
        }
        return out;
    }

    /** A result as text: each item serialised (nodes as XML, atomic values as strings), one a line. */
    static String serialise(Processor p, XdmValue v) throws SaxonApiException {
        StringBuilder b = new StringBuilder();
        for (XdmItem i : v) {
            if (i instanceof XdmNode n) {
                StringWriter w = new StringWriter();
                Serializer s = p.newSerializer(w);
                s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
                s.serializeNode(n);
                b.append(w);
            } else {
                b.append(i.getStringValue());
            }
            b.append('\n');
        }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        String[] sizes = (args.length > 0 ? args[0] : "3,10,50").split(",");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        String only = args.length > 3 ? args[3] : "";
        for (String size : sizes) {
            run(Double.parseDouble(size), rounds, warmup, only);
        }
    }

    static void run(double mb, int rounds, int warmup, String only) throws Exception {
        byte[] xml = XMark.auctions(mb, 42).getBytes(StandardCharsets.UTF_8);
        Path dir = Files.createTempDirectory("arno-xmark");
        try (Store store = Store.open(dir)) {
            try (WriteTransaction w = store.write()) {
                w.put("/xmark.xml", xml);
                w.commit();
            }
            Processor p = new Processor(false);
            XdmNode tiny = p.newDocumentBuilder().build(new StreamSource(new ByteArrayInputStream(xml)));
            List<Query> queries = compile(p, only);
            long[] tinyNanos = new long[queries.size()];
            long[] storedNanos = new long[queries.size()];
            try (Snapshot s = store.read()) {
                XdmNode stored = new XdmNode(s.document("/xmark.xml", p.getUnderlyingConfiguration()).getRootNode());
                for (int round = 0; round < warmup + rounds; round++) {
                    for (int q = 0; q < queries.size(); q++) {
                        Query query = queries.get(q);
                        boolean tinyFirst = round % 2 == 0;
                        long[] t = new long[2];
                        XdmValue[] results = new XdmValue[2];
                        for (int k = 0; k < 2; k++) {
                            boolean onTiny = (k == 0) == tinyFirst;
                            long t0 = System.nanoTime();
                            results[onTiny ? 0 : 1] = query.run(onTiny ? tiny : stored);
                            t[onTiny ? 0 : 1] = System.nanoTime() - t0;
                        }
                        String a = serialise(p, results[0]);
                        String b = serialise(p, results[1]);
                        if (!a.equals(b)) {
                            throw new IllegalStateException(String.format(Locale.ROOT,
                                    "%s at %.0f MB: the stored tree's result differs from TinyTree's%n"
                                            + "TinyTree (%d chars): %.300s%nstored (%d chars): %.300s", query.name(), mb,
                                    a.length(), a, b.length(), b));
                        }
                        if (round >= warmup) {
                            tinyNanos[q] += t[0];
                            storedNanos[q] += t[1];
                        }
                    }
                }
            }
            print(mb, xml.length, rounds, queries, tinyNanos, storedNanos);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void print(double mb, long bytes, int rounds, List<Query> queries, long[] tiny, long[] stored) {
        System.out.printf(Locale.ROOT, "%n### XMark-like workload, %.0f MB (%,d bytes), %d measured rounds%n%n", mb,
                bytes, rounds);
        System.out.println("| query | TinyTree (ms, sum) | stored (ms, sum) | stored / TinyTree |");
        System.out.println("| --- | --- | --- | --- |");
        long st = 0;
        long ss = 0;
        for (int q = 0; q < queries.size(); q++) {
            st += tiny[q];
            ss += stored[q];
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.2f |%n", queries.get(q).name(), tiny[q] / 1e6,
                    stored[q] / 1e6, (double) stored[q] / tiny[q]);
        }
        System.out.printf(Locale.ROOT, "| **total** | %.1f | %.1f | **%.2f** |%n", st / 1e6, ss / 1e6, (double) ss / st);
    }
}
