package arno.server;

import arno.pipeline.ArnoConfig;
import arno.pipeline.SiteException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code ./arno} command line. Each command returns an exit status;
 * wrong usage prints what was wrong and the usage, and exits 2.
 */
public final class Main {
    static final String USAGE = """
            usage: ./arno COMMAND [OPTIONS]

              serve      start Arno serving the sites (http://localhost:8080/)
                           --port N        port to listen on (default 8080; 0 picks a free one)
                           --bind ADDR     address to listen on (default 127.0.0.1)
                           --sites DIR     folder of sites (default ./sites)
                           --data DIR      data folder: content, store, batch jobs (default ./data)
                           --production    no reloading, no error details, no /_debug routes
                           --workers N     pages built at once; other requests wait in arrival order (default 1 per core)
                           --queue N       requests that may wait; more get 503 Busy (default 1000)
                           --articles N    demo articles generated into an empty data folder (default 200)
                           --batch-root DIR  a folder batch jobs may read and write (repeatable; default: the data folder)
              generate   write demo content: --articles N --out DIR [--seed S]
              store      the persistent store: load PATH... [--prefix URI], export URI, check (store/README.md)
              query      XQuery 3.1 over the store: [--context URI] (EXPR | -f FILE)
              batch      the batch client: submit FILE [--wait], status JOB, report JOB [--html], ... (batch/README.md)
              help       show this text
            """;

    private Main() {}

    public static void main(String[] args) {
        // One line per log record, before any logger is created.
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %3$s: %5$s%6$s%n");
        System.exit(run(List.of(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || args.get(0).equals("help") || args.get(0).equals("--help")) {
            out.print(USAGE);
            return args.isEmpty() ? 2 : 0;
        }
        try {
            return switch (args.get(0)) {
                case "serve" -> serve(new Options(args.subList(1, args.size())), err);
                case "generate" -> arno.demo.Generator.run(args, out, err);
                case "batch" -> arno.batch.client.BatchClient.run(args, out, err);
                case "store", "query" -> arno.store.cli.StoreCli.run(args, out, err);
                default -> throw new UsageException("unknown command '" + args.get(0) + "'");
            };
        } catch (UsageException e) {
            err.println("arno: " + e.getMessage());
            err.print(USAGE);
            return 2;
        } catch (SiteException e) {
            err.println("arno: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("arno: " + e.getMessage());
            return 1;
        }
    }

    private static int serve(Options o, PrintStream err) throws IOException {
        Path root = Path.of(o.take("--root", System.getProperty("arno.home", "."))).toAbsolutePath().normalize();
        Path data = Path.of(o.take("--data", root.resolve("data").toString())).toAbsolutePath().normalize();
        Path sites = Path.of(o.take("--sites", root.resolve("sites").toString())).toAbsolutePath().normalize();
        int port = o.intValue("--port", 8080);
        int workers = o.intValue("--workers", arno.pipeline.ArnoServlet.DEFAULT_WORKERS);
        int queue = o.intValue("--queue", arno.pipeline.ArnoServlet.DEFAULT_QUEUE);
        String bind = o.take("--bind", "127.0.0.1");
        boolean production = o.flag("--production");
        int articles = o.intValue("--articles", 200);
        List<Path> batchRoots = new ArrayList<>();
        for (String r = o.take("--batch-root", null); r != null; r = o.take("--batch-root", null)) {
            batchRoots.add(Path.of(r).toAbsolutePath().normalize());
        }
        if (batchRoots.isEmpty()) batchRoots.add(data);
        o.done();
        if (!Files.isDirectory(sites)) throw new UsageException("sites folder " + sites + " does not exist");
        Path content = data.resolve("content");
        if (!Files.isDirectory(content.resolve("journals"))) {
            // A newcomer's first run: give the demo sites something to show.
            err.println("arno: no content in " + content + "; generating " + articles + " demo articles");
            Files.createDirectories(content);
            int status = arno.demo.Generator.run(List.of("generate", "--articles", Integer.toString(articles),
                    "--out", content.toString()), err, err);
            if (status != 0) return status;
        }
        ArnoConfig config = ArnoConfig.defaults(root, data).withSites(sites).withDevelopment(!production);
        // The store is optional until content is loaded into it (./arno store load); while the
        // server holds it, other processes cannot open it.
        Path storeDir = data.resolve("store");
        arno.store.Store store = Files.isDirectory(storeDir) ? arno.store.Store.open(storeDir) : null;
        ArnoServer server = ArnoServer.start(config, store, bind, port, workers, queue);
        arno.batch.BatchService batch = arno.batch.BatchService.start(
                arno.batch.BatchOptions.builder(data.resolve("batch")).roots(batchRoots).build());
        server.mount("batch", "/batch/*", batch.servlet());
        String account = production ? null : batch.createDevelopmentAccount();
        if (account != null) {
            err.println("arno: batch service account for this data folder: " + account
                    + " (kept in " + data.resolve("batch/users") + ")");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            err.println("arno: stopping");
            server.close();
            batch.close();
            if (store != null) store.close();
            stopped.countDown();
        }, "arno-shutdown"));
        err.println("arno: serving on http://" + (bind.equals("0.0.0.0") ? "localhost" : bind) + ":" + server.port()
                + "/  (Ctrl-C stops)");
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** Wrong arguments: reported with the usage text, exit status 2. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    /** "--name value" and "--flag" options; anything left over is an error. */
    static final class Options {
        private final List<String> args;

        Options(List<String> args) {
            this.args = new ArrayList<>(args);
        }

        String take(String name, String fallback) {
            int i = args.indexOf(name);
            if (i < 0) return fallback;
            if (i + 1 >= args.size()) throw new UsageException(name + " needs a value");
            String v = args.get(i + 1);
            args.remove(i + 1);
            args.remove(i);
            return v;
        }

        int intValue(String name, int fallback) {
            String v = take(name, null);
            if (v == null) return fallback;
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new UsageException(name + " needs a number, not '" + v + "'");
            }
        }

        boolean flag(String name) {
            return args.remove(name);
        }

        void done() {
            if (!args.isEmpty()) throw new UsageException("unexpected argument '" + args.get(0) + "'");
        }
    }
}
