package arno.server.ops;

import arno.batch.BatchService;
import arno.pipeline.SiteRegistry;
import arno.store.Snapshot;
import arno.store.Store;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code GET /_arno/health}: whether the server is live (it answers at all) and ready (every part
 * it was started with works), as JSON, with 200 when ready and 503 when not, for load balancers
 * and orchestrators:
 *
 * <pre>
 * {"live":true,"ready":true,
 *  "store":{"used":true,"open":true,"version":4711},
 *  "sites":{"compiled":true,"names":["demo","journal"]},
 *  "batch":{"running":true}}
 * </pre>
 *
 * <p>In cluster mode a fourth part, {@code "cluster":{"position":N,"head":H,"caughtUp":B,"state":S,
 * "lag":{"positions":L,"ms":M},"nodes":K,"nodesReady":R}}: the position of the log the node's copy
 * has applied, the log's head as the node last read it, whether it has reached the head as it was
 * when it started, its state ({@code ready}, or {@code starting}, {@code resynchronising},
 * {@code resync-needed}, {@code lagging} beyond {@code <cluster max-lag-positions max-lag>}), its
 * lag, and how many nodes are registered and ready. Ready only in state {@code ready}: not while
 * it starts, rebuilds its copy or lags (it would serve an old copy). The database unreachable does
 * not make it unready: it serves reads from its copy.
 *
 * <p>The parts: the store is open and a snapshot can be read (when the sites read content from
 * it; {@code "used":false} otherwise, and it does not count); the sites are compiled (in
 * development an edit that broke one makes the server unready until it is fixed); the batch
 * service takes jobs. No credentials are needed, so it says nothing more: no paths, no messages,
 * no versions of software. Each check is cheap (a read transaction, a volatile read), so it may
 * be polled every second.
 *
 * <p>It answers only once every part is there: {@code ./arno serve} mounts them all (this, the
 * store API, the metrics, the console, batch) before its port answers anything
 * ({@code ArnoServer.bind}, then {@code serve}), and a container initialises the WAR's context
 * whole before routing to it; so a ready from here means the other paths answer too.
 */
public final class Health extends HttpServlet {
    public static final String PATH = "/_arno/health";

    private final transient SiteRegistry sites;
    private final transient Store store;
    private final transient BatchService batch;
    private final transient Cluster cluster;

    /** A cluster node's progress through the log. */
    public interface Cluster {
        /** The position the node's copy has applied. */
        long position();

        /** The log's head when the node started. */
        long headAtStart();

        /** Whether the node has applied {@link #headAtStart()} (and needs no resynchronisation). */
        boolean caughtUp();

        /**
         * The node's state in one word: {@code ready}, or why it is not: {@code starting} (its copy
         * not yet at the head it found), {@code resynchronising}, {@code resync-needed}, {@code lagging}
         * (beyond the configured bounds). The details, which name folders, are for the console and the log.
         */
        default String state() {
            return caughtUp() ? "ready" : "starting";
        }

        /** Why the node is not ready, in a sentence (for the console: it may name folders); null when ready. */
        default String notReady() {
            return state().equals("ready") ? null : state();
        }

        /** The log's head as the node last read it. */
        default long head() {
            return position();
        }

        /** How long the oldest commit this node has not applied has been waiting, in ms (0: none). */
        default long lagMillis() {
            return 0;
        }

        /** Every node registered in the cluster's database, as this node last read them. */
        default List<NodeRow> nodes() {
            return List.of();
        }
    }

    /**
     * One node of the cluster as {@code arno.nodes} holds it: its position, how far behind the
     * head that is, when it last applied a commit and last beat its heart (null: never).
     */
    public record NodeRow(String id, String address, long position, long lag, java.time.Instant lastApply,
                          java.time.Instant heartbeat, boolean ready, String state) {
    }

    /** {@code store} and {@code batch} may be null: the server runs without them. */
    public Health(SiteRegistry sites, Store store, BatchService batch) {
        this(sites, store, batch, null);
    }

    /** As {@link #Health(SiteRegistry, Store, BatchService)}, for a cluster node ({@code cluster} null: a single node). */
    public Health(SiteRegistry sites, Store store, BatchService batch, Cluster cluster) {
        this.sites = sites;
        this.store = store;
        this.batch = batch;
        this.cluster = cluster;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setHeader("Cache-Control", "no-store");
        String method = req.getMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            resp.setHeader("Allow", "GET, HEAD");
            resp.sendError(405);
            return;
        }
        StringBuilder json = new StringBuilder(160);
        boolean ready = true;

        json.append("\"store\":{");
        if (store == null) {
            json.append("\"used\":false");
        } else {
            long version = -1;
            try (Snapshot s = store.isOpen() ? store.read() : null) {
                if (s != null) version = s.version();
            } catch (RuntimeException e) {
                version = -1; // closed under us, or LMDB refused a reader
            }
            ready &= version >= 0;
            json.append("\"used\":true,\"open\":").append(version >= 0);
            if (version >= 0) json.append(",\"version\":").append(version);
        }
        json.append("},\"sites\":{");
        List<String> names = null;
        try {
            names = sites.current().names();
        } catch (RuntimeException e) {
            // a broken site in development: not ready until it compiles; the log says why
        }
        ready &= names != null;
        json.append("\"compiled\":").append(names != null);
        if (names != null) {
            json.append(",\"names\":[");
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) json.append(',');
                string(json, names.get(i));
            }
            json.append(']');
        }
        json.append("},\"batch\":{");
        if (batch == null) {
            json.append("\"used\":false");
        } else {
            boolean running = batch.figures().open();
            ready &= running;
            json.append("\"running\":").append(running);
        }
        json.append('}');
        if (cluster != null) {
            boolean caughtUp = cluster.caughtUp();
            String state = cluster.state();
            ready &= caughtUp && state.equals("ready");
            long position = cluster.position();
            long head = Math.max(position, cluster.head());
            json.append(",\"cluster\":{\"position\":").append(position).append(",\"head\":").append(head)
                    .append(",\"caughtUp\":").append(caughtUp).append(",\"state\":");
            string(json, state);
            json.append(",\"lag\":{\"positions\":").append(head - position).append(",\"ms\":").append(cluster.lagMillis())
                    .append('}');
            // the other nodes by number only: this answer is public (the console, for admins, lists them)
            List<NodeRow> nodes = cluster.nodes();
            json.append(",\"nodes\":").append(nodes.size()).append(",\"nodesReady\":")
                    .append(nodes.stream().filter(NodeRow::ready).count()).append('}');
        }

        byte[] body = ("{\"live\":true,\"ready\":" + ready + "," + json + "}\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(ready ? 200 : 503);
        resp.setContentType("application/json");
        resp.setContentLength(body.length);
        if (method.equals("HEAD")) return;
        try (OutputStream o = resp.getOutputStream()) {
            o.write(body);
        }
    }

    /** A JSON string literal. */
    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }
}
