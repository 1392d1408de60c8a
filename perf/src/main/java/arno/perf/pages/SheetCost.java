package arno.perf.pages;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One checkout's stylesheets on the ceiling's pages ({@link CeilingPages}: plain Saxon, TinyTrees, no
 * HTTP), on one thread: WARMUP rounds of every page unmeasured, then ROUNDS measured; prints the
 * median of the rounds' CPU a page (this thread's, in µs) alone on its line. With a fifth argument,
 * every page is first written to that file, so that two stylesheets' pages can be compared byte for
 * byte. With {@code -Darno.store=true} the documents are read from a store loaded with the content
 * (in a temporary folder), as stored trees, one read view a page: the store's price alone. With
 * {@code -Dsheet.flip=CLASS#FIELD} it alternates rounds in this one JVM with that static boolean
 * field off and on (a switch put into the code under test for the experiment) and prints both
 * medians, the per-pair ratio and what each side allocated a page.
 * {@code perf/sheet-ab.sh} runs two checkouts' stylesheets in JVMs of their own, alternated:
 * two stylesheets in one JVM bias each other (Saxon's calls get more shapes to dispatch on).
 *
 * <pre>
 * java -cp "$(perf/classpath.sh)" arno.perf.pages.SheetCost ROOT CONTENT WARMUP ROUNDS [PAGES-FILE]
 * </pre>
 */
public final class SheetCost {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]), content = Path.of(args[1]);
        int warm = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
        CeilingPages site = new CeilingPages(root, content, null);
        arno.store.Store store = null;
        Path dir = null;
        if (StoredContent.wanted()) {
            dir = java.nio.file.Files.createTempDirectory("sheet-cost");
            store = StoredContent.load(content, dir);
            site.readFrom(store);
        }
        List<CeilingPages.Page> pages = new ArrayList<>();
        for (String p : PerfServer.fullTextPaths(content)) pages.add(site.page(p));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (args.length > 4) {
            try (var f = new java.io.FileOutputStream(args[4])) {
                for (CeilingPages.Page p : pages) { out.reset(); site.render(p, out); out.writeTo(f); }
            }
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        String flip = System.getProperty("sheet.flip");
        java.lang.reflect.Field f = null;
        if (flip != null) {
            f = Class.forName(flip.substring(0, flip.indexOf('#'))).getField(flip.substring(flip.indexOf('#') + 1));
            f.setAccessible(true);
        }
        for (int w = 0; w < warm; w++) {
            // with a switch, warmed both ways: warmed off alone, the JIT compiles the other side as a
            // trap, and its first rounds then pay for the deoptimization and a code shaped for off
            if (f != null) f.setBoolean(null, (w & 1) == 1);
            for (CeilingPages.Page p : pages) { out.reset(); site.render(p, out); }
        }
        if (f != null) {
            double[][] by = new double[2][rounds];
            long[] alloc = new long[2];
            com.sun.management.ThreadMXBean amx = (com.sun.management.ThreadMXBean) mx;
            long self = Thread.currentThread().getId();
            for (int r = 0; r < 2 * rounds; r++) {
                boolean on = (r & 1) != ((r / 2) & 1); // off on on off, off on on off: neither side always first
                f.setBoolean(null, on);
                long c0 = mx.getCurrentThreadCpuTime(), a0 = amx.getThreadAllocatedBytes(self);
                for (CeilingPages.Page p : pages) { out.reset(); site.render(p, out); }
                by[on ? 1 : 0][r / 2] = (mx.getCurrentThreadCpuTime() - c0) / 1e3 / pages.size();
                alloc[on ? 1 : 0] += amx.getThreadAllocatedBytes(self) - a0;
            }
            double[] q = new double[rounds];
            for (int r = 0; r < rounds; r++) q[r] = by[1][r] / by[0][r];
            Arrays.sort(q); Arrays.sort(by[0]); Arrays.sort(by[1]);
            System.out.printf("off %.1f us, on %.1f us a page; on/off per pair median %.3f (%.3f-%.3f); allocated off %.1f KB, on %.1f KB a page%n",
                    by[0][rounds / 2], by[1][rounds / 2], q[rounds / 2], q[0], q[rounds - 1],
                    alloc[0] / 1024.0 / rounds / pages.size(), alloc[1] / 1024.0 / rounds / pages.size());
            return;
        }
        double[] cpu = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            for (CeilingPages.Page p : pages) { out.reset(); site.render(p, out); }
            cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / 1e3 / pages.size();
        }
        double[] s = cpu.clone(); Arrays.sort(s);
        System.out.printf("%.1f%n", s[rounds / 2]);
        if (store != null) {
            store.close();
            arno.testkit.Local.deleteTree(dir);
        }
    }
}
