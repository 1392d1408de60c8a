package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stylesheets: compiled once per identity and content; a bad one fails the job at once with the compiler's messages. */
class StylesheetTest {
    @TempDir static Path tmp;
    static TestServer server;

    @BeforeAll static void start() {
        server = new TestServer(tmp);
        TestResources.copy("broken.xsl", server.root.resolve("xsl"));
        TestResources.write(server.root.resolve("in/a1.xml"), TestResources.article("a1", "T", 1));
    }

    @AfterAll static void stop() {
        server.close();
    }

    private static String batch(String stylesheet) {
        return "<batch xmlns=\"urn:arno:batch\">\n  <stylesheet href=\"" + stylesheet + "\"/>\n"
                + "  <input href=\"in/a1.xml\" output=\"out/a1.xml\"/>\n</batch>";
    }

    @Test void anUncompilableStylesheetFailsTheJobAtOnceWithEveryCompilerMessage() {
        HttpResponse<String> r = server.post(batch("xsl/broken.xsl").replace("out/a1.xml", "out/broken.xml"));
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("code=\"stylesheet-error\"").contains("does not compile: 2 errors");
        // each message with the stylesheet, line and column
        var err = org.xmlunit.assertj3.XmlAssert.assertThat(r.body()).withNamespaceContext(java.util.Map.of("err", "urn:arno:error"));
        err.valueByXPath("//err:detail[contains(@code, 'XPST0003')]/err:location[contains(@uri, 'broken.xsl')]/@line").isEqualTo(4);
        err.valueByXPath("//err:detail[contains(@code, 'XTSE0010')]/err:location[contains(@uri, 'broken.xsl')]/@line").isEqualTo(7);
        // and the job that holds the report, in the answer as in Location
        err.valueByXPath("/err:error/*[local-name() = 'job']/@href").isEqualTo(r.headers().firstValue("Location").orElseThrow());
        // the failed job exists, with the messages in its report
        String job = r.headers().firstValue("Location").orElseThrow();
        String status = server.get(job).body();
        assertThat(TestServer.status(status)).isEqualTo("failed");
        assertThat(status).contains("not-run=\"1\"").contains("<failure>");
        assertThat(server.get(job + "/report").body()).contains("code=\"stylesheet-error\"").contains("XTSE0010");
        assertThat(server.root.resolve("out/broken.xml")).doesNotExist();
    }

    @Test void anUnknownStylesheetIs422NamingIt() {
        HttpResponse<String> r = server.post(batch("xsl/nowhere.xsl"));
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("stylesheet-not-found").contains("nowhere.xsl").contains("does not exist");
    }

    @Test void aMissingRequiredParameterFailsTheJobAtOnce() {
        TestResources.write(server.root.resolve("xsl/required.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:param name="issue" required="yes"/>
                  <xsl:template match="/"><out issue="{$issue}"/></xsl:template>
                </xsl:stylesheet>""");
        HttpResponse<String> r = server.post(batch("xsl/required.xsl"));
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("missing-parameter").contains("requires parameter issue");
    }

    @Test void aStylesheetIsCompiledOnceAndAgainWhenAModuleItUsesChanges() {
        TestResources.write(server.root.resolve("xsl/main.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:include href="part.xsl"/>
                  <xsl:template match="/"><out><xsl:call-template name="part"/></out></xsl:template>
                </xsl:stylesheet>""");
        writePart("one");
        StylesheetCache cache = server.service.engine().cache();
        int before = cache.compilations();
        server.awaitFinished(server.submit(batch("xsl/main.xsl")));
        server.awaitFinished(server.submit(batch("xsl/main.xsl")));
        assertThat(cache.compilations() - before).isEqualTo(1);
        assertThat(server.root.resolve("out/a1.xml")).content().contains("one");

        writePart("two");
        server.awaitFinished(server.submit(batch("xsl/main.xsl")));
        assertThat(cache.compilations() - before).isEqualTo(2);
        assertThat(server.root.resolve("out/a1.xml")).content().contains("two");
    }

    private static void writePart(String text) {
        TestResources.write(server.root.resolve("xsl/part.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:template name="part">%s</xsl:template>
                </xsl:stylesheet>""".formatted(text));
    }
}
