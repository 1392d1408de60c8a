package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.Serializer;
import org.junit.jupiter.api.Test;
import org.xmlunit.assertj3.XmlAssert;

/** err:error as both writers make it, against its schema and against a hand-written golden document. */
class ErrorXmlTest {
    private static final String GOLDEN = """
            <err:error xmlns:err="urn:arno:error" code="stage-error" status="500" id="E-1" processor-code="XTDE0640">
              <err:message>Stage 2 (xslt site.xsl) of route 'toc' failed: loop</err:message>
              <err:location uri="file:/s/site.xsl" line="12" column="5" route="toc" stage="2" step="xslt site.xsl"/>
              <err:detail code="XTSE0010" severity="error"><err:message>bad</err:message><err:location uri="file:/s/b.xsl" line="3"/></err:detail>
            </err:error>""";

    private static ArnoException sample() {
        return ErrorCode.STAGE_ERROR.error(2, "xslt site.xsl", "toc", "loop")
                .at(Where.at("file:/s/site.xsl", 12, 5).inStage("toc", 2, "xslt site.xsl"))
                .processorCode("XTDE0640")
                .detail(new ArnoException.Detail("XTSE0010", "bad", Where.at("file:/s/b.xsl", 3, -1), false));
    }

    @Test
    void streamingWriterMatchesGoldenAndSchema() throws Exception {
        byte[] xml = ErrorXml.toBytes(sample(), "E-1", true);
        XmlAssert.assertThat(new String(xml, StandardCharsets.UTF_8)).and(GOLDEN).ignoreWhitespace().areSimilar();
        validate(xml);
    }

    @Test
    void saxWriterMatchesTheStreamingOne() throws Exception {
        Processor p = new Processor(false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Serializer s = p.newSerializer(out);
        org.xml.sax.ContentHandler h = s.getContentHandler();
        h.startDocument();
        ErrorXml.write(h, sample(), "E-1", true);
        h.endDocument();
        XmlAssert.assertThat(out.toString(StandardCharsets.UTF_8)).and(GOLDEN).ignoreWhitespace().areSimilar();
        validate(out.toByteArray());
    }

    @Test
    void productionShowsNoInternalsOfServerErrors() throws Exception {
        byte[] xml = ErrorXml.toBytes(sample(), "E-1", false);
        XmlAssert.assertThat(new String(xml, StandardCharsets.UTF_8)).and("""
                <err:error xmlns:err="urn:arno:error" code="stage-error" status="500" id="E-1">
                  <err:message>Internal error</err:message></err:error>""").ignoreWhitespace().areSimilar();
        validate(xml);
        // A client's own mistake is shown whole even in production: it names nothing of the server.
        ArnoException bad = ErrorCode.MALFORMED_XML.error("request body", "oops").at(Where.at("request body", 1, 4));
        assertThat(new String(ErrorXml.toBytes(bad, null, false), StandardCharsets.UTF_8))
                .contains("oops").contains("line=\"1\"");
        // The cluster's database out of reach: a sentence to act on, and nothing of the cause (its host, its driver's words).
        ArnoException down = ErrorCode.DATABASE_UNAVAILABLE.error("Connection to 10.0.0.7:5432 refused");
        XmlAssert.assertThat(new String(ErrorXml.toBytes(down, "E-2", false), StandardCharsets.UTF_8)).and("""
                <err:error xmlns:err="urn:arno:error" code="database-unavailable" status="503" id="E-2">
                  <err:message>the cluster's database cannot take writes now, so nothing of this one was stored; reads go on; try the write again in a few seconds</err:message></err:error>""")
                .ignoreWhitespace().areSimilar();
    }

    @Test
    void writerReplacesWhatXmlCannotCarry() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        XmlWriter x = new XmlWriter(out);
        x.start("a").attr("v", "q\"<\n").text("x\u0001y\uD800z & \uD83D\uDE00").end().finish();
        String s = out.toString(StandardCharsets.UTF_8);
        assertThat(s).isEqualTo("<a v=\"q&quot;&lt;&#10;\">x\uFFFDy\uFFFDz &amp; \uD83D\uDE00</a>");
        // and it is well-formed
        new Processor(false).newDocumentBuilder().build(new StreamSource(new ByteArrayInputStream(out.toByteArray())));
    }

    @Test
    void whereReadsTheSameEverywhere() {
        assertThat(Where.at("f.xsl", 3, 7).toString()).isEqualTo("f.xsl line 3 column 7");
        assertThat(Where.at("f.xsl", 3, 7).inStage("toc", 2, "xslt f.xsl").toString())
                .isEqualTo("f.xsl line 3 column 7 (route toc, stage 2: xslt f.xsl)");
        assertThat(Where.NOWHERE.toString()).isEmpty();
        assertThat(sample().describe()).contains("(at file:/s/site.xsl line 12 column 5").contains("\n  file:/s/b.xsl line 3: XTSE0010 bad");
    }

    private static void validate(byte[] xml) throws Exception {
        SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        f.newSchema(ErrorXml.class.getResource("/arno/schema/error.xsd")).newValidator()
                .validate(new StreamSource(new ByteArrayInputStream(xml)));
    }
}
