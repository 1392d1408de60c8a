package arno.pipeline;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import net.sf.saxon.lib.Logger;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Message;

/**
 * One request's immutable world. Every document a pipeline reads through
 * doc(), document() or collection() is fetched once and kept here, so the same
 * URI gives the same tree in every stage (XSLT's rule that doc() is stable,
 * stretched over the whole pipeline). The scope also carries the request's
 * deadline, checked cooperatively by the stages' event streams.
 *
 * <p>How Saxon's callbacks reach it: as s9api passes resolvers per run, each stage's
 * transformer or query evaluator is given this scope's {@link #resolver()} (documents,
 * collections, text), its messages, trace and warnings; the store and cache functions find the
 * scope through the resolver of the run they are called from ({@link Resources#scope}). Nothing
 * is kept per thread. Thread rules: a scope belongs to the one thread that runs its pipeline
 * (the store view's read transaction is that thread's).
 */
public final class RequestScope implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");

    final String id;
    final String route;
    private final long deadlineNanos;
    final long timeoutMillis;
    private final Map<String, TreeInfo> documents = new HashMap<>();
    /** What reading each kept document recorded, to record again when a fragment's build reuses it. */
    private Map<String, java.util.List<arno.cache.Dependencies.Dependency>> documentReads;
    /** Index of the stage that most recently started; a failure belongs to it. */
    int stage = -1;
    String stageName = "";
    volatile boolean expired;
    private DeadlineTreeModel treeModel;
    /** The request's one view of the store, opened at its first use. */
    private arno.xml.DocumentStore.View view;
    /** What every stage of this request reads through. */
    private final Resources.Run resolver;

    final Resources resources;
    /**
     * What this request reads, recorded for the page cache and the fragments it builds; null when
     * nothing is recorded (the caches are off, or the request is not a site's).
     */
    final Reads reads;
    /** The site's context caches (external sources, fragments), or null when the caches are off. */
    final ContextCache context;
    /** The fingerprint of the code the sites were compiled from: cached fragments record it. */
    final String code;
    /**
     * Whether the stages' input documents are seen through a {@link WatchedRequest}, recording
     * into {@link #reads} which parts of the HTTP request the page read: when the page is built
     * for the page cache, whose key they become.
     */
    final boolean watch;

    RequestScope(String id, String route, long timeoutMillis, Resources resources) {
        this(id, route, timeoutMillis, resources, null, null, "", false);
    }

    RequestScope(String id, String route, long timeoutMillis, Resources resources, Reads reads, ContextCache context,
                 String code, boolean watch) {
        this.id = id;
        this.resources = resources;
        this.reads = reads;
        this.context = context;
        this.code = code;
        this.watch = watch && reads != null;
        this.route = route;
        this.timeoutMillis = timeoutMillis;
        this.deadlineNanos = System.nanoTime() + timeoutMillis * 1_000_000L;
        this.resolver = new Resources.Run(resources, this);
    }

    /** The resolvers of this request's runs: documents, collections and text through its scope. */
    Resources.Run resolver() {
        return resolver;
    }

    public String id() {
        return id;
    }

    /** The name of the route whose pipeline runs (or "error" for an error page). */
    public String route() {
        return route;
    }

    /** Where site content is: in the store, a file under the content folder, or nowhere. */
    public enum Content { STORE, FILE, NONE }

    /**
     * Where the content at {@code path} ("/journals/ja.atom", as in a {@code content:} URI)
     * is for this request: the store's view of this request first (content loaded into the store
     * wins, as it does for {@code content:} URIs), then the content folder. A path that leaves the
     * content folder is {@link Content#NONE}. Reads nothing but existence.
     */
    public Content locate(String path) {
        return resources.locate(this, path);
    }

    /**
     * The view of the store this request reads, or null if it has not read the store (no store, or
     * nothing stored asked for yet: {@link #locate} and every {@code store:} or stored
     * {@code content:} read open it). A Java stage that found content in the store with
     * {@link #locate} reads it here, from the same version as every other stage. Valid until the
     * request ends; do not close it.
     */
    public arno.xml.DocumentStore.View storeView() {
        return view;
    }

    /**
     * Says that this request's page must not be cached, whatever its route's cache policy: for a
     * Java stage whose answer depends on something the page cache cannot see (the time, a random
     * choice, a request header the route does not vary on). A pipeline can say the same with a
     * {@code Cache-Control: no-store} or {@code private} response header.
     */
    public void uncacheable(String why) {
        if (reads != null) reads.uncacheable(why);
    }

    /**
     * The document this request has read at {@code uri} already, or null. When a fragment is
     * being built, what reading it recorded is recorded again, so the fragment depends on it too.
     */
    TreeInfo document(String uri) {
        TreeInfo tree = documents.get(uri);
        if (tree != null && reads != null && reads.framing() && documentReads != null) {
            java.util.List<arno.cache.Dependencies.Dependency> deps = documentReads.get(uri);
            if (deps != null) reads.addAll(deps);
        }
        return tree;
    }

    /** Keeps the document read at {@code uri}, with what reading it recorded (null when nothing is recorded). */
    void keep(String uri, TreeInfo tree, Reads.Frame read) {
        documents.put(uri, tree);
        if (read != null) {
            if (documentReads == null) documentReads = new HashMap<>();
            documentReads.put(uri, read.dependencies());
        }
    }

    /** Where xsl:message goes: the log, with the request id, route and stylesheet location. */
    Consumer<Message> messages() {
        return m -> LOG.log(m.isTerminate() ? System.Logger.Level.ERROR : System.Logger.Level.INFO,
                "[" + id + "] xsl:message route=" + route + located(arno.xml.Where.of(m.getLocation(), null), " ", "")
                        + ": " + m.getStringValue());
    }

    /** Where a stage's run-time warnings and recoverable errors go: the log, with this request's id. */
    net.sf.saxon.lib.ErrorReporter warnings() {
        return e -> warning(this, e);
    }

    /** Logs a warning or recoverable error of Saxon's, with the request's id when it is known ({@code scope} not null). */
    static void warning(RequestScope scope, net.sf.saxon.s9api.XmlProcessingError e) {
        net.sf.saxon.s9api.Location at = e.getLocation();
        LOG.log(e.isWarning() ? System.Logger.Level.WARNING : System.Logger.Level.ERROR,
                (scope != null ? "[" + scope.id + "] route=" + scope.route + " " : "")
                        + located(arno.xml.Where.of(at, null), "", ": ") + e.getMessage());
    }

    /** {@code where} between {@code before} and {@code after}, or nothing when the place is unknown. */
    private static String located(arno.xml.Where where, String before, String after) {
        String w = where.toString();
        return w.isEmpty() ? "" : before + w + after;
    }

    /** Where fn:trace() goes, from XSLT and XQuery alike: the log, with the request id and route. */
    Logger trace() {
        return new Logger() {
            @Override
            public void println(String message, int severity) {
                LOG.log(severity >= Logger.ERROR ? System.Logger.Level.ERROR : System.Logger.Level.INFO,
                        "[" + id + "] trace route=" + route + ": " + message);
            }
        };
    }

    DeadlineTreeModel treeModel() {
        if (treeModel == null) treeModel = new DeadlineTreeModel(this);
        return treeModel;
    }

    /** Throws once the request has run past its time limit. Cheap enough to call often. */
    void checkDeadline() throws TimeLimitExceeded {
        if (expired || System.nanoTime() - deadlineNanos > 0) {
            expired = true;
            throw new TimeLimitExceeded();
        }
    }

    /**
     * The store as this request sees it: every store document a request reads
     * comes from this one view, so all its stages see one version of the
     * whole store however many writers commit meanwhile. Opened on first use
     * (requests that never read the store pay nothing) and closed with the scope.
     */
    arno.xml.DocumentStore.View view(arno.xml.DocumentStore store) {
        if (view == null) view = reads == null ? store.read() : new RecordingView(store.read(), reads);
        return view;
    }

    @Override
    public void close() {
        if (view != null) {
            // LMDB read transactions belong to the thread that opened them: this one.
            view.close();
            view = null;
        }
    }

    /** Unchecked so it can cross Saxon's callbacks; translated to {@link arno.xml.ErrorCode#TIMEOUT}. */
    static final class TimeLimitExceeded extends RuntimeException {
        TimeLimitExceeded() {
            super("time limit exceeded", null, false, false);
        }
    }
}
