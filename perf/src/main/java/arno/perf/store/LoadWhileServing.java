package arno.perf.store;

import arno.perf.pages.PageClients;
import arno.perf.pages.PerfServer;
import arno.server.ArnoServer;
import arno.server.Main;
import arno.server.config.Config;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import arno.store.http.StoreServlet;
import arno.xml.Accounts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * Full-text pages from the store while the demo is bulk-loaded through the store's HTTP API,
 * against the same pages with no load, in one run (issue 11, "Measured").
 *
 * <p>The server is {@code ./arno serve}'s: the demo sites in production mode over a store holding
 * the generated demo (loaded through the service first), the store API mounted at {@code /store/}.
 * Page clients fetch random full-text pages in closed loops, timing each request. Phases: warm-up
 * (the JIT; not reported), then <em>quiet</em> (pages only) for the given seconds, then
 * <em>loading</em>: loader threads write a second copy of the whole demo through the AtomPub API
 * while the page clients go on, until the copy is complete. The copy goes under new journals
 * ({@code /journals/load-ja/…}): each entry POSTed to its parent's collection with its name as
 * {@code Slug} (the answer's {@code Location} says where it went), each variant PUT with
 * {@code If-None-Match: *}, parents before children, so every write is a real API write with its
 * model checks, managed links and group commits. Typed links between articles and their figures
 * are left out of the copy (they would name entries not yet written; {@code store load} defers
 * them, an API client has to order its writes itself).
 *
 * <pre>
 * java -Xmx1g -cp ... arno.perf.store.LoadWhileServing ROOT WORK ARTICLES SECONDS [PAGE-CLIENTS] [LOADERS]
 * </pre>
 * ROOT is the checkout (the sites), WORK a folder for the generated content and the store.
 */
public final class LoadWhileServing {
    private static final String USER = "loader";
    private static final String PASSWORD = "load-while-serving";

    private LoadWhileServing() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath();
        Path work = Path.of(args[1]).toAbsolutePath();
        int articles = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int clients = args.length > 4 ? Integer.parseInt(args[4]) : 8;
        int loaders = args.length > 5 ? Integer.parseInt(args[5]) : 4;
        Path content = work.resolve("content-" + articles);
        if (!Files.isDirectory(content.resolve("journals"))) {
            int s = Main.run(new String[] {"generate", "--articles", "" + articles, "--out", content.toString()},
                    System.out, System.err);
            if (s != 0) throw new IllegalStateException("generate failed");
        }
        Path data = Files.createTempDirectory(Files.createDirectories(work), "run-");
        Files.createDirectories(data.resolve("content"));
        try (Store store = Store.open(data.resolve("store"), StoreOptions.defaults());
                AtomStore atom = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store"))) {
            long t0 = System.nanoTime();
            TreeLoader.Result r = TreeLoader.load(atom, content, "perf", null);
            System.out.printf(Locale.ROOT, "initial load (TreeLoader): %d entries, %d variants in %.1f s%n",
                    r.entries(), r.variants(), (System.nanoTime() - t0) / 1e9);
            Accounts accounts = new Accounts(data.resolve("users"));
            accounts.add(USER, PASSWORD);
            Config.Builder b = Config.defaults(root).toBuilder();
            b.data = data;
            b.production = true;
            b.port = 0;
            // PageClients built from the store, not served from the page cache: the figure is the store's under writes.
            b.pageCaches = Boolean.getBoolean("arno.pageCaches");
            try (accounts; ArnoServer server = ArnoServer.bind(b.build(), store)) {
                server.mount("store", "/store/*", new StoreServlet(atom, accounts, StoreServlet.ReadPolicy.PUBLIC,
                        atom.options().maxBodyBytes()).endpoint());
                server.serve();
                run(server.port(), content, seconds, clients, loaders);
            }
        }
    }

    private static void run(int port, Path content, int seconds, int clients, int loaders) throws Exception {
        String base = "http://127.0.0.1:" + port;
        List<String> pages = PerfServer.fullTextPaths(content);
        System.out.printf(Locale.ROOT, "%d full-text pages, %d page clients, %d API loaders; load average %s%n",
                pages.size(), clients, loaders, Files.readString(Path.of("/proc/loadavg")).strip());
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> probe = http.send(HttpRequest.newBuilder(URI.create(base + pages.get(0))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (probe.statusCode() != 200) throw new IllegalStateException(pages.get(0) + ": " + probe.statusCode());

        PageClients quietWarm = PageClients.run(http, base, pages, clients);
        Thread.sleep(seconds * 1000L);
        quietWarm.stop();
        System.out.printf(Locale.ROOT, "warm-up:  %s%n", quietWarm.summary());

        PageClients quiet = PageClients.run(http, base, pages, clients);
        Thread.sleep(seconds * 1000L);
        quiet.stop();
        System.out.printf(Locale.ROOT, "quiet:    %s%n", quiet.summary());

        PageClients loading = PageClients.run(http, base, pages, clients);
        ApiLoad load = new ApiLoad(http, base, loaders);
        long t0 = System.nanoTime();
        load.copy(content);
        double loadSeconds = (System.nanoTime() - t0) / 1e9;
        loading.stop();
        System.out.printf(Locale.ROOT, "loading:  %s%n", loading.summary());
        System.out.printf(Locale.ROOT, "API load: %d entries + %d variants in %.1f s = %.0f writes/s, %d failed%n",
                load.entries.get(), load.variants.get(), loadSeconds,
                (load.entries.get() + load.variants.get()) / loadSeconds, load.failed.get());
        System.out.printf(Locale.ROOT, "p99 loading / quiet: %.2f; p50 loading / quiet: %.2f%n",
                loading.percentile(0.99) / quiet.percentile(0.99), loading.percentile(0.50) / quiet.percentile(0.50));
    }

    /** Copies a content folder into the store through the AtomPub API, parents before children. */
    private static final class ApiLoad {
        private final HttpClient http;
        private final String base;
        private final ExecutorService pool;
        private final String authorization = "Basic " + Base64.getEncoder()
                .encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        private final AtomicInteger pending = new AtomicInteger();
        private final Object done = new Object();
        final AtomicLong entries = new AtomicLong();
        final AtomicLong variants = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        private final AtomicReference<String> firstFailure = new AtomicReference<>();

        ApiLoad(HttpClient http, String base, int threads) {
            this.http = http;
            this.base = base;
            this.pool = Executors.newFixedThreadPool(threads);
        }

        void copy(Path content) throws InterruptedException {
            Path journals = content.resolve("journals");
            for (Path journal : list(journals)) {
                String n = journal.getFileName().toString();
                if (n.endsWith(".atom")) {
                    String name = n.substring(0, n.length() - 5);
                    submit(() -> entry("/store/journals/", "load-" + name, journal, journals.resolve(name)));
                }
            }
            synchronized (done) {
                while (pending.get() > 0) done.wait();
            }
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.MINUTES);
            if (firstFailure.get() != null) System.out.println("first failure: " + firstFailure.get());
        }

        private void submit(Runnable task) {
            pending.incrementAndGet();
            pool.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    fail(e.toString());
                } finally {
                    if (pending.decrementAndGet() == 0) {
                        synchronized (done) {
                            done.notifyAll();
                        }
                    }
                }
            });
        }

        /** POSTs {@code file} to {@code collection} as {@code slug}, then its variants and children. */
        private void entry(String collection, String slug, Path file, Path children) {
            String body = read(file).replaceAll("<link\\b[^>]*/>", "");
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + collection))
                    .header("Authorization", authorization).header("Slug", slug)
                    .header("Content-Type", "application/atom+xml;type=entry")
                    .POST(HttpRequest.BodyPublishers.ofString(body)));
            if (r == null) return;
            if (r.statusCode() != 201) {
                fail("POST " + collection + " " + slug + ": " + r.statusCode() + " " + r.body());
                return;
            }
            entries.incrementAndGet();
            String location = URI.create(base).resolve(r.headers().firstValue("Location").orElseThrow()).getPath();
            String stem = location.substring(0, location.length() - ".atom".length());
            String name = file.getFileName().toString();
            String fileStem = name.substring(0, name.length() - ".atom".length());
            for (Path v : list(file.getParent())) {
                String vn = v.getFileName().toString();
                if (vn.startsWith(fileStem + ".") && !vn.endsWith(".atom") && Files.isRegularFile(v)) {
                    String ext = vn.substring(fileStem.length() + 1);
                    submit(() -> variant(stem + "." + ext, v));
                }
            }
            if (Files.isDirectory(children)) {
                for (Path c : list(children)) {
                    String cn = c.getFileName().toString();
                    if (cn.endsWith(".atom")) {
                        String child = cn.substring(0, cn.length() - ".atom".length());
                        submit(() -> entry(stem + "/", child, c, children.resolve(child)));
                    }
                }
            }
        }

        private void variant(String path, Path file) {
            String n = file.getFileName().toString();
            String type = n.endsWith(".svg") ? "image/svg+xml" : n.endsWith(".pdf") ? "application/pdf" : "application/xml";
            HttpResponse<String> r;
            try {
                r = send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", authorization)
                        .header("Content-Type", type).header("If-None-Match", "*")
                        .PUT(HttpRequest.BodyPublishers.ofFile(file)));
            } catch (java.io.FileNotFoundException e) {
                fail(e.toString());
                return;
            }
            if (r == null) return;
            if (r.statusCode() / 100 != 2) {
                fail("PUT " + path + ": " + r.statusCode() + " " + r.body());
                return;
            }
            variants.incrementAndGet();
        }

        private HttpResponse<String> send(HttpRequest.Builder b) {
            try {
                return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                fail(e.toString());
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        private void fail(String what) {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, what);
        }

        private static List<Path> list(Path dir) {
            try (Stream<Path> s = Files.list(dir)) {
                return s.sorted().toList();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private static String read(Path f) {
            try {
                return Files.readString(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
