package arno.xml;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URI;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.xml.transform.Source;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.CollectionFinder;
import net.sf.saxon.lib.EnvironmentVariableResolver;
import net.sf.saxon.lib.Feature;
import net.sf.saxon.lib.Resource;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.lib.UnparsedTextURIResolver;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.resource.XmlResource;
import net.sf.saxon.trans.XPathException;

/**
 * Everything a stylesheet or query may read, in one place, installed on a Saxon
 * {@link Configuration}: at compile time (xsl:include, xsl:import, static variables, XQuery
 * modules), in parameter expressions, and at run time through {@code doc()}, {@code document()},
 * {@code xsl:source-document}, {@code collection()}, {@code uri-collection()},
 * {@code unparsed-text()}, {@code json-doc()}. Files are read only under {@link FileRoots}
 * (stylesheet code also under the code roots and from Arno's own jars), URLs only through the
 * {@link Outbound} policy, and every document is parsed by the {@link XmlPolicy}. Anything else
 * (other schemes, the default collection, environment variables, extension functions) is refused
 * or empty. The resolvers never hand a URI back to Saxon's defaults.
 *
 * <p>A server adds its own schemes ({@code content:}, {@code store:}) by wrapping this: it
 * answers those and delegates the rest here (see the pipeline's resources).
 */
public final class Access implements ResourceResolver, UnparsedTextURIResolver, CollectionFinder {
    private static final Set<String> CODE_NATURES = Set.of(ResourceRequest.XSLT_NATURE, ResourceRequest.XQUERY_NATURE,
            ResourceRequest.XSD_NATURE);

    private final FileRoots documents;
    private final FileRoots code;
    private final Outbound outbound;
    private final XmlPolicy policy;

    /**
     * @param documents where documents and text may be read from
     * @param code      where stylesheets and query modules may be read from, besides {@code documents}
     * @param outbound  which URLs may be fetched
     * @param policy    how XML is parsed
     */
    public Access(FileRoots documents, FileRoots code, Outbound outbound, XmlPolicy policy) {
        this.documents = documents;
        this.code = code.and(documents);
        this.outbound = outbound;
        this.policy = policy;
    }

    public XmlPolicy policy() {
        return policy;
    }

    /**
     * Makes {@code config} read through this object only, parse with the policy, see no
     * environment variables and call no Java. {@code resolver}, {@code text} and {@code collections}
     * are what to install (this object, or a wrapper that delegates to it).
     */
    public void install(Configuration config, ResourceResolver resolver, UnparsedTextURIResolver text,
                        CollectionFinder collections) {
        policy.install(config);
        config.setResourceResolver(resolver);
        config.setUnparsedTextURIResolver(text);
        config.setCollectionFinder(collections);
        config.setConfigurationProperty(Feature.ALLOW_EXTERNAL_FUNCTIONS, false);
        config.setConfigurationProperty(Feature.XINCLUDE, false);
        config.setConfigurationProperty(Feature.DTD_VALIDATION, false);
        config.setConfigurationProperty(Feature.ENVIRONMENT_VARIABLE_RESOLVER, NO_ENVIRONMENT);
    }

    /** {@link #install(Configuration, ResourceResolver, UnparsedTextURIResolver, CollectionFinder)} with this object for all three. */
    public void install(Configuration config) {
        install(config, this, this, this);
    }

    /** The server's environment (passwords, keys) is no business of a stylesheet. */
    private static final EnvironmentVariableResolver NO_ENVIRONMENT = new EnvironmentVariableResolver() {
        @Override
        public Set<String> getAvailableEnvironmentVariables() {
            return Set.of();
        }

        @Override
        public String getEnvironmentVariable(String name) {
            return null;
        }
    };

    /** An XPath error with {@code code} carrying {@code cause}'s message, for Saxon to report where it was called. */
    public static XPathException refusal(ArnoException cause, String code) {
        XPathException x = new XPathException(cause.getMessage(), code);
        x.initCause(cause);
        return x;
    }

    // ---- Documents and code

    @Override
    public Source resolve(ResourceRequest request) throws XPathException {
        if (request.uri == null) throw new XPathException("a document without a URI cannot be read", "FODC0002");
        boolean isCode = CODE_NATURES.contains(request.nature);
        String what = isCode ? "stylesheet or module" : "document";
        try {
            URI uri = new URI(request.uri);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            InputStream in = switch (scheme) {
                case "file" -> Files.newInputStream((isCode ? code : documents).confine(uri, what));
                case "http", "https" -> outbound.get(uri, what);
                case "jar" -> {
                    if (!isCode || !ownResource(request.uri)) {
                        throw ErrorMessage.JAR_URI_NOT_OWN.error(what, uri);
                    }
                    yield new URL(request.uri).openStream();
                }
                default -> throw ErrorMessage.SCHEME_NOT_READ.error(what, uri, scheme);
            };
            return policy.source(in, request.uri);
        } catch (ArnoException e) {
            throw refusal(e, "FODC0002");
        } catch (IOException | java.net.URISyntaxException | IllegalArgumentException e) {
            throw refusal(ErrorMessage.NAMED_UNREADABLE.error(e, what, request.uri, e.getMessage()), "FODC0002");
        }
    }

    /** A jar: URI that Arno's own class loader gives for the same entry: a shipped stylesheet. */
    private static boolean ownResource(String uri) {
        int bang = uri.indexOf("!/");
        if (bang < 0) return false;
        URL own = Access.class.getClassLoader().getResource(uri.substring(bang + 2));
        return own != null && own.toString().equals(uri);
    }

    // ---- Text

    @Override
    public Reader resolve(URI uri, String encoding, Configuration config) throws XPathException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        try {
            InputStream in = switch (scheme) {
                case "file" -> Files.newInputStream(documents.confine(uri, "text"));
                case "http", "https" -> outbound.get(uri, "text");
                default -> throw ErrorMessage.SCHEME_NOT_READ.error("text", uri, scheme);
            };
            return new InputStreamReader(in, encoding == null ? java.nio.charset.StandardCharsets.UTF_8 : Charset.forName(encoding));
        } catch (ArnoException e) {
            throw refusal(e, "FOUT1170");
        } catch (IOException | IllegalArgumentException e) {
            throw refusal(ErrorMessage.NAMED_UNREADABLE.error(e, "text", uri, e.getMessage()), "FOUT1170");
        }
    }

    // ---- Collections

    /**
     * A folder under the document roots: its files (by default the XML ones, *.xml), sorted by
     * name; {@code ?select=GLOB} picks others, {@code ?recurse=yes} descends. There is no default
     * collection and no collection over HTTP.
     */
    @Override
    public ResourceCollection findCollection(XPathContext context, String collectionURI) throws XPathException {
        if (collectionURI == null) return new Members(null, List.of(), this, null);
        try {
            URI uri = new URI(collectionURI);
            if (!"file".equalsIgnoreCase(uri.getScheme())) {
                throw ErrorMessage.COLLECTION_NOT_FOLDER.error(collectionURI);
            }
            String select = "*.xml";
            boolean recurse = false;
            if (uri.getQuery() != null) {
                for (String p : uri.getQuery().split("[;&]")) {
                    if (p.startsWith("select=")) select = p.substring(7);
                    else if (p.equals("recurse=yes")) recurse = true;
                }
            }
            Path dir = documents.confine(new URI("file", null, uri.getPath(), null), "collection");
            if (!Files.isDirectory(dir)) throw ErrorMessage.NO_COLLECTION_FOLDER.error(collectionURI);
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + select);
            List<String> members = new ArrayList<>();
            try (Stream<Path> files = recurse ? Files.walk(dir) : Files.list(dir)) {
                files.filter(Files::isRegularFile).filter(p -> matcher.matches(p.getFileName()))
                        .filter(documents::contains).sorted().forEach(p -> members.add(p.toUri().toString()));
            }
            return new Members(collectionURI, members, this, null);
        } catch (ArnoException e) {
            throw refusal(e, "FODC0002");
        } catch (IOException | java.net.URISyntaxException | IllegalArgumentException e) {
            throw refusal(ErrorMessage.NAMED_UNREADABLE.error(e, "collection", collectionURI, e.getMessage()), "FODC0002");
        }
    }

    /**
     * A collection of documents named by URI, each read through {@code resolver} when asked for,
     * so {@code uri-collection()} reads nothing and {@code collection()} parses by the policy.
     */
    public static ResourceCollection collection(String uri, List<String> members, ResourceResolver resolver, Configuration config) {
        return new Members(uri, members, resolver, config);
    }

    private static final class Members implements ResourceCollection {
        private final String uri;
        private final List<String> members;
        private final ResourceResolver resolver;
        private final Configuration config;

        Members(String uri, List<String> members, ResourceResolver resolver, Configuration config) {
            this.uri = uri;
            this.members = List.copyOf(members);
            this.resolver = resolver;
            this.config = config;
        }

        @Override
        public String getCollectionURI() {
            return uri;
        }

        @Override
        public Iterator<String> getResourceURIs(XPathContext context) {
            return members.iterator();
        }

        @Override
        public boolean isStable(XPathContext context) {
            return true;
        }

        @Override
        public Iterator<? extends Resource> getResources(XPathContext context) throws XPathException {
            Configuration c = config != null ? config : context.getConfiguration();
            List<Resource> resources = new ArrayList<>(members.size());
            for (String member : members) {
                ResourceRequest r = new ResourceRequest();
                r.uri = member;
                r.nature = ResourceRequest.XML_NATURE;
                r.purpose = ResourceRequest.ANY_PURPOSE;
                Source s = resolver.resolve(r);
                TreeInfo tree = s instanceof NodeInfo n ? n.getTreeInfo() : c.buildDocumentTree(s);
                resources.add(new XmlResource(tree.getRootNode()));
            }
            return resources.iterator();
        }
    }
}
