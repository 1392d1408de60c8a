package arno.store;

import javax.xml.transform.Source;

import net.sf.saxon.Configuration;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.trans.XPathException;

/**
 * Resolves {@code store:/path} for {@code doc()}, {@code document()} and {@code doc-available()}
 * to the stored tree in one snapshot, for one Configuration (Saxon refuses trees whose names come
 * from another NamePool). Other URIs return null, so the next resolver in the chain handles them.
 */
final class StoreResolver implements ResourceResolver {

    private final Snapshot snapshot;
    private final Configuration config;

    StoreResolver(Snapshot snapshot, Configuration config) {
        this.snapshot = snapshot;
        this.config = config;
    }

    /** The snapshot it reads from (for the store's XPath functions, {@link arno.xml.StoreFunctions}). */
    Snapshot snapshot() {
        return snapshot;
    }

    @Override
    public Source resolve(ResourceRequest request) throws XPathException {
        String uri = request.uri;
        if (uri == null || !uri.startsWith(Store.SCHEME)) {
            return null;
        }
        if (request.nature != null && !ResourceRequest.XML_NATURE.equals(request.nature)
                && !ResourceRequest.ANY_NATURE.equals(request.nature)) {
            return null;
        }
        String path = uri.substring(Store.SCHEME.length());
        try {
            return snapshot.document(path, config).getRootNode();
        } catch (StoreException e) {
            XPathException x = new XPathException(e.getMessage(), "FODC0002");
            x.initCause(e);
            throw x;
        }
    }
}
