package arno.sites;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.transform.Source;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XsltPackage;
import net.sf.saxon.trans.XPathException;

/**
 * The demo sites run as the server runs them, without the HTTP part: the shared packages
 * compiled once in the order of their xsl:use-package and imported into each site's compiler;
 * site.xml read for prefix, parameters, routes and error template; a path matched against the
 * routes in site.xml order; the req:request built for it streamed into the route's stylesheet in
 * the route's mode; {@code content:} URIs resolved over a generated content folder.
 */
final class SiteHarness {
  static final Path REPO = Path.of("..");
  static final List<Path> PACKAGE_FOLDERS = List.of(REPO.resolve("templates/xsl"), REPO.resolve("stylesheets/packages"));
  static final Path SITES = REPO.resolve("sites");
  static final Path SCHEMAS = REPO.resolve("pipeline/src/main/resources/arno/schema");
  private static final String XSL = "http://www.w3.org/1999/XSL/Transform";

  final Processor saxon = new Processor(false);
  final List<XsltPackage> packages;
  final Map<String, Site> sites = new LinkedHashMap<>();

  record Route(String name, String pattern, String xslt, String mode) {}

  record Site(String name, Path dir, String prefix, Map<String, String> params, List<Route> routes,
      String errorMode, XsltExecutable stylesheet) {}

  /** A rendered page: the rsp:response document and the route that produced it. */
  record Page(XdmNode response, String route) {}

  SiteHarness(Path content) throws Exception {
    saxon.getUnderlyingConfiguration().setResourceResolver(new ContentResolver(content));
    packages = compilePackages();
    try (Stream<Path> dirs = Files.list(SITES)) {
      for (Path dir : dirs.filter(d -> Files.isRegularFile(d.resolve("site.xml"))).sorted().toList()) {
        Site s = loadSite(dir);
        sites.put(s.name(), s);
      }
    }
  }

  /** content:/a/b is the file a/b under the content folder; nothing outside it. */
  static final class ContentResolver implements ResourceResolver {
    private final Path root;

    ContentResolver(Path root) {
      this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public Source resolve(ResourceRequest request) throws XPathException {
      if (request.uri == null || !request.uri.startsWith("content:")) {
        return null;
      }
      Path file = root.resolve(request.uri.substring("content:".length()).replaceFirst("^/+", "")).normalize();
      if (!file.startsWith(root) || !Files.isRegularFile(file)) {
        throw new XPathException("No content document at " + request.uri, "FODC0002");
      }
      // The bytes, not the file: with only a system id the parser would try to open content: itself.
      try {
        return new StreamSource(new java.io.ByteArrayInputStream(Files.readAllBytes(file)), request.uri);
      } catch (java.io.IOException e) {
        throw new XPathException("Cannot read " + request.uri + ": " + e.getMessage(), "FODC0002");
      }
    }
  }

  XPathCompiler xpath() {
    XPathCompiler x = saxon.newXPathCompiler();
    x.declareNamespace("xsl", XSL);
    x.declareNamespace("rsp", "urn:arno:response");
    x.declareNamespace("s", "urn:arno:site");
    x.declareNamespace("atom", "http://www.w3.org/2005/Atom");
    x.declareNamespace("prism", "http://prismstandard.org/namespaces/basic/2.0/");
    x.declareNamespace("svg", "http://www.w3.org/2000/svg");
    x.declareNamespace("xlink", "http://www.w3.org/1999/xlink");
    return x;
  }

  XdmValue eval(XdmNode context, String expression) throws SaxonApiException {
    return xpath().evaluate(expression, context);
  }

  String string(XdmNode context, String expression) throws SaxonApiException {
    XdmValue v = eval(context, expression);
    return v.size() == 0 ? "" : v.itemAt(0).getStringValue();
  }

  List<String> strings(XdmNode context, String expression) throws SaxonApiException {
    List<String> out = new ArrayList<>();
    for (XdmItem i : eval(context, expression)) {
      out.add(i.getStringValue());
    }
    return out;
  }

  XdmNode parse(Path file) throws SaxonApiException {
    return saxon.newDocumentBuilder().build(file.toFile());
  }

  XdmNode parse(String xml) throws SaxonApiException {
    return saxon.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
  }

  private List<XsltPackage> compilePackages() throws SaxonApiException {
    record Declared(String name, Path file, List<String> uses) {}
    List<Declared> pending = new ArrayList<>();
    for (Path folder : PACKAGE_FOLDERS) {
      try (Stream<Path> files = Files.walk(folder)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".xsl")).sorted().toList()) {
          XdmNode doc = parse(f);
          if (!string(doc, "namespace-uri(/*) || local-name(/*)").equals(XSL + "package")) {
            continue;
          }
          pending.add(new Declared(string(doc, "/*/@name"), f, strings(doc, "//xsl:use-package/@name")));
        }
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
    List<XsltPackage> done = new ArrayList<>();
    List<String> names = new ArrayList<>();
    while (!pending.isEmpty()) {
      Declared next = pending.stream().filter(d -> names.containsAll(d.uses())).findFirst()
          .orElseThrow(() -> new IllegalStateException("packages use each other in a cycle: " + pending));
      done.add(compiler(done).compilePackage(next.file().toFile()));
      names.add(next.name());
      pending.remove(next);
    }
    return List.copyOf(done);
  }

  private XsltCompiler compiler(List<XsltPackage> imported) throws SaxonApiException {
    XsltCompiler c = saxon.newXsltCompiler();
    for (XsltPackage p : imported) {
      c.importPackage(p);
    }
    return c;
  }

  private Site loadSite(Path dir) throws Exception {
    Path file = dir.resolve("site.xml");
    SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(SCHEMAS.resolve("site.xsd").toFile())
        .newValidator().validate(new StreamSource(file.toFile()));
    XdmNode site = parse(file);
    Map<String, String> params = new LinkedHashMap<>();
    for (XdmItem p : eval(site, "/s:site/s:param")) {
      params.put(((XdmNode) p).attribute("name"), p.getStringValue());
    }
    List<Route> routes = new ArrayList<>();
    for (XdmItem r : eval(site, "/s:site/s:route")) {
      XdmNode route = (XdmNode) r;
      routes.add(new Route(route.attribute("name"), route.attribute("pattern"),
          string(route, "s:template/@xslt"), string(route, "s:template/@mode")));
    }
    List<String> stylesheets = strings(site, "distinct-values(//@xslt)");
    if (stylesheets.size() != 1) {
      throw new IllegalStateException(file + ": the harness expects one stylesheet per site, not " + stylesheets);
    }
    XsltExecutable exe = compiler(packages).compile(new StreamSource(dir.resolve(stylesheets.get(0)).toFile()));
    return new Site(string(site, "/s:site/@name"), dir, string(site, "/s:site/s:prefix"), params, routes,
        string(site, "/s:site/s:error/@mode"), exe);
  }

  /** GET a path inside a site (no prefix), in production mode. */
  Page get(String siteName, String path) throws SaxonApiException {
    return get(siteName, path, false);
  }

  Page get(String siteName, String path, boolean development) throws SaxonApiException {
    Site site = sites.get(siteName);
    for (Route route : site.routes()) {
      Map<String, String> vars = match(route.pattern(), path);
      if (vars != null) {
        String request = request(site, path, route, vars, development, "");
        return new Page(run(site, route.mode(), request), route.name());
      }
    }
    return new Page(null, null);
  }

  /** The site's error template answering an error, as the server calls it. */
  XdmNode error(String siteName, String path, String errError, boolean development) throws SaxonApiException {
    Site site = sites.get(siteName);
    String extra = "<msg:attribute xmlns:msg=\"urn:arno:message\" xmlns:err=\"urn:arno:error\" name=\"error\">"
        + errError + "</msg:attribute>";
    return run(site, site.errorMode(), request(site, path, null, Map.of(), development, extra));
  }

  private XdmNode run(Site site, String mode, String request) throws SaxonApiException {
    Xslt30Transformer t = site.stylesheet().load30();
    t.setInitialMode(new QName(mode));
    XdmDestination out = new XdmDestination();
    try {
      requestSchema.newValidator().validate(new StreamSource(new StringReader(request)));
    } catch (org.xml.sax.SAXException | java.io.IOException e) {
      throw new IllegalStateException("the harness built an invalid req:request: " + e.getMessage() + "\n" + request, e);
    }
    saxon.writeXdmValue(parse(request), t.asDocumentDestination(out));
    return out.getXdmNode();
  }

  static Map<String, String> match(String pattern, String path) {
    String[] p = Stream.of(pattern.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
    String[] s = Stream.of(path.split("/")).filter(x -> !x.isEmpty()).toArray(String[]::new);
    if (p.length != s.length) {
      return null;
    }
    Map<String, String> vars = new LinkedHashMap<>();
    for (int i = 0; i < p.length; i++) {
      if (p[i].startsWith("{")) {
        vars.put(p[i].substring(1, p[i].length() - 1), s[i]);
      } else if (!p[i].equals(s[i])) {
        return null;
      }
    }
    return vars;
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace("\"", "&quot;");
  }

  private static String request(Site site, String path, Route route, Map<String, String> vars,
      boolean development, String extra) {
    StringBuilder b = new StringBuilder("<req:request xmlns:req=\"urn:arno:request\" id=\"t1\" method=\"GET\"")
        .append(" scheme=\"http\" host=\"localhost\" port=\"8080\" protocol=\"HTTP/1.1\" remote-address=\"127.0.0.1\"")
        .append(" time=\"2024-05-01T10:00:00Z\" url=\"http://localhost:8080").append(esc(site.prefix() + path))
        .append("\" development=\"").append(development).append("\">")
        .append("<req:site name=\"").append(site.name()).append("\" base=\"").append(esc(site.prefix())).append("\">");
    site.params().forEach((k, v) -> b.append("<req:param name=\"").append(k).append("\">").append(esc(v)).append("</req:param>"));
    b.append("</req:site><req:path value=\"").append(esc(path)).append("\">");
    for (String seg : path.split("/")) {
      if (!seg.isEmpty()) {
        b.append("<req:segment>").append(esc(seg)).append("</req:segment>");
      }
    }
    b.append("</req:path>");
    if (route != null) {
      b.append("<req:route name=\"").append(route.name()).append("\" pattern=\"").append(esc(route.pattern())).append("\">");
      vars.forEach((k, v) -> b.append("<req:variable name=\"").append(k).append("\">").append(esc(v)).append("</req:variable>"));
      b.append("</req:route>");
    }
    return b.append("<req:parameters/><req:headers><req:header name=\"accept\">text/html</req:header></req:headers>")
        .append("<req:cookies/>").append(extra).append("</req:request>").toString();
  }

  private final javax.xml.validation.Schema requestSchema = schema("request.xsd");
  private final javax.xml.validation.Schema responseSchema = schema("response.xsd");

  private static javax.xml.validation.Schema schema(String name) {
    try {
      return SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(SCHEMAS.resolve(name).toFile());
    } catch (org.xml.sax.SAXException e) {
      throw new IllegalStateException(name, e);
    }
  }

  /** Throws with the validator's message when the response does not conform to response.xsd. */
  void validateResponse(XdmNode response) throws Exception {
    responseSchema.newValidator().validate(new StreamSource(new StringReader(response.toString())));
  }
}
