package arno.pipeline;

import arno.cache.ArcCache;
import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.FileRoots;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.transform.Source;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.CollectionFinder;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.lib.UnparsedTextURIResolver;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.trans.XPathException;

/**
 * Everything a stage reads, at compile time and at run time: {@link Access} (the one policy:
 * files only under the roots, URLs only through the outbound policy, every document through the
 * secure parser) with two schemes of the server's own on top and the request-scoped cache around
 * it all. Installed once on the server's Saxon {@link Configuration}, where it serves compile time
 * (no request); a request's stages read through its {@link Run}, which each stage's transformer or
 * query evaluator is given as its resolvers, as s9api passes resolvers per run. What the
 * configuration's resolvers are asked during a run ({@code collection()} in XQuery, the store
 * functions) finds the run from the call's context: {@link #scope(XPathContext)}. No thread-local
 * state: a request's stages see its view whatever thread runs them.
 *
 * <p>{@code store:/a/b.xml} is a document of the {@link DocumentStore}, read from the request's
 * view and navigated in place; {@code collection('store:/a/')} is every stored document whose path
 * starts with {@code /a/}.
 *
 * <p>{@code content:/a/b.xml} is the site content at that path: the stored document
 * {@code /a/b.xml} when the store holds one (content loaded with {@code ./arno store load}), else
 * the file {@code a/b.xml} under the content folder; {@code collection('content:/a/')} is the XML
 * and Atom files directly in that folder, sorted by name. A path that leaves the folder is refused.
 *
 * <p>Inside a request, every document (whatever its scheme) is read once and kept in the
 * request's scope, so every stage sees the same tree for the same URI.
 */
final class Resources implements ResourceResolver, CollectionFinder, UnparsedTextURIResolver {
    static final String SCHEME = "content:";

    private final Configuration config;
    private final Access access;
    private final Path root;
    private final FileRoots contentRoot;
    /** Parsed content documents shared by all requests, or null; see {@link #parse}. */
    private final ArcCache<String, Parsed> sources;
    /** The persistent store behind {@code store:} URIs, or null when the server has none. */
    private final DocumentStore store;

    Resources(Configuration config, Access access, Path content, long sourceCacheBytes, DocumentStore store) {
        this.config = config;
        this.access = access;
        this.store = store;
        this.root = content.toAbsolutePath().normalize();
        this.contentRoot = Files.isDirectory(root) ? FileRoots.of(List.of(root)) : FileRoots.none();
        this.sources = sourceCacheBytes <= 0 ? null
                : ArcCache.<String, Parsed>builder(1 << 20).maximumWeight(sourceCacheBytes, Parsed::weight).build();
    }

    /**
     * A parsed document and the file state it was parsed from. TinyTrees are immutable once
     * built, so one can serve many requests at once.
     */
    private record Parsed(TreeInfo tree, long modified, long size, Object fileKey) {
        /** A TinyTree takes about three times its XML: UTF-16 text plus node arrays. */
        long weight() {
            return size * 3 + 1024;
        }
    }

    /** Makes {@link #config} read through this object only (and {@link Access} beneath it). */
    void install() {
        access.install(config, this, this, this);
    }

    Access access() {
        return access;
    }

    private static XPathException refusal(ArnoException e, String code) {
        return Access.refusal(e, code);
    }

    /** The file a content: URI names; {@link ErrorCode#OUTSIDE_ROOTS} for paths outside the content folder. */
    Path file(String uri) {
        return contentRoot.confine(lexicalFile(uri), "content " + uri);
    }

    /**
     * The file a content: URI names with ".." worked out by name only: a URI cannot climb out of
     * the folder, but a link inside it is not followed yet. Cheap (no system call), for the source
     * cache's hits; whatever is opened goes through {@link #file}, which follows links.
     */
    private Path lexicalFile(String uri) {
        String path = uri.substring(SCHEME.length());
        int query = path.indexOf('?');
        if (query >= 0) path = path.substring(0, query);
        while (path.startsWith("/")) path = path.substring(1);
        Path file = root.resolve(path).normalize();
        if (!file.startsWith(root)) throw ErrorCode.OUTSIDE_ROOTS.error("content", uri, List.of(root));
        return file;
    }

    /**
     * One request's resolvers: documents, collections and text as {@link Resources} reads them, for
     * the request of {@code scope}. Set on every stage's transformer or evaluator of that request.
     */
    static final class Run implements ResourceResolver, CollectionFinder, UnparsedTextURIResolver {
        private final Resources resources;
        final RequestScope scope;

        Run(Resources resources, RequestScope scope) {
            this.resources = resources;
            this.scope = scope;
        }

        @Override
        public Source resolve(ResourceRequest request) throws XPathException {
            return resources.resolve(scope, request);
        }

        @Override
        public ResourceCollection findCollection(XPathContext context, String uri) throws XPathException {
            return resources.findCollection(scope, context, uri);
        }

        @Override
        public Reader resolve(URI uri, String encoding, Configuration config) throws XPathException {
            return resources.resolve(scope, uri, encoding, config);
        }
    }

    /**
     * The request whose stage makes the call of {@code context}, found through the resolver its
     * transformer or evaluator was given ({@link Run}); null outside a request (compile time).
     */
    static RequestScope scope(XPathContext context) {
        net.sf.saxon.Controller c = context == null ? null : context.getController();
        return c != null && c.getResourceResolver() instanceof Run run ? run.scope : null;
    }

    /** Outside a request: compile time (static variables, parameter defaults) and start-up. */
    @Override
    public Source resolve(ResourceRequest request) throws XPathException {
        return resolve(null, request);
    }

    private Source resolve(RequestScope scope, ResourceRequest request) throws XPathException {
        String uri = request.uri;
        if (uri == null) return access.resolve(request);
        String nature = request.nature;
        boolean code = ResourceRequest.XSLT_NATURE.equals(nature) || ResourceRequest.XQUERY_NATURE.equals(nature)
                || ResourceRequest.XSD_NATURE.equals(nature);
        boolean content = uri.startsWith(SCHEME);
        boolean stored = uri.startsWith(DocumentStore.SCHEME);
        if (code) {
            if (content || stored) {
                throw refusal(ErrorMessage.CODE_NOT_FROM_CONTENT.error(uri), "FODC0002");
            }
            if (uri.startsWith(Packages.CLASS_PATH)) {
                // Arno's own shipped stylesheets (an xsl:include inside a class-path package).
                try {
                    return access.policy().source(Packages.open(uri), uri);
                } catch (IOException e) {
                    throw refusal(ErrorMessage.STYLESHEET_MISSING.error(e, uri, e.getMessage()), "FODC0002");
                }
            }
            return access.resolve(request);
        }
        if (scope == null) {
            // Out of a request: compile time (static variables, parameter defaults) and start-up.
            if (stored) throw refusal(ErrorMessage.STORE_READ_OUTSIDE_REQUEST.error(uri), "FODC0002");
            return content ? parse(null, uri).getRootNode() : access.resolve(request);
        }
        scope.checkDeadline();
        TreeInfo tree = scope.document(uri);
        if (tree == null) {
            // What reading it records, kept with it: a fragment built later that reads it again depends on it too.
            Reads.Frame read = scope.reads == null ? null : scope.reads.open();
            try {
                tree = read(scope, uri, stored, content, request);
            } finally {
                if (read != null) scope.reads.close(read);
            }
            scope.keep(uri, tree, read);
        }
        return tree.getRootNode();
    }

    /** Reads a document for a request, the first time it asks for {@code uri}. */
    private TreeInfo read(RequestScope scope, String uri, boolean stored, boolean content, ResourceRequest request)
            throws XPathException {
        TreeInfo tree;
        {
            if (stored) {
                tree = stored(scope, uri.substring(DocumentStore.SCHEME.length()), uri);
            } else if (content) {
                TreeInfo kept = store == null ? null : storedIfAny(scope, contentPath(uri), uri);
                tree = kept != null ? kept : parse(scope, uri);
            } else if (scope.context != null && external(uri)) {
                // The site's external sources: parsed once, asked again conditionally after their interval.
                tree = scope.context.sources.tree(uri, scope.reads);
            } else {
                record(scope, uri);
                Source s = access.resolve(request);
                try {
                    tree = s instanceof NodeInfo n ? n.getTreeInfo() : config.buildDocumentTree(s);
                } catch (XPathException e) {
                    // The policy's refusal or a syntax error, as REFUSED_XML or MALFORMED_XML naming the URI.
                    throw refusal(arno.xml.XmlPolicy.translate(e, uri), "FODC0002");
                }
            }
        }
        return tree;
    }

    private static boolean external(String uri) {
        String lower = uri.length() > 8 ? uri.substring(0, 8).toLowerCase(java.util.Locale.ROOT) : uri.toLowerCase(java.util.Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://");
    }

    /** The store behind {@code store:} URIs, or null. */
    DocumentStore store() {
        return store;
    }

    /**
     * Records a read through {@link Access} (a URI of no scheme of ours) for the page cache: a
     * file by its state now, anything else as an unversioned URI.
     */
    private static void record(RequestScope scope, String uri) {
        if (scope == null || scope.reads == null) return;
        if (uri.startsWith("file:")) {
            try {
                scope.reads.file(Path.of(URI.create(uri)));
                return;
            } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                // Not a plain file URI: recorded as a URI below, and Access will refuse or read it.
            }
        }
        scope.reads.uri(uri);
    }

    /** See {@link RequestScope#locate}. */
    RequestScope.Content locate(RequestScope scope, String path) {
        String p = path.startsWith("/") ? path : "/" + path;
        if (store != null && scope.view(store).exists(p)) return RequestScope.Content.STORE;
        try {
            Path file = file(SCHEME + p);
            if (scope.reads != null) scope.reads.file(file);
            return Files.isRegularFile(file) ? RequestScope.Content.FILE : RequestScope.Content.NONE;
        } catch (ArnoException e) {
            return RequestScope.Content.NONE;
        }
    }

    /**
     * What {@code <rsp:body src="…"/>} names, recorded as a read: {@code store:/p}, the binary
     * document stored at /p; {@code content:/p}, the store's binary document at /p, else the file
     * /p under the content folder (confined to it). {@link ErrorCode#NOT_FOUND} when there is none;
     * a response error for another scheme or an XML document (the site's mistake, not the client's).
     */
    BinaryBody binary(RequestScope scope, String src) throws XPathException {
        boolean stored = src.startsWith(arno.xml.DocumentStore.SCHEME);
        if (!stored && !src.startsWith(SCHEME)) {
            throw ResponseWriter.bad("rsp:body src='" + src + "' is neither a store:/… nor a content:/… URI");
        }
        String path = stored ? contentPath(SCHEME + src.substring(arno.xml.DocumentStore.SCHEME.length())) : contentPath(src);
        if (store != null) {
            arno.xml.DocumentStore.View view = scope.view(store);
            arno.xml.DocumentStore.Bytes b = view.bytes(path);
            if (b != null) return BinaryBody.of(b);
            if (view.exists(path)) {
                throw ResponseWriter.bad("rsp:body src='" + src + "' is an XML document: copy it into rsp:body with a method (xml, html)");
            }
        }
        if (stored) throw ErrorMessage.NOTHING_STORED.error(src);
        Path file = file(SCHEME + path);
        if (scope.reads != null) scope.reads.file(file);
        return BinaryBody.of(file, src);
    }

    /** "content:/a/b.xml" -> "/a/b.xml", the same path in the store. */
    private static String contentPath(String uri) {
        String path = uri.substring(SCHEME.length());
        int query = path.indexOf('?');
        if (query >= 0) path = path.substring(0, query);
        return path.startsWith("/") ? path : "/" + path;
    }

    /**
     * Parses a content document by the policy, or takes it from the source cache when the file's
     * time and size are those it was parsed from (checked on every use, so an edited file is seen
     * at once). Its base URI stays the content: URI, so relative links resolve inside the scheme.
     */
    private TreeInfo parse(RequestScope scope, String uri) throws XPathException {
        Reads reads = scope == null ? null : scope.reads;
        try {
            // A hit costs one stat and no real-path resolution (a system call per path component,
            // 5% of a page's CPU): the tree was confined by real path when it was parsed, and it is
            // served only while the name is no link and still names that same file (its key, the
            // inode, with the same time and size). A link swapped in since is a miss, so confined.
            if (sources != null) {
                BasicFileAttributes seen = attributes(lexicalFile(uri), uri, LinkOption.NOFOLLOW_LINKS);
                Parsed p = sources.get(uri);
                if (p != null && seen.isRegularFile() && p.modified == seen.lastModifiedTime().toMillis()
                        && p.size == seen.size() && java.util.Objects.equals(p.fileKey, seen.fileKey())) {
                    if (reads != null) reads.file(lexicalFile(uri), seen);
                    return p.tree;
                }
            }
            Path file = file(uri);
            BasicFileAttributes attributes = attributes(file, uri);
            if (!attributes.isRegularFile()) throw ErrorMessage.NO_CONTENT_DOCUMENT.error(uri);
            if (reads != null) reads.file(lexicalFile(uri), attributes);
            try (InputStream in = Files.newInputStream(file)) {
                TreeInfo tree = config.buildDocumentTree(access.policy().source(in, uri));
                if (sources != null) {
                    sources.put(uri, new Parsed(tree, attributes.lastModifiedTime().toMillis(), attributes.size(),
                            attributes.fileKey()));
                }
                return tree;
            } catch (IOException e) {
                throw ErrorCode.IO.error(e, uri, e.getMessage());
            } catch (XPathException e) {
                throw arno.xml.XmlPolicy.translate(e, uri);
            }
        } catch (ArnoException e) {
            throw refusal(e, "FODC0002");
        }
    }

    private static BasicFileAttributes attributes(Path file, String uri, LinkOption... options) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, options);
        } catch (IOException e) {
            throw ErrorMessage.NO_CONTENT_DOCUMENT.error(uri);
        }
    }

    /** A stored document from the request's view, navigated in place: nothing is parsed. */
    private TreeInfo stored(RequestScope scope, String path, String uri) throws XPathException {
        if (store == null) {
            throw refusal(ErrorMessage.NO_STORE_OPEN.error(uri), "FODC0002");
        }
        try {
            return scope.view(store).document(path, config);
        } catch (ArnoException e) {
            throw refusal(e, "FODC0002");
        }
    }

    /** The stored document at {@code path} from the request's view, or null when the store has none there. */
    private TreeInfo storedIfAny(RequestScope scope, String path, String uri) throws XPathException {
        try {
            return scope.view(store).documentIfStored(path, config);
        } catch (ArnoException e) {
            throw refusal(e, "FODC0002");
        }
    }

    /** For the configuration: XQuery has no collection finder per run, so the run comes from the call's context. */
    @Override
    public ResourceCollection findCollection(XPathContext context, String uri) throws XPathException {
        return findCollection(scope(context), context, uri);
    }

    private ResourceCollection findCollection(RequestScope scope, XPathContext context, String uri) throws XPathException {
        if (uri == null) return access.findCollection(context, null);
        // The members are read as the run reads documents: kept in its scope, recorded for its page.
        ResourceResolver members = scope == null ? this : scope.resolver();
        if (uri.startsWith(DocumentStore.SCHEME)) {
            if (store == null || scope == null) {
                throw refusal(ErrorMessage.NO_STORE_OPEN.error(uri), "FODC0002");
            }
            List<String> found = new ArrayList<>();
            for (String u : scope.view(store).uris(uri.substring(DocumentStore.SCHEME.length()))) {
                found.add(DocumentStore.SCHEME + u);
            }
            return Access.collection(uri, found, members, config);
        }
        if (!uri.startsWith(SCHEME)) {
            record(scope, uri);
            return access.findCollection(context, uri);
        }
        if (store != null && scope != null) {
            // Content loaded into the store: the documents stored directly under that path.
            String prefix = contentPath(uri.endsWith("/") ? uri : uri + "/");
            List<String> found = new ArrayList<>();
            for (String u : scope.view(store).uris(prefix)) {
                if (u.indexOf('/', prefix.length()) < 0) found.add(SCHEME + u);
            }
            if (!found.isEmpty()) return Access.collection(uri, found, members, config);
        }
        try {
            Path dir = file(uri);
            if (!Files.isDirectory(dir)) throw ErrorMessage.NO_CONTENT_FOLDER.error(uri);
            if (scope != null && scope.reads != null) scope.reads.directory(dir);
            List<String> uris = new ArrayList<>();
            String base = uri.endsWith("/") ? uri : uri + "/";
            try (Stream<Path> files = Files.list(dir)) {
                files.filter(Files::isRegularFile)
                     .map(p -> p.getFileName().toString())
                     .filter(n -> n.endsWith(".xml") || n.endsWith(".atom"))
                     .sorted()
                     .forEach(n -> uris.add(base + n));
            } catch (IOException e) {
                throw ErrorMessage.CANNOT_LIST.error(e, uri, e.getMessage());
            }
            return Access.collection(uri, uris, members, config);
        } catch (ArnoException e) {
            throw refusal(e, "FODC0002");
        }
    }

    @Override
    public Reader resolve(URI uri, String encoding, Configuration config) throws XPathException {
        return resolve(null, uri, encoding, config);
    }

    private Reader resolve(RequestScope scope, URI uri, String encoding, Configuration config) throws XPathException {
        String s = uri.toString();
        if (!s.startsWith(SCHEME)) {
            record(scope, s);
            return access.resolve(uri, encoding, config);
        }
        try {
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            Path file = file(s);
            if (scope != null && scope.reads != null) scope.reads.file(file);
            return Files.newBufferedReader(file, charset);
        } catch (ArnoException e) {
            throw refusal(e, "FOUT1170");
        } catch (IOException | IllegalArgumentException e) {
            throw refusal(ErrorCode.IO.error(e, s, e.getMessage()), "FOUT1170");
        }
    }
}
