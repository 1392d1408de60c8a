package arno.perf.store;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import javax.xml.transform.stream.StreamSource;

import arno.store.Snapshot;
import arno.store.Store;
import arno.testkit.Corpus;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;

/**
 * The large-document run (issue 3, item 6), in steps that {@code perf/store/run-big.sh} starts
 * as separate JVMs so each gets the 64 MB heap on its own:
 *
 * <pre>
 * generate FILE MB                      write a flat abstracts document of at least MB megabytes
 * transform DATA URI XSL OUT            run XSLT over the stored document, output to OUT
 * open DATA URI N                       median time to the root node over N opens
 * </pre>
 *
 * Loading and querying use the store's own command line ({@code StoreCli store load}, {@code query}).
 * Each step prints its wall time and the JVM's peak heap use.
 */
public final class BigDocument {

    private BigDocument() {
    }

    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        switch (args[0]) {
            case "generate" -> {
                long size = Corpus.abstractsFile(Path.of(args[1]), Long.parseLong(args[2]) << 20, 7);
                System.out.printf(Locale.ROOT, "generated %s: %,d bytes%n", args[1], size);
            }
            case "transform" -> transform(Path.of(args[1]), args[2], Path.of(args[3]), Path.of(args[4]));
            case "open" -> open(Path.of(args[1]), args[2], Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("unknown step " + args[0]);
        }
        System.out.printf(Locale.ROOT, "%s took %.1f s, peak heap %.1f MB (max %.0f MB)%n", args[0],
                (System.nanoTime() - t0) / 1e9, peakHeap() / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576.0);
    }

    static void transform(Path data, String uri, Path xsl, Path out) throws Exception {
        Processor p = new Processor(false);
        XsltExecutable x = p.newXsltCompiler().compile(new StreamSource(xsl.toFile()));
        try (Store store = Store.open(data.resolve("store")); Snapshot s = store.read();
             OutputStream o = new BufferedOutputStream(Files.newOutputStream(out), 1 << 16)) {
            TreeInfo t = s.document(uri, p.getUnderlyingConfiguration());
            Xslt30Transformer tr = x.load30();
            tr.setResourceResolver(s.resolver(p.getUnderlyingConfiguration()));
            Serializer ser = p.newSerializer(o);
            tr.applyTemplates(new XdmNode(t.getRootNode()), ser);
        }
        System.out.printf(Locale.ROOT, "transformed %s to %s: %,d bytes%n", uri, out, Files.size(out));
    }

    static void open(Path data, String uri, int n) {
        Processor p = new Processor(false);
        long[] times = new long[n];
        try (Store store = Store.open(data.resolve("store"))) {
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                try (Snapshot s = store.read()) {
                    s.document(uri, p.getUnderlyingConfiguration()).getRootNode().getNodeKind();
                }
                times[i] = System.nanoTime() - t;
            }
        }
        Arrays.sort(times);
        System.out.printf(Locale.ROOT, "open %s (snapshot + document + root node): median %.1f us, p90 %.1f us over %d%n",
                uri, times[n / 2] / 1e3, times[n * 9 / 10] / 1e3, n);
    }

    static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean m : ManagementFactory.getMemoryPoolMXBeans()) {
            if (m.getType() == MemoryType.HEAP && m.getPeakUsage() != null) {
                sum += m.getPeakUsage().getUsed();
            }
        }
        return sum;
    }
}
