package arno.templates;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** error.xsl as the server runs it for sites without an error template: compiled alone, default mode. */
class ErrorPageTest {
  private static XsltExecutable errorPage;

  @BeforeAll
  static void compile() throws SaxonApiException {
    errorPage = Xslt.compiler().compile(new StreamSource(Xslt.XSL.resolve("error.xsl").toFile()));
  }

  static String request(boolean development, String error) {
    return """
        <req:request xmlns:req="urn:arno:request" xmlns:msg="urn:arno:message" xmlns:err="urn:arno:error"
            id="r1" method="GET" scheme="http" host="localhost" port="8080" protocol="HTTP/1.1"
            remote-address="127.0.0.1" time="2024-01-01T00:00:00Z" url="http://localhost:8080/journal-a/v1/i1"
            development="%s">
          <req:site name="journal-a" base="/journal-a"/>
          <req:path value="/v1/i1"><req:segment>v1</req:segment><req:segment>i1</req:segment></req:path>
          <req:parameters/><req:headers/><req:cookies/>
          <msg:attribute name="error">%s</msg:attribute>
        </req:request>""".formatted(development, error);
  }

  /** Runs the page the way the server chains stages: input events into asDocumentDestination. */
  static XdmNode render(String request) throws SaxonApiException {
    Xslt30Transformer t = errorPage.load30();
    XdmDestination out = new XdmDestination();
    Xslt.SAXON.writeXdmValue(Xslt.parse(request), t.asDocumentDestination(out));
    return out.getXdmNode();
  }

  private static String xpath(XdmNode node, String expression) throws SaxonApiException {
    XPathCompiler x = Xslt.SAXON.newXPathCompiler();
    x.declareNamespace("rsp", "urn:arno:response");
    return x.evaluate(expression, node).toString();
  }

  private static final String FAILURE = """
      <err:error code="stage-error" status="500" id="E-42" processor-code="XTDE0640">
        <err:message>Circular definition of $x</err:message>
        <err:location uri="file:/sites/journal-a/site.xsl" line="12" column="5" route="article" stage="2" step="xslt site.xsl mode article"/>
        <err:detail code="XTDE0640" severity="error"><err:message>Circular definition</err:message>
          <err:location uri="file:/sites/journal-a/site.xsl" line="12" column="5"/></err:detail>
      </err:error>""";

  @Test
  void developmentShowsEveryDetail() throws Exception {
    XdmNode page = render(request(true, FAILURE));
    Xslt.validateResponse(page);
    assertThat(xpath(page, "string(/rsp:response/@status)")).isEqualTo("500");
    assertThat(xpath(page, "string(//h1)")).isEqualTo("500 Internal error");
    assertThat(xpath(page, "string-join(//dl/dt, ',')")).isEqualTo("URL,code,processor-code,uri,line,column,route,stage,step");
    assertThat(xpath(page, "string(//dd[preceding-sibling::dt[1] = 'line'])")).isEqualTo("12");
    assertThat(xpath(page, "string(//dd[preceding-sibling::dt[1] = 'code'])")).isEqualTo("stage-error");
    assertThat(xpath(page, "string(//pre)")).isEqualTo("Circular definition of $x");
    assertThat(xpath(page, "string(//ul[@class='error-reasons']/li)"))
        .isEqualTo("file:/sites/journal-a/site.xsl line 12 column 5: XTDE0640 Circular definition");
    assertThat(xpath(page, "string(//*[@class='error-id'])")).contains("E-42");
  }

  @Test
  void productionShowsStatusMessageAndIdOnly() throws Exception {
    XdmNode page = render(request(false,
        "<err:error code=\"busy\" status=\"503\" id=\"E-7\"><err:message>Service unavailable</err:message></err:error>"));
    Xslt.validateResponse(page);
    assertThat(xpath(page, "string(/rsp:response/@status)")).isEqualTo("503");
    assertThat(xpath(page, "exists(//section) or exists(//pre) or exists(//dl)")).isEqualTo("false");
    assertThat(xpath(page, "normalize-space(string-join(//body//text(), ' '))"))
        .isEqualTo("503 Service unavailable Service unavailable Error id: E-7");
  }

  @Test
  void aMissingOrOddStatusBecomes500() throws Exception {
    XdmNode page = render(request(false, "<err:error code=\"x\" status=\"abc\" id=\"E-9\"/>"));
    Xslt.validateResponse(page);
    assertThat(xpath(page, "string(/rsp:response/@status)")).isEqualTo("500");
    assertThat(xpath(page, "string(//p[@class='error-message'])")).isEqualTo("Internal error");
  }

  @Test
  void theHtmlCarriesNoNamespacesButArnos() throws Exception {
    XdmNode page = render(request(true, FAILURE));
    XPathCompiler x = Xslt.SAXON.newXPathCompiler();
    x.declareNamespace("rsp", "urn:arno:response");
    XdmNode html = (XdmNode) x.evaluateSingle("/rsp:response/rsp:body/*", page);
    StringWriter w = new StringWriter();
    Serializer s = Xslt.SAXON.newSerializer(w);
    s.setOutputProperty(Serializer.Property.METHOD, "html");
    s.setOutputProperty(Serializer.Property.HTML_VERSION, "5");
    s.serializeNode(html);
    // Arno's own namespaces are in scope (the response writer drops them); nothing else may leak.
    assertThat(w.toString()).startsWith("<!DOCTYPE HTML>");
    assertThat(java.util.regex.Pattern.compile("xmlns(:\\w+)?=\"([^\"]*)\"").matcher(w.toString()).results()
        .map(m -> m.group(2))).allMatch(uri -> uri.startsWith("urn:arno:"));
  }
}
