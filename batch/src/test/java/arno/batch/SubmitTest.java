package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Http;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad batch documents are refused with 400 naming what and where; nothing of them is kept. */
class SubmitTest {
    @TempDir static Path tmp;
    static TestServer server;

    @BeforeAll static void start() {
        server = new TestServer(tmp);
        TestResources.copy("article-to-entry.xsl", server.root);
    }

    @AfterAll static void stop() {
        server.close();
    }

    private static String batch(String body) {
        return "<batch xmlns=\"urn:arno:batch\">\n" + body + "\n</batch>";
    }

    @Test void malformedXmlIs400WithLineAndColumn() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\">\n  <input href=\"a.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("code=\"malformed-xml\"").contains("line=\"4\"").contains("column=\"");
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/xml");
    }

    @Test void schemaViolationIs400WithLineAndColumn() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>\n  <input href=\"a.xml\" outptu=\"b.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("code=\"invalid-xml\"").contains("outptu").contains("line=\"3\"");
    }

    @Test void aBatchWithoutInputsIsRefused() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("invalid-xml");
    }

    @Test void aPathThatEscapesItsRootIsRefused() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>\n"
                + "  <input href=\"in/a.xml\" output=\"out/a.xml\"/>\n  <input href=\"../../etc/passwd\" output=\"out/b.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("code=\"outside-roots\"").contains("line=\"4\"").contains("/etc/passwd");
    }

    @Test void anOutputOutsideTheRootsIsRefused() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>\n"
                + "  <input href=\"in/a.xml\" output=\"file:///tmp/elsewhere.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("outside-roots").contains("line=\"3\"");
    }

    @Test void aSymbolicLinkOutOfTheRootIsRefused() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.xml"), "<secret/>");
        Files.createSymbolicLink(server.root.resolve("link"), outside);
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>\n"
                + "  <input href=\"link/secret.xml\" output=\"out/s.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("outside-roots");
    }

    @Test void anEntityBombIsRefusedAtItsDeclarationByTheOnePolicy() {
        String laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE batch [<!ENTITY a \"aaaaaaaaaa\">"
                + "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">"
                + "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\"><!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">]>\n"
                + batch("<stylesheet href=\"article-to-entry.xsl\"/><param name=\"feed\">&e;&e;&e;&e;</param><input href=\"a.xml\"/>");
        long t0 = System.nanoTime();
        HttpResponse<String> r = server.post(laughs);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("refused-xml").contains("entity e would need more than").contains("line=\"2\"");
        assertThat(System.nanoTime() - t0).isLessThan(5_000_000_000L);
    }

    @Test void aDoctypeThatOnlyNamesADtdIsAcceptedAsEverywhere() {
        String jats = "<?xml version=\"1.0\"?>\n<!DOCTYPE batch PUBLIC \"-//EXAMPLE//DTD batch//EN\" \"http://127.0.0.1:1/batch.dtd\">\n"
                + batch("<stylesheet href=\"article-to-entry.xsl\"/><input href=\"in/none.xml\"/>");
        HttpResponse<String> r = server.post(jats);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }

    @Test void aBadParameterExpressionNamesItsLine() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>\n"
                + "  <param name=\"categories\" select=\"('a', \"/>\n  <input href=\"in/a.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("bad-parameter").contains("line=\"3\"").contains("categories");
    }

    @Test void anUnsupportedSchemeIsRefused() {
        HttpResponse<String> r = server.post(batch("  <stylesheet href=\"article-to-entry.xsl\"/>\n"
                + "  <input href=\"ftp://example.org/a.xml\"/>"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("unsupported-uri").contains("ftp://example.org/a.xml");
    }

    @Test void nonXmlContentIs415() {
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.url("/batch/jobs")))
                .header("Content-Type", "application/json")
                .header("Authorization", Http.basic(TestServer.USER + ":" + TestServer.PASSWORD))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build();
        assertThat(server.send(request).statusCode()).isEqualTo(415);
    }

    @Test void refusedBatchesLeaveNoJob() {
        long before = server.get("/batch/jobs").body().split("<job ").length;
        assertThat(server.post(batch("<oops")).statusCode()).isEqualTo(400);
        assertThat(server.get("/batch/jobs").body().split("<job ").length).isEqualTo(before);
    }

    @Test void theSchemaIsServed() {
        HttpResponse<String> r = server.get("/batch/schema", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("targetNamespace=\"urn:arno:batch\"");
    }

    @Test void unknownJobIs404() {
        HttpResponse<String> r = server.get("/batch/jobs/19990101-000000-zzzz");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).contains("code=\"not-found\"").contains("19990101-000000-zzzz");
    }
}
