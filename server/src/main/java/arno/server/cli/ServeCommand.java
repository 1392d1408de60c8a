package arno.server.cli;

import arno.batch.BatchOptions;
import arno.server.ArnoServer;
import arno.server.Demo;
import arno.server.LocalCache;
import arno.server.LocalLoad;
import arno.server.Parts;
import arno.server.config.Config;
import arno.server.RunFile;
import arno.store.IndexConfig;
import arno.store.Snapshot;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import arno.server.store.IndexTasks;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.OwnerOnly;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno serve}: the sites and the batch service in one embedded Tomcat until Ctrl-C.
 *
 * <p>The order is the point. First the whole configuration (defaults, {@code --config} file,
 * flags) is built and checked, the folders it names are checked, and the port is tried; only then
 * is anything written or opened: demo content (development mode, an empty content folder, the
 * demo plugin on the class path), the store (when {@code DATA/store} exists), the sites, the
 * batch service. So every mistake a user can make ends before a file is created, in one line.
 * What was opened is closed again, in reverse order, when a later step fails or the server stops.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Start Arno: the sites on http://BIND:PORT/ and the batch service at /batch/, until Ctrl-C.",
                "In development mode (the default) a first run with no content generates demo articles."},
        footer = {"", "Examples:", "  ./arno serve",
                "  ./arno serve --config /etc/arno.xml --production --port 80 --bind 0.0.0.0 --batch-root /srv/batch"})
public final class ServeCommand implements Callable<Integer> {

    /** Demo articles for a newcomer's first run; enough to page through, quick to write. */
    static final int DEFAULT_ARTICLES = 200;

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOptions config;

    @Option(names = "--port", paramLabel = "N", description = "port to listen on (default 8080; 0 picks a free one)")
    Integer port;

    @Option(names = "--bind", paramLabel = "ADDR", description = "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    String bind;

    @Option(names = "--host", paramLabel = "NAME",
            description = "a host name the server answers as (repeatable); Location headers use the request's Host only if it is one")
    List<String> hosts;

    @Option(names = "--sites", paramLabel = "DIR", description = "folder of sites, one sub-folder with a site.xml each (default sites/ of the installation)")
    Path sites;

    @Option(names = "--production", description = "no reloading, no error details, no debug routes, no demo content")
    boolean production;

    @Option(names = "--workers", paramLabel = "N",
            description = "pages built at once (default one per core: a page is CPU work); other requests wait in arrival order")
    Integer workers;

    @Option(names = "--queue", paramLabel = "N", description = "requests that may wait for a worker; beyond it 503 Busy (default 1000)")
    Integer queue;

    @Option(names = "--batch-root", paramLabel = "DIR",
            description = "a folder batch jobs may read and write (repeatable; none by default, never the data folder)")
    List<Path> batchRoots;

    @Option(names = "--content-from", paramLabel = "store|files",
            description = "where the sites read content: the store (default; a first run loads the demo into it) or DATA/content's files")
    String contentFrom;

    @Option(names = "--page-caches", paramLabel = "on|off",
            description = "on (default): the routes whose site.xml says so cache their pages; off: every page is built afresh")
    String pageCaches;

    @Option(names = "--articles", paramLabel = "N",
            description = "demo articles generated on a first run in development mode, when DATA/content has none (default "
                    + DEFAULT_ARTICLES + ")")
    Integer articles;

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--cluster-batch-lease", paramLabel = "DURATION",
            description = "cluster mode: how long a node's claim of a batch job holds unrenewed, so how soon another node "
                    + "resumes the jobs of a node that died (default 30s; at least 2s)")
    String clusterBatchLease;

    /**
     * When set (by a test, through {@link arno.server.Main#run(String[], java.io.PrintStream,
     * java.io.PrintStream, picocli.CommandLine.IFactory)}), {@code serve} calls it with the port once
     * everything listens, instead of waiting for Ctrl-C, and then stops as Ctrl-C would.
     */
    private final IntConsumer whileServing;

    public ServeCommand() {
        this(null);
    }

    /**
     * A {@code serve} that runs {@code whileServing} instead of waiting for Ctrl-C (tests that
     * serve, in this module and in the demo's).
     */
    public ServeCommand(IntConsumer whileServing) {
        this.whileServing = whileServing;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Config c = configuration();
        // The configured level and log file from the first line on (opening the store, loading the demo).
        arno.server.config.Logging.apply(c.logLevel(), c.logFile());
        int demoArticles = articles == null ? DEFAULT_ARTICLES : articles;
        if (demoArticles < 1 || demoArticles > 1_000_000) {
            throw ErrorMessage.DEMO_ARTICLES.error(demoArticles);
        }
        checkFolders(c);
        BatchOptions batchOptions = Parts.batchOptions(c);
        checkPort(c);

        // Everything is checked; from here on things are written, opened and started.
        Parts.secureData(c);
        boolean fromStore = c.contentFrom() == Config.ContentFrom.STORE;
        demoContent(c, demoArticles, err);
        Serving serving = new Serving();
        CountDownLatch stopped = new CountDownLatch(1);
        Rebuilder rebuilder = null;
        try {
            serving.start(c, batchOptions, err, fromStore);
            err.println("arno: serving on http://" + (c.bind().equals("0.0.0.0") ? "localhost" : c.bind()) + ":"
                    + serving.server.port() + "/  (Ctrl-C stops)");
            err.flush();
            if (serving.parts.cluster() != null) rebuilder = new Rebuilder(serving, c, batchOptions, err);
            waitUntilStopped(serving.server.port(), stopped, err, whileServing);
            return 0;
        } finally {
            if (rebuilder != null) rebuilder.close();
            serving.stop(c, err);
            stopped.countDown();
        }
    }

    /** What serving holds open: the parts (store, cluster, batch), the server, the run file. */
    private final class Serving {
        volatile Parts parts;
        volatile ArnoServer server;
        volatile RunFile runFile;

        /** Opens the parts and serves; {@code port} 0: the configured one. Keeps the run file of an earlier start. */
        synchronized void start(Config c, BatchOptions batchOptions, PrintWriter err, boolean fromStore) {
            // The store is open first: the sites read it, batches read store: inputs from it and write store: outputs through it.
            parts = Parts.open(c, batchOptions, "");
            AtomStore atom = parts.atom();
            if (fromStore && parts.cluster() == null) {
                loadDemo(c, atom, null, err);
            } else if (fromStore && demoToLoad(c) != null) {
                // the first node to find the cluster empty loads the demo, its indexes included, through the log;
                // the others apply it
                try (arno.server.ClusterNode.Held lock = parts.cluster().demoLock()) {
                    parts.cluster().catchUp(java.time.Duration.ofMinutes(2));
                    loadDemo(c, atom, parts.cluster(), err);
                }
            }
            // Bound, answering nothing yet: every part is mounted before the first request is answered, so no
            // client (a load balancer's health check first) meets a server that is half there.
            server = ArnoServer.bind(c, parts.store());
            // The batch service, /store/, /batch/, /_arno/health and /_arno/metrics; in production the write APIs
            // stay closed until an account may write, in development an account is created.
            parts.mount(server, err);
            // Commands beside this server reach it through the run file: ./arno store load (LocalLoad) when it
            // holds the store, ./arno cache stats|clear (LocalCache) always.
            if (runFile == null) runFile = RunFile.create(localUrl(c, server.port()), atom != null);
            if (atom != null) server.mount("store-load", LocalLoad.PATH, new LocalLoad(atom, runFile.token(), new XmlPolicy(c.xmlLimits())));
            server.mount("cache", LocalCache.PATH, new LocalCache(server.sites(), runFile.token()));
            server.serve();
            runFile.write(c.data());
        }

        /** Closes the server and the parts, keeping the run file (a restart). */
        synchronized void close(PrintWriter err) {
            ServeCommand.stop(err, server, parts);
            server = null;
            parts = null;
        }

        /** The run file first (no new command finds us), the server (no new requests, the batch servlet included), then the parts. */
        synchronized void stop(Config c, PrintWriter err) {
            if (runFile != null) runFile.remove(c.data());
            close(err);
        }
    }

    /**
     * A cluster node whose copy cannot follow the log any more while it serves (the log pruned
     * past it, or a database restored or failed over to one that lacks commits it applied: state
     * {@code resync-needed}) rebuilds it by itself: it stops serving, opens its parts again, which
     * rebuilds the copy from the database before the store opens (as at any start), and serves
     * again on the same port. While it does, the port is closed, so a load balancer takes it out,
     * as it would a node that is not ready. Swapping a new copy under parts that hold the open
     * store would need every holder to let go of it; a restart inside the process is the same
     * path a node takes at start, already tested.
     */
    private final class Rebuilder implements AutoCloseable {
        private static final long EVERY_MS = 1_000;
        private final Thread thread;
        private volatile boolean closing;

        Rebuilder(Serving serving, Config c, BatchOptions batchOptions, PrintWriter err) {
            // the same port again, also when the configured one was 0 (tests)
            Config.Builder b = c.toBuilder();
            b.port = serving.server.port();
            Config again = b.build();
            thread = new Thread(() -> {
                while (!closing) {
                    try {
                        Thread.sleep(EVERY_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    synchronized (serving) {
                        if (closing) return;
                        // parts null: a rebuild before this one failed, and is tried again
                        if (serving.parts != null) {
                            if (!"resync-needed".equals(serving.parts.cluster().state())) continue;
                            err.println("arno: " + serving.parts.cluster().notReady() + "; rebuilding this node's copy now");
                            err.flush();
                            serving.close(err);
                        }
                        try {
                            serving.start(again, batchOptions, err, again.contentFrom() == Config.ContentFrom.STORE);
                            err.println("arno: the copy is rebuilt; serving again on port " + serving.server.port());
                        } catch (RuntimeException e) {
                            // the database out of reach, say: the next round tries again
                            serving.close(err);
                            err.println("arno: rebuilding this node's copy failed (" + e.getMessage() + "); trying again");
                        }
                        err.flush();
                    }
                }
            }, "arno-cluster-rebuilder");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            closing = true;
            thread.interrupt();
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Defaults, the file, then the flags; validated whole. */
    Config configuration() {
        Config.Builder b = config.builder();
        if (port != null) b.port = port;
        if (bind != null) b.bind = bind;
        if (hosts != null) b.hosts = new ArrayList<>(hosts);
        if (sites != null) b.sites = sites;
        if (production) b.production = true;
        if (workers != null) b.workers = workers;
        if (queue != null) b.queue = queue;
        if (batchRoots != null) b.batchRoots = new ArrayList<>(batchRoots);
        if (contentFrom != null) {
            try {
                b.contentFrom = Config.ContentFrom.valueOf(contentFrom.strip().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw ErrorMessage.CONTENT_FROM_OPTION.error(contentFrom);
            }
        }
        cluster.apply(b);
        if (clusterBatchLease != null) b.clusterBatchLease = Config.duration(clusterBatchLease, "--cluster-batch-lease");
        if (pageCaches != null) {
            switch (pageCaches.strip()) {
                case "on" -> b.pageCaches = true;
                case "off" -> b.pageCaches = false;
                default -> throw ErrorMessage.PAGE_CACHES_OPTION.error(pageCaches);
            }
        }
        return b.build();
    }

    private static void checkFolders(Config c) {
        Config.requireFolder(c.sites(), "sites folder (--sites)");
        for (Path root : c.batchRoots()) Config.requireFolder(root, "batch root (--batch-root)");
        if (Files.exists(c.data()) && !Files.isDirectory(c.data())) {
            throw ErrorMessage.DATA_NOT_FOLDER.error(c.data());
        }
        if (Files.exists(c.store()) && !Files.isDirectory(c.store())) {
            throw ErrorMessage.STORE_NOT_FOLDER.error(c.store());
        }
    }

    /**
     * Tries the address before anything is written, so a port in use is one line, not a demo
     * generated for nothing. The server binds again itself (and says so if it lost a race).
     */
    private static void checkPort(Config c) {
        if (c.port() == 0) return;
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(c.bind(), c.port()));
        } catch (IOException | SecurityException e) {
            throw ErrorMessage.PORT_TAKEN.error(e, c.bind(), c.port(), e.getMessage());
        }
    }

    /**
     * A newcomer's first run: the demo sites get something to show. Never in production. The demo
     * is generated as files into {@code DATA/content} (laid out as the store is), which the sites
     * read when content comes from files, and which {@link #loadDemo} loads into an empty store.
     */
    private static void demoContent(Config c, int articles, PrintWriter err) {
        if (c.production()) return;
        if (c.contentFrom() == Config.ContentFrom.STORE && Files.isDirectory(c.store())) return;
        Demo demo = Demo.find().orElse(null);
        if (demo == null) {
            if (!Files.isDirectory(c.content())) {
                err.println("arno: no content in " + c.content() + ", and no demo content: " + Demo.MISSING);
            }
            return;
        }
        if (demo.hasContent(c.content())) return;
        err.println("arno: no content in " + c.content() + "; generating " + articles + " demo articles");
        err.flush();
        try {
            OwnerOnly.folder(c.content());
            int step = Math.max(articles / 10, 1);
            demo.generate(c.content(), articles, 1, n -> {
                if (articles >= 200 && (n % step == 0 || n == articles)) {
                    err.println("arno: generated " + n + "/" + articles + " articles");
                    err.flush();
                }
            });
        } catch (IOException | java.io.UncheckedIOException e) {
            throw ErrorMessage.DEMO_NOT_WRITTEN.error(e, c.content(), e.getMessage());
        }
    }

    /**
     * Loads the demo content into a store that has no entries yet, through the same write path as
     * the store API (every entry checked against its introspection, links managed), with a
     * progress line every tenth. The demo's value indexes first, so entries are indexed as they
     * load: a single node installs them in its store; a cluster node ({@code cluster} not null)
     * writes them once through the cluster's log, and every node's store builds them as it
     * applies the log, a node joining later as it rebuilds its copy from the database.
     */
    private static void loadDemo(Config c, AtomStore atom, arno.server.ClusterNode cluster, PrintWriter err) {
        if (demoToLoad(c) == null) return;
        try (Snapshot s = atom.store().read()) {
            for (String child : s.children("/")) {
                if (!child.startsWith("_")) return; // the store has content of its own
            }
        }
        err.println("arno: loading " + c.content() + " into the store " + c.store());
        err.flush();
        XmlPolicy policy = new XmlPolicy(c.xmlLimits());
        if (cluster == null) {
            IndexTasks.addResource(atom.store(), DEMO_INDEXES, policy, err);
        } else {
            IndexConfig indexes = IndexTasks.resource(DEMO_INDEXES, policy);
            if (indexes != null) {
                long at = cluster.writeOnce(IndexConfig.URI, IndexConfig.EMPTY.with(indexes).toXml());
                err.printf(java.util.Locale.ROOT, "arno: %d index(es) configured: %s; written through the cluster's log"
                        + " (position %d), each node builds them as it applies it%n", indexes.indexes().size(),
                        IndexTasks.names(indexes), at);
                err.flush();
            }
        }
        // The demo's full-text configuration, through the write path (a cluster's log): each node's index builds itself from it.
        atom.putConfiguration(arno.fulltext.FulltextConfig.URI, arno.fulltext.FulltextConfig.defaultXml());
        long t0 = System.nanoTime();
        long[] shown = {0};
        TreeLoader.Result r = TreeLoader.load(atom, c.content(), "arno", (done, total) -> {
            long tenth = Math.max(total / 10, 1);
            if (done >= 1000 && done / tenth > shown[0]) {
                shown[0] = done / tenth;
                err.println("arno: loaded " + done + "/" + total);
                err.flush();
            }
        });
        err.printf(java.util.Locale.ROOT, "arno: loaded %d entries and %d variants in %.1f s (store version %d)%n",
                r.entries(), r.variants(), (System.nanoTime() - t0) / 1e9, r.version());
        err.flush();
    }

    private static final String DEMO_INDEXES = "/arno/demo/indexes.xml";

    /** The demo, when a development run has its content to load into the store; else null. */
    private static Demo demoToLoad(Config c) {
        Demo demo = Demo.find().orElse(null);
        return c.production() || demo == null || !demo.hasContent(c.content()) ? null : demo;
    }

    /** How a command on this machine reaches the server: loopback unless it listens on one address only. */
    private static URI localUrl(Config c, int port) {
        String host = c.bind();
        try {
            InetAddress a = InetAddress.getByName(host);
            if (a.isAnyLocalAddress() || a.isLoopbackAddress()) host = "127.0.0.1";
            else if (a instanceof java.net.Inet6Address) host = "[" + a.getHostAddress() + "]";
        } catch (java.net.UnknownHostException e) {
            // the server listens on it, so it resolves; keep the name if not
        }
        return URI.create("http://" + host + ":" + port);
    }

    /** The store service's options ({@link Parts#atomOptions}), for the store commands. */
    static AtomOptions atomOptions(Config c) {
        return Parts.atomOptions(c);
    }


    /**
     * Returns when Ctrl-C (the JVM's shutdown hook) asks to stop or, in tests, when
     * {@link #whileServing} returns. The hook then waits for {@code stopped}, which the serving
     * thread counts down once it has closed everything, so the JVM does not end mid-close.
     */
    private static void waitUntilStopped(int port, CountDownLatch stopped, PrintWriter err, IntConsumer whileServing) {
        if (whileServing != null) {
            whileServing.accept(port);
            return;
        }
        CountDownLatch stopping = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            err.println("arno: stopping");
            err.flush();
            stopping.countDown();
            try {
                stopped.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "arno-shutdown"));
        try {
            stopping.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes what was opened (nulls were not), each even if one before it fails; a failure is one line. */
    private static void stop(PrintWriter err, AutoCloseable... open) {
        for (AutoCloseable o : open) {
            if (o == null) continue;
            try {
                o.close();
            } catch (Exception e) {
                err.println("arno: stopping " + o.getClass().getSimpleName() + " failed: " + e.getMessage());
            }
        }
        err.flush();
    }
}
