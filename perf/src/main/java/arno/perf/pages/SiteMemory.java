package arno.perf.pages;

import arno.pipeline.PipelineConfig;
import arno.pipeline.Sites;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.io.FileUtils;

/**
 * Heap per site: N copies of the demo site journal-a, compiled (a) by one
 * engine that shares the compiled packages among them, and (b) by N engines
 * that each compile their own copy of the packages, as a platform without
 * package sharing would. Heap is measured after full GCs, in one run.
 *
 * <p>{@code SiteMemory ROOT N}, with ROOT the repository root.
 */
public final class SiteMemory {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath();
        int n = Integer.parseInt(args[1]);
        Path work = Files.createTempDirectory("arno-sitemem");
        try {
            Path content = Files.createDirectories(work.resolve("data/content"));
            List<Path> single = new ArrayList<>();
            Path all = Files.createDirectories(work.resolve("all"));
            for (int i = 1; i <= n; i++) {
                Path one = Files.createDirectories(work.resolve("one-" + i));
                copySite(root, all.resolve("site-" + i), i);
                copySite(root, one.resolve("site-" + i), i);
                single.add(one);
            }
            PipelineConfig base = PipelineConfig.of(root.resolve("sites"), content)
                    .withPackages(List.of(root.resolve("templates/xsl"), root.resolve("stylesheets/packages")), false)
                    .withDevelopment(false);

            // Saxon and Arno initialise static tables once per JVM: pay for them before measuring.
            keep(Sites.compile(base.withSites(single.get(0)), null));
            long empty = heap();
            Sites first = Sites.compile(base.withSites(single.get(0)), null);
            long oneSite = heap() - empty;
            keep(first);
            first = null;

            long before = heap();
            Sites shared = Sites.compile(base.withSites(all), null);
            long sharedN = heap() - before;
            keep(shared);
            shared = null;

            before = heap();
            List<Sites> engines = new ArrayList<>();
            for (Path s : single) engines.add(Sites.compile(base.withSites(s), null));
            long privateN = heap() - before;
            keep(engines);
            engines = null;

            double mb = 1024 * 1024;
            System.out.printf("sites: %d (copies of journal-a), JVM %s, max heap %d MB%n", n,
                    System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20);
            System.out.printf("one site, one engine:            %7.1f MB%n", oneSite / mb);
            System.out.printf("%d sites, shared packages:       %7.1f MB  -> %.2f MB per additional site%n",
                    n, sharedN / mb, (sharedN - oneSite) / mb / (n - 1));
            System.out.printf("%d sites, private package copies: %7.1f MB  -> %.2f MB per additional site%n",
                    n, privateN / mb, (privateN - oneSite) / mb / (n - 1));
            System.out.printf("ratio private/shared: %.1fx%n", (double) privateN / sharedN);
        } finally {
            FileUtils.deleteQuietly(work.toFile());
        }
    }

    private static void copySite(Path root, Path target, int i) throws IOException {
        FileUtils.copyDirectory(root.resolve("sites/journal-a").toFile(), target.toFile());
        Path xml = target.resolve("site.xml");
        String s = Files.readString(xml)
                .replaceFirst("name=\"journal-a\"", "name=\"site-" + i + "\"")
                .replace("<prefix>/journal-a</prefix>", "<prefix>/site-" + i + "</prefix>");
        Files.writeString(xml, s);
    }

    private static Object sink;

    /** Keeps an object reachable until the measurement that follows it. */
    private static void keep(Object o) {
        sink = o;
        sink = null;
    }

    /** Used heap after the collector has had every chance to run. */
    public static long heap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
