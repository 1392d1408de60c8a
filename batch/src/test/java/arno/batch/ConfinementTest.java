package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.xmlunit.assertj3.XmlAssert;

/**
 * Everything a stylesheet reads goes through the roots and the XML policy, at compile time, in
 * parameter expressions and at run time: each way of reading a file outside the root is refused
 * with a clear error in the answer or the report, and the secret never appears anywhere.
 */
class ConfinementTest {
    private static final String SECRET = "TOP-SECRET-7f3a";
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "err", "urn:arno:error");

    @TempDir static Path tmp;
    static TestServer server;
    static Path outside;

    @BeforeAll static void start() throws Exception {
        server = new TestServer(tmp);
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), SECRET);
        Files.writeString(outside.resolve("secret.xml"), "<s>" + SECRET + "</s>");
        Files.writeString(outside.resolve("secret.json"), "{\"s\": \"" + SECRET + "\"}");
        TestResources.write(server.root.resolve("in/a.xml"), TestResources.article("a1", "T", 1));
        // inside the root, but pulling a file from outside through an external entity
        TestResources.write(server.root.resolve("in/xxe.xml"), "<!DOCTYPE s [<!ENTITY x SYSTEM \""
                + outside.resolve("secret.txt").toUri() + "\">]><s>&x;</s>");
    }

    @AfterAll static void stop() {
        server.close();
    }

    private static String batch(String stylesheetBody, String extra) {
        return """
                <batch xmlns="urn:arno:batch" xml:base="%s">
                  <stylesheet>
                    <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                        xmlns:xs="http://www.w3.org/2001/XMLSchema" exclude-result-prefixes="xs">
                      %s
                    </xsl:stylesheet>
                  </stylesheet>
                  %s
                  <input href="a.xml" output="../out/%s.xml"/>
                </batch>""".formatted(server.root.resolve("in").toUri(), stylesheetBody, extra,
                Integer.toHexString(stylesheetBody.hashCode()));
    }

    private static String secret(String name) {
        return outside.resolve(name).toUri().toString();
    }

    @Test void aStaticVariableIsEvaluatedUnderTheRootsAtCompileTime() {
        HttpResponse<String> r = server.post(batch("""
                <xsl:variable name="s" static="yes" select="unparsed-text('%s')"/>
                <xsl:template match="/"><out><xsl:value-of select="$s"/></out></xsl:template>""".formatted(secret("secret.txt")), ""));
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("code=\"stylesheet-error\"").contains("outside the allowed folders").doesNotContain(SECRET);
    }

    @Test void aStaticVariableCannotReadEtcPasswdEither() {
        HttpResponse<String> r = server.post(batch("""
                <xsl:variable name="s" static="yes" select="unparsed-text('file:///etc/passwd')"/>
                <xsl:template match="/"><out><xsl:value-of select="$s"/></out></xsl:template>""", ""));
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("/etc/passwd").contains("outside the allowed folders").doesNotContain("root:");
    }

    @Test void aParameterExpressionIsEvaluatedUnderTheRoots() {
        HttpResponse<String> r = server.post(batch("<xsl:param name=\"p\"/><xsl:template match=\"/\"><out/></xsl:template>",
                "<param name=\"p\" select=\"unparsed-text('" + secret("secret.txt") + "')\"/>"));
        assertThat(r.statusCode()).isEqualTo(403);
        XmlAssert.assertThat(r.body()).withNamespaceContext(NS).valueByXPath("/err:error/@code").isEqualTo("outside-roots");
        XmlAssert.assertThat(r.body()).withNamespaceContext(NS).valueByXPath("/err:error/err:location/@line").isEqualTo(8);
        assertThat(r.body()).doesNotContain(SECRET);
    }

    static Stream<Arguments> runTimeReads() {
        return Stream.of(
                Arguments.of("unparsed-text", "<out><xsl:value-of select=\"unparsed-text('" + secret("secret.txt") + "')\"/></out>", "outside-roots"),
                Arguments.of("doc", "<out><xsl:copy-of select=\"doc('" + secret("secret.xml") + "')\"/></out>", "outside-roots"),
                Arguments.of("document", "<out><xsl:copy-of select=\"document('" + secret("secret.xml") + "')\"/></out>", "outside-roots"),
                Arguments.of("collection", "<out><xsl:copy-of select=\"collection('" + outside.toUri() + "')\"/></out>", "outside-roots"),
                Arguments.of("uri-collection", "<out><xsl:value-of select=\"uri-collection('" + outside.toUri() + "')\"/></out>", "outside-roots"),
                Arguments.of("etc", "<out><xsl:value-of select=\"uri-collection('file:///etc/?select=*')\"/></out>", "outside-roots"),
                Arguments.of("json-doc", "<out><xsl:value-of select=\"json-doc('" + secret("secret.json") + "')?s\"/></out>", "outside-roots"),
                Arguments.of("source-document", "<out><xsl:source-document streamable=\"no\" href=\"" + secret("secret.xml")
                        + "\"><xsl:copy-of select=\".\"/></xsl:source-document></out>", "outside-roots"),
                Arguments.of("doc-with-external-entity", "<out><xsl:copy-of select=\"doc('" + server.root.resolve("in/xxe.xml").toUri()
                        + "')\"/></out>", "refused-xml"),
                Arguments.of("result-document", "<xsl:result-document href=\"" + outside.resolve("written.xml").toUri()
                        + "\"><w/></xsl:result-document><out/>", "outside-roots"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runTimeReads")
    void aReadAtRunTimeIsRefusedInTheReport(String name, String template, String code) {
        String job = server.submit(batch("<xsl:template match=\"/\">" + template + "</xsl:template>", ""));
        String status = server.awaitFinished(job);
        assertThat(status).contains("failed=\"1\"");
        String report = server.get(job + "/report").body();
        XmlAssert.assertThat(report).withNamespaceContext(NS).valueByXPath("//b:transformation[@index='1']/err:error/@code")
                .as(report).isEqualTo(code);
        assertThat(report).doesNotContain(SECRET).doesNotContain("root:x:");
        assertThat(outside.resolve("written.xml")).doesNotExist();
    }
}
