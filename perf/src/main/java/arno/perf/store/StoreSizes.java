package arno.perf.store;

import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import javax.xml.transform.stream.StreamSource;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.Corpus;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XdmNode;

/**
 * Size on disk against the XML, and heap retained by an open document against TinyTree, for the
 * two benchmark documents. One store per document, so the disk figure is that document's alone:
 * its record stream, and the LMDB file pages in use (B+tree pages and overflow runs included).
 * Heap: used heap after repeated full GCs, before and after making the tree, the tree held.
 *
 * <pre>java -Xmx1g -cp … arno.perf.store.StoreSizes</pre>
 */
public final class StoreSizes {

    private StoreSizes() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("| document | XML | record stream | ratio | LMDB pages in use | ratio | TinyTree heap | stored heap |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        row("flat 20 MB (abstracts)", Corpus.abstracts(20L << 20, 42).getBytes(StandardCharsets.UTF_8));
        row("article 100 KB (JATS-like)", Corpus.article(42).getBytes(StandardCharsets.UTF_8));
        articles(100);
    }

    /** Many articles in one store: per-document disk cost once LMDB's fixed pages are shared. */
    static void articles(int n) throws Exception {
        Path dir = Files.createTempDirectory("arno-store-sizes");
        long xmlBytes = 0;
        long stored = 0;
        try (Store store = Store.open(dir)) {
            long empty = store.diskBytes();
            try (WriteTransaction w = store.write()) {
                for (int i = 0; i < n; i++) {
                    byte[] xml = Corpus.article(i).getBytes(StandardCharsets.UTF_8);
                    xmlBytes += xml.length;
                    stored += w.put("/a/" + i + ".xml", xml).storedBytes();
                }
                w.commit();
            }
            long disk = store.diskBytes() - empty;
            System.out.printf(Locale.ROOT, "| %d articles, one store | %,d B | %,d B | %.2f | %,d B | %.2f | | |%n", n,
                    xmlBytes, stored, (double) stored / xmlBytes, disk, (double) disk / xmlBytes);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    static void row(String name, byte[] xml) throws Exception {
        Path dir = Files.createTempDirectory("arno-store-sizes");
        Processor p = new Processor(false);
        try (Store store = Store.open(dir)) {
            long empty = store.diskBytes();
            DocumentInfo info;
            try (WriteTransaction w = store.write()) {
                info = w.put("/doc.xml", xml);
                w.commit();
            }
            long disk = store.diskBytes() - empty;

            long before = used();
            XdmNode tiny = p.newDocumentBuilder().build(new StreamSource(new ByteArrayInputStream(xml)));
            long tinyHeap = used() - before;
            keep(tiny);

            long storedHeap;
            try (Snapshot s = store.read()) {
                before = used();
                NodeInfo root = s.document("/doc.xml", p.getUnderlyingConfiguration()).getRootNode();
                StoreBench.walk(root); // touch every chunk, so every lazily opened part is counted
                storedHeap = used() - before;
                keep(root);
            }
            System.out.printf(Locale.ROOT, "| %s | %,d B | %,d B | %.2f | %,d B | %.2f | %.1f MB | %.3f MB |%n", name,
                    xml.length, info.storedBytes(), (double) info.storedBytes() / xml.length, disk,
                    (double) disk / xml.length, tinyHeap / 1048576.0, storedHeap / 1048576.0);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    private static Object sink;

    private static void keep(Object o) {
        sink = o;
        sink = null;
    }

    static long used() throws InterruptedException {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 6; i++) {
            System.gc();
            Thread.sleep(50);
            last = Math.min(last, m.getHeapMemoryUsage().getUsed());
        }
        return last;
    }
}
