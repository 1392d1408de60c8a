package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/** A batch that names a Schematron schema: SVRL kept per input, findings aggregated per input and per rule. */
class SchematronTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "svrl", "http://purl.oclc.org/dsdl/svrl");

    @TempDir static Path tmp;
    static TestServer server;
    static String job;

    @BeforeAll static void run() {
        server = new TestServer(tmp);
        TestResources.copy("checks.sch", server.root.resolve("sch"));
        TestResources.write(server.root.resolve("in/good.xml"), TestResources.article("a1", "Fine", 2));
        TestResources.write(server.root.resolve("in/many.xml"), TestResources.article("a2", "Long", 4));
        TestResources.write(server.root.resolve("in/bad.xml"),
                "<article id=\"x9\"><sec><p>no title</p></sec><sec><title>t</title></sec></article>");
        job = server.submit("""
                <batch xmlns="urn:arno:batch" name="checks">
                  <schematron href="sch/checks.sch"/>
                  <input href="in/good.xml"/>
                  <input href="in/many.xml"/>
                  <input href="in/bad.xml" output="svrl-out/bad.svrl"/>
                </batch>""");
        server.awaitFinished(job);
    }

    @AfterAll static void stop() {
        server.close();
    }

    private static XmlAssert xml(String document) {
        return XmlAssert.assertThat(document).withNamespaceContext(NS);
    }

    @Test void everyInputIsCheckedAndItsSvrlKept() {
        String status = server.get(job).body();
        assertThat(TestServer.status(status)).isEqualTo("completed");
        assertThat(status).contains("kind=\"schematron\"").contains("succeeded=\"3\"");
        String svrl = server.get(job + "/svrl/3").body();
        xml(svrl).valueByXPath("count(//svrl:failed-assert)").isEqualTo(3);
        xml(svrl).nodesByXPath("//svrl:failed-assert[@id='sec-title']").exist();
        // and written to the output the batch named
        xml(svrl).and(server.root.resolve("svrl-out/bad.svrl").toFile()).ignoreWhitespace().areSimilar();
    }

    /** Issue 21: job folders, reports and SVRL were readable by every user of the machine under umask 022. */
    @Test void theJobsFolderIsReadableByItsOwnerOnly() {
        String id = job.substring(job.lastIndexOf('/') + 1);
        assertThat(arno.xml.OwnerOnlyFiles.assertOwnerOnly(server.work)).contains("jobs", "jobs/" + id,
                "jobs/" + id + "/" + Job.REPORT, "jobs/" + id + "/" + Job.STATE, "jobs/" + id + "/" + Job.SVRL + "/3.xml");
    }

    @Test void theReportHasTheFindingsPerInputAndASummaryPerRule() {
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("//b:transformation[@index='1']/b:svrl/@failed-asserts").isEqualTo(0);
        xml(report).valueByXPath("//b:transformation[@index='2']/b:svrl/@successful-reports").isEqualTo(1);
        xml(report).valueByXPath("//b:transformation[@index='2']/b:svrl/b:successful-report").isEqualTo("Article a2 has 4 sections.");
        xml(report).valueByXPath("//b:transformation[@index='3']/b:svrl/@failed-asserts").isEqualTo(3);
        xml(report).valueByXPath("//b:transformation[@index='3']/b:svrl/b:failed-assert[@id='id-form']/@pattern").isEqualTo("ids");
        xml(report).valueByXPath("//b:transformation[@index='3']/b:svrl/b:failed-assert[@id='sec-title']/@location")
                .isEqualTo("/Q{}article[1]/Q{}sec[1]");

        xml(report).valueByXPath("/b:report/b:schematron-summary/@failed-asserts").isEqualTo(3);
        xml(report).valueByXPath("/b:report/b:schematron-summary/@successful-reports").isEqualTo(1);
        // rule 'section' fired on 2 + 4 + 2 sections; its assert failed once, on one input
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='section']/@fired").isEqualTo(8);
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='section']/@failed-asserts").isEqualTo(1);
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='article']/@fired").isEqualTo(3);
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='article']/@failed-asserts").isEqualTo(1);
        xml(report).valueByXPath("/b:report/b:schematron-summary/b:rule[@id='article']/@inputs").isEqualTo(2);
    }

    @Test void theNamedPhasesAllAndDefaultCanBeAsked() {
        for (String phase : new String[] {"#ALL", "#DEFAULT"}) {
            String j = server.submit("""
                    <batch xmlns="urn:arno:batch">
                      <schematron href="sch/checks.sch" phase="%s"/>
                      <input href="in/bad.xml"/>
                    </batch>""".formatted(phase));
            String status = server.awaitFinished(j);
            assertThat(TestServer.status(status)).as(phase).isEqualTo("completed");
            // both mean every pattern: the section title and the id form are checked
            xml(server.get(j + "/report").body()).valueByXPath("//b:transformation/b:svrl/@failed-asserts").as(phase).isEqualTo(3);
        }
    }

    @Test void anUnknownPhaseFailsWithSchXsltsOwnReason() {
        HttpResponse<String> r = server.post("""
                <batch xmlns="urn:arno:batch">
                  <schematron href="sch/checks.sch" phase="nope"/>
                  <input href="in/good.xml"/>
                </batch>""", TestServer.USER + ":" + TestServer.PASSWORD, null);
        assertThat(r.statusCode()).isEqualTo(422);
        XmlAssert.assertThat(r.body()).withNamespaceContext(Map.of("err", "urn:arno:error"))
                .valueByXPath("/err:error/err:message").asString().contains("The phase 'nope' is not defined");
    }

    @Test void aSchemaSchXsltRefusesFailsWithItsReasonsNotJustWhereItStopped() {
        TestResources.write(server.root.resolve("sch/twice.sch"), """
                <schema xmlns="http://purl.oclc.org/dsdl/schematron" queryBinding="xslt2">
                  <let name="limit" value="3"/>
                  <let name="limit" value="4"/>
                  <pattern><rule context="article"><assert test="count(sec) le $limit">too many</assert></rule></pattern>
                </schema>""");
        HttpResponse<String> r = server.post("""
                <batch xmlns="urn:arno:batch">
                  <schematron href="sch/twice.sch"/>
                  <input href="in/good.xml"/>
                </batch>""", TestServer.USER + ":" + TestServer.PASSWORD, null);
        assertThat(r.statusCode()).isEqualTo(422);
        var err = XmlAssert.assertThat(r.body()).withNamespaceContext(Map.of("err", "urn:arno:error"));
        err.valueByXPath("/err:error/@code").isEqualTo("stylesheet-error");
        err.valueByXPath("/err:error/err:message").asString().contains("multiply defined").contains("limit");
        err.valueByXPath("/err:error/err:detail[1]/err:message").asString().contains("multiply defined").contains("limit");
        // and the job keeps it in its report
        String job = r.headers().firstValue("Location").orElseThrow();
        assertThat(server.get(job + "/report").body()).contains("multiply defined");
    }

    @Test void theHtmlViewShowsRulesAndFindings() {
        String html = server.get(job + "/report?format=html").body();
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<h2>Schematron rules</h2>")
                .contains("<td>section</td>").contains("assert failed [section]")
                .contains("Every section needs a title.");
        // written as well-formed markup, so it also reads as XML
        XmlAssert.assertThat(html.substring(html.indexOf("<html"))).nodesByXPath("//tr[@class='ok']").hasSize(3);
        String failedOnly = server.get(job + "/report?format=html&only=failed").body();
        assertThat(failedOnly).contains("Failed transformations").doesNotContain("<tr class=\"ok\"");
    }
}
