package arno.server;

import arno.batch.BatchOptions;
import arno.batch.BatchService;
import arno.server.config.Config;
import arno.server.ops.Operations;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.http.StoreServlet;
import arno.xml.Accounts;
import arno.xml.OwnerOnly;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What serves beside the sites, from the one configuration, for {@code ./arno serve} and the WAR
 * alike: the store ({@code DATA/store}, when the sites read their content from it) with its API at
 * {@code /store/}, the batch service at {@code /batch/}, {@code /_arno/health} and
 * {@code /_arno/metrics} ({@link Operations}), one accounts file for all of them, and the
 * production rule that keeps the write APIs closed until an account may write.
 *
 * <p>Two steps, because the sites sit between them: {@link #open} opens the store (the sites are
 * compiled against it, and a first run may load content into it); {@link #mount} starts the batch
 * service and mounts everything onto an {@link ArnoServer} that does not answer yet: embedded,
 * between {@link ArnoServer#bind} and {@link ArnoServer#serve}; hosted, while the container
 * initialises the context.
 * {@link #close} closes in the reverse order, after the server has stopped serving.
 */
public final class Parts implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");
    /** Where the store API is mounted. */
    public static final String STORE_MOUNT = "/store";

    private final Config config;
    private final BatchOptions batchOptions;
    private final Store store;
    private final AtomStore atom;
    private final ClusterNode cluster;
    /** The store's full-text index, beside it ({@code DATA/fulltext}), following its change feed; null without a store. */
    private final arno.fulltext.FulltextIndex fulltext;
    private BatchService batch;
    private AutoCloseable operations;

    private Parts(Config config, BatchOptions batchOptions, Store store, AtomStore atom, ClusterNode cluster) {
        this.config = config;
        this.batchOptions = batchOptions;
        this.store = store;
        this.atom = atom;
        this.cluster = cluster;
        // Built (or resumed) in the background while the server serves; searches say when it is not ready.
        this.fulltext = store == null ? null
                : arno.fulltext.FulltextIndex.open(store, config.data().resolve("fulltext"), arno.fulltext.FulltextIndex.Options.defaults());
    }

    /**
     * Opens the store when the sites read content from it (created if there is none); nothing is
     * opened when they read files. {@code batchOptions} is {@link #batchOptions(Config)}, made by the
     * caller before anything was opened (it checks the batch roots).
     */
    public static Parts open(Config config, BatchOptions batchOptions) {
        return open(config, batchOptions, "");
    }

    /**
     * As {@link #open(Config, BatchOptions)}, for a server whose servlets are under
     * {@code contextPath} ("" or e.g. "/arno", a WAR's): the store API shows hrefs under
     * {@code contextPath/store}, so those are what clients post back. In cluster mode
     * ({@link Config#cluster()}) the node connects to the cluster's database first (migrating its
     * schema), rebuilds a copy that cannot follow the log, and opens the store service with the
     * cluster's write path, which starts the node's applier on its own copy: the copy holds
     * nothing but what the log brought it.
     */
    public static Parts open(Config config, BatchOptions batchOptions, String contextPath) {
        if (config.contentFrom() != Config.ContentFrom.STORE) return new Parts(config, batchOptions, null, null, null);
        ClusterNode cluster = config.cluster() == null ? null : ClusterNode.connect(config.cluster(), nodeName(config));
        Store store = null;
        try {
            // a copy that cannot follow the log (new, wiped, too old, ahead of the database) is rebuilt first
            StoreOptions options = storeOptions(config);
            if (cluster != null) {
                // a node's copy is written without a flush per commit (arno.cluster.UnsyncedCopy says why and how it is safe)
                options = options.noSync(arno.cluster.UnsyncedCopy.supported());
                cluster.prepareCopy(config.store(), options);
                if (options.noSync()) arno.cluster.UnsyncedCopy.opening(config.store());
            }
            store = Store.open(config.store(), options);
            AtomStore atom = cluster == null ? AtomStore.open(store, atomOptions(config, contextPath))
                    : AtomStore.open(store, atomOptions(config, contextPath), cluster.writePath());
            return new Parts(config, batchOptions, store, atom, cluster);
        } catch (RuntimeException e) {
            if (store != null) store.close();
            if (cluster != null) cluster.close();
            throw e;
        }
    }

    /** The host peers and the console reach this node at: its bind address, or its host name when it binds every address. */
    private static String nodeHost(Config config) {
        if (!config.bind().equals("0.0.0.0") && !config.bind().equals("::")) return config.bind();
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    /** How this node names itself in the cluster's log: its host and data folder. */
    private static String nodeName(Config config) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = "localhost";
        }
        return host + ":" + config.data();
    }

    /** This node's part of the cluster, or null for a single node. */
    public ClusterNode cluster() {
        return cluster;
    }

    /** The store, or null when the sites read files. */
    public Store store() {
        return store;
    }

    /** The store's full-text index, or null when the sites read files. */
    public arno.fulltext.FulltextIndex fulltext() {
        return fulltext;
    }

    /** The store service over {@link #store()}, or null. */
    public AtomStore atom() {
        return atom;
    }

    /** The batch service once {@link #mount}ed, else null. */
    public BatchService batch() {
        return batch;
    }

    /**
     * Starts the batch service (reading and writing {@code store:} through the store service) and
     * mounts onto {@code server}: health and metrics, {@code /batch/}, {@code /store/}; the write
     * APIs behind the production gate. Then says on {@code err} what an operator must know: in
     * production with no account that may write, the command that opens the write APIs; in
     * development, the account created for this data folder.
     */
    public void mount(ArnoServer server, PrintWriter err) {
        // Page work first: batch workers give way while pages wait for the server's workers.
        // In a cluster the accounts are the database's, shared by every node (this node's file
        // imported once into none), and jobs and reports are kept there too, each job run by one node.
        batch = BatchService.start((atom == null ? batchOptions : batchOptions.withStore(atom))
                .withPagePressure(server::pagesWaiting),
                cluster == null ? null : new Accounts(cluster.accounts(config.accounts())),
                cluster == null ? null : cluster.batchJobs(config.cluster().batchLease()));
        operations = Operations.mount(server, config, store, batch, cluster);
        if (cluster != null) {
            // read-your-writes: a request naming a position waits for this node to hold it
            server.filterEverything("read-your-writes", new arno.server.ops.ReadYourWrites(cluster, cluster.readYourWritesWait()));
            cluster.serving("http://" + nodeHost(config) + ":" + server.port());
        }
        server.mount("batch", "/batch/*", Operations.gateWrites(batch.endpoint(), config, batch.accounts(),
                "submitting and cancelling batch jobs"));
        if (atom != null) {
            // One accounts file for every service: writing to the store needs the write role.
            server.mount("store", STORE_MOUNT + "/*", Operations.gateWrites(new StoreServlet(atom, batch.accounts(),
                    config.storeReads() == Config.StoreReads.PUBLIC ? StoreServlet.ReadPolicy.PUBLIC : StoreServlet.ReadPolicy.ACCOUNTS,
                    config.bodyLimit(), config.storeDeletes()).endpoint(), config, batch.accounts(), "writing to the store"));
        }
        Operations.warnIfWritesClosed(config, batch.accounts(), err);
        if (!config.production()) {
            String account = batch.createDevelopmentAccount();
            if (account != null && cluster == null) {
                err.println("arno: batch service account for this data folder: " + account
                        + " (kept in " + config.batchData().resolve("users") + ")");
            } else if (account != null) {
                err.println("arno: batch service account for this cluster: " + account + " (kept in " + batch.accounts().where()
                        + ", for every node)");
            } else if (cluster != null && batch.accounts().list().stream().anyMatch(l -> l.name().equals("arno"))) {
                // its password is only a hash in the database: the node that created it printed it
                err.println("arno: batch service account for this cluster: arno, created by the node that found no accounts, "
                        + "which printed its password (./arno accounts passwd arno --cluster URL sets a new one)");
            }
            err.flush();
        }
    }

    /**
     * Closes the operating parts, the batch service, the store service, the store and the cluster's pool, each even if
     * one before it fails; the first failure is thrown with the others suppressed.
     */
    @Override
    public void close() throws Exception {
        Exception first = null;
        List<AutoCloseable> open = new ArrayList<>();
        // the store service closes the cluster's write path and its applier, before the store and the pool
        for (AutoCloseable o : new AutoCloseable[] {operations, batch, atom, fulltext, store, cluster}) {
            if (o != null) open.add(o);
        }
        for (AutoCloseable o : open) {
            try {
                o.close();
                // closed cleanly, a node's copy is flushed: nothing to distrust after a reboot
                if (o == store && cluster != null) arno.cluster.UnsyncedCopy.closed(config.store());
            } catch (Exception e) {
                if (first == null) first = e;
                else first.addSuppressed(e);
            }
        }
        if (first != null) throw first;
    }

    /**
     * Makes the data folder owner-only before anything is written into it: created {@code rwx------}
     * when it is new; when it exists, the folders that hold what is not public (the store, batch jobs
     * and accounts, the page caches) lose every permission of the group and others, which an older
     * Arno created them with under umask 022, and the log says which. The data folder itself and
     * {@code content} are left as they are: the operator's, possibly shared with editors on purpose.
     * What Arno creates inside is owner-only from then on ({@link OwnerOnly}).
     */
    public static void secureData(Config config) {
        Path data = config.data();
        try {
            if (!Files.isDirectory(data)) {
                OwnerOnly.folder(data);
                return;
            }
            List<String> tightened = new ArrayList<>();
            for (Path p : List.of(config.store(), config.batchData(), config.cache())) {
                if (Files.isDirectory(p) && OwnerOnly.restrict(p)) tightened.add(data.relativize(p).toString());
            }
            if (!tightened.isEmpty()) {
                LOG.log(System.Logger.Level.INFO, String.join(", ", tightened) + " in " + data
                        + " could be read by other users of this machine; now only by this one");
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot make " + data + " readable by its owner only (" + e.getMessage()
                    + "); other users of this machine may read it");
        }
    }

    /** The store's options from the configuration: map size, XML limits, change retention. */
    public static StoreOptions storeOptions(Config config) {
        return StoreOptions.defaults().mapSize(config.storeMapSize()).xmlPolicy(new XmlPolicy(config.xmlLimits()))
                .changeRetention(config.changeRetention());
    }

    /**
     * The store service's options for {@code ./arno serve} and the store commands: hrefs posted
     * back with the API's mount are stored as store paths; a {@code Location} is absolute for the
     * hosts the server answers as ({@code --host}). The API takes request bodies up to
     * {@code pages/@body-limit} (its servlet's limit); the service itself, which also stores
     * loaded files and batch outputs, takes that much or its own default, whichever is larger.
     */
    public static AtomOptions atomOptions(Config config) {
        return atomOptions(config, "");
    }

    private static AtomOptions atomOptions(Config config, String contextPath) {
        return AtomOptions.defaults().hrefPrefix(contextPath + STORE_MOUNT).hosts(config.hosts())
                .maxBodyBytes(Math.max(AtomOptions.DEFAULT_MAX_BODY_BYTES, config.bodyLimit()));
    }

    /** The batch service's options, from the one configuration: its roots (never the data folder), limits and policies. */
    public static BatchOptions batchOptions(Config c) {
        return BatchOptions.builder(c.batchData()).roots(c.batchRoots()).workers(c.batchWorkers())
                .queueBound(c.batchQueue()).xmlPolicy(new XmlPolicy(c.xmlLimits())).outbound(c.outbound())
                .hosts(c.hosts()).timeLimit(c.batchTimeLimit()).minShare(c.batchMinShare()).build();
    }
}
