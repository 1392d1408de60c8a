package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import arno.xml.ErrorCode;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The err:error that error pages receive, taken from real failures (roots/errors: the error page
 * copies what it gets), is valid against arno/schema/error.xsd in development and production; a
 * compile error carries every compiler message as a detail with its own location.
 */
class ErrorDocumentTest {
    static final Path ROOT = Path.of("src/test/resources/roots/errors");
    static final Path BROKEN = Path.of("src/test/resources/roots/broken");

    static XdmNode error(Sites sites, HttpRequest request) throws Exception {
        XdmNode response = sites.exchange(request).respond();
        XdmNode e = (XdmNode) xpath(sites).evaluateSingle("/rsp:response/rsp:body/err:error", response);
        assertThat(e).as("err:error in " + response).isNotNull();
        Schema schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
                .newSchema(ErrorDocumentTest.class.getResource("/arno/schema/error.xsd"));
        schema.newValidator().validate(new StreamSource(new StringReader(e.toString())));
        return e;
    }

    static XPathCompiler xpath(Sites sites) {
        XPathCompiler x = sites.processor().newXPathCompiler();
        x.declareNamespace("rsp", "urn:arno:response");
        x.declareNamespace("err", "urn:arno:error");
        return x;
    }

    static String eval(Sites sites, XdmNode node, String expression) throws Exception {
        return xpath(sites).evaluate("string(" + expression + ")", node).toString();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void realErrorDocumentsAreValid(boolean development) throws Exception {
        Sites sites = Sites.compile(PipelineCasesTest.config(ROOT, development), null);
        for (String path : List.of("/e/fail", "/e/nothing", "/e/fail?x=%zz")) {
            error(sites, HttpRequest.builder("GET", path).build());
        }
        error(sites, HttpRequest.builder("GET", "/e/post").build());
        error(sites, HttpRequest.builder("POST", "/e/post").body("application/xml", "<a><b></a>").build());
        if (development) error(Sites.compile(PipelineCasesTest.config(BROKEN, true), null), HttpRequest.builder("GET", "/b/broken").build());
    }

    @Test
    void aRuntimeErrorNamesCodeLocationRouteAndStage() throws Exception {
        Sites sites = Sites.compile(PipelineCasesTest.config(ROOT, true), null);
        XdmNode e = error(sites, HttpRequest.builder("GET", "/e/fail").build());
        assertThat(eval(sites, e, "@code")).isEqualTo(ErrorCode.STAGE_ERROR.code());
        assertThat(eval(sites, e, "@status")).isEqualTo("500");
        assertThat(eval(sites, e, "@processor-code")).isEqualTo("Q{urn:test}boom");
        assertThat(eval(sites, e, "err:location/@uri")).endsWith("/sites/e/e.xsl");
        assertThat(eval(sites, e, "err:location/@line")).isEqualTo("5");
        assertThat(eval(sites, e, "err:location/@route")).isEqualTo("fail");
        assertThat(eval(sites, e, "err:location/@stage")).isEqualTo("1");
        assertThat(eval(sites, e, "err:location/@step")).isEqualTo("xslt e.xsl mode fail");
    }

    /** Each server keeps its own recent errors: two in one JVM do not see each other's. */
    @Test
    void recentErrorsAreTheirServersOwn() throws Exception {
        Sites failing = Sites.compile(PipelineCasesTest.config(ROOT, true), null);
        Sites quiet = Sites.compile(PipelineCasesTest.config(ROOT, true), null);
        error(failing, HttpRequest.builder("GET", "/e/fail").build());
        assertThat(failing.engine.recentErrors.newestFirst()).extracting(RecentErrors.Entry::route).containsExactly("fail");
        assertThat(quiet.engine.recentErrors.newestFirst()).isEmpty();
    }

    @Test
    void aCompileErrorCarriesEveryCompilerMessageWithItsLine() throws Exception {
        Sites sites = Sites.compile(PipelineCasesTest.config(BROKEN, true), null);
        XdmNode e = error(sites, HttpRequest.builder("GET", "/b/broken").build());
        assertThat(eval(sites, e, "@code")).isEqualTo(ErrorCode.COMPILE_ERROR.code());
        assertThat(eval(sites, e, "err:location/@line")).isEqualTo("5");
        assertThat(eval(sites, e, "string-join(err:detail[@severity = 'error']/err:location/@line, ',')")).isEqualTo("5,6");
        assertThat(eval(sites, e, "err:detail[2]/err:message")).contains("undeclared");
        assertThat(eval(sites, e, "err:detail[1]/@code")).isEqualTo("XPST0003");
    }

    @Test
    void inProductionACompileErrorStopsCompilationNamingFileLineAndReasons() {
        arno.xml.ArnoException e = org.junit.jupiter.api.Assertions.assertThrows(arno.xml.ArnoException.class,
                () -> Sites.compile(PipelineCasesTest.config(BROKEN, false), null));
        assertThat(e.code()).isEqualTo(ErrorCode.SITE_ERROR);
        assertThat(e.where().uri()).endsWith("broken.xsl");
        assertThat(e.where().line()).isEqualTo(5);
        assertThat(e.details()).filteredOn(d -> !d.warning()).extracting(d -> d.where().line()).containsExactly(5, 6);
        // What the log and the command line print: the summary, then each reason once.
        assertThat(e.describe()).contains("broken.xsl line 5").contains("XPST0003");
        assertThat(e.describe().split("XPST0003", -1)).hasSize(2);
    }

    @Test
    void inProductionAServerErrorKeepsItsInternalsInTheLog() throws Exception {
        Sites sites = Sites.compile(PipelineCasesTest.config(ROOT, false), null);
        XdmNode e = error(sites, HttpRequest.builder("GET", "/e/fail").build());
        assertThat(eval(sites, e, "err:message")).isEqualTo("Internal error");
        assertThat(eval(sites, e, "count((@processor-code, err:location, err:detail))")).isEqualTo("0");
        // A client error says what was wrong, in production too.
        XdmNode bad = error(sites, HttpRequest.builder("GET", "/e/fail?x=%zz").build());
        assertThat(eval(sites, bad, "@code")).isEqualTo("bad-request");
        assertThat(eval(sites, bad, "err:message")).contains("percent-encoding");
    }
}
