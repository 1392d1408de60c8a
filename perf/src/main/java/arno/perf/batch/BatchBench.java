package arno.perf.batch;

import arno.batch.BatchOptions;
import arno.batch.BatchService;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Drives Arno's batch service the way a client does: an embedded Tomcat with
 * the batch servlet at /batch/*, a batch document POSTed over HTTP, the job's
 * status polled until it ends. Prints one RESULT line per round for
 * perf/batch/run.sh to collect.
 *
 * <pre>
 * java -Xmx512m [-Dbench.baseline="COMMAND" -Dbench.baselineOut=DIR] -cp ... \
 *      arno.perf.batch.BatchBench xslt|schematron ROOT STYLESHEET ROUNDS [WORKERS]
 * java -cp ... arno.perf.batch.BatchBench links SRC DEST N
 * </pre>
 *
 * ROOT holds {@code in/} (the inputs, one level); outputs go to
 * {@code ROOT/out-arno/} under the same names. Each round is a new job on the
 * same running service, as in production, so round 1 is cold (JIT, compile)
 * and later rounds warm. A sampler reads the heap every 10 ms. With
 * {@code -Dbench.liveHeap=true} (the memory check) it also forces a full GC at
 * every tenth of the job and records the live heap, which is what shows
 * whether memory grows with the batch.
 *
 * <p>Tomcat is reached by reflection: perf's compile path does not carry it,
 * its run path does (perf/batch/run.sh adds the jar).
 */
public final class BatchBench {
    private static final String AUTH = "Basic " + Base64.getEncoder().encodeToString("bench:bench-password".getBytes(StandardCharsets.UTF_8));
    private static final Pattern DONE = Pattern.compile("done=\"(\\d+)\"");
    private static final Pattern STATUS = Pattern.compile("<job [^>]*status=\"([a-z]+)\"");
    private static final Pattern FAILED = Pattern.compile(" failed=\"(\\d+)\"");

    private BatchBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("links")) {
            links(Path.of(args[1]), Path.of(args[2]), Integer.parseInt(args[3]));
            return;
        }
        if (args.length < 4) {
            System.err.println("usage: BatchBench xslt|schematron ROOT STYLESHEET ROUNDS [WORKERS]");
            System.exit(2);
        }
        String mode = args[0];
        Path root = Path.of(args[1]).toAbsolutePath().normalize();
        Path stylesheet = Path.of(args[2]).toAbsolutePath().normalize();
        int rounds = Integer.parseInt(args[3]);
        int workers = args.length > 4 ? Integer.parseInt(args[4]) : Runtime.getRuntime().availableProcessors();
        // Forcing full GCs to read the live heap costs time: only the memory check does it.
        boolean liveHeapChecks = Boolean.getBoolean("bench.liveHeap");

        Path work = root.resolve("arno-work");
        BatchOptions options = BatchOptions.builder(work).roots(List.of(root, stylesheet.getParent()))
                .workers(workers).build();
        BatchService.addAccount(options, "bench", "bench-password");
        BatchService service = BatchService.start(options);
        Object tomcat = startTomcat(service, work.resolve("tomcat"));
        int port = localPort(tomcat);

        Path batch = writeBatch(mode, root, stylesheet);
        long inputs = countInputs(root.resolve("in"));
        HttpClient http = HttpClient.newHttpClient();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        // The baseline (Saxon's command line on the same folder) runs just before each job, so
        // both see the same machine; the ratio of each pair is robust to a load that drifts.
        String baseline = System.getProperty("bench.baseline");
        String baselineOut = System.getProperty("bench.baselineOut");
        for (int round = 1; round <= rounds; round++) {
            double baselineSeconds = baseline == null ? Double.NaN : runBaseline(baseline, baselineOut);
            Heap heap = new Heap(memory);
            heap.start();
            long t0 = System.nanoTime();
            HttpResponse<String> submitted = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/batch/jobs"))
                    .header("Content-Type", "application/xml")
                    .header("Content-Location", batch.toUri().toString())
                    .header("Authorization", AUTH)
                    .POST(HttpRequest.BodyPublishers.ofFile(batch)).build(), HttpResponse.BodyHandlers.ofString());
            if (submitted.statusCode() != 202) throw new IllegalStateException("submission refused: " + submitted.body());
            // Location is relative unless the server is configured with host names.
            URI job = URI.create("http://127.0.0.1:" + port + "/").resolve(submitted.headers().firstValue("Location").orElseThrow());
            String status;
            List<String> liveHeap = new ArrayList<>();
            long nextTenth = 1;
            while (true) {
                // Reading a job needs the account too.
                status = http.send(HttpRequest.newBuilder(job).header("Authorization", AUTH).GET().build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                String s = match(STATUS, status);
                if (!s.equals("queued") && !s.equals("running")) break;
                long done = Long.parseLong(match(DONE, status));
                if (liveHeapChecks && done * 10 >= nextTenth * inputs && nextTenth < 10) {
                    System.gc();
                    liveHeap.add(String.format(Locale.ROOT, "%d%%:%.1f", nextTenth * 10, memory.getHeapMemoryUsage().getUsed() / 1048576.0));
                    nextTenth++;
                }
                Thread.sleep(10);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            heap.stopSampling();
            if (liveHeapChecks) {
                System.gc();
                liveHeap.add(String.format(Locale.ROOT, "end:%.1f", memory.getHeapMemoryUsage().getUsed() / 1048576.0));
            }
            System.out.printf(Locale.ROOT, "RESULT mode=%s round=%d inputs=%d status=%s failed=%s seconds=%.3f rate=%.1f "
                            + "baseline-seconds=%.3f baseline-rate=%.1f ratio=%.2f "
                            + "peak-heap-mb=%.1f max-heap-mb=%.0f live-heap-mb=%s%n",
                    mode, round, inputs, match(STATUS, status), match(FAILED, status), seconds, inputs / seconds,
                    baselineSeconds, inputs / baselineSeconds, baselineSeconds / seconds,
                    heap.peak.get() / 1048576.0, memory.getHeapMemoryUsage().getMax() / 1048576.0, String.join(",", liveHeap));
        }
        tomcat.getClass().getMethod("stop").invoke(tomcat);
        service.close();
        System.exit(0);
    }

    /** Runs the baseline command (output folder emptied first) and returns its wall-clock seconds. */
    private static double runBaseline(String command, String outputFolder) throws IOException, InterruptedException {
        if (outputFolder != null) {
            Path out = Path.of(outputFolder);
            if (Files.exists(out)) {
                try (var files = Files.walk(out)) {
                    for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
                }
            }
            Files.createDirectories(out);
        }
        long t0 = System.nanoTime();
        Process process = new ProcessBuilder(command.split(" ")).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        int code = process.waitFor();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (code != 0) throw new IllegalStateException("the baseline failed (exit " + code + "): " + command);
        return seconds;
    }

    /**
     * {@code links SRC DEST N}: N hard links in DEST to the files of SRC, taken
     * in turn, named 000001.xml and up, for the large-batch memory check (the
     * inputs cost no disk space, and each is a real article).
     */
    private static void links(Path src, Path dest, int count) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> in = Files.newDirectoryStream(src)) {
            for (Path p : in) files.add(p);
        }
        files.sort(null);
        Files.createDirectories(dest);
        for (int i = 0; i < count; i++) {
            Path link = dest.resolve(String.format(Locale.ROOT, "%06d.xml", i + 1));
            if (!Files.exists(link)) Files.createLink(link, files.get(i % files.size()));
        }
    }

    private static String match(Pattern p, String s) {
        Matcher m = p.matcher(s);
        if (!m.find()) throw new IllegalStateException("unexpected status document: " + s);
        return m.group(1);
    }

    /** The batch: every file in ROOT/in, sorted, to ROOT/out-arno under the same name (XSLT), or SVRL only. */
    private static Path writeBatch(String mode, Path root, Path stylesheet) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> in = Files.newDirectoryStream(root.resolve("in"))) {
            for (Path p : in) names.add(p.getFileName().toString());
        }
        names.sort(null);
        Path batch = root.resolve(mode + ".batch.xml");
        try (Writer w = Files.newBufferedWriter(batch)) {
            w.write("<batch xmlns=\"urn:arno:batch\" name=\"perf " + mode + "\">\n");
            w.write(mode.equals("schematron")
                    ? "  <schematron href=\"" + stylesheet.toUri() + "\"/>\n"
                    : "  <stylesheet href=\"" + stylesheet.toUri() + "\"/>\n");
            for (String name : names) {
                w.write("  <input href=\"in/" + name + "\"");
                if (!mode.equals("schematron")) w.write(" output=\"out-arno/" + name + "\"");
                w.write("/>\n");
            }
            w.write("</batch>\n");
        }
        return batch;
    }

    private static long countInputs(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.count();
        }
    }

    /** Samples heap use every 10 ms; {@link #peak} is the highest seen. */
    private static final class Heap extends Thread {
        final AtomicLong peak = new AtomicLong();
        private final MemoryMXBean memory;
        private volatile boolean running = true;

        Heap(MemoryMXBean memory) {
            super("heap-sampler");
            setDaemon(true);
            this.memory = memory;
        }

        @Override public void run() {
            while (running) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void stopSampling() {
            running = false;
        }
    }

    private static Object startTomcat(BatchService service, Path baseDir) throws Exception {
        Class<?> tomcatClass = Class.forName("org.apache.catalina.startup.Tomcat");
        Class<?> contextClass = Class.forName("org.apache.catalina.Context");
        Class<?> servletClass = Class.forName("jakarta.servlet.Servlet");
        Object tomcat = tomcatClass.getConstructor().newInstance();
        tomcatClass.getMethod("setBaseDir", String.class).invoke(tomcat, baseDir.toString());
        tomcatClass.getMethod("setPort", int.class).invoke(tomcat, 0);
        tomcatClass.getMethod("getConnector").invoke(tomcat);
        Object context = tomcatClass.getMethod("addContext", String.class, String.class).invoke(tomcat, "", null);
        Object servlet = BatchService.class.getMethod("servlet").invoke(service);
        Method addServlet = tomcatClass.getMethod("addServlet", contextClass, String.class, servletClass);
        addServlet.invoke(null, context, "batch", servlet);
        contextClass.getMethod("addServletMappingDecoded", String.class, String.class).invoke(context, "/batch/*", "batch");
        tomcatClass.getMethod("start").invoke(tomcat);
        return tomcat;
    }

    private static int localPort(Object tomcat) throws Exception {
        Object connector = tomcat.getClass().getMethod("getConnector").invoke(tomcat);
        return (int) connector.getClass().getMethod("getLocalPort").invoke(connector);
    }
}
