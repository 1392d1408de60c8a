package arno.perf.pages;

import arno.server.ArnoServer;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jsoup.Jsoup;
import org.jsoup.helper.W3CDom;
import org.xmlunit.builder.DiffBuilder;
import org.xmlunit.diff.Diff;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Issue 25's ceiling: the demo's full-text pages built by plain Saxon alone, the same stylesheets
 * applied to the same articles pre-parsed as TinyTrees ({@link CeilingPages} says exactly what
 * differs from Arno's page path), on as many threads as cores, in one JVM, with no HTTP. Arno's
 * pages/s from the store over HTTP are judged against this figure.
 *
 * <p>First it checks that its pages are Arno's: every page is fetched from Arno (a server given by
 * {@code --against URL}, else Arno started the way {@link PerfServer} starts it, from the store,
 * in a child JVM so that Arno's classes do not shape the JIT's profile of the measured one) and
 * compared with the harness's by meaning (both parsed as HTML5 by jsoup, compared by XMLUnit); the
 * first mismatch is printed with the page's path and the run stops (exit status 1). Then it builds
 * pages for {@code --warmup} seconds, then {@code --rounds} rounds of {@code --seconds}, and prints
 * pages/s, each thread's CPU share and CPU per page per round, the median of the rounds, and its
 * ratio to {@code --arno PAGES/S} when given.
 *
 * <pre>
 * CP=$(perf/classpath.sh)
 * java -Xmx1g -cp "$CP" arno.perf.pages.Ceiling --content perf/target/pages/data-1000/content [--threads 2] [--arno 868]
 * </pre>
 */
@Command(name = "Ceiling", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Full-text pages by plain Saxon (no HTTP, no Arno pipeline): checked equal to Arno's, then pages/s.")
public final class Ceiling implements Callable<Integer> {
    @Option(names = "--root", paramLabel = "DIR", defaultValue = ".", description = "the checkout whose sites and packages are compiled (default: .)")
    Path root;

    @Option(names = "--content", paramLabel = "DIR", defaultValue = "perf/target/pages/data-1000/content",
            description = "the content folder (arno generate --out DIR) (default: ${DEFAULT-VALUE})")
    Path content;

    @Option(names = "--threads", paramLabel = "N", description = "threads building pages (default: the cores, ${sys:ceiling.cores})")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "30", description = "seconds built before measuring (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "10", description = "seconds per measured round (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "5", description = "measured rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--articles", paramLabel = "N", defaultValue = "0", description = "only the first N full-text pages (default: all)")
    int articles;

    @Option(names = "--arno", paramLabel = "PAGES/S", description = "Arno's figure from the same session: prints it over the harness's")
    Double arno;

    @Option(names = "--against", paramLabel = "URL", description = "check against this running server (http://127.0.0.1:18082) instead of starting one")
    String against;

    @Option(names = "--files", description = "the Arno checked against serves the content files, not the store")
    boolean files;

    @Option(names = "--check-only", description = "check the pages, measure nothing")
    boolean checkOnly;

    @Option(names = "--no-check", description = "measure without checking the pages first")
    boolean noCheck;

    @Option(names = "--turns", description = "measure in turns given on standard input: each line is a turn's seconds; the"
            + " threads build pages only during a turn and wait between turns, while the caller loads Arno (run-ceiling.sh)")
    boolean turns;

    public static void main(String[] args) {
        System.setProperty("ceiling.cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        System.exit(new CommandLine(new Ceiling()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<String> paths = PerfServer.fullTextPaths(content);
        if (articles > 0 && articles < paths.size()) paths = paths.subList(0, articles);
        if (!checkOnly && !noCheck && against == null) {
            // Arno runs in a JVM of its own: its page path would otherwise share the measured JIT profile.
            int exit = checkInChild();
            if (exit != 0) return exit;
        }
        long t0 = System.nanoTime();
        CeilingPages site = new CeilingPages(root, content, null);
        List<CeilingPages.Page> pages = new ArrayList<>();
        for (String p : paths) pages.add(site.page(p));
        System.out.printf("ceiling: %d full-text pages prepared (stylesheets compiled, requests and articles as TinyTrees) in %.1f s%n",
                pages.size(), (System.nanoTime() - t0) / 1e9);
        if (checkOnly || against != null && !noCheck) {
            Mismatch m = against != null ? check(site, pages, against) : checkInProcess(site, pages, root, content, files);
            if (m != null) {
                System.out.println("ceiling: MISMATCH at " + m.path() + ": " + m.reason());
                return 1;
            }
            System.out.println("ceiling: all " + pages.size() + " pages equal to Arno's");
            if (checkOnly) return 0;
        }
        if (turns) {
            turns(site, pages, threads, new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8)),
                    System.out);
            return 0;
        }
        Result r = measure(site, pages, threads, warmup, seconds, rounds, System.out);
        System.out.printf("ceiling: median %.0f pages/s on %d threads (%d rounds of %d s after %d s; %d articles)%n",
                r.median(), threads, rounds, seconds, warmup, pages.size());
        if (arno != null) {
            System.out.printf("ceiling: Arno %.0f pages/s is %.2fx this ceiling%n", arno, arno / r.median());
        }
        return 0;
    }

    /** This command again with --check-only, in a child JVM with the same class path. */
    private int checkInChild() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx1g",
                "-cp", System.getProperty("java.class.path"), Ceiling.class.getName(), "--check-only",
                "--root", root.toString(), "--content", content.toString(), "--articles", Integer.toString(articles)));
        if (files) cmd.add("--files");
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }

    /** The first page that differs from Arno's, or null. */
    record Mismatch(String path, String reason) {}

    /** Starts Arno as {@link PerfServer} does (production, page caches off, from the store unless {@code files}) and checks against it. */
    static Mismatch checkInProcess(CeilingPages site, List<CeilingPages.Page> pages, Path root, Path content, boolean files)
            throws Exception {
        arno.store.Store store = null;
        Path data = content.toAbsolutePath().getParent();
        // Beside the content (the test's own temporary folder; perf/target/pages/… in a run), not in /tmp.
        Path tmp = Files.createTempDirectory(content.toAbsolutePath().getParent(), "ceiling-");
        try {
            if (!files) {
                store = StoredContent.load(content, tmp.resolve("store"));
                data = Files.createDirectories(tmp.resolve("empty/content")).getParent();
            }
            try (ArnoServer server = ArnoServer.start(PerfServer.config(root, data, 0), store)) {
                return check(site, pages, "http://127.0.0.1:" + server.port());
            }
        } finally {
            if (store != null) store.close();
            // Tomcat may still be making its work folder there as it stops: a few passes.
            for (int pass = 0; pass < 5 && Files.exists(tmp); pass++) {
                try (var s = Files.walk(tmp)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (java.io.IOException | java.io.UncheckedIOException e) {
                    // a file went while walking: the next pass sees the rest
                }
                if (Files.exists(tmp)) Thread.sleep(200);
            }
        }
    }

    /** Every page fetched from {@code base} and compared by meaning with the harness's. */
    static Mismatch check(CeilingPages site, List<CeilingPages.Page> pages, String base) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        int identical = 0;
        String firstByteDifference = null;
        for (CeilingPages.Page page : pages) {
            HttpResponse<byte[]> served = client.send(HttpRequest.newBuilder(URI.create(base + page.path())).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int status = site.render(page, out);
            if (served.statusCode() != status) {
                return new Mismatch(page.path(), "status " + served.statusCode() + " from Arno, " + status + " here");
            }
            String theirs = new String(served.body(), StandardCharsets.UTF_8);
            // Saxon writes the DOCTYPE in capitals and without a line end after it; Arno's HtmlWriter as HTML5 shows it.
            String ours = out.toString(StandardCharsets.UTF_8).replaceFirst("^<!DOCTYPE HTML>", "<!DOCTYPE html>\n");
            if (theirs.equals(ours)) {
                identical++;
                continue;
            }
            Diff diff = DiffBuilder.compare(new W3CDom().fromJsoup(Jsoup.parse(theirs)))
                    .withTest(new W3CDom().fromJsoup(Jsoup.parse(ours))).checkForIdentical().build();
            if (diff.hasDifferences()) {
                return new Mismatch(page.path(), diff.getDifferences().iterator().next().toString());
            }
            if (firstByteDifference == null) firstByteDifference = page.path() + ": " + firstDifference(theirs, ours);
        }
        System.out.printf("ceiling: %d of %d pages byte-identical to Arno's but for the DOCTYPE's case, the rest equal as parsed HTML%s%n",
                identical, pages.size(), firstByteDifference == null ? "" : " (the first other difference, " + firstByteDifference + ")");
        return null;
    }

    /** Where two texts first differ: a few characters of each from there. */
    static String firstDifference(String arno, String ours) {
        int i = 0;
        while (i < arno.length() && i < ours.length() && arno.charAt(i) == ours.charAt(i)) i++;
        int from = Math.max(0, i - 20);
        return "at character " + i + ", Arno '" + arno.substring(from, Math.min(arno.length(), i + 40)).replace("\n", "\\n")
                + "', here '" + ours.substring(from, Math.min(ours.length(), i + 40)).replace("\n", "\\n") + "'";
    }

    /** The median pages/s over the rounds, and each round's. */
    record Result(double median, double[] pagesPerSecond) {}

    /** Builds pages on {@code threads} threads: {@code warmup} seconds, then {@code rounds} of {@code seconds}, each printed. */
    static Result measure(CeilingPages site, List<CeilingPages.Page> pages, int threads, int warmup, int seconds, int rounds,
                          java.io.PrintStream log) throws Exception {
        try (Builders b = new Builders(site, pages, threads)) {
            b.open(true);
            Thread.sleep(warmup * 1000L);
            double[] perSecond = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                perSecond[r] = b.round(seconds, "round " + (r + 1), log);
            }
            return new Result(median(perSecond), perSecond);
        }
    }

    /**
     * {@code --turns}: a turn per line of {@code in} (its seconds), the threads building pages only during a turn and
     * waiting, without CPU, between turns, so that the caller can load Arno in the gaps and read the two within the same
     * minute of a machine whose speed drifts (run-ceiling.sh). A line "warmup S" builds S seconds unmeasured; each
     * other turn prints "turn N: P pages/s; …". At the end of input, the median of the turns.
     */
    static Result turns(CeilingPages site, List<CeilingPages.Page> pages, int threads, java.io.BufferedReader in,
                        java.io.PrintStream log) throws Exception {
        List<Double> perSecond = new ArrayList<>();
        try (Builders b = new Builders(site, pages, threads)) {
            for (String line; (line = in.readLine()) != null; ) {
                line = line.strip();
                if (line.isEmpty()) continue;
                boolean warm = line.startsWith("warmup ");
                int s = Integer.parseInt(warm ? line.substring(7).strip() : line);
                b.open(true);
                try {
                    if (warm) {
                        Thread.sleep(s * 1000L);
                        log.println("warmup: " + s + " s");
                    } else {
                        perSecond.add(b.round(s, "turn " + (perSecond.size() + 1), log));
                    }
                } finally {
                    b.open(false);
                }
                log.flush();
            }
        }
        double[] all = perSecond.stream().mapToDouble(Double::doubleValue).toArray();
        Result r = new Result(all.length == 0 ? 0 : median(all), all);
        log.printf("ceiling: median %.0f pages/s over %d turns on %d threads%n", r.median(), all.length, threads);
        return r;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The threads that build pages, each from its own place in the list, while the gate is open. */
    static final class Builders implements AutoCloseable {
        // Each thread's count on a cache line of its own (16 longs apart).
        private final AtomicLongArray counts;
        private final Thread[] workers;
        private final Throwable[] failure = new Throwable[1];
        private final Object gate = new Object();
        private volatile boolean open;
        private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        private final com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        Builders(CeilingPages site, List<CeilingPages.Page> pages, int threads) {
            counts = new AtomicLongArray(threads * 16);
            workers = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                int id = i;
                workers[i] = new Thread(() -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream(256 * 1024);
                    // Each thread starts at its own place in the list, as clients of a server would.
                    int at = id * pages.size() / threads;
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            if (!open) waitOpen();
                            out.reset();
                            site.render(pages.get(at), out);
                            if (++at == pages.size()) at = 0;
                            counts.incrementAndGet(id * 16);
                        }
                    } catch (InterruptedException e) {
                        // closed
                    } catch (Throwable t) {
                        synchronized (failure) {
                            failure[0] = t;
                        }
                    }
                }, "ceiling-" + i);
                workers[i].setDaemon(true);
                workers[i].start();
            }
        }

        private void waitOpen() throws InterruptedException {
            synchronized (gate) {
                while (!open) gate.wait();
            }
        }

        /** Lets the threads build (a page under way when closed is finished, uncounted by no round). */
        void open(boolean o) {
            synchronized (gate) {
                open = o;
                gate.notifyAll();
            }
        }

        /** Pages built so far by all threads. */
        long built() {
            long n = 0;
            for (int i = 0; i < workers.length; i++) n += counts.get(i * 16);
            return n;
        }

        /** One measured round of {@code seconds}: printed, and its pages/s returned. */
        double round(int seconds, String name, java.io.PrintStream log) throws InterruptedException {
            int threads = workers.length;
            long[] n0 = new long[threads];
            long[] c0 = new long[threads];
            for (int i = 0; i < threads; i++) {
                n0[i] = counts.get(i * 16);
                c0[i] = mx.getThreadCpuTime(workers[i].getId());
            }
            long p0 = os.getProcessCpuTime();
            long w0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long wall = System.nanoTime() - w0;
            long p1 = os.getProcessCpuTime();
            long total = 0;
            StringBuilder shares = new StringBuilder();
            for (int i = 0; i < threads; i++) {
                long n = counts.get(i * 16) - n0[i];
                long cpu = mx.getThreadCpuTime(workers[i].getId()) - c0[i];
                total += n;
                shares.append(String.format(" %.2f (%.0f us/page)", (double) cpu / wall, n == 0 ? 0.0 : cpu / 1e3 / n));
            }
            synchronized (failure) {
                if (failure[0] != null) throw new IllegalStateException("a page failed: " + failure[0], failure[0]);
            }
            double perSecond = total * 1e9 / wall;
            log.printf("%s: %.0f pages/s; CPU share and per page of each thread:%s; process CPU %.0f us/page%n",
                    name, perSecond, shares, total == 0 ? 0.0 : (p1 - p0) / 1e3 / total);
            return perSecond;
        }

        @Override
        public void close() throws InterruptedException {
            for (Thread w : workers) w.interrupt();
            for (Thread w : workers) w.join(10_000);
        }
    }

    /** For the test: the harness's pages, with {@code replace} (site name to another site.xsl) compiled in place of the site's own. */
    static CeilingPages pages(Path root, Path content, Map<String, Path> replace) throws Exception {
        return new CeilingPages(root, content, replace);
    }
}
