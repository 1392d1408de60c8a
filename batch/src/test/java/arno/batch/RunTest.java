package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/** Batches that run: outputs, parameters, messages, result documents, failures, HTTP in and out. */
class RunTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "a", "http://www.w3.org/2005/Atom", "err", "urn:arno:error");

    @TempDir static Path tmp;
    static TestServer server;

    @BeforeAll static void start() {
        server = new TestServer(tmp);
        TestResources.copy("article-to-entry.xsl", server.root.resolve("xsl"));
        for (int i = 1; i <= 6; i++) {
            TestResources.write(server.root.resolve("in/a" + i + ".xml"), TestResources.article("a" + i, "Title " + i, i));
        }
        TestResources.write(server.root.resolve("in/untitled.xml"), TestResources.article("a7", null, 1));
        TestResources.write(server.root.resolve("in/broken.xml"), "<article id=\"a8\"><title>x</titl></article>");
    }

    private static XmlAssert xml(String document) {
        return XmlAssert.assertThat(document).withNamespaceContext(NS);
    }

    @AfterAll static void stop() {
        server.close();
    }

    @Test void everyInputIsTransformedWithTheParametersAppliedUniformly() throws Exception {
        StringBuilder inputs = new StringBuilder();
        for (int i = 1; i <= 6; i++) inputs.append("  <input href=\"in/a").append(i).append(".xml\" output=\"out1/a").append(i).append(".atom\"/>\n");
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" name="six articles" parallelism="2">
                  <stylesheet href="xsl/article-to-entry.xsl"/>
                  <param name="feed">urn:feed:test</param>
                  <param name="rights"><p xmlns="http://www.w3.org/1999/xhtml">© <b>Arno</b></p></param>
                  <param name="categories" select="('news', 'science')"/>
                  <param name="html" select="true()"/>
                """ + inputs + "</batch>");
        String status = server.awaitFinished(job);
        assertThat(TestServer.status(status)).isEqualTo("completed");
        assertThat(status).contains("total=\"6\"").contains("succeeded=\"6\"").contains("failed=\"0\"");

        String entry = Files.readString(server.root.resolve("out1/a3.atom"));
        XmlAssert.assertThat(entry).and("""
                <entry xmlns="http://www.w3.org/2005/Atom">
                  <id>urn:feed:test/a3</id><title>Title 3</title>
                  <category term="news"/><category term="science"/>
                  <rights type="xhtml"><p xmlns="http://www.w3.org/1999/xhtml">© <b>Arno</b></p></rights>
                  <summary>3 sections</summary>
                </entry>""").ignoreWhitespace().areSimilar();
        // xsl:result-document, resolved against the output, serialized as the instruction says
        assertThat(Files.readString(server.root.resolve("out1/a3.html"))).contains("<h1>Title 3</h1>").doesNotContain("<?xml");
        // no temporary files left behind
        try (var files = Files.list(server.root.resolve("out1"))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }

        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("count(/b:report/b:transformation)").isEqualTo(6);
        xml(report).valueByXPath("/b:report/b:totals/@succeeded").isEqualTo(6);
        // every xsl:message kept as XML, with its location and terminate flag
        xml(report).nodesByXPath("/b:report/b:transformation[@index='4']/b:message/a:checked[@id='a4']/a:sections[@count='4']")
                .exist();
        xml(report).valueByXPath("/b:report/b:transformation[@index='4']/b:message/@terminate")
                .isEqualTo("false");
        xml(report).valueByXPath("/b:report/b:transformation[@index='4']/b:message/@line")
                .isEqualTo("23");
        xml(report).valueByXPath("/b:report/b:transformation[@index='4']/b:message/@system-id")
                .asString().endsWith("xsl/article-to-entry.xsl");
        xml(report).nodesByXPath("/b:report/b:transformation[@index='2']/b:result-document[contains(@href, 'out1/a2.html')]")
                .exist();
        xml(report).nodesByXPath("/b:report/b:transformation[@start and @stop and @duration-ms]")
                .hasSize(6);
    }

    @Test void oneFailingInputDoesNotStopTheOthers() throws Exception {
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" parallelism="1">
                  <stylesheet href="xsl/article-to-entry.xsl"/>
                  <input href="in/a1.xml" output="out2/a1.atom"/>
                  <input href="in/untitled.xml" output="out2/untitled.atom"/>
                  <input href="in/broken.xml" output="out2/broken.atom"/>
                  <input href="in/missing.xml" output="out2/missing.atom"/>
                  <input href="in/a2.xml" output="out2/a2.atom"/>
                </batch>""");
        String status = server.awaitFinished(job);
        assertThat(TestServer.status(status)).isEqualTo("failed");
        assertThat(status).contains("succeeded=\"2\"").contains("failed=\"3\"");
        assertThat(server.root.resolve("out2/a1.atom")).exists();
        assertThat(server.root.resolve("out2/a2.atom")).exists();
        assertThat(server.root.resolve("out2/untitled.atom")).doesNotExist();
        assertThat(server.root.resolve("out2/broken.atom")).doesNotExist();

        String report = server.get(job + "/report").body();
        // xsl:message terminate="yes": the message with its content and flag, then the error
        xml(report).nodesByXPath("//b:transformation[@index='2']/b:message[@terminate='true']/a:missing[@what='title']")
                .exist();
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/@code").isEqualTo("transformation-error");
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/@processor-code")
                .isEqualTo("Q{urn:test}no-title");
        // a malformed input: its own file, line and column
        xml(report).valueByXPath("//b:transformation[@index='3']/err:error/@code")
                .isEqualTo("malformed-xml");
        xml(report).valueByXPath("//b:transformation[@index='3']/err:error/err:location/@line")
                .isEqualTo("1");
        xml(report).valueByXPath("//b:transformation[@index='3']/err:error/err:location/@uri")
                .asString().endsWith("in/broken.xml");
        xml(report).valueByXPath("//b:transformation[@index='4']/err:error/@code")
                .isEqualTo("input-unreadable");
        xml(report).valueByXPath("/b:report/b:totals/@failed").isEqualTo(3);
    }

    @Test void inputsOverHttpAndOutputsByPut() {
        String job = server.submit("""
                <batch xmlns="urn:arno:batch">
                  <stylesheet href="%s"/>
                  <input href="%s" output="%s"/>
                  <input href="%s" output="out3/a2.atom"/>
                </batch>""".formatted(server.url("/files/xsl/article-to-entry.xsl"), server.url("/files/in/a1.xml"),
                server.url("/files/put/a1.atom"), server.url("/files/in/nope.xml")));
        String status = server.awaitFinished(job);
        assertThat(status).contains("succeeded=\"1\"").contains("failed=\"1\"");
        assertThat(server.puts.get("/put/a1.atom")).contains("<title>Title 1</title>");
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/err:message")
                .asString().contains("HTTP 404");
    }

    @Test void relativeReferencesResolveAgainstContentLocation() {
        HttpResponse<String> r = server.post("""
                <batch xmlns="urn:arno:batch">
                  <stylesheet href="../xsl/article-to-entry.xsl"/>
                  <input href="a5.xml" output="../out4/a5.atom"/>
                </batch>""", TestServer.USER + ":" + TestServer.PASSWORD,
                server.root.resolve("in/batch.xml").toUri().toString());
        assertThat(r.statusCode()).isEqualTo(202);
        String job = r.headers().firstValue("Location").orElseThrow();
        server.awaitFinished(job);
        assertThat(server.root.resolve("out4/a5.atom")).exists();
    }

    @Test void inlineStylesheetsAndXmlBaseWork() {
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" xml:base="%s">
                  <stylesheet>
                    <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                      <xsl:param name="who" select="'nobody'"/>
                      <xsl:template match="/"><hello to="{$who}" title="{article/title}"/></xsl:template>
                    </xsl:stylesheet>
                  </stylesheet>
                  <param name="who" select="*/@name"><person name="Ada"/></param>
                  <input href="a6.xml" output="../out5/a6.xml"/>
                </batch>""".formatted(server.root.resolve("in").toUri()));
        assertThat(TestServer.status(server.awaitFinished(job))).isEqualTo("completed");
        assertThat(server.root.resolve("out5/a6.xml")).content().contains("to=\"Ada\"").contains("title=\"Title 6\"");
    }

    @Test void documentsTheStylesheetReadsAreConfinedToTheRootsToo() {
        Path outside = TestResources.write(tmp.resolve("outside.xml"), "<secret>outside the roots</secret>");
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" xml:base="%s">
                  <stylesheet>
                    <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                      <xsl:param name="other"/>
                      <xsl:template match="/"><read><xsl:copy-of select="doc($other)"/></read></xsl:template>
                    </xsl:stylesheet>
                  </stylesheet>
                  <param name="other">%s</param>
                  <input href="a6.xml" output="../out8/a6.xml"/>
                </batch>""".formatted(server.root.resolve("in").toUri(), outside.toUri()));
        String status = server.awaitFinished(job);
        assertThat(status).contains("failed=\"1\"");
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/@code").isEqualTo("outside-roots");
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/err:message").asString()
                .contains(outside.getFileName().toString()).contains("outside the allowed folders");
        assertThat(report).doesNotContain("outside the roots</secret>");
        assertThat(server.root.resolve("out8/a6.xml")).doesNotExist();
    }

    @Test void hostileInputsFailFastAndAloneWhileADoctypeWithAnExternalDtdStillParses() {
        String laughs = "<!DOCTYPE article [<!ENTITY a \"aaaaaaaaaa\">"
                + "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">"
                + "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\"><!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">"
                + "<!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">]>\n<article id=\"x\"><title>&f;&f;&f;</title></article>";
        TestResources.write(server.root.resolve("hostile/laughs.xml"), laughs);
        Path secret = TestResources.write(tmp.resolve("secret.txt"), "secret");
        TestResources.write(server.root.resolve("hostile/xxe.xml"), "<!DOCTYPE article [<!ENTITY s SYSTEM \""
                + secret.toUri() + "\">]>\n<article id=\"x\"><title>&s;</title></article>");
        TestResources.write(server.root.resolve("hostile/jats.xml"), "<!DOCTYPE article PUBLIC \"-//NLM//DTD JATS (Z39.96) "
                + "Journal Archiving and Interchange DTD v1.3 20210610//EN\" \"http://jats.nlm.nih.gov/archiving/1.3/"
                + "JATS-archivearticle1-3.dtd\">\n<article id=\"a9\"><title>With a DOCTYPE</title></article>");
        long t0 = System.nanoTime();
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" parallelism="1">
                  <stylesheet href="xsl/article-to-entry.xsl"/>
                  <input href="hostile/laughs.xml" output="out7/laughs.atom"/>
                  <input href="hostile/xxe.xml" output="out7/xxe.atom"/>
                  <input href="hostile/jats.xml" output="out7/jats.atom"/>
                </batch>""");
        String status = server.awaitFinished(job);
        assertThat(System.nanoTime() - t0).isLessThan(20_000_000_000L);
        assertThat(status).contains("succeeded=\"1\"").contains("failed=\"2\"");
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/@code").isEqualTo("refused-xml");
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/err:message").asString().contains("entit");
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/@code").isEqualTo("refused-xml");
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/err:message").asString().contains("external entity");
        assertThat(report).doesNotContain(">secret<");
        assertThat(server.root.resolve("out7/xxe.atom")).doesNotExist();
        assertThat(server.root.resolve("out7/jats.atom")).content().contains("With a DOCTYPE");
    }

    @Test void aHugeMessageIsKeptWholeThroughTheSpillFile() {
        String job = server.submit("""
                <batch xmlns="urn:arno:batch">
                  <stylesheet>
                    <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                      <xsl:template match="/">
                        <xsl:message><big><xsl:for-each select="1 to 40000"><i n="{.}"/></xsl:for-each></big></xsl:message>
                        <done/>
                      </xsl:template>
                    </xsl:stylesheet>
                  </stylesheet>
                  <input href="in/a1.xml" output="out8/a1.xml"/>
                </batch>""");
        server.awaitFinished(job);
        String report = server.get(job + "/report").body();
        assertThat(report.length()).isGreaterThan(SpillBuffer.LIMIT);
        xml(report).valueByXPath("count(//b:message/b:big/b:i)").isEqualTo(40000);
        assertThat(report).contains("<i n=\"40000\"/></big></message>");
    }

    @Test void theBatchAsSubmittedAndTheJobListAreReadable() {
        String job = server.submit("""
                <batch xmlns="urn:arno:batch" name="listed">
                  <stylesheet href="xsl/article-to-entry.xsl"/>
                  <input href="in/a1.xml" output="out6/a1.atom"/>
                </batch>""");
        server.awaitFinished(job);
        assertThat(server.get(job + "/batch").body()).contains("name=\"listed\"");
        assertThat(server.get("/batch/jobs").body()).contains("name=\"listed\"").contains(job);
    }
}
