package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing needs an account (HTTP Basic against the hashed users file); reading does not. */
class AuthTest {
    @TempDir static Path tmp;
    static TestServer server;
    static final String BATCH = """
            <batch xmlns="urn:arno:batch"><stylesheet href="x.xsl"/><input href="a.xml"/></batch>""";

    @BeforeAll static void start() {
        server = new TestServer(tmp);
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

    @Test void readingIsOpen() {
        assertThat(server.get("/batch/jobs").statusCode()).isEqualTo(200);
    }

    @Test void theUsersFileHoldsNoPassword() throws Exception {
        assertThat(Files.readString(server.work.resolve("users"))).contains(TestServer.USER + ":pbkdf2-sha256:")
                .doesNotContain(TestServer.PASSWORD);
    }

    @Test void aDevelopmentAccountIsCreatedOnlyWhenThereIsNone() throws Exception {
        assertThat(server.service.createDevelopmentAccount()).isNull();
        BatchOptions fresh = BatchOptions.builder(tmp.resolve("fresh")).roots(java.util.List.of(tmp.resolve("r"))).build();
        try (BatchService service = BatchService.start(fresh)) {
            String account = service.createDevelopmentAccount();
            assertThat(account).startsWith("arno:").hasSizeGreaterThan(20);
            assertThat(new Users(fresh.usersFile()).authenticate(TestServer.basic(account))).isEqualTo("arno");
            assertThat(service.createDevelopmentAccount()).isNull();
        }
    }
}
