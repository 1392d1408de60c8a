package arno.sites;

import arno.pipeline.Exchange;
import arno.pipeline.HttpRequest;
import arno.pipeline.PipelineConfig;
import arno.pipeline.Sites;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;

/**
 * The demo sites of this checkout compiled through the pipeline's public API ({@link Sites}), as
 * the server compiles them: the shared packages from templates/xsl and stylesheets/packages, the
 * sites from sites/, content from a generated folder, production mode. Pages are
 * {@link Exchange#respond()}ed as rsp:response trees; nothing here re-implements the pipeline.
 */
final class DemoSites {
  static final Path REPO = Path.of("..");
  private static final Schema RESPONSE = schema();

  final Sites sites;
  final Processor saxon;

  DemoSites(Path content) {
    PipelineConfig config = PipelineConfig.of(REPO.resolve("sites"), content)
        .withPackages(List.of(REPO.resolve("templates/xsl"), REPO.resolve("stylesheets/packages")), false)
        .withDevelopment(false);
    sites = Sites.compile(config, null);
    saxon = sites.processor();
  }

  /** The site's site.xml parameter {@code name}. */
  String param(String site, String name) throws SaxonApiException {
    XdmNode siteXml = parse(REPO.resolve("sites").resolve(site).resolve("site.xml"));
    return string(siteXml, "/s:site/s:param[@name = '" + name + "']/string()");
  }

  /** GET a path inside a site (no prefix): the exchange, already answered. */
  Exchange get(String site, String path) {
    Exchange x = sites.exchange(HttpRequest.builder("GET", "/" + site + path).header("Accept", "text/html").build());
    last = x.respond();
    return x;
  }

  /** The response of the last {@link #get}. */
  XdmNode last;

  /**
   * The site's error page answering {@code error} (an err:error element) for a GET of {@code path},
   * as the server calls it: req:request with msg:attribute name="error".
   */
  XdmNode errorPage(String site, String path, String error, boolean development) throws SaxonApiException {
    String prefix = "/" + site;
    String request = "<req:request xmlns:req='urn:arno:request' xmlns:msg='urn:arno:message' id='t1' method='GET'"
        + " scheme='http' host='localhost' port='80' protocol='HTTP/1.1' remote-address='127.0.0.1'"
        + " time='2026-01-01T00:00:00Z' url='http://localhost" + prefix + path + "' development='" + development + "'>"
        + "<req:site name='" + site + "' base='" + prefix + "'/><req:path value='" + path + "'/>"
        + "<req:parameters/><req:headers/><req:cookies/>"
        + "<msg:attribute name='error'>" + error + "</msg:attribute></req:request>";
    return sites.exchange(saxon.newDocumentBuilder().build(new StreamSource(new StringReader(request)))).respond();
  }

  XPathCompiler xpath() {
    XPathCompiler x = saxon.newXPathCompiler();
    x.declareNamespace("xsl", "http://www.w3.org/1999/XSL/Transform");
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
    for (XdmItem i : eval(context, expression)) out.add(i.getStringValue());
    return out;
  }

  XdmNode parse(Path file) throws SaxonApiException {
    return saxon.newDocumentBuilder().build(file.toFile());
  }

  private static Schema schema() {
    try {
      return SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
          .newSchema(DemoSites.class.getResource("/arno/schema/response.xsd"));
    } catch (org.xml.sax.SAXException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Throws with the validator's message when the response does not conform to response.xsd. */
  static void validateResponse(XdmNode response) throws Exception {
    RESPONSE.newValidator().validate(new StreamSource(new StringReader(response.toString())));
  }
}
