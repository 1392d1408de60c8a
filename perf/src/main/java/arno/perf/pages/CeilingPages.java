package arno.perf.pages;

import arno.store.atom.Expansion;
import arno.store.atom.ResourcePath;
import arno.xml.DocumentStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.ProxyReceiver;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.AbstractDestination;
import net.sf.saxon.s9api.DocumentBuilder;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XsltPackage;
import net.sf.saxon.serialize.SerializationProperties;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.SchemaType;
import org.xml.sax.helpers.AttributesImpl;

/**
 * The full-text pages of the demo sites built by plain Saxon (s9api), for {@link Ceiling}: the
 * shared packages and each site's {@code site.xsl} compiled from a checkout, applied in the
 * fulltext route's mode to a req:request document built for each article, with the article's JATS
 * pre-parsed as a TinyTree and handed to {@code doc('content:…')} by a resolver, the body of the
 * rsp:response it yields serialized by Saxon's HTML5 serializer.
 *
 * <p>What differs from Arno's page path, on purpose or because plain Saxon has no such part:
 * <ul>
 * <li>req:request is built here once per article (its shape is RequestReader's: id, method, host,
 *     site with its parameters, path, route with its variables, parameters, headers, cookies)
 *     and kept as a TinyTree; Arno reads the HTTP request into it and builds it anew for every page.
 *     Its id, time and headers are fixed strings here; the journal pages read none of them.</li>
 * <li>The two filters' messages are appended to it here, once: the content-peek attribute as
 *     ContentPeek writes it, and the entry expanded as ContentFetch expands it (the same
 *     {@link Expansion} code, over the content folder's .atom files rather than the store).</li>
 * <li>{@code doc('content:/journals/…/a0001.xml')} returns the pre-parsed TinyTree; Arno opens the
 *     stored tree in the request's store view (or its source cache over the content files).</li>
 * <li>{@code store:ft-search} is a stub that fails: the search pages are not built here, but the
 *     package calls it, so it must be known to compile.</li>
 * <li>The body is serialized by Saxon's HTML serializer (method html, html-version 5, UTF-8, not
 *     indented, include-content-type no: the page declares its charset itself), which Arno's own
 *     HtmlWriter replaced; Saxon's DOCTYPE is in capitals and without a line end, and any other
 *     byte may differ too, which is why {@link Ceiling} compares pages by meaning. Status and
 *     headers (rsp:response) are read but not written anywhere; no HTTP, no gzip, no page cache.</li>
 * </ul>
 */
final class CeilingPages {
    static final String REQ = "urn:arno:request";
    static final String MSG = "urn:arno:message";
    static final String RSP = "urn:arno:response";
    private static final String SITE = "urn:arno:site";
    private static final String XSL = "http://www.w3.org/1999/XSL/Transform";

    final Processor processor = new Processor(false);
    /** When set before the stylesheets compile (they then carry trace calls), every render reports to it. */
    static net.sf.saxon.lib.TraceListener trace;
    private final Path content;
    private final Map<String, SiteRoute> sites = new LinkedHashMap<>();
    /** The pre-parsed documents doc() may ask for, by store path ("/journals/ja/v1/i1/a0001.xml"). */
    private final Map<String, TreeInfo> documents = new HashMap<>();
    /** When set, doc() reads the stored trees of this store (a view a page) instead of {@link #documents}. */
    private arno.xml.DocumentStore store;
    private arno.xml.DocumentStore.View view;

    /** One site's fulltext route: its prefix, parameters, compiled stylesheet and mode. */
    record SiteRoute(String name, String prefix, Map<String, String> params, String pattern, String route,
                     XsltExecutable executable, QName mode, String expand, boolean fetch) {}

    /** One page: its URL path on the site and the request document its stylesheet is applied to. */
    record Page(String path, SiteRoute site, XdmNode request) {}

    /**
     * The sites of {@code root} (a checkout: sites/, stylesheets/packages, templates/xsl), compiled;
     * {@code replace} maps a site name to another site.xsl to compile in its place (null: none),
     * which is how the test makes a page differ on purpose.
     */
    CeilingPages(Path root, Path content, Map<String, Path> replace) throws IOException, SaxonApiException {
        this.content = content;
        if (trace != null) processor.getUnderlyingConfiguration().setConfigurationProperty(net.sf.saxon.lib.Feature.COMPILE_WITH_TRACING, true);
        // store:ft-search as the server registers it, without an index (a call fails): the
        // full-text pages never call it, but the package must compile
        arno.fulltext.FtSearchFunction.register(processor.getUnderlyingConfiguration(), () -> null);
        List<XsltPackage> packages = packages(List.of(root.resolve("templates/xsl"), root.resolve("stylesheets/packages")));
        try (Stream<Path> s = Files.list(root.resolve("sites"))) {
            for (Path dir : s.sorted().toList()) {
                Path siteXml = dir.resolve("site.xml");
                if (Files.isRegularFile(siteXml)) site(siteXml, packages, replace == null ? null : replace.get(dir.getFileName().toString()));
            }
        }
        if (sites.isEmpty()) throw new IllegalArgumentException("no site with a fulltext route under " + root.resolve("sites"));
    }

    /** The shared packages, each compiled with those it uses (their xsl:use-package) imported first. */
    private List<XsltPackage> packages(List<Path> folders) throws IOException, SaxonApiException {
        Map<String, Path> files = new LinkedHashMap<>();
        Map<String, List<String>> uses = new HashMap<>();
        XPathCompiler xp = processor.newXPathCompiler();
        xp.declareNamespace("xsl", XSL);
        for (Path folder : folders) {
            if (!Files.isDirectory(folder)) continue;
            try (Stream<Path> s = Files.walk(folder)) {
                for (Path f : s.filter(p -> p.toString().endsWith(".xsl")).sorted().toList()) {
                    XdmNode doc = processor.newDocumentBuilder().build(f.toFile());
                    XdmItem name = xp.evaluateSingle("/xsl:package/@name", doc);
                    if (name == null) continue;
                    files.put(name.getStringValue(), f);
                    List<String> used = new ArrayList<>();
                    for (XdmItem u : xp.evaluate("/xsl:package/xsl:use-package/@name", doc)) used.add(u.getStringValue());
                    uses.put(name.getStringValue(), used);
                }
            }
        }
        List<XsltPackage> done = new ArrayList<>();
        List<String> compiled = new ArrayList<>();
        while (compiled.size() < files.size()) {
            String next = files.keySet().stream().filter(n -> !compiled.contains(n))
                    .filter(n -> uses.get(n).stream().allMatch(u -> compiled.contains(u) || !files.containsKey(u)))
                    .findFirst().orElseThrow(() -> new IllegalStateException("packages use each other in a cycle"));
            XsltCompiler c = compiler(done);
            done.add(c.compilePackage(new StreamSource(files.get(next).toFile())));
            compiled.add(next);
        }
        return done;
    }

    private XsltCompiler compiler(List<XsltPackage> packages) throws SaxonApiException {
        XsltCompiler c = processor.newXsltCompiler();
        for (XsltPackage p : packages) c.importPackage(p);
        return c;
    }

    /** Reads site.xml as the pipeline does (prefix, params, the fulltext route's template) and compiles its stylesheet. */
    private void site(Path siteXml, List<XsltPackage> packages, Path replacement) throws SaxonApiException {
        XdmNode doc = processor.newDocumentBuilder().build(siteXml.toFile());
        XPathCompiler xp = processor.newXPathCompiler();
        xp.declareNamespace("s", SITE);
        XdmItem route = xp.evaluateSingle("/s:site/s:route[@name = 'fulltext']", doc);
        XdmItem prefix = xp.evaluateSingle("/s:site/s:prefix", doc);
        if (route == null || prefix == null) return;
        String name = xp.evaluateSingle("string(/s:site/@name)", doc).getStringValue();
        Map<String, String> params = new LinkedHashMap<>();
        for (XdmItem p : xp.evaluate("/s:site/s:param", doc)) {
            params.put(((XdmNode) p).getAttributeValue(new QName("name")), p.getStringValue());
        }
        XdmNode template = (XdmNode) xp.evaluateSingle("s:template[1]", route);
        Path xslt = replacement != null ? replacement : siteXml.resolveSibling(template.getAttributeValue(new QName("xslt")));
        XsltExecutable executable = compiler(packages).compile(new StreamSource(xslt.toFile()));
        String mode = template.getAttributeValue(new QName("mode"));
        String expand = params.getOrDefault("content-expand.fulltext", params.get("content-expand"));
        // Whether the route appends the entry (ContentFetch) or its templates read it in place.
        boolean fetch = xp.evaluateSingle("exists(s:filter[@java = 'arno.filters.ContentFetch'])", route).getStringValue().equals("true");
        XdmNode r = (XdmNode) route;
        sites.put(prefix.getStringValue().strip(), new SiteRoute(name, prefix.getStringValue().strip(), params,
                r.getAttributeValue(new QName("pattern")), r.getAttributeValue(new QName("name")), executable,
                mode == null ? null : new QName(mode), expand, fetch));
    }

    /**
     * The page at {@code path} ("/journal-a/v1/i1/a0001/full"): its request document, with the
     * entry the filters would fetch, and its documents pre-parsed for doc().
     */
    Page page(String path) throws Exception {
        SiteRoute site = sites.entrySet().stream().filter(e -> path.startsWith(e.getKey() + "/"))
                .map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no site for " + path));
        String sitePath = path.substring(site.prefix().length());
        Map<String, String> variables = match(site.pattern(), sitePath);
        if (variables == null) throw new IllegalArgumentException(path + " does not match " + site.pattern());
        // ContentPeek: content-base followed by the route variables' values in pattern order.
        String resource = site.params().getOrDefault("content-base", "") + "/" + String.join("/", variables.values());
        XdmNode request = request(site, path, sitePath, variables, resource);
        // The documents doc() may ask for: the entry itself (read in place when the route does not
        // fetch it), the JATS of the entry (and any XML variant beside it).
        Path entryFile = content.resolve(resource.substring(1) + ".atom");
        if (!Files.isRegularFile(entryFile)) return new Page(path, site, request);
        XdmNode entry = processor.newDocumentBuilder().build(entryFile.toFile());
        documents.putIfAbsent(resource + ".atom", entry.getUnderlyingNode().getTreeInfo());
        XPathCompiler xp = processor.newXPathCompiler();
        xp.declareNamespace("atom", "http://www.w3.org/2005/Atom");
        for (XdmItem href : xp.evaluate("/atom:entry/atom:link[@rel = 'alternate']/@href", entry)) {
            String h = href.getStringValue();
            Path file = content.resolve(h.substring(1));
            if (h.endsWith(".xml") && !documents.containsKey(h) && Files.isRegularFile(file)) {
                documents.put(h, processor.newDocumentBuilder().build(file.toFile()).getUnderlyingNode().getTreeInfo());
            }
        }
        return new Page(path, site, request);
    }

    /** The route variables of {@code sitePath} by {@code pattern} ("/{volume}/{issue}/{article}/full"), in order; null if it does not match. */
    static Map<String, String> match(String pattern, String sitePath) {
        List<String> names = new ArrayList<>();
        StringBuilder regex = new StringBuilder();
        Matcher m = Pattern.compile("\\{([^}]+)}").matcher(pattern);
        int at = 0;
        while (m.find()) {
            regex.append(Pattern.quote(pattern.substring(at, m.start()))).append("([^/]+)");
            names.add(m.group(1));
            at = m.end();
        }
        regex.append(Pattern.quote(pattern.substring(at)));
        Matcher v = Pattern.compile(regex.toString()).matcher(sitePath);
        if (!v.matches()) return null;
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) out.put(names.get(i), v.group(i + 1));
        return out;
    }

    /** req:request as RequestReader writes it for a GET of {@code path}, with the two filters' messages appended. */
    private XdmNode request(SiteRoute site, String path, String sitePath, Map<String, String> variables, String resource)
            throws Exception {
        DocumentBuilder b = processor.newDocumentBuilder();
        net.sf.saxon.s9api.BuildingContentHandler out = b.newBuildingContentHandler();
        out.startDocument();
        out.startPrefixMapping("req", REQ);
        start(out, REQ, "req:request", "id", "ceiling-1", "method", "GET", "scheme", "http", "host", "127.0.0.1",
                "port", "18082", "protocol", "HTTP/1.1", "remote-address", "127.0.0.1", "time", "2026-01-01T00:00:00Z",
                "url", "http://127.0.0.1:18082" + path, "development", "false");
        start(out, REQ, "req:site", "name", site.name(), "base", site.prefix());
        for (Map.Entry<String, String> p : site.params().entrySet()) leaf(out, "param", p.getValue(), "name", p.getKey());
        end(out, REQ, "req:site");
        start(out, REQ, "req:path", "value", sitePath);
        for (String segment : sitePath.split("/")) if (!segment.isEmpty()) leaf(out, "segment", segment);
        end(out, REQ, "req:path");
        start(out, REQ, "req:route", "name", site.route(), "pattern", site.pattern());
        for (Map.Entry<String, String> v : variables.entrySet()) leaf(out, "variable", v.getValue(), "name", v.getKey());
        end(out, REQ, "req:route");
        leaf(out, "parameters", "");
        start(out, REQ, "req:headers");
        leaf(out, "header", "127.0.0.1:18082", "name", "host");
        leaf(out, "header", "*/*", "name", "accept");
        end(out, REQ, "req:headers");
        leaf(out, "cookies", "");
        // ContentPeek's message, then ContentFetch's entry, expanded as the route asks.
        out.startPrefixMapping("msg", MSG);
        boolean exists = Files.isRegularFile(content.resolve(resource.substring(1) + ".atom"));
        List<String> peek = new ArrayList<>(List.of("name", "content-peek", "path", resource, "kind", exists ? "store" : "none"));
        if (site.expand() != null && !site.expand().isEmpty()) peek.addAll(List.of("expand", site.expand()));
        start(out, MSG, "msg:attribute", peek.toArray(String[]::new));
        end(out, MSG, "msg:attribute");
        if (exists && site.fetch()) {
            start(out, MSG, "msg:attribute", "name", "content", "path", resource);
            try (ContentView view = new ContentView(content, processor)) {
                Expansion.write(view, processor.getUnderlyingConfiguration(), ResourcePath.of(resource), options(site.expand()), out);
            }
            end(out, MSG, "msg:attribute");
        }
        out.endPrefixMapping("msg");
        end(out, REQ, "req:request");
        out.endPrefixMapping("req");
        out.endDocument();
        return out.getDocumentNode();
    }

    private static Expansion.Options options(String query) {
        Map<String, String[]> values = new HashMap<>();
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.isBlank()) continue;
                int eq = pair.indexOf('=');
                values.put(eq < 0 ? pair : pair.substring(0, eq), new String[] {eq < 0 ? "" : pair.substring(eq + 1)});
            }
        }
        return values.isEmpty() ? Expansion.Options.NONE : Expansion.Options.parse(values::get);
    }

    private static void start(org.xml.sax.ContentHandler out, String ns, String qname, String... nameValues) throws org.xml.sax.SAXException {
        AttributesImpl a = new AttributesImpl();
        for (int i = 0; i < nameValues.length; i += 2) a.addAttribute("", nameValues[i], nameValues[i], "CDATA", nameValues[i + 1]);
        out.startElement(ns, qname.substring(qname.indexOf(':') + 1), qname, a);
    }

    private static void end(org.xml.sax.ContentHandler out, String ns, String qname) throws org.xml.sax.SAXException {
        out.endElement(ns, qname.substring(qname.indexOf(':') + 1), qname);
    }

    private static void leaf(org.xml.sax.ContentHandler out, String local, String text, String... nameValues) throws org.xml.sax.SAXException {
        start(out, REQ, "req:" + local, nameValues);
        if (!text.isEmpty()) out.characters(text.toCharArray(), 0, text.length());
        end(out, REQ, "req:" + local);
    }

    /**
     * From now on doc() opens the documents stored in {@code store} (the same paths, loaded from the
     * same content), one read view a page, as Arno's page path reads them: the stored tree's price
     * without HTTP or the pipeline.
     */
    void readFrom(arno.xml.DocumentStore store) {
        this.store = store;
    }

    /**
     * Builds one page into {@code out} (the HTML body's bytes) with a new transformer, as Arno's
     * XSLT stage does; returns the status rsp:response gave.
     */
    int render(Page page, OutputStream out) throws SaxonApiException {
        Xslt30Transformer t = page.site().executable().load30();
        if (page.site().mode() != null) t.setInitialMode(page.site().mode());
        t.setResourceResolver(resolver);
        if (trace != null) t.setTraceListener(trace);
        Serializer s = processor.newSerializer(out);
        s.setOutputProperty(Serializer.Property.METHOD, "html");
        s.setOutputProperty(Serializer.Property.HTML_VERSION, "5");
        s.setOutputProperty(Serializer.Property.ENCODING, "UTF-8");
        s.setOutputProperty(Serializer.Property.INDENT, "no");
        // The page opens its head with <meta charset="utf-8">, which Arno's HtmlWriter keeps alone;
        // Saxon would add a second declaration (http-equiv Content-Type) before it.
        s.setOutputProperty(Serializer.Property.INCLUDE_CONTENT_TYPE, "no");
        BodyOnly body = new BodyOnly(s);
        t.setGlobalContextItem(page.request(), true);
        if (store == null) {
            t.applyTemplates(page.request(), body);
            return body.status;
        }
        try (arno.xml.DocumentStore.View v = store.read()) {
            view = v;
            t.applyTemplates(page.request(), body);
            return body.status;
        } finally {
            view = null;
        }
    }

    /** doc('content:/P') is the pre-parsed document at P; anything else Saxon's default (which the pages never ask). */
    private final ResourceResolver resolver = request -> {
        String uri = request.uri;
        if (uri == null || !uri.startsWith("content:")) return null;
        String path = uri.substring("content:".length());
        if (view != null) return view.exists(path) ? view.document(path, processor.getUnderlyingConfiguration()).getRootNode() : null;
        TreeInfo tree = documents.get(path);
        return tree == null ? null : tree.getRootNode();
    };

    /** The rsp:body's content only, to Saxon's serializer; rsp:response's status is kept. */
    private static final class BodyOnly extends AbstractDestination {
        private final Serializer serializer;
        int status = 200;

        BodyOnly(Serializer serializer) {
            this.serializer = serializer;
        }

        @Override
        public Receiver getReceiver(PipelineConfiguration pipe, SerializationProperties params) throws SaxonApiException {
            return new ProxyReceiver(serializer.getReceiver(pipe, params)) {
                private int depth;
                /** The depth of rsp:body, or 0 outside it. */
                private int body;

                private boolean inside() {
                    return body > 0 && depth > body;
                }

                @Override
                public void startElement(NodeName name, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                                         Location location, int properties) throws XPathException {
                    depth++;
                    if (inside()) {
                        NamespaceMap ns = namespaces;
                        for (NamespaceBinding nb : namespaces) {
                            if (nb.getNamespaceUri().toString().equals(RSP)) ns = ns.remove(nb.getPrefix());
                        }
                        super.startElement(name, type, attributes, ns, location, properties);
                    } else if (RSP.equals(name.getURI()) && name.getLocalPart().equals("response")) {
                        String s = attributes.getValue(NamespaceUri.NULL, "status");
                        if (s != null) status = Integer.parseInt(s);
                    } else if (RSP.equals(name.getURI()) && name.getLocalPart().equals("body")) {
                        body = depth;
                    }
                }

                @Override
                public void endElement() throws XPathException {
                    if (inside()) super.endElement();
                    else if (depth == body) body = 0;
                    depth--;
                }

                @Override
                public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
                    if (inside()) super.characters(chars, location, properties);
                }

                @Override
                public void processingInstruction(String target, UnicodeString data, Location location, int properties)
                        throws XPathException {
                    if (inside()) super.processingInstruction(target, data, location, properties);
                }

                @Override
                public void comment(UnicodeString chars, Location location, int properties) throws XPathException {
                    if (inside()) super.comment(chars, location, properties);
                }

                @Override
                public void append(Item item, Location location, int properties) throws XPathException {
                    if (inside()) super.append(item, location, properties);
                }
            };
        }

        @Override
        public void close() throws SaxonApiException {
            serializer.close();
        }
    }

    /** The content folder as a store view, for {@link Expansion} (what ContentFetch reads when the peek says file). */
    private static final class ContentView implements DocumentStore.View {
        private final Path content;
        private final Processor processor;

        ContentView(Path content, Processor processor) {
            this.content = content;
            this.processor = processor;
        }

        @Override
        public long version() {
            return 0;
        }

        @Override
        public boolean exists(String path) {
            return Files.isRegularFile(content.resolve(path.substring(1)));
        }

        @Override
        public TreeInfo document(String path, net.sf.saxon.Configuration config) {
            try {
                return processor.newDocumentBuilder().build(content.resolve(path.substring(1)).toFile()).getUnderlyingNode().getTreeInfo();
            } catch (SaxonApiException e) {
                throw new IllegalStateException(path + ": " + e.getMessage(), e);
            }
        }

        @Override
        public List<String> uris(String prefix) {
            return List.of(); // with-ancestors reads no folder; with-descendants is no full-text route's
        }

        @Override
        public void close() {}
    }
}
