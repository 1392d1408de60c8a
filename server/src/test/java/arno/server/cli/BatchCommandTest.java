package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.batch.BatchOptions;
import arno.batch.BatchService;
import arno.server.Main;
import arno.testkit.EmbeddedTomcat;
import arno.xml.Outbound;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ./arno batch ... through {@link Main#run} against a real batch service on the test kit's embedded Tomcat: output and exit statuses. */
class BatchCommandTest {
    static final String ACCOUNT = "tester:secret-password";
    static final String STYLESHEET = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/">
                <xsl:if test="not(article/title)"><xsl:message terminate="yes">no title</xsl:message></xsl:if>
                <entry><xsl:value-of select="article/title"/></entry>
              </xsl:template>
            </xsl:stylesheet>""";

    @TempDir static Path tmp;
    static Path root;
    static EmbeddedTomcat tomcat;
    static BatchService service;
    static String server;

    @BeforeAll static void start() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        BatchOptions options = BatchOptions.builder(tmp.resolve("work")).roots(List.of(root)).workers(2)
                .outbound(Outbound.Policy.DEFAULT).build();
        BatchService.addAccount(options, "tester", "secret-password");
        service = BatchService.start(options);
        tomcat = EmbeddedTomcat.builder().mount(ctx -> service.endpoint().mount(ctx, "batch", "/batch/*")).start();
        server = tomcat.url("");

        Files.writeString(root.resolve("entry.xsl"), STYLESHEET);
        Files.writeString(root.resolve("broken.xsl"), "<xsl:stylesheet version=\"3.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">\n"
                + "  <xsl:template match=\"/\"><xsl:value-of select=\"1 +\"/></xsl:template>\n</xsl:stylesheet>");
        Files.writeString(root.resolve("a1.xml"), "<article><title>One</title></article>");
        Files.writeString(root.resolve("untitled.xml"), "<article/>");
        Files.writeString(root.resolve("good.batch.xml"), batch("entry.xsl", "a1"));
        Files.writeString(root.resolve("bad.batch.xml"), batch("entry.xsl", "a1", "untitled"));
        Files.writeString(root.resolve("broken.batch.xml"), batch("broken.xsl", "a1"));
        Files.writeString(root.resolve("malformed.batch.xml"), "<batch xmlns=\"urn:arno:batch\">\n<stylesheet>\n</batch>");
    }

    @AfterAll static void stop() throws Exception {
        tomcat.close();
        service.close();
    }

    static String batch(String stylesheet, String... inputs) {
        StringBuilder s = new StringBuilder("<batch xmlns=\"urn:arno:batch\">\n  <stylesheet href=\"" + stylesheet + "\"/>\n");
        for (String i : inputs) s.append("  <input href=\"").append(i).append(".xml\" output=\"out/").append(i).append(".xml\"/>\n");
        return s.append("</batch>\n").toString();
    }

    record Run(int code, String out, String err) {}

    static Run arno(String... args) {
        List<String> all = new ArrayList<>(List.of("batch"));
        all.addAll(List.of(args));
        if (all.size() > 1 && !all.contains("--server") && !all.contains("--help")) {
            all.add("--server");
            all.add(server);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test void submitWaitShowsProgressAndExitsZeroWhenAllSucceed() {
        Run r = arno("submit", root.resolve("good.batch.xml").toString(), "--user", ACCOUNT, "--wait");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains(server + "/batch/jobs/").contains("completed: 1 succeeded, 0 failed, 0 not run of 1");
        assertThat(r.err()).contains("[##############################] 100.0% 1/1 failed 0");
        assertThat(root.resolve("out/a1.xml")).content().contains("<entry>One</entry>");
    }

    @Test void aFailedTransformationExitsOneAndStatusAndReportShowIt() {
        Run r = arno("submit", root.resolve("bad.batch.xml").toString(), "--user", ACCOUNT, "--wait");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("failed: 1 succeeded, 1 failed");
        String job = r.out().lines().findFirst().orElseThrow();

        Run status = arno("status", job.substring(job.lastIndexOf('/') + 1), "--user", ACCOUNT);
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out()).contains("status    failed").contains("2 of 2 done").contains("report    " + job + "/report");

        Run report = arno("report", job, "--user", ACCOUNT);
        assertThat(report.out()).contains("<report").contains("code=\"transformation-error\"").contains("no title");
        Run html = arno("report", job, "--html", "--failed", "--user", ACCOUNT);
        assertThat(html.out()).startsWith("<!DOCTYPE html>").contains("untitled.xml").doesNotContain("a1.xml</td>");
    }

    @Test void aRefusedBatchPrintsWhatAndWhere() {
        Run malformed = arno("submit", root.resolve("malformed.batch.xml").toString(), "--user", ACCOUNT);
        assertThat(malformed.code()).isEqualTo(1);
        assertThat(malformed.err()).contains("error: batch document is not well-formed XML").contains("[malformed-xml]")
                .contains("malformed.batch.xml line 3 column");
    }

    @Test void aBatchThatFailedAtOncePrintsTheReasonsAndTheJobThatHoldsTheReport() {
        Run broken = arno("submit", root.resolve("broken.batch.xml").toString(), "--user", ACCOUNT);
        assertThat(broken.code()).isEqualTo(1);
        assertThat(broken.err()).contains("does not compile").contains("[stylesheet-error]").contains("broken.xsl line 2 column")
                .containsPattern("job " + server + "/batch/jobs/[0-9a-z-]+ holds the report: .*/report");
    }

    @Test void withoutAnAccountNothingIsShown() {
        Run list = arno("list");
        assertThat(list.code()).isEqualTo(1);
        assertThat(list.err()).contains("[unauthorized]").contains("--user");
        assertThat(arno("list", "--user", "tester:wrong-password").code()).isEqualTo(1);
    }

    @Test void listAndCancel() {
        Run submitted = arno("submit", root.resolve("good.batch.xml").toString(), "--user", ACCOUNT, "--wait");
        String job = submitted.out().lines().findFirst().orElseThrow();
        Run list = arno("list", "--user", ACCOUNT);
        assertThat(list.code()).isZero();
        assertThat(list.out()).contains(job.substring(job.lastIndexOf('/') + 1)).contains("completed");
        // a finished job cannot be cancelled: the server's conflict, exit 1
        Run cancel = arno("cancel", job, "--user", ACCOUNT);
        assertThat(cancel.code()).isEqualTo(1);
        assertThat(cancel.err()).contains("[conflict]").contains("already finished");
    }

    @Test void usageErrorsExitTwoWithTheCommandsUsage() {
        Run unknown = arno("frobnicate");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("frobnicate").contains("Usage: arno batch");
        Run missing = arno("submit");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("FILE").contains("Usage: arno batch submit");
        Run wrongOption = arno("status", "x", "--wait");
        assertThat(wrongOption.code()).isEqualTo(2);
        assertThat(wrongOption.err()).contains("--wait").contains("Usage: arno batch status");
        Run noFile = arno("submit", tmp.resolve("no-such.batch.xml").toString(), "--user", ACCOUNT);
        assertThat(noFile.code()).isEqualTo(2);
        assertThat(noFile.err()).startsWith("arno: no such file").doesNotContain("Exception");
        assertThat(arno().code()).isEqualTo(2);
    }

    @Test void anUnreachableServerExitsThree() {
        Run r = arno("status", "x", "--server", "http://127.0.0.1:1", "--user", ACCOUNT);
        assertThat(r.code()).isEqualTo(3);
        assertThat(r.err()).contains("cannot reach the batch service at http://127.0.0.1:1");
    }

    @Test void everyCommandHasHelpWithAnExample() {
        for (String command : new String[] {"submit", "status", "report", "list", "cancel"}) {
            Run help = arno(command, "--help");
            assertThat(help.code()).as(command).isZero();
            assertThat(help.out()).as(command).contains("Usage: arno batch " + command).contains("Example:").contains("--server");
        }
        Run help = arno("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("submit").contains("Exit status");
    }
}
