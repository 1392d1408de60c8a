package arno.perf.pages;

import arno.server.ArnoServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What one page costs the server, measured per thread so that a busy machine
 * does not distort it: CPU time and bytes allocated by Tomcat's request
 * threads and Arno's workers per request, for article full-text pages and for an empty servlet
 * in the same Tomcat. One client thread sends the requests one after another.
 *
 * <p>{@code PageCost ROOT CONTENT [ROUNDS]}: prints the median of ROUNDS rounds,
 * each over every article once, after {@code -Dwarmup} (default 20) rounds not measured.
 */
public final class PageCost {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        Path content = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        arno.store.Store store = null;
        java.nio.file.Path data = content.getParent();
        if (StoredContent.wanted()) {
            store = StoredContent.load(content, java.nio.file.Files.createTempDirectory("arno-perf-store"));
            data = java.nio.file.Files.createDirectories(java.nio.file.Files.createTempDirectory("arno-perf-empty").resolve("content")).getParent();
            System.out.println("content served from the store");
        }
        try (ArnoServer server = ArnoServer.start(PerfServer.config(root, data, 0), store)) {
            server.mount("empty", "/_perf/empty", new PerfServer.Empty());
            // -Dpage=abstract measures the article abstract pages instead: the same page frame with little body.
            boolean abstracts = "abstract".equals(System.getProperty("page"));
            List<String> pages = PerfServer.fullTextPaths(content).stream()
                    .map(p -> abstracts ? p.substring(0, p.length() - "/full".length()) : p).toList();
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            // C2 needs tens of seconds of CPU to compile the page path; measure after it has.
            measure("warm-up", client, base, pages, Integer.getInteger("warmup", 20));
            Cost page = measure("full text", client, base, pages, rounds);
            Cost empty = measure("empty servlet", client, base, List.of("/_perf/empty"), rounds * pages.size());
            System.out.printf((abstracts ? "abstract" : "full text") + ": %.0f us CPU and %.0f KB allocated per page (median of %d rounds of %d pages, %.0f KB per page sent)%n",
                    page.cpuNanos / 1e3, page.allocated / 1024.0, rounds, pages.size(), page.bytesOut / 1024.0);
            System.out.printf("empty servlet: %.1f us CPU and %.1f KB allocated per request%n", empty.cpuNanos / 1e3, empty.allocated / 1024.0);
            System.out.printf("CPU per page / CPU per empty request: %.1f%n", page.cpuNanos / empty.cpuNanos);
            System.out.printf("pages/s this implies on 2 cores with nothing else running: %.0f%n", 2e9 / page.cpuNanos);
        }
    }

    record Cost(double cpuNanos, double allocated, double bytesOut) {}

    private static Cost measure(String name, HttpClient client, String base, List<String> paths, int rounds) throws Exception {
        int per = paths.size() > 1 ? paths.size() : 1;
        int roundsOfPaths = paths.size() > 1 ? rounds : 5;
        int repeat = paths.size() > 1 ? 1 : rounds / 5;
        double[] cpu = new double[roundsOfPaths];
        double[] alloc = new double[roundsOfPaths];
        double bytes = 0;
        for (int r = 0; r < roundsOfPaths; r++) {
            long[] before = serverThreads();
            long n = 0;
            for (int k = 0; k < repeat; k++) {
                for (String p : paths) {
                    HttpResponse<byte[]> resp = client.send(HttpRequest.newBuilder(URI.create(base + p)).build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    if (resp.statusCode() != 200) throw new IllegalStateException(p + " answered " + resp.statusCode());
                    bytes += resp.body().length;
                    n++;
                }
            }
            long[] after = serverThreads();
            cpu[r] = (after[0] - before[0]) / (double) n;
            alloc[r] = (after[1] - before[1]) / (double) n;
        }
        Arrays.sort(cpu);
        Arrays.sort(alloc);
        return new Cost(cpu[cpu.length / 2], alloc[alloc.length / 2], bytes / ((double) roundsOfPaths * repeat * per));
    }

    /** Sum of CPU nanoseconds and allocated bytes of Tomcat's request threads. */
    private static long[] serverThreads() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long cpu = 0;
        long alloc = 0;
        for (var info : mx.dumpAllThreads(false, false)) {
            // Tomcat's threads read requests, Arno's workers run the pipelines.
            if (!info.getThreadName().startsWith("http-nio") && !info.getThreadName().startsWith("arno-worker")) continue;
            cpu += mx.getThreadCpuTime(info.getThreadId());
            alloc += mx.getThreadAllocatedBytes(info.getThreadId());
        }
        return new long[] {cpu, alloc};
    }
}
