package arno.perf.store;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import javax.xml.transform.stream.StreamSource;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.Corpus;
import net.sf.saxon.s9api.NullDestination;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XsltExecutable;

/**
 * A cross-check of the JMH ratios that resists a noisy machine: TinyTree and the stored tree
 * alternate, one run each per round, so load from other processes hits both alike; the figure is
 * the median over the rounds after the first third (warm-up).
 *
 * <pre>java -Xmx2g -cp … arno.perf.store.Pairs [ROUNDS=60]</pre>
 */
public final class Pairs {

    private Pairs() {
    }

    interface Op {
        void run(XdmNode doc) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        System.out.println("| document | operation | TinyTree (median) | stored (median) | stored / TinyTree |");
        System.out.println("| --- | --- | --- | --- | --- |");
        run("flat 20 MB", Corpus.abstracts(20L << 20, 42).getBytes(StandardCharsets.UTF_8), rounds);
        run("article 100 KB", Corpus.article(42).getBytes(StandardCharsets.UTF_8), rounds * 50);
    }

    static void run(String name, byte[] xml, int rounds) throws Exception {
        Path dir = Files.createTempDirectory("arno-store-pairs");
        Processor p = new Processor(false);
        XsltExecutable identity = p.newXsltCompiler().compile(new StreamSource(new StringReader(StoreBench.IDENTITY)));
        try (Store store = Store.open(dir)) {
            try (WriteTransaction w = store.write()) {
                w.put("/doc.xml", xml);
                w.commit();
            }
            XdmNode tiny = p.newDocumentBuilder().build(new StreamSource(new ByteArrayInputStream(xml)));
            try (Snapshot s = store.read()) {
                XdmNode stored = new XdmNode(s.document("/doc.xml", p.getUnderlyingConfiguration()).getRootNode());
                pair(name, "walk", tiny, stored, rounds, d -> StoreBench.walk(d.getUnderlyingNode()));
                pair(name, "xslt", tiny, stored, rounds, d -> identity.load30().applyTemplates(d, new NullDestination()));
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    static void pair(String name, String op, XdmNode tiny, XdmNode stored, int rounds, Op o) throws Exception {
        long[] t = new long[rounds];
        long[] s = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            o.run(tiny);
            long t1 = System.nanoTime();
            o.run(stored);
            long t2 = System.nanoTime();
            t[i] = t1 - t0;
            s[i] = t2 - t1;
        }
        int from = rounds / 3;
        Arrays.sort(t, from, rounds);
        Arrays.sort(s, from, rounds);
        int mid = from + (rounds - from) / 2;
        System.out.printf(Locale.ROOT, "| %s | %s | %.3f ms | %.3f ms | %.2f |%n", name, op, t[mid] / 1e6, s[mid] / 1e6,
                (double) s[mid] / t[mid]);
    }
}
