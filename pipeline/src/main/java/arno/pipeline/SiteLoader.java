package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.transform.sax.SAXSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import net.sf.saxon.s9api.DocumentBuilder;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import org.xml.sax.SAXException;

/**
 * Reads a site.xml: validates it against {@code arno/schema/site.xsd} (so a
 * misspelt element or attribute is reported with file, line and column),
 * checks what the schema cannot (each stage names exactly one existing file
 * or class, route names are unique), and compiles its stages. site.xml is parsed by the one
 * security policy ({@link XmlPolicy}); every failure is {@link ErrorCode#SITE_ERROR} with the
 * file, line and column.
 */
final class SiteLoader {
    static final String NS = "urn:arno:site";
    private static final Schema SCHEMA = schema();

    private final Processor processor;
    private final Packages packages;
    private final boolean development;
    private final Duration defaultTimeout;
    private final XmlPolicy policy;

    SiteLoader(Processor processor, Packages packages, boolean development, Duration defaultTimeout, XmlPolicy policy) {
        this.processor = processor;
        this.policy = policy;
        this.packages = packages;
        this.development = development;
        this.defaultTimeout = defaultTimeout;
    }

    private static Schema schema() {
        URL xsd = SiteLoader.class.getResource("/arno/schema/site.xsd");
        try {
            SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            return f.newSchema(xsd);
        } catch (SAXException e) {
            throw new IllegalStateException("site.xsd does not compile", e);
        }
    }

    Site load(Path file) {
        validate(file);
        XdmNode root = parse(file);
        Path dir = file.getParent();
        String name = root.attribute("name");
        Duration siteTimeout = duration(file, root, root.attribute("timeout"), defaultTimeout);
        Compiler compiler = new Compiler(processor, packages, development);

        List<String> hosts = new ArrayList<>();
        String prefix = "";
        Map<String, String> params = new LinkedHashMap<>();
        List<Route> routes = new ArrayList<>();
        Map<Integer, Pipeline> errors = new HashMap<>();
        Set<String> routeNames = new LinkedHashSet<>();
        CachePolicy.Site cache = CachePolicy.Site.defaults(development);
        for (XdmNode e : root.children()) {
            if (e.getNodeKind() != XdmNodeKind.ELEMENT) continue;
            switch (e.getNodeName().getLocalName()) {
                case "host" -> hosts.add(e.getStringValue().trim());
                case "prefix" -> prefix = e.getStringValue().trim();
                case "param" -> params.put(e.attribute("name"), e.getStringValue());
                case "cache" -> cache = siteCache(file, e, cache);
                case "route" -> {
                    String routeName = e.attribute("name");
                    if (!routeNames.add(routeName)) fail(file, e, ErrorMessage.ROUTE_NAME_TWICE, routeName);
                    List<Stage> stages = new ArrayList<>();
                    CachePolicy.Route routeCache = null;
                    for (XdmNode s : e.children()) {
                        if (s.getNodeKind() != XdmNodeKind.ELEMENT) continue;
                        if (s.getNodeName().getLocalName().equals("cache")) routeCache = routeCache(file, s);
                        else stages.add(stage(file, dir, s, compiler, routeName));
                    }
                    String methods = e.attribute("methods");
                    Set<String> allowed = Set.of((methods == null ? "GET HEAD" : methods).trim().split("\\s+"));
                    if (routeCache != null && !allowed.contains("GET")) {
                        fail(file, e, ErrorMessage.CACHED_ROUTE_WITHOUT_GET, routeName);
                    }
                    routes.add(new Route(routeName, e.attribute("pattern"), allowed,
                            duration(file, e, e.attribute("timeout"), siteTimeout).toMillis(),
                            new Pipeline(stages), routeCache));
                }
                case "error" -> {
                    String status = e.attribute("status");
                    int key = status == null ? 0 : Integer.parseInt(status.trim());
                    if (errors.put(key, new Pipeline(List.of(stage(file, dir, e, compiler, "error")))) != null) {
                        if (key == 0) fail(file, e, ErrorMessage.SECOND_ERROR_TEMPLATE);
                        fail(file, e, ErrorMessage.SECOND_STATUS_TEMPLATE, key);
                    }
                }
                default -> fail(file, e, ErrorMessage.UNEXPECTED_ELEMENT, e.getNodeName());
            }
        }
        if (hosts.isEmpty() && prefix.isEmpty()) fail(file, root, ErrorMessage.SITE_UNREACHABLE);
        return new Site(name, hosts, prefix, params, routes, errors, file, cache);
    }

    /** The site's {@code <cache memory disk revalidate>} with its sources and fragments, over the defaults. */
    private static CachePolicy.Site siteCache(Path file, XdmNode e, CachePolicy.Site defaults) {
        long memory = size(file, e, "memory", defaults.memory());
        long disk = size(file, e, "disk", defaults.disk());
        if (memory < 64 << 10) fail(file, e, ErrorMessage.CACHE_MEMORY_SMALL, e.attribute("memory"));
        Duration revalidate = time(file, e, "revalidate", defaults.revalidate());
        CachePolicy.Sources sources = defaults.sources();
        CachePolicy.Fragments fragments = defaults.fragments();
        for (XdmNode c : e.children()) {
            if (c.getNodeKind() != XdmNodeKind.ELEMENT) continue;
            if (c.getNodeName().getLocalName().equals("sources")) {
                int items = count(file, c, "items", sources.items());
                if (items < 1) fail(file, c, ErrorMessage.SOURCES_NONE);
                long bytes = size(file, c, "memory", sources.memory());
                if (bytes < 64 << 10) fail(file, c, ErrorMessage.SOURCES_MEMORY_SMALL, c.attribute("memory"));
                sources = new CachePolicy.Sources(items, bytes, time(file, c, "revalidate", sources.revalidate()));
            } else {
                int items = count(file, c, "items", fragments.items());
                long bytes = size(file, c, "memory", fragments.memory());
                if (items > 0 && bytes < 64 << 10) {
                    fail(file, c, ErrorMessage.FRAGMENTS_MEMORY_SMALL, c.attribute("memory"));
                }
                fragments = new CachePolicy.Fragments(items, bytes);
            }
        }
        return new CachePolicy.Site(memory, disk, revalidate, sources, fragments);
    }

    /** A count of items, at most {@value #MAX_ITEMS}. */
    private static int count(Path file, XdmNode e, String attribute, int fallback) {
        String text = e.attribute(attribute);
        if (text == null) return fallback;
        long n = Long.parseLong(text.trim()); // the schema allows 1 to 9 digits only
        if (n > MAX_ITEMS) fail(file, e, ErrorMessage.TOO_MANY_ITEMS, attribute, text, MAX_ITEMS);
        return (int) n;
    }

    /** The most items a context cache may be asked to keep (its ARC lists are bounded in keys). */
    static final int MAX_ITEMS = 1 << 22;

    /** A route's {@code <cache ttl max-size params vary max-age>}. */
    private static CachePolicy.Route routeCache(Path file, XdmNode e) {
        long maxSize = size(file, e, "max-size", CachePolicy.DEFAULT_MAX_SIZE);
        if (maxSize < 1) fail(file, e, ErrorMessage.CACHE_MAX_SIZE);
        Duration ttl = time(file, e, "ttl", null);
        if (ttl != null && ttl.isZero()) fail(file, e, ErrorMessage.CACHE_TTL_ZERO, e.attribute("ttl"));
        return new CachePolicy.Route(ttl, maxSize, names(e.attribute("params")), names(e.attribute("vary")),
                time(file, e, "max-age", null));
    }

    private static List<String> names(String list) {
        return list == null || list.isBlank() ? List.of() : List.of(list.trim().split("\\s+"));
    }

    private static long size(Path file, XdmNode e, String attribute, long fallback) {
        String text = e.attribute(attribute);
        if (text == null) return fallback;
        Long n = CachePolicy.size(text);
        if (n == null) fail(file, e, ErrorMessage.NOT_A_SIZE, attribute, text);
        return n;
    }

    private static Duration time(Path file, XdmNode e, String attribute, Duration fallback) {
        String text = e.attribute(attribute);
        if (text == null) return fallback;
        Duration d = CachePolicy.time(text);
        if (d == null) fail(file, e, ErrorMessage.NOT_A_TIME, attribute, text);
        return d;
    }

    private Stage stage(Path file, Path dir, XdmNode e, Compiler compiler, String route) {
        String xslt = e.attribute("xslt");
        String xquery = e.attribute("xquery");
        String java = e.attribute("java");
        int given = (xslt != null ? 1 : 0) + (xquery != null ? 1 : 0) + (java != null ? 1 : 0);
        String kind = e.getNodeName().getLocalName();
        if (given != 1) fail(file, e, ErrorMessage.STAGE_NOT_ONE, kind, route);
        String mode = e.attribute("mode");
        if (java != null) {
            if (mode != null) fail(file, e, ErrorMessage.MODE_NOT_XSLT);
            return new Stage.Java("java " + java, instantiate(file, e, java));
        }
        Path source = dir.resolve(xslt != null ? xslt : xquery).normalize();
        if (!Files.isRegularFile(source)) {
            fail(file, e, ErrorMessage.STAGE_SOURCE_MISSING, kind, route, source);
        }
        // A stage's code lies in the sites folder, as everything it includes must (links followed).
        try {
            source = arno.xml.FileRoots.of(List.of(dir.getParent())).confine(source, kind + " of route '" + route + "'");
        } catch (ArnoException outside) {
            fail(file, e, ErrorMessage.STAGE_OUTSIDE_SITES, outside.getMessage());
        }
        if (xquery != null) {
            if (mode != null) fail(file, e, ErrorMessage.MODE_NOT_XSLT);
            return compiler.xquery(source, "xquery " + xquery);
        }
        QName m = mode == null ? null : qname(file, e, mode);
        return compiler.xslt(source.toUri(), m, "xslt " + xslt + (mode != null ? " mode " + mode : ""));
    }

    private static QName qname(Path file, XdmNode e, String lexical) {
        String s = lexical.trim();
        if (s.startsWith("Q{")) return QName.fromEQName(s);
        int colon = s.indexOf(':');
        if (colon < 0) return new QName(s);
        String prefix = s.substring(0, colon);
        net.sf.saxon.om.NamespaceUri ns = e.getUnderlyingNode().getAllNamespaces().getURIForPrefix(prefix, false);
        String uri = ns == null ? null : ns.toString();
        if (uri == null) fail(file, e, ErrorMessage.MODE_PREFIX_UNDECLARED, s, prefix);
        return new QName(prefix, uri, s.substring(colon + 1));
    }

    private static SaxStage instantiate(Path file, XdmNode e, String className) {
        try {
            Class<?> c = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
            if (!SaxStage.class.isAssignableFrom(c)) fail(file, e, ErrorMessage.NOT_A_SAX_STAGE, className, SaxStage.class.getName());
            return (SaxStage) c.getConstructor().newInstance();
        } catch (ClassNotFoundException x) {
            throw fail(file, e, ErrorMessage.STAGE_CLASS_MISSING, className);
        } catch (ReflectiveOperationException x) {
            throw fail(file, e, ErrorMessage.STAGE_NOT_CREATED, className, x);
        }
    }

    private static Duration duration(Path file, XdmNode e, String lexical, Duration fallback) {
        if (lexical == null) return fallback;
        try {
            return Duration.parse(lexical.trim());
        } catch (java.time.format.DateTimeParseException x) {
            throw fail(file, e, ErrorMessage.NOT_A_DURATION, lexical);
        }
    }

    private void validate(Path file) {
        Validator v = SCHEMA.newValidator();
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            v.validate(policy.source(in, file.toString()));
        } catch (SAXException | IOException e) {
            throw failure(file, e);
        }
    }

    private XdmNode parse(Path file) {
        DocumentBuilder b = processor.newDocumentBuilder();
        b.setLineNumbering(true);
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            SAXSource source = policy.source(in, file.toUri().toString());
            XdmNode doc = b.build(source);
            for (XdmNode n : doc.children()) if (n.getNodeKind() == XdmNodeKind.ELEMENT) return n;
            throw ErrorMessage.SITE_NO_ROOT.error(file).at(Where.at(file.toString()));
        } catch (SaxonApiException | IOException e) {
            throw failure(file, e);
        }
    }

    /** A parse or validation failure of site.xml, as SITE_ERROR with the parser's reason and place. */
    private static ArnoException failure(Path file, Exception e) {
        ArnoException x = XmlPolicy.translate(e, file.toString());
        Where at = x.where().isKnown() ? Where.at(file.toString(), x.where().line(), x.where().column()) : Where.at(file.toString());
        String reason = e instanceof org.xml.sax.SAXParseException p ? p.getMessage() : x.getMessage();
        return ErrorMessage.SITE_NOT_LOADED.error(e, at, reason).at(at);
    }

    /** Throws {@code message}, whose first value is the place in site.xml, followed by {@code values}. */
    private static ArnoException fail(Path file, XdmNode e, ErrorMessage message, Object... values) {
        Where at = Where.at(file.toString(), e.getLineNumber(), e.getColumnNumber());
        throw message.error(ErrorMessage.prepend(at, values)).at(at);
    }
}
