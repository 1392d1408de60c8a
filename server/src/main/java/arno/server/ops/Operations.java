package arno.server.ops;

import arno.batch.BatchService;
import arno.http.Endpoint;
import arno.server.ArnoServer;
import arno.pipeline.RequestObserver;
import arno.server.config.Config;
import arno.server.console.Console;
import arno.store.Store;
import arno.xml.Accounts;
import java.io.PrintWriter;

/**
 * Puts the operating endpoints on a server ({@link Health} and the admin {@link Console} always,
 * {@link Metrics} unless the configuration turns them off) and applies the production rule for the write APIs
 * ({@link WriteGate}). What {@code ./arno serve} calls; the pieces stay package-private.
 */
public final class Operations {
    public static final String HEALTH = Health.PATH;
    public static final String METRICS = "/_arno/metrics";
    /** The command that opens the write APIs (with the server's data folder added by the caller). */
    static final String ADD_WRITER = "./arno accounts add NAME --roles read,write";

    private Operations() {}

    /**
     * Mounts {@code /_arno/health}, the admin console at {@code /_arno/} and, when {@link Config#metrics()}, {@code /_arno/metrics}, and
     * hooks the request timers into the server. {@code store} and {@code batch} may be null.
     * Returns what to close once the server has stopped.
     */
    public static AutoCloseable mount(ArnoServer server, Config config, Store store, BatchService batch) {
        return mount(server, config, store, batch, null);
    }

    /** As {@link #mount(ArnoServer, Config, Store, BatchService)}, for a cluster node ({@code cluster} null: a single node). */
    public static AutoCloseable mount(ArnoServer server, Config config, Store store, BatchService batch, Health.Cluster cluster) {
        server.mount("health", HEALTH, new Health(server.sites(), store, batch, cluster));
        // The batch service's accounts are its own to close; without it, these are ours.
        Accounts own = batch != null ? null : new Accounts(config.accounts());
        Accounts accounts = batch != null ? batch.accounts() : own;
        Console console = new Console(server, config, store, batch, accounts, cluster);
        server.mount("console", Console.PATH + "/*", console.endpoint());
        if (!config.metrics()) {
            server.observe(console.observer());
            return () -> {
                console.close();
                if (own != null) own.close();
            };
        }
        Metrics metrics = new Metrics(server, store, batch);
        server.mount("metrics", METRICS, MetricsServlet.endpoint(metrics, new Addresses(config.metricsAddresses()), accounts));
        RequestObserver m = metrics.observer();
        RequestObserver c = console.observer();
        server.observe((site, route, status, nanos) -> {
            m.done(site, route, status, nanos);
            c.done(site, route, status, nanos);
        });
        return () -> {
            console.close();
            metrics.close();
            if (own != null) own.close();
        };
    }

    /**
     * {@code api} as it must be mounted: in production behind a {@link WriteGate} (before its own
     * filters) that keeps its writes closed while no account may write; as it is otherwise
     * (development creates an account). {@code what} names the API in the refusal ("writing to the store").
     */
    public static Endpoint gateWrites(Endpoint api, Config config, Accounts accounts, String what) {
        return config.production() ? api.behind(new WriteGate(accounts, what)) : api;
    }

    /**
     * In production with no account that may write, says so on {@code err} with the exact command
     * that opens the write APIs; true if it did.
     */
    public static boolean warnIfWritesClosed(Config config, Accounts accounts, PrintWriter err) {
        if (!config.production() || accounts.anyWith(Accounts.Role.WRITE)) return false;
        err.println("arno: the write APIs (store writes, batch submissions) stay closed: no account in " + accounts.where()
                + " has the write role. Create one with:");
        err.println("arno:   " + addWriter(config));
        err.println("arno: (they open as soon as it exists; no restart needed)");
        err.flush();
        return true;
    }

    /** The exact command that creates an account with the write role for {@code config}'s data folder. */
    public static String addWriter(Config config) {
        String command = ADD_WRITER + " --data " + quoted(config.data().toString());
        // a cluster's accounts are in its database: the command names it
        return config.cluster() == null ? command : command + " --cluster " + quoted(config.cluster().database());
    }

    private static String quoted(String word) {
        return word.matches("[A-Za-z0-9_./:@%+=,-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
    }
}
