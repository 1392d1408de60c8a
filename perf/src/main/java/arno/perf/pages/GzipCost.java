package arno.perf.pages;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * gzip's cost per page and what it saves (issue 14, "Measured"): every page under a folder (the
 * full-text pages {@code perf/run-caches.sh} saved from the page cache) compressed as Tomcat's
 * connector compresses a response (a {@link GZIPOutputStream} at the default level, written in
 * the connector's 32 KB pieces), on one thread: CPU time per page (the thread's own, so the
 * machine's other work does not count) over 5 passes after 3 to warm up, and the bytes before and
 * after. The page cache stores each page's gzip form once, so a hit pays none of this; an uncached
 * page pays it on every request that accepts gzip.
 *
 * <pre>GzipCost FOLDER</pre>
 */
public final class GzipCost {
    public static void main(String[] args) throws IOException {
        List<byte[]> pages = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of(args[0]))) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".html")).sorted()::iterator) {
                pages.add(Files.readAllBytes(p));
            }
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        // The default level (6) is what Tomcat's connector uses; level 1 for comparison.
        for (int level : new int[] {java.util.zip.Deflater.DEFAULT_COMPRESSION, 1}) {
            long in = 0;
            long out = 0;
            for (byte[] p : pages) {
                in += p.length;
                out += gzip(p, level).length;
            }
            for (int pass = 0; pass < 3; pass++) for (byte[] p : pages) gzip(p, level);
            long[] perPass = new long[5];
            for (int pass = 0; pass < perPass.length; pass++) {
                long t = threads.getCurrentThreadCpuTime();
                for (byte[] p : pages) gzip(p, level);
                perPass[pass] = (threads.getCurrentThreadCpuTime() - t) / pages.size();
            }
            Arrays.sort(perPass);
            System.out.printf("level %s: %,d pages, %,d bytes, gzip %,d bytes: %.1f%% of the size, %,d bytes saved per page;"
                    + " CPU per page median %.1f µs (passes %s ns)%n", level < 0 ? "default (6)" : level, pages.size(), in, out,
                    100.0 * out / in, (in - out) / pages.size(), perPass[2] / 1e3, Arrays.toString(perPass));
        }
    }

    private static byte[] gzip(byte[] page, int level) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(page.length / 3);
        try (GZIPOutputStream z = new GZIPOutputStream(b, 32 * 1024) {
            {
                def.setLevel(level);
            }
        }) {
            for (int off = 0; off < page.length; off += 32 * 1024) z.write(page, off, Math.min(32 * 1024, page.length - off));
        }
        return b.toByteArray();
    }

    private GzipCost() {
    }
}
