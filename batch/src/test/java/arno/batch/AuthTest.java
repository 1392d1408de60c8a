package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Http;
import arno.xml.Accounts;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every request but the schema needs an account (HTTP Basic against the hashed users file): reports
 * name server paths, parameters and messages. Answers name the job by a relative URL unless the
 * request's Host is a configured host, so a forged Host never reaches a Location.
 */
class AuthTest {
    @TempDir static Path tmp;
    static TestServer server;
    static final String BATCH = """
            <batch xmlns="urn:arno:batch"><stylesheet href="x.xsl"/><input href="a.xml"/></batch>""";

    @BeforeAll static void start() {
        server = new TestServer(tmp);
        TestResources.write(server.root.resolve("x.xsl"), "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'/>");
        TestResources.write(server.root.resolve("a.xml"), "<a/>");
    }

    @AfterAll static void stop() {
        server.close();
    }

    @Test void submittingWithoutCredentialsIs401WithAChallenge() {
        HttpResponse<String> r = server.post(BATCH, null, null);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm="));
        assertThat(r.body()).contains("unauthorized");
    }

    @Test void aWrongPasswordIs401() {
        assertThat(server.post(BATCH, TestServer.USER + ":wrong-password", null).statusCode()).isEqualTo(401);
        assertThat(server.post(BATCH, "nobody:" + TestServer.PASSWORD, null).statusCode()).isEqualTo(401);
    }

    @Test void readingNeedsAnAccountToo() {
        String job = server.submit(BATCH);
        server.awaitFinished(job);
        for (String path : new String[] {"/batch/jobs", job, job + "/report", job + "/report?format=html", job + "/batch",
                job + "/svrl/1"}) {
            HttpResponse<String> anonymous = server.get(path, null);
            assertThat(anonymous.statusCode()).as(path).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("WWW-Authenticate")).as(path).hasValueSatisfying(v -> assertThat(v).startsWith("Basic "));
            assertThat(anonymous.body()).as(path).contains("code=\"unauthorized\"").doesNotContain("a.xml");
            assertThat(server.get(path, TestServer.USER + ":wrong-password").statusCode()).as(path).isEqualTo(401);
        }
        assertThat(server.get(job).statusCode()).isEqualTo(200);
        assertThat(server.get(job + "/report").statusCode()).isEqualTo(200);
        // a report format that does not exist is the request's mistake
        HttpResponse<String> unknown = server.get(job + "/report?format=pdf");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("code=\"bad-parameter\"").contains("use xml or html");
        assertThat(server.get("/batch/schema", null).statusCode()).isEqualTo(200);
    }

    @Test void aForgedHostNeverReachesTheLocationHeader() throws Exception {
        String answer = Raw.post(server.port, "evil.example", BATCH, TestServer.USER + ":" + TestServer.PASSWORD);
        assertThat(answer).startsWith("HTTP/1.1 202");
        String location = Raw.header(answer, "Location");
        assertThat(location).startsWith("/batch/jobs/");
        assertThat(answer).doesNotContain("evil.example");
    }

    @Test void aConfiguredHostGivesAbsoluteUrls() throws Exception {
        try (TestServer hosted = new TestServer(tmp.resolve("hosted"), b -> b.hosts(java.util.List.of("batch.example.org")))) {
            TestResources.write(hosted.root.resolve("x.xsl"), "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'/>");
            String credentials = TestServer.USER + ":" + TestServer.PASSWORD;
            String named = Raw.post(hosted.port, "batch.example.org:" + hosted.port, BATCH, credentials);
            assertThat(Raw.header(named, "Location")).startsWith("http://batch.example.org:" + hosted.port + "/batch/jobs/");
            String other = Raw.post(hosted.port, "other.example.org", BATCH, credentials);
            assertThat(Raw.header(other, "Location")).startsWith("/batch/jobs/");
        }
    }

    @Test void aReadOnlyAccountReadsButMayNotSubmitOrCancel() {
        server.service.accounts().add("viewer", "viewer-password", EnumSet.of(Accounts.Role.READ));
        String job = server.submit(BATCH);
        server.awaitFinished(job);
        assertThat(server.get(job, "viewer:viewer-password").statusCode()).isEqualTo(200);
        HttpResponse<String> submit = server.post(BATCH, "viewer:viewer-password", null);
        assertThat(submit.statusCode()).isEqualTo(403);
        assertThat(submit.body()).contains("code=\"forbidden\"").contains("write role");
        server.service.accounts().add("writer", "writer-password", EnumSet.of(Accounts.Role.WRITE));
        assertThat(server.get(job, "writer:writer-password").statusCode()).isEqualTo(403);
    }

    @Test void theUsersFileHoldsNoPassword() throws Exception {
        assertThat(Files.readString(server.work.resolve("users"))).contains(TestServer.USER + ":pbkdf2-sha256:")
                .doesNotContain(TestServer.PASSWORD);
    }

    @Test void aDevelopmentAccountIsCreatedOnlyWhenThereIsNone() throws Exception {
        assertThat(server.service.createDevelopmentAccount()).isNull();
        BatchOptions fresh = BatchOptions.builder(tmp.resolve("fresh")).roots(java.util.List.of(Files.createDirectories(tmp.resolve("r")))).build();
        try (BatchService service = BatchService.start(fresh)) {
            String account = service.createDevelopmentAccount();
            assertThat(account).startsWith("arno:").hasSizeGreaterThan(20);
            Accounts.Account arno = new Accounts(fresh.usersFile()).authenticate(Http.basic(account));
            assertThat(arno.name()).isEqualTo("arno");
            assertThat(arno.roles()).isEqualTo(Accounts.ALL_ROLES);
            assertThat(service.createDevelopmentAccount()).isNull();
        }
    }
}
