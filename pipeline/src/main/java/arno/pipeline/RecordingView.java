package arno.pipeline;

import arno.xml.DocumentStore;
import java.util.List;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;

/**
 * A request's view of the store that records, in its {@link Reads}, every document it is asked
 * for (with the version that last wrote it) and every listing, whoever asks: {@code store:} and
 * {@code content:} URIs, {@code collection()}, and Java stages that read {@link
 * RequestScope#storeView()} (the demo's ContentPeek and ContentFetch). One extra lookup per
 * document (its version), from the same snapshot as the read itself.
 */
final class RecordingView implements DocumentStore.View {
    private final DocumentStore.View view;
    private final Reads reads;

    RecordingView(DocumentStore.View view, Reads reads) {
        this.view = view;
        this.reads = reads;
        reads.storeVersion(view.version());
    }

    @Override
    public long version() {
        return view.version();
    }

    @Override
    public boolean exists(String path) {
        return documentVersion(path) >= 0;
    }

    @Override
    public long documentVersion(String path) {
        long v = view.documentVersion(path);
        reads.document(path, v);
        return v;
    }

    @Override
    public DocumentStore.Bytes bytes(String path) {
        reads.document(path, view.documentVersion(path));
        return view.bytes(path);
    }

    @Override
    public TreeInfo document(String path, Configuration config) {
        reads.document(path, view.documentVersion(path));
        return view.document(path, config);
    }

    @Override
    public TreeInfo documentIfStored(String path, Configuration config) {
        long v = view.documentVersion(path);
        reads.document(path, v);
        return v < 0 ? null : view.document(path, config);
    }

    @Override
    public List<String> uris(String prefix) {
        List<String> uris = view.uris(prefix);
        reads.listing(Reads.STORE_URIS, prefix, uris);
        return uris;
    }

    @Override
    public List<String> children(String folder) {
        List<String> children = view.children(folder);
        reads.listing(Reads.STORE_CHILDREN, folder, children);
        return children;
    }

    @Override
    public List<NodeInfo> lookup(String index, String key, String low, String high, Configuration config) {
        reads.anyStoreChange(view.version());
        return view.lookup(index, key, low, high, config);
    }

    /** A search reads indexes and any document under its folder: like a lookup, valid until the next commit. */
    @Override
    public java.util.Iterator<NodeInfo> search(String under, String condition, java.util.Map<String, String> namespaces,
            Configuration config) {
        reads.anyStoreChange(view.version());
        return view.search(under, condition, namespaces, config);
    }

    @Override
    public NodeInfo explain(String under, String condition, java.util.Map<String, String> namespaces,
            Configuration config) {
        reads.anyStoreChange(view.version());
        return view.explain(under, condition, namespaces, config);
    }

    /**
     * A full-text search answered from an index that had applied the store up to {@code applied}.
     * The page is valid while the store stays at that version ({@value Reads#STORE_ANY}): the index
     * applies every commit (its version follows the store's even when a commit touched nothing it
     * indexes), so any commit may change the hits, and a page built before the index applied the
     * commit must not outlive it. Recording the view's version instead would let a page built in the
     * index's lag (the store at V, the index still at V-1) pass as current at V until the next
     * commit. When the index is not at the view's version the page mixes two versions, and the fast
     * check (nothing changed since the view's version) would wrongly pass it: it is not kept, and the
     * next request after the index catches up (about 100 ms) is.
     */
    @Override
    public void followedIndexRead(String index, long applied) {
        if (applied == view.version()) reads.anyStoreChange(applied);
        else if (applied < 0) reads.uncacheable("the " + index + " refused a search");
        else reads.uncacheable("the " + index + " answered at store version " + applied + ", the page's view is at " + view.version());
    }

    @Override
    public void close() {
        view.close();
    }
}
