package arno.perf.pages;

import arno.server.ArnoServer;
import arno.server.config.Config;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The server the page benchmarks run against: Arno in production mode over a
 * content folder, plus an empty servlet at /_perf/empty in the same Tomcat as
 * the baseline, and with {@code -Darno.static=DIR} the files of DIR at /_perf/static served by
 * Tomcat's default servlet. Writes the full-text URLs of every article to a file for the
 * load generator's feeder.
 *
 * <p>{@code PerfServer ROOT CONTENT PORT URLS-FILE}, or {@code PerfServer --list CONTENT}
 * to print the paths only.
 */
public final class PerfServer {
    public static void main(String[] args) throws IOException {
        if (args[0].equals("--list")) {
            // The full-text paths only, one per line, for the load generator's feeder.
            fullTextPaths(Path.of(args[1])).forEach(System.out::println);
            return;
        }
        Path root = Path.of(args[0]);
        Path content = Path.of(args[1]);
        int port = Integer.parseInt(args[2]);
        Path urls = Path.of(args[3]);
        arno.store.Store store = null;
        Path data = content.getParent();
        if (StoredContent.wanted()) {
            store = StoredContent.load(content, Files.createTempDirectory("arno-perf-store"));
            data = Files.createDirectories(Files.createTempDirectory("arno-perf-empty").resolve("content")).getParent();
            System.out.println("content served from the store");
        }
        Config config = config(root, data, port);
        ArnoServer server = ArnoServer.bind(config, store);
        // A cluster node's page path (issue 23): -Darno.cluster=URL. The copy is the store loaded
        // above, whose position (0) is the empty log's head, so its applier follows an idle log as
        // a node's does between writes; the node's read-your-writes filter stands before every page.
        String cluster = System.getProperty("arno.cluster");
        if (cluster != null) {
            if (store == null) throw new IllegalArgumentException("-Darno.cluster needs -Darno.store=true: a node serves from its copy");
            Config.Builder b = config.toBuilder();
            b.clusterDatabase = cluster;
            arno.server.ClusterNode node = arno.server.ClusterNode.connect(b.build().cluster(), "perf");
            arno.store.atom.AtomStore atom = arno.store.atom.AtomStore.open(store, arno.store.atom.AtomOptions.defaults(), node.writePath());
            server.filterEverything("read-your-writes", new arno.server.ops.ReadYourWrites(node, arno.server.ops.ReadYourWrites.WAIT));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                atom.close();
                node.close();
            }));
            System.out.println("a cluster node on " + cluster);
        }
        // Issue 14's cost of operating: /_arno/health and /_arno/metrics (every request timed) with -Darno.metrics=true.
        if (Boolean.getBoolean("arno.metrics")) {
            arno.server.ops.Operations.mount(server, config, store, null);
            System.out.println("metrics on");
        }
        server.mount("empty", "/_perf/empty", new Empty());
        // The static-file baseline of the page caches' figures: the same bytes from Tomcat's default servlet.
        String files = System.getProperty("arno.static");
        if (files != null) server.mountFiles("/_perf/static", Files.createDirectories(Path.of(files)));
        server.serve();
        if (!urls.toString().equals("/dev/null")) Files.write(urls, fullTextPaths(content));
        System.out.println("READY " + server.port());
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }

    /**
     * The production configuration of the page benchmarks: ROOT's sites over DATA/content, on
     * loopback; {@code -Darno.sourceCache=BYTES} and {@code -Darno.workers=N} override the defaults;
     * page caches are off unless {@code -Darno.pageCaches=true}, the access log unless
     * {@code -Darno.accessLog=FILE}, metrics unless {@code -Darno.metrics=true}.
     */
    static Config config(Path root, Path data, int port) {
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = data;
        b.production = true;
        b.port = port;
        b.sourceCache = Long.getLong("arno.sourceCache", b.sourceCache);
        b.workers = Integer.getInteger("arno.workers", b.workers);
        // Uncached unless asked: these figures are of pages built (the caches' own are issue 13's).
        b.pageCaches = Boolean.getBoolean("arno.pageCaches");
        // The access log (unbuffered, as ./arno serve writes it) with -Darno.accessLog=FILE.
        String accessLog = System.getProperty("arno.accessLog");
        if (accessLog != null) b.accessLog = Path.of(accessLog).toAbsolutePath();
        // Metrics need the store's figures only when it is there; off unless asked.
        b.metrics = Boolean.getBoolean("arno.metrics");
        return b.build();
    }

    /** An article's JATS variant in the store's layout: journals/J/vV/iI/aNNNN.xml. */
    private static final java.util.regex.Pattern ARTICLE = java.util.regex.Pattern.compile("a[0-9]+\\.xml");

    /**
     * /journal-a/v1/i2/a0003/full for every article of journal ja, and journal-b's for jb; in the
     * layout before the store's resource model (journals/J/vV/iI/aNNNN/article.xml, as b67ac48's
     * generator wrote it) too, so that one build's server can serve another's content.
     */
    public static List<String> fullTextPaths(Path content) throws IOException {
        List<String> paths = new ArrayList<>();
        try (Stream<Path> s = Files.walk(content.resolve("journals"))) {
            for (Path article : (Iterable<Path>) s.sorted()::iterator) {
                Path rel = content.resolve("journals").relativize(article);
                String name = article.getFileName().toString();
                String id;
                if (rel.getNameCount() == 4 && ARTICLE.matcher(name).matches()) {
                    id = name.substring(0, name.length() - 4);
                } else if (rel.getNameCount() == 5 && name.equals("article.xml")) {
                    id = rel.getName(3).toString();
                } else {
                    continue; // an entry, a folder, or a table's or figure's XML, which lies deeper
                }
                String site = rel.getName(0).toString().equals("ja") ? "/journal-a" : "/journal-b";
                paths.add(site + "/" + rel.getName(1) + "/" + rel.getName(2) + "/" + id + "/full");
            }
        }
        return paths;
    }

    static final class Empty extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            resp.setStatus(200);
            resp.setContentLength(0);
        }
    }
}
