package arno.perf.batch;

import arno.perf.pages.PageClients;

import arno.batch.BatchOptions;
import arno.batch.BatchService;
import arno.batch.client.BatchClient;
import arno.perf.pages.PerfServer;
import arno.server.ArnoServer;
import arno.server.Main;
import arno.server.config.Config;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Page throughput and p99 with and without a batch running, with batch workers giving way to
 * pages and without, in one run on one server (issue 14, item 10).
 *
 * <p>The server is {@code ./arno serve}'s: the demo sites in production mode over a store holding
 * the generated demo (the page caches off unless {@code -Darno.pageCaches=true}, so every page is
 * built), the batch service mounted at {@code /batch/} on the same server, so pages and
 * transformations share the cores as they do in production. Page clients fetch random full-text
 * pages in closed loops, timing each request (the loop of {@code LoadWhileServing}). Phases, each
 * reported as pages/s, p50, p90, p99 and errors:
 * <ol>
 * <li><em>warm-up</em>: pages only, then one small batch (the JIT, the stylesheet cache); not reported;</li>
 * <li><em>quiet</em>: pages only, for SECONDS;</li>
 * <li><em>giving way</em>: pages while a batch of INPUTS articles → Atom ({@code perf/batch/jats-to-atom.xsl})
 *     runs with {@code min-share} SHARE and the server's page pressure, until the job ends;</li>
 * <li><em>not giving way</em>: the same batch with {@code min-share 1} (the behaviour before issue 14);</li>
 * <li><em>quiet again</em>: pages only, for SECONDS, to see drift (heap, JIT) between the first and last phase.</li>
 * </ol>
 * Each batch phase also reports the job's time and rate: what giving way costs the batch. The two
 * batch services (one per setting) share the work folder's inputs and have their own job folders;
 * the servlet at {@code /batch/} forwards to the one in use.
 *
 * <pre>
 * java -Xmx256m -cp ... arno.perf.batch.BatchBesidePages ROOT WORK ARTICLES SECONDS [PAGE-CLIENTS=8] [INPUTS=2000] [SHARE=0.1]
 * </pre>
 * ROOT is the checkout (the sites, {@code perf/batch/jats-to-atom.xsl}), WORK a folder for the
 * generated content, the store and the batch outputs. INPUTS beyond the generated articles reuse them.
 * Wait for an idle machine first; record the figures with the command in {@code perf/RESULTS.md}.
 */
public final class BatchBesidePages {
    private static final String USER = "perf";
    private static final String PASSWORD = "batch-beside-pages";

    private BatchBesidePages() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: BatchBesidePages ROOT WORK ARTICLES SECONDS [PAGE-CLIENTS=8] [INPUTS=2000] [SHARE=0.1]");
            System.exit(2);
        }
        Path root = Path.of(args[0]).toAbsolutePath();
        Path work = Path.of(args[1]).toAbsolutePath();
        int articles = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int clients = args.length > 4 ? Integer.parseInt(args[4]) : 8;
        int inputs = args.length > 5 ? Integer.parseInt(args[5]) : 2000;
        double share = args.length > 6 ? Double.parseDouble(args[6]) : BatchOptions.DEFAULT_MIN_SHARE;
        Path content = work.resolve("content-" + articles);
        if (!Files.isDirectory(content.resolve("journals"))) {
            int s = Main.run(new String[] {"generate", "--articles", "" + articles, "--out", content.toString()},
                    System.out, System.err);
            if (s != 0) throw new IllegalStateException("generate failed");
        }
        Path run = Files.createTempDirectory(Files.createDirectories(work), "beside-");
        Path data = Files.createDirectories(run.resolve("data"));
        Files.createDirectories(data.resolve("content"));
        Path xslt = root.resolve("perf/batch/jats-to-atom.xsl");
        // Batches read the articles and the stylesheet and write here; never the server's data folder.
        Path outputs = Files.createDirectories(run.resolve("outputs"));
        List<Path> jats = jatsArticles(content);
        if (jats.isEmpty()) throw new IllegalStateException("no JATS articles under " + content);

        try (Store store = Store.open(data.resolve("store"), StoreOptions.defaults());
                AtomStore atom = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store"))) {
            TreeLoader.Result loaded = TreeLoader.load(atom, content, "perf", null);
            Config.Builder b = Config.defaults(root).toBuilder();
            b.data = data;
            b.production = true;
            b.port = 0;
            b.pageCaches = Boolean.getBoolean("arno.pageCaches");
            try (ArnoServer server = ArnoServer.start(b.build(), store)) {
                Forward forward = new Forward();
                server.mount("batch", "/batch/*", forward);
                String base = "http://127.0.0.1:" + server.port();
                List<String> pages = PerfServer.fullTextPaths(content);
                System.out.printf(Locale.ROOT, "%d entries loaded; %d full-text pages, %d page clients, %d page workers;"
                        + " %d batch inputs from %d articles, %d batch workers; min-share %s; load average %s%n",
                        loaded.entries(), pages.size(), clients, server.workers(), inputs, jats.size(),
                        BatchOptions.DEFAULT_WORKERS, share, Files.readString(Path.of("/proc/loadavg")).strip());
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
                BatchClient client = new BatchClient(URI.create(base + "/"), USER + ":" + PASSWORD);

                Path warmBatch = batchFile(run, "warm-up", xslt, jats, Math.min(50, inputs));
                Path batch = batchFile(run, "batch", xslt, jats, inputs);
                BatchOptions giving = options(run.resolve("giving-way"), List.of(content, outputs, xslt.getParent()), share)
                        .withPagePressure(server::pagesWaiting);
                BatchOptions full = options(run.resolve("full-speed"), List.of(content, outputs, xslt.getParent()), 1.0);

                PageClients warm = PageClients.run(http, base, pages, clients);
                Thread.sleep(seconds * 1000L);
                try (BatchService service = start(giving, forward)) {
                    client.await(client.submit(warmBatch), s -> { });
                }
                warm.stop();
                System.out.printf(Locale.ROOT, "warm-up:        %s%n", warm.summary());

                PageClients quiet = PageClients.run(http, base, pages, clients);
                Thread.sleep(seconds * 1000L);
                quiet.stop();
                System.out.printf(Locale.ROOT, "quiet:          %s%n", quiet.summary());

                PageClients yielding = batchPhase("giving way:    ", giving, forward, client, http, base, pages, clients, batch);
                PageClients fullSpeed = batchPhase("not giving way:", full, forward, client, http, base, pages, clients, batch);

                PageClients after = PageClients.run(http, base, pages, clients);
                Thread.sleep(seconds * 1000L);
                after.stop();
                System.out.printf(Locale.ROOT, "quiet again:    %s%n", after.summary());
                System.out.printf(Locale.ROOT, "RESULT pages/s quiet %.0f, giving way %.0f (%.2f), not giving way %.0f (%.2f);"
                        + " p99 ms quiet %.1f, giving way %.1f (%.2f), not giving way %.1f (%.2f)%n",
                        quiet.rate(), yielding.rate(), yielding.rate() / quiet.rate(), fullSpeed.rate(),
                        fullSpeed.rate() / quiet.rate(), quiet.percentile(0.99), yielding.percentile(0.99),
                        yielding.percentile(0.99) / quiet.percentile(0.99), fullSpeed.percentile(0.99),
                        fullSpeed.percentile(0.99) / quiet.percentile(0.99));
            }
        }
    }

    /** PageClients while one batch runs to its end on a service with {@code options}; prints both. */
    private static PageClients batchPhase(String label, BatchOptions options, Forward forward, BatchClient client, HttpClient http,
                                    String base, List<String> pages, int clients, Path batch) throws Exception {
        try (BatchService service = start(options, forward)) {
            PageClients p = PageClients.run(http, base, pages, clients);
            long t0 = System.nanoTime();
            BatchClient.Status status = client.await(client.submit(batch), s -> { });
            double secs = (System.nanoTime() - t0) / 1e9;
            p.stop();
            System.out.printf(Locale.ROOT, "%s %s%n", label, p.summary());
            System.out.printf(Locale.ROOT, "%s batch %s in %.1f s%n", " ".repeat(label.length()), status.summary(), secs);
            return p;
        }
    }

    private static BatchOptions options(Path work, List<Path> roots, double share) {
        BatchOptions options = BatchOptions.builder(work).roots(roots).minShare(share).build();
        BatchService.addAccount(options, USER, PASSWORD);
        return options;
    }

    private static BatchService start(BatchOptions options, Forward forward) {
        BatchService service = BatchService.start(options);
        forward.to(service.endpoint());
        return service;
    }

    /** The JATS variants of the generated articles: journals/J/vV/iI/aNNNN.xml. */
    private static List<Path> jatsArticles(Path content) throws IOException {
        try (Stream<Path> s = Files.find(content.resolve("journals"), 4, (p, a) -> a.isRegularFile()
                && p.getNameCount() - content.resolve("journals").getNameCount() == 4
                && p.getFileName().toString().matches("a[0-9]+\\.xml"))) {
            return s.sorted().toList();
        }
    }

    /** A batch of {@code inputs} transformations of the articles (round robin), each to its own output. */
    private static Path batchFile(Path run, String name, Path xslt, List<Path> jats, int inputs) throws IOException {
        Path file = run.resolve(name + ".batch.xml");
        Path out = Files.createDirectories(run.resolve("outputs").resolve(name));
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write("<batch xmlns=\"urn:arno:batch\" name=\"perf " + name + "\">\n");
            w.write("  <stylesheet href=\"" + xslt.toUri() + "\"/>\n");
            for (int i = 0; i < inputs; i++) {
                w.write("  <input href=\"" + jats.get(i % jats.size()).toUri() + "\" output=\""
                        + out.resolve(i + ".atom").toUri() + "\"/>\n");
            }
            w.write("</batch>\n");
        }
        return file;
    }

    /** {@code /batch/*} on the server, forwarding to the batch service of the phase under way, through its filters. */
    private static final class Forward extends HttpServlet {
        private arno.http.Endpoint target;
        private boolean initialized;

        synchronized void to(arno.http.Endpoint endpoint) {
            target = endpoint;
            initialized = false;
        }

        private synchronized arno.http.Endpoint target() throws ServletException {
            // Initialized here, with this servlet's configuration, which Tomcat has given by the first request.
            if (target != null && !initialized) {
                target.servlet().init(getServletConfig());
                initialized = true;
            }
            return target;
        }

        @Override protected void service(HttpServletRequest request, HttpServletResponse response)
                throws ServletException, IOException {
            arno.http.Endpoint t = target();
            if (t == null) {
                response.sendError(503);
                return;
            }
            new jakarta.servlet.FilterChain() {
                private int next;

                @Override public void doFilter(jakarta.servlet.ServletRequest rq, jakarta.servlet.ServletResponse rs)
                        throws IOException, ServletException {
                    if (next < t.filters().size()) t.filters().get(next++).doFilter(rq, rs, this);
                    else t.servlet().service(rq, rs);
                }
            }.doFilter(request, response);
        }
    }
}
