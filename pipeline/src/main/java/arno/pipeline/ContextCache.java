package arno.pipeline;

import arno.cache.Dependencies;
import arno.cache.Stats;
import arno.cache.Ticker;
import arno.cache.TwoTierCache;
import arno.xml.DocumentStore;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import net.sf.saxon.Configuration;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.CopyOptions;
import net.sf.saxon.om.GroundedValue;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.expr.parser.Loc;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.tree.tiny.TinyBuilder;
import net.sf.saxon.tree.tiny.TinyTree;
import net.sf.saxon.type.Type;
import net.sf.saxon.value.AtomicValue;
import net.sf.saxon.value.SequenceExtent;

/**
 * One site's context caches, beside its page cache and in the same server memory, each bounded
 * by its own policy in site.xml ({@link CachePolicy.Site}):
 * <ul>
 * <li><b>Compiled code</b> is not here: every stage's executable is compiled once with the
 * site and held by its {@link Site} for the site's life (until a development reload recompiles
 * everything). The modelled platform's policy, already so.</li>
 * <li><b>External sources</b>, {@link Sources}: {@code doc()} of http and https URIs, parsed
 * once, 1,000 items and 30 minutes between asks by default.</li>
 * <li><b>Fragments</b> that a stylesheet or query marks cacheable with
 * {@code cache:fragment($key, $build)} ({@link CacheFunctions}): an ARC in memory (a
 * memory-only {@link TwoTierCache}, bounded in items and bytes) of the sequences the builds
 * returned, each with the dependencies its build read, recorded in a {@link Reads.Frame}
 * exactly as a page's are. A cached fragment is checked like a page ({@link Check}), against
 * the view of the request that uses it, and the store's change feed evicts it like a page. The
 * page that uses a fragment, built or cached, inherits its dependencies.</li>
 * <li>The <b>table of files</b> the site's cached pages and fragments read ({@link FileStates}).</li>
 * </ul>
 * Thread-safe.
 */
final class ContextCache implements AutoCloseable {
    final String site;
    final CachePolicy.Site policy;
    final FileStates files;
    final Sources sources;
    /** Null when the site keeps no fragments (items="0"). */
    private final TwoTierCache<String, Fragment> fragments;
    private final Stats.Counting fragmentStats = Stats.counting();
    private final Configuration config;
    private final Ticker clock;

    /** A cached fragment: the detached value and what its build read. */
    record Fragment(GroundedValue value, List<Dependencies.Dependency> dependencies, long weight) {}

    /** What builds a fragment: the function item the stylesheet passed. */
    @FunctionalInterface
    interface Build {
        GroundedValue run() throws XPathException;
    }

    ContextCache(String site, CachePolicy.Site policy, Configuration config, Outbound outbound, XmlPolicy xml,
                 Executor validation, Ticker clock) {
        this.site = site;
        this.policy = policy;
        this.config = config;
        this.clock = clock;
        this.files = new FileStates(policy.revalidate().toNanos(), clock, CachePolicy.FILE_STATES);
        this.sources = new Sources(policy.sources(), outbound, xml, config, clock);
        CachePolicy.Fragments f = policy.fragments();
        if (f.items() == 0) {
            this.fragments = null;
        } else {
            try {
                this.fragments = TwoTierCache.<String, Fragment>builder(f.items()).memoryWeight(f.memory(), Fragment::weight)
                        .validationExecutor(validation).stats(fragmentStats).build();
            } catch (IOException e) {
                throw new IllegalStateException("a memory-only cache opens no file", e);
            }
        }
    }

    /**
     * The fragment {@code key} for the request in {@code scope}: the cached one when every
     * dependency of it is current for this request, else {@code build}'s result, kept unless the
     * build marked itself uncacheable. Either way the page inherits the fragment's dependencies.
     * Nodes are copied out of the build's trees (a stored document is navigated in place, valid
     * only in its request's read transaction), so a cached fragment is a tree of its own.
     */
    GroundedValue fragment(RequestScope scope, String key, String code, DocumentStore store, Build build) throws XPathException {
        Reads reads = scope.reads;
        if (fragments == null || reads == null) return build.run();
        Fragment hit;
        try (Check check = new Check(code, store == null ? null : () -> scope.view(store), false, files, sources, clock)) {
            hit = fragments.get(key, check);
        }
        if (hit != null) {
            reads.addAll(hit.dependencies());
            return hit.value();
        }
        Reads.Frame frame = reads.open();
        GroundedValue value;
        try {
            value = build.run();
        } finally {
            reads.close(frame);
        }
        long[] weight = {64};
        GroundedValue detached = detach(value, weight);
        if (frame.uncacheable() == null) {
            List<Dependencies.Dependency> deps = frame.dependencies();
            deps.add(new Dependencies.Dependency(Check.CODE, site, code));
            Dependencies all = Dependencies.of(deps);
            seen(all);
            // What a page using it inherits: not its store-view (the page has its own view's) nor its code (ditto).
            List<Dependencies.Dependency> inherited = new ArrayList<>(deps.size());
            for (Dependencies.Dependency d : deps) if (!d.kind().equals(Reads.STORE_VIEW) && !d.kind().equals(Check.CODE)) inherited.add(d);
            try {
                fragments.put(key, new Fragment(detached, List.copyOf(inherited), weight[0]), all);
            } catch (IllegalStateException closed) {
                // The cache closed meanwhile (a reload changed the site's policy, or shutdown): not kept.
            }
        }
        return detached;
    }

    /** Starts the interval of every file the new entry read now, rather than at its first hit. */
    void seen(Dependencies dependencies) {
        for (Dependencies.Dependency d : dependencies) {
            if (d.kind().equals(Reads.FILE) || d.kind().equals(Reads.DIRECTORY)) files.seen(d.uri(), d.version());
        }
    }

    /** Copies every node into a tree of its own; atomic values are kept as they are; adds up a weight. */
    private GroundedValue detach(GroundedValue value, long[] weight) throws XPathException {
        List<Item> out = new ArrayList<>(value.getLength());
        for (Item item : value.asIterable()) {
            if (item instanceof NodeInfo n) {
                NodeInfo copy = copy(n);
                out.add(copy);
                weight[0] += 24L * ((TinyTree) copy.getTreeInfo()).getNumberOfNodes() + 2L * copy.getUnicodeStringValue().length();
            } else if (item instanceof AtomicValue a) {
                out.add(a);
                weight[0] += 32 + 2L * a.getUnicodeStringValue().length();
            } else {
                throw new XPathException("cache:fragment keeps nodes and atomic values; its build returned a function, map"
                        + " or array", "XPTY0004");
            }
        }
        return SequenceExtent.makeSequenceExtent(out);
    }

    private NodeInfo copy(NodeInfo n) throws XPathException {
        int kind = n.getNodeKind();
        if (kind == Type.ATTRIBUTE || kind == Type.NAMESPACE) {
            throw new XPathException("cache:fragment keeps documents, elements, text, comments and processing"
                    + " instructions; wrap an attribute or namespace node in an element", "XPTY0004");
        }
        TinyBuilder b = new TinyBuilder(config.makePipelineConfiguration());
        b.open();
        if (kind != Type.DOCUMENT) b.startDocument(ReceiverOption.NONE);
        n.copy(b, CopyOptions.ALL_NAMESPACES | CopyOptions.TYPE_ANNOTATIONS, Loc.NONE);
        if (kind != Type.DOCUMENT) b.endDocument();
        b.close();
        NodeInfo root = b.getCurrentRoot();
        return kind == Type.DOCUMENT ? root : root.iterateAxis(AxisInfo.CHILD).next();
    }

    /** Drops the fragments that recorded {@code current}'s source at another version. */
    int invalidate(Dependencies.Dependency current, java.util.function.Predicate<Dependencies> spare) {
        return fragments == null ? 0 : fragments.invalidate(current, spare);
    }

    /** Drops every fragment and source (./arno cache clear); returns how many there were. */
    int clear() {
        int n = sources.size();
        sources.clear();
        return n + (fragments == null ? 0 : fragments.clear());
    }

    ContextCacheStats stats() {
        Stats.Counting s = sources.stats();
        ContextCacheStats.Part f = fragments == null ? ContextCacheStats.Part.NONE
                : new ContextCacheStats.Part(fragmentStats.count(Stats.Event.HIT), fragmentStats.count(Stats.Event.MISS),
                        fragmentStats.count(Stats.Event.STALE), fragmentStats.count(Stats.Event.INVALIDATION),
                        fragmentStats.count(Stats.Event.EVICTION), fragments.entries(), fragments.memoryWeight(),
                        fragments.memoryTarget());
        ContextCacheStats.Part src = new ContextCacheStats.Part(s.count(Stats.Event.HIT), s.count(Stats.Event.MISS), 0, 0,
                s.count(Stats.Event.EVICTION), sources.size(), sources.weight(), sources.target());
        return new ContextCacheStats(site, f, src, sources.fetched(), sources.notModified(), files.size(), files.capacity());
    }

    @Override
    public void close() {
        if (fragments != null) {
            try {
                fragments.close();
            } catch (IOException e) {
                throw new IllegalStateException("a memory-only cache writes no file", e);
            }
        }
    }
}
