package arno.filters;

import arno.pipeline.RequestScope;
import arno.xml.DocumentStore;
import arno.xml.ErrorMessage;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import javax.xml.transform.Source;
import net.sf.saxon.Configuration;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.trans.XPathException;

/**
 * The site content laid out as the store lays it out ({@code P.atom}, {@code P.EXT}, {@code P/}),
 * read through the {@code content:} scheme of the request, as a {@link DocumentStore.View}: what
 * {@link ContentFetch} expands when the content is files rather than stored documents.
 *
 * <p>Every read goes through the configuration's own resolvers, so it gets what a stylesheet's
 * {@code doc('content:/…')} gets: the file confined to the content folder, parsed by the one
 * policy, kept in the request's scope (the same tree in every stage) and taken from the source
 * cache. Children are the documents {@code collection('content:/P/')} lists (the XML and Atom files
 * directly in the folder); a child entry {@code c.atom} stands for its folder {@code c/} as well.
 */
final class ContentFiles implements DocumentStore.View {
    private static final String SCHEME = "content:";
    private final RequestScope scope;
    private final Configuration config;

    ContentFiles(RequestScope scope, Configuration config) {
        this.scope = scope;
        this.config = config;
    }

    @Override
    public long version() {
        return 0;
    }

    @Override
    public boolean exists(String path) {
        return scope.locate(path) != RequestScope.Content.NONE;
    }

    @Override
    public TreeInfo document(String path, Configuration configuration) {
        ResourceRequest r = new ResourceRequest();
        r.uri = SCHEME + path;
        r.nature = ResourceRequest.XML_NATURE;
        r.purpose = ResourceRequest.ANY_PURPOSE;
        try {
            Source s = configuration.getResourceResolver().resolve(r);
            if (s instanceof NodeInfo n) return n.getTreeInfo();
            throw ErrorMessage.NO_CONTENT_DOCUMENT.error(r.uri);
        } catch (XPathException e) {
            throw ErrorMessage.NO_CONTENT_DOCUMENT_BECAUSE.error(e, r.uri, e.getMessage());
        }
    }

    /**
     * The names of the documents directly in {@code folder} ("/a/b/"), sorted: "c.atom", "c.xml",
     * and "c/" for each entry "c.atom" (its folder, which may be empty). Empty when there is no such folder.
     */
    @Override
    public List<String> children(String folder) {
        List<String> out = new ArrayList<>();
        try {
            ResourceCollection c = config.getCollectionFinder().findCollection(null, SCHEME + folder);
            for (Iterator<String> i = c.getResourceURIs(null); i.hasNext(); ) {
                String uri = i.next();
                String name = uri.substring(uri.lastIndexOf('/') + 1);
                out.add(name);
                if (name.endsWith(".atom")) out.add(name.substring(0, name.length() - 5) + "/");
            }
        } catch (XPathException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    @Override
    public List<String> uris(String prefix) {
        // Only folders are listed here ("/a/b/"): every caller in the resource model asks for one.
        String folder = prefix.substring(0, prefix.lastIndexOf('/') + 1);
        List<String> out = new ArrayList<>();
        for (String name : children(folder)) {
            String path = folder + name;
            if (!path.startsWith(prefix)) continue;
            if (name.endsWith("/")) out.addAll(uris(path));
            else out.add(path);
        }
        return out;
    }

    @Override
    public void close() {
        // Nothing of its own: the request's scope holds what it read.
    }
}
