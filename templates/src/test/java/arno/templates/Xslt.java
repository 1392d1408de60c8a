package arno.templates;

import java.io.StringReader;
import java.nio.file.Path;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltPackage;

/** The shared packages compiled as the server compiles them, and the response schema. */
final class Xslt {
  static final Path XSL = Path.of("xsl");
  static final Path SCHEMAS = Path.of("../pipeline/src/main/resources/arno/schema");
  static final Processor SAXON = new Processor(false);
  static final XsltPackage RESPONSE;
  static final XsltPackage ERROR;

  static {
    try {
      RESPONSE = SAXON.newXsltCompiler().compilePackage(XSL.resolve("response.xsl").toFile());
      ERROR = compiler().compilePackage(XSL.resolve("error.xsl").toFile());
    } catch (SaxonApiException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private Xslt() {}

  /** A compiler with the shared packages imported, as every site's compiler is. */
  static XsltCompiler compiler() throws SaxonApiException {
    XsltCompiler c = SAXON.newXsltCompiler();
    c.importPackage(RESPONSE);
    if (ERROR != null) {
      c.importPackage(ERROR);
    }
    return c;
  }

  static XdmNode parse(String xml) throws SaxonApiException {
    return SAXON.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
  }

  /** Validates against response.xsd; throws with the schema's message if it does not conform. */
  static void validateResponse(XdmNode node) throws Exception {
    Schema schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
        .newSchema(SCHEMAS.resolve("response.xsd").toFile());
    schema.newValidator().validate(new StreamSource(new StringReader(node.toString())));
  }
}
