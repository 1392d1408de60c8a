package arno.batch;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.atom.AtomStore;
import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.io.Reader;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import javax.xml.transform.Source;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.CollectionFinder;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.lib.UnparsedTextURIResolver;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.trans.XPathException;

/**
 * What a batch stylesheet reads: {@link Access} (the one policy for files, URLs and parsing) with
 * {@code store:} on top. {@code doc('store:/journals/ja.atom')} is the stored tree, navigated in
 * place; {@code collection('store:/journals/ja/')} every stored XML document whose path starts with
 * {@code /journals/ja/}, in path order. Both come from the read view of the transformation that
 * asks ({@link Scope}), which the transformation is given as its resolvers ({@link Scope#give}), as
 * s9api passes resolvers per run: a transformation sees one version of the store, from its input to
 * its last {@code doc()}, whatever else runs on its thread, and no view outlives it (a view pins the
 * store's old pages, so none is held for a whole job). Installed on the service's Configuration, this
 * object serves what runs outside a transformation (a parameter's {@code select}, compiling), where
 * {@code store:} is not readable. Thread-safe.
 */
final class StoreReads implements ResourceResolver, CollectionFinder, UnparsedTextURIResolver {
    private final Access access;
    private final Configuration config;
    /** The store service, or null when the server has none. */
    private final AtomStore store;

    StoreReads(Access access, Configuration config, AtomStore store) {
        this.access = access;
        this.config = config;
        this.store = store;
    }

    /** Makes the configuration read through this object (and {@link Access} beneath it). */
    void install() {
        access.install(config, this, this, this);
    }

    /** The store as the transformation about to run will see it: its view is opened at the first read. */
    Scope open() {
        return new Scope();
    }

    /**
     * The store as one transformation sees it: a read view opened at the first use (the input, or the
     * first {@code doc('store:…')}) and closed with the scope; and the transformation's resolvers,
     * which read {@code store:} from that view. Belongs to the thread that runs the transformation
     * (the view's read transaction is that thread's; Saxon-HE runs a transformation on its caller's
     * thread).
     */
    final class Scope implements AutoCloseable, ResourceResolver, CollectionFinder, UnparsedTextURIResolver {
        private Snapshot view;
        private boolean closed;

        private Scope() {}

        /** Gives {@code t} this scope's resolvers: every document, collection and text it reads comes through them. */
        void give(Xslt30Transformer t) {
            t.setResourceResolver(this);
            t.setUnparsedTextResolver(this);
            t.getUnderlyingController().setCollectionFinder(this);
        }

        /** The view, opened now if it was not; NO_STORE when the server has no store. */
        Snapshot view(String uri) {
            if (store == null) {
                throw ErrorMessage.NO_STORE_TO_READ.error(uri).at(Where.at(uri));
            }
            if (closed) throw new IllegalStateException("the store scope of this transformation has ended");
            if (view == null) view = store.store().read();
            return view;
        }

        /** The version of the view, or -1 when none was opened. */
        long version() {
            return view == null ? -1 : view.version();
        }

        /**
         * The stored XML document at {@code path} ({@code /journals/ja.atom}) as a tree of {@code config};
         * NOT_FOUND naming {@code uri} (its {@code store:} URI) when none is stored there.
         */
        TreeInfo document(String path, String uri, Configuration config, String what) {
            Snapshot v = view(uri);
            if (!v.exists(path)) {
                throw ErrorMessage.NOT_IN_STORE.error(what, uri, v.version()).at(Where.at(uri));
            }
            return v.document(path, config);
        }

        @Override public Source resolve(ResourceRequest request) throws XPathException {
            return StoreReads.this.resolve(this, request);
        }

        @Override public ResourceCollection findCollection(XPathContext context, String uri) throws XPathException {
            return StoreReads.this.findCollection(this, context, uri);
        }

        @Override public Reader resolve(URI uri, String encoding, Configuration configuration) throws XPathException {
            return access.resolve(uri, encoding, configuration);
        }

        /** Ends the scope and closes its view; closing again does nothing. */
        @Override public void close() {
            if (closed) return;
            closed = true;
            if (view != null) {
                view.close();
                view = null;
            }
        }
    }

    private static String path(String uri) {
        return uri.substring(DocumentStore.SCHEME.length());
    }

    private static Scope scope(Scope s, String uri) throws XPathException {
        if (s == null) {
            throw Access.refusal(ErrorMessage.STORE_READ_TOO_EARLY.error(uri), "FODC0002");
        }
        return s;
    }

    /** Outside a transformation. */
    @Override public Source resolve(ResourceRequest request) throws XPathException {
        return resolve(null, request);
    }

    private Source resolve(Scope scope, ResourceRequest request) throws XPathException {
        String uri = request.uri;
        if (uri == null || !uri.startsWith(DocumentStore.SCHEME)) return access.resolve(request);
        if (ResourceRequest.XSLT_NATURE.equals(request.nature) || ResourceRequest.XQUERY_NATURE.equals(request.nature)
                || ResourceRequest.XSD_NATURE.equals(request.nature)) {
            throw Access.refusal(ErrorMessage.CODE_NOT_FROM_STORE.error(uri), "FODC0002");
        }
        Scope s = scope(scope, uri);
        try {
            return s.document(path(uri), uri, config, "document").getRootNode();
        } catch (ArnoException e) {
            throw Access.refusal(e, "FODC0002");
        }
    }

    /** Outside a transformation, or a run that was given no finder: its scope, if any, by its resolver. */
    @Override public ResourceCollection findCollection(XPathContext context, String uri) throws XPathException {
        net.sf.saxon.Controller c = context == null ? null : context.getController();
        return findCollection(c != null && c.getResourceResolver() instanceof Scope s ? s : null, context, uri);
    }

    private ResourceCollection findCollection(Scope scope, XPathContext context, String uri) throws XPathException {
        if (uri == null || !uri.startsWith(DocumentStore.SCHEME)) return access.findCollection(context, uri);
        Scope s = scope(scope, uri);
        try {
            Snapshot view = s.view(uri);
            List<String> members = new ArrayList<>();
            for (String p : view.uris(path(uri))) {
                DocumentInfo info = view.info(p);
                if (info != null && !info.binary()) members.add(DocumentStore.SCHEME + p);
            }
            // its members are read as the transformation reads documents: from its view
            return Access.collection(uri, members, s, config);
        } catch (ArnoException e) {
            throw Access.refusal(e, "FODC0002");
        }
    }

    @Override public Reader resolve(URI uri, String encoding, Configuration configuration) throws XPathException {
        return access.resolve(uri, encoding, configuration);
    }
}
