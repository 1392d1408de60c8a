package arno.pipeline;

import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import arno.cache.ArcCache;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.transform.Source;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.CollectionFinder;
import net.sf.saxon.lib.Resource;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.resource.StandardCollectionFinder;
import net.sf.saxon.lib.StandardUnparsedTextResolver;
import net.sf.saxon.lib.UnparsedTextURIResolver;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.resource.XmlResource;
import net.sf.saxon.trans.XPathException;

/**
 * How pipelines reach documents: the {@code content:} URI scheme over the
 * content folder, and the request-scoped cache for every URI. Installed once
 * on the server's Saxon {@link Configuration}; per-request state comes from
 * {@link RequestScope#current()}.
 *
 * <p>{@code store:/a/b.xml} is a document of the persistent store, read from
 * the request's snapshot and navigated in place; {@code collection('store:/a/')}
 * is every stored document whose URI starts with {@code /a/}.
 *
 * <p>{@code content:/a/b.xml} is the site content at that path: the stored
 * document {@code /a/b.xml} when the store holds one (content loaded with
 * {@code ./arno store load}), else the file {@code a/b.xml} under the content
 * root; {@code collection('content:/a/')} is the XML files directly in that
 * folder, sorted by name. A path that escapes the root is refused.
 */
final class Resources implements ResourceResolver, CollectionFinder, UnparsedTextURIResolver {
    static final String SCHEME = "content:";

    private final Configuration config;
    private final Path root;
    /** Parsed content documents shared by all requests, or null; see {@link #parse}. */
    private final ArcCache<String, Parsed> sources;
    private final CollectionFinder standardCollections = new StandardCollectionFinder();
    private final UnparsedTextURIResolver standardText = new StandardUnparsedTextResolver();

    /** The persistent store behind {@code store:} URIs, or null when the server has none. */
    private final arno.store.Store store;

    Resources(Configuration config, Path root, long sourceCacheBytes, arno.store.Store store) {
        this.config = config;
        this.store = store;
        this.root = root.toAbsolutePath().normalize();
        this.sources = sourceCacheBytes <= 0 ? null
                : ArcCache.<String, Parsed>builder(1 << 20).maximumWeight(sourceCacheBytes, Parsed::weight).build();
    }

    /**
     * A parsed document and the file state it was parsed from. TinyTrees are
     * immutable once built, so one can serve many requests at once.
     */
    private record Parsed(TreeInfo tree, long modified, long size) {
        /** A TinyTree takes about three times its XML: UTF-16 text plus node arrays. */
        long weight() {
            return size * 3 + 1024;
        }
    }

    private static XPathException coded(String message, String code) {
        XPathException e = new XPathException(message);
        e.setErrorCode(code);
        return e;
    }

    void install() {
        config.setResourceResolver(this);
        config.setCollectionFinder(this);
        config.setUnparsedTextURIResolver(this);
    }

    /** The file a content: URI names; refuses paths outside the content root. */
    Path file(String uri) throws XPathException {
        String path = uri.substring(SCHEME.length());
        int query = path.indexOf('?');
        if (query >= 0) path = path.substring(0, query);
        while (path.startsWith("/")) path = path.substring(1);
        Path file = root.resolve(path).normalize();
        if (!file.startsWith(root)) {
            throw coded("URI " + uri + " escapes the content root", "FODC0002");
        }
        return file;
    }

    @Override
    public Source resolve(ResourceRequest request) throws XPathException {
        String uri = request.uri;
        String nature = request.nature;
        boolean code = ResourceRequest.XSLT_NATURE.equals(nature) || ResourceRequest.XQUERY_NATURE.equals(nature)
                || ResourceRequest.XSD_NATURE.equals(nature);
        boolean content = uri != null && uri.startsWith(SCHEME);
        boolean document = content ? !code : ResourceRequest.XML_NATURE.equals(nature);
        RequestScope scope = RequestScope.current();
        if (uri != null && uri.startsWith(arno.store.Store.SCHEME) && document && scope != null) {
            scope.checkDeadline();
            return stored(scope, uri).getRootNode();
        }
        if (uri == null || !document || scope == null) {
            // Compile-time lookups (xsl:include, packages) and out-of-request use.
            return uri != null && uri.startsWith(SCHEME) ? new StreamSource(file(uri).toFile()) : null;
        }
        scope.checkDeadline();
        TreeInfo tree = scope.document(uri);
        if (tree == null) {
            String path = content ? contentPath(uri) : null;
            if (path != null && store != null && scope.snapshot(store).exists(path)) {
                tree = stored(scope, arno.store.Store.SCHEME + path);
            } else {
                tree = content ? parse(uri) : config.buildDocumentTree(new StreamSource(uri));
            }
            scope.keep(uri, tree);
        }
        return tree.getRootNode();
    }

    /** "content:/a/b.xml" -> "/a/b.xml", the same path in the store. */
    private static String contentPath(String uri) {
        String path = uri.substring(SCHEME.length());
        int query = path.indexOf('?');
        if (query >= 0) path = path.substring(0, query);
        return path.startsWith("/") ? path : "/" + path;
    }

    /**
     * Parses a content document, or takes it from the source cache when the
     * file's time and size are those it was parsed from (checked on every
     * use, so an edited file is seen at once). Its base URI stays the
     * content: URI, so relative links resolve inside the scheme.
     */
    private TreeInfo parse(String uri) throws XPathException {
        Path file = file(uri);
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            throw coded("No content document at " + uri, "FODC0002");
        }
        if (!attributes.isRegularFile()) throw coded("No content document at " + uri, "FODC0002");
        long modified = attributes.lastModifiedTime().toMillis();
        if (sources != null) {
            Parsed p = sources.get(uri);
            if (p != null && p.modified == modified && p.size == attributes.size()) return p.tree;
        }
        try (java.io.InputStream in = Files.newInputStream(file)) {
            TreeInfo tree = config.buildDocumentTree(new StreamSource(in, uri));
            if (sources != null) sources.put(uri, new Parsed(tree, modified, attributes.size()));
            return tree;
        } catch (IOException e) {
            throw coded("Cannot read " + uri + ": " + e.getMessage(), "FODC0002");
        }
    }

    /** A stored document from the request's snapshot, navigated in place: nothing is parsed. */
    private TreeInfo stored(RequestScope scope, String uri) throws XPathException {
        if (store == null) throw coded("No store is open, so " + uri + " cannot be read", "FODC0002");
        try {
            return scope.snapshot(store).document(uri.substring(arno.store.Store.SCHEME.length()), config);
        } catch (arno.store.StoreException e) {
            XPathException x = coded(e.getMessage(), "FODC0002");
            x.initCause(e);
            throw x;
        }
    }

    @Override
    public ResourceCollection findCollection(XPathContext context, String uri) throws XPathException {
        if (uri != null && uri.startsWith(arno.store.Store.SCHEME)) {
            RequestScope scope = RequestScope.current();
            if (store == null || scope == null) throw coded("No store is open, so " + uri + " cannot be read", "FODC0002");
            String prefix = uri.substring(arno.store.Store.SCHEME.length());
            List<String> members = new ArrayList<>();
            for (String u : scope.snapshot(store).uris(prefix)) members.add(arno.store.Store.SCHEME + u);
            return new ContentCollection(uri, members);
        }
        if (uri == null || !uri.startsWith(SCHEME)) {
            return standardCollections.findCollection(context, uri);
        }
        RequestScope scope = RequestScope.current();
        if (store != null && scope != null) {
            // Content loaded into the store: the documents stored directly under that path.
            String prefix = contentPath(uri.endsWith("/") ? uri : uri + "/");
            List<String> members = new ArrayList<>();
            for (String u : scope.snapshot(store).uris(prefix)) {
                if (u.indexOf('/', prefix.length()) < 0) members.add(SCHEME + u);
            }
            if (!members.isEmpty()) return new ContentCollection(uri, members);
        }
        Path dir = file(uri);
        if (!Files.isDirectory(dir)) {
            throw coded("No content folder at " + uri, "FODC0002");
        }
        List<String> uris = new ArrayList<>();
        String base = uri.endsWith("/") ? uri : uri + "/";
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(Files::isRegularFile)
                 .map(p -> p.getFileName().toString())
                 .filter(n -> n.endsWith(".xml") || n.endsWith(".atom"))
                 .sorted()
                 .forEach(n -> uris.add(base + n));
        } catch (IOException e) {
            throw coded("Cannot list " + uri + ": " + e.getMessage(), "FODC0002");
        }
        return new ContentCollection(uri, uris);
    }

    @Override
    public Reader resolve(URI uri, String encoding, Configuration config) throws XPathException {
        String s = uri.toString();
        if (!s.startsWith(SCHEME)) return standardText.resolve(uri, encoding, config);
        try {
            return Files.newBufferedReader(file(s), encoding == null ? StandardCharsets.UTF_8
                    : java.nio.charset.Charset.forName(encoding));
        } catch (IOException e) {
            throw coded("Cannot read " + s + ": " + e.getMessage(), "FOUT1170");
        }
    }

    private final class ContentCollection implements ResourceCollection {
        private final String uri;
        private final List<String> members;

        ContentCollection(String uri, List<String> members) {
            this.uri = uri;
            this.members = members;
        }

        @Override public String getCollectionURI() { return uri; }
        @Override public Iterator<String> getResourceURIs(XPathContext context) { return members.iterator(); }
        @Override public boolean isStable(XPathContext context) { return true; }

        @Override
        public Iterator<? extends Resource> getResources(XPathContext context) throws XPathException {
            List<Resource> resources = new ArrayList<>(members.size());
            for (String member : members) {
                ResourceRequest r = new ResourceRequest();
                r.uri = member;
                r.nature = ResourceRequest.XML_NATURE;
                r.purpose = ResourceRequest.ANY_PURPOSE;
                Source s = resolve(r);
                TreeInfo tree = s instanceof net.sf.saxon.om.NodeInfo n ? n.getTreeInfo() : config.buildDocumentTree(s);
                resources.add(new XmlResource(tree.getRootNode()));
            }
            return resources.iterator();
        }
    }
}
