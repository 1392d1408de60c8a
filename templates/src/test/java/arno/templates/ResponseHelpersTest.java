package arno.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ResponseHelpersTest {
  private static XsltExecutable helpers;

  @BeforeAll
  static void compile() throws SaxonApiException {
    helpers = Xslt.compiler().compile(
        new javax.xml.transform.stream.StreamSource(ResponseHelpersTest.class.getResource("helpers.xsl").toString()));
  }

  private static XdmNode call(String template) throws SaxonApiException {
    Xslt30Transformer t = helpers.load30();
    XdmDestination out = new XdmDestination();
    t.callTemplate(new QName(template), out);
    return out.getXdmNode();
  }

  private static String xpath(XdmNode node, String expression) throws SaxonApiException {
    XPathCompiler x = Xslt.SAXON.newXPathCompiler();
    x.declareNamespace("rsp", "urn:arno:response");
    return x.evaluate(expression, node).toString();
  }

  @Test
  void redirectCarriesStatusAndLocation() throws Exception {
    XdmNode r = call("redirect");
    Xslt.validateResponse(r);
    assertThat(xpath(r, "string(/rsp:response/@status)")).isEqualTo("301");
    assertThat(xpath(r, "string(/rsp:response/rsp:redirect/@location)")).isEqualTo("/journal-a/v1/");
  }

  @Test
  void redirectRefusesAStatusThatIsNotARedirect() {
    assertThatThrownBy(() -> call("bad-redirect"))
        .hasMessageContaining("status 200 is not a redirect").hasMessageContaining("/x");
  }

  @Test
  void jsonIsSerializedText() throws Exception {
    XdmNode r = call("json");
    Xslt.validateResponse(r);
    assertThat(xpath(r, "string(/rsp:response/rsp:body/@method)")).isEqualTo("json");
    String text = xpath(r, "string(/rsp:response/rsp:body)");
    assertThat(xpath(Xslt.parse("<x/>"), "let $m := parse-json('" + text.replace("'", "''") + "') "
        + "return $m?title || '|' || $m?n || '|' || string-join($m?list?*, ',')"))
        .isEqualTo("A <b> \"quoted\"|3|1,2");
  }

  @Test
  void headersAndValidatorsComeBeforeTheBody() throws Exception {
    XdmNode r = call("page");
    Xslt.validateResponse(r);
    assertThat(xpath(r, "string(/rsp:response/rsp:header[@name='Cache-Control'])")).isEqualTo("max-age=60");
    assertThat(xpath(r, "string(/rsp:response/rsp:validators/@last-modified)")).isEqualTo("2024-03-01T11:00:00Z");
    assertThat(xpath(r, "string(/rsp:response/rsp:validators/@etag)")).matches("\"[0-9a-z]+\"");
  }

  @Test
  void etagsAreStableAndTellPartsApart() throws Exception {
    XdmNode r = call("etags");
    assertThat(xpath(r, "/etags/a = /etags/b")).isEqualTo("true");
    assertThat(xpath(r, "count(distinct-values(/etags/(a, c, d)))")).isEqualTo("3");
  }

  @Test
  void notFoundWrapsADocument() throws Exception {
    XdmNode r = call("document");
    Xslt.validateResponse(r);
    assertThat(xpath(r, "string(/rsp:response/@status)")).isEqualTo("404");
    assertThat(xpath(r, "string(/rsp:response/rsp:body/html/head/title)")).isEqualTo("Gone");
    assertThat(xpath(r, "string(/rsp:response/rsp:body/html/body)")).isEqualTo("nothing here");
  }
}
