package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/** The errors of a real report and of real answers are the one err:error: valid against arno/schema/error.xsd. */
class ErrorShapeTest {
    @TempDir static Path tmp;
    static TestServer server;
    static Schema schema;

    @BeforeAll static void start() throws Exception {
        server = new TestServer(tmp);
        TestResources.copy("article-to-entry.xsl", server.root.resolve("xsl"));
        TestResources.copy("broken.xsl", server.root.resolve("xsl"));
        TestResources.write(server.root.resolve("in/untitled.xml"), TestResources.article("a7", null, 1));
        TestResources.write(server.root.resolve("in/broken.xml"), "<article id=\"a8\"><title>x</titl></article>");
        var url = ErrorShapeTest.class.getResource("/arno/schema/error.xsd");
        schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(new StreamSource(url.openStream(), url.toString()));
    }

    @AfterAll static void stop() {
        server.close();
    }

    /** Every err:error in the document, each validated on its own; returns how many there were. */
    private static int validateErrors(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        NodeList errors = f.newDocumentBuilder().parse(new InputSource(new StringReader(xml)))
                .getElementsByTagNameNS("urn:arno:error", "error");
        List<Element> all = new ArrayList<>();
        for (int i = 0; i < errors.getLength(); i++) all.add((Element) errors.item(i));
        for (Element e : all) schema.newValidator().validate(new DOMSource(e));
        return all.size();
    }

    @Test void aReportsErrorsAreValid() throws Exception {
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" parallelism="1">
                  <stylesheet href="xsl/article-to-entry.xsl"/>
                  <input href="in/untitled.xml" output="out/u.atom"/>
                  <input href="in/broken.xml" output="out/b.atom"/>
                  <input href="in/missing.xml" output="out/m.atom"/>
                </batch>""");
        server.awaitFinished(job);
        assertThat(validateErrors(server.get(job + "/report").body())).isEqualTo(3);
    }

    @Test void aFailedAtOnceAnswerAndItsReportAreValid() throws Exception {
        HttpResponse<String> r = server.post("""
                <batch xmlns="urn:arno:batch">
                  <stylesheet href="xsl/broken.xsl"/>
                  <input href="in/untitled.xml"/>
                </batch>""");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(validateErrors(r.body())).isEqualTo(1);
        assertThat(validateErrors(server.get(r.headers().firstValue("Location").orElseThrow() + "/report").body())).isEqualTo(1);
    }

    @Test void refusalsAreValid() throws Exception {
        assertThat(validateErrors(server.post("<batch xmlns=\"urn:arno:batch\"><oops").body())).isEqualTo(1);
        assertThat(validateErrors(server.get("/batch/jobs/19990101-000000-zzzz").body())).isEqualTo(1);
        assertThat(validateErrors(server.get("/batch/jobs", null).body())).isEqualTo(1);
    }
}
