package arno.http;

import static org.assertj.core.api.Assertions.assertThat;

import arno.xml.ErrorMessage;
import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorXml;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter over a real embedded Tomcat on 127.0.0.1, mounted with {@link Endpoint} as the
 * server mounts the store and batch APIs: {@code /api/*} open at {@code /api/health}, reads with
 * the read role, everything else with the write role; {@code /api/plain} is another servlet under
 * the same prefix, which the filter must not see.
 */
class AuthFilterTest {
    @TempDir
    static Path tmp;
    static Tomcat tomcat;
    static Context context;
    static int port;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws LifecycleException {
        Accounts accounts = new Accounts(tmp.resolve("users"));
        accounts.add("reader", "reader-password", EnumSet.of(Accounts.Role.READ));
        accounts.add("editor", "editor-password", EnumSet.of(Accounts.Role.READ, Accounts.Role.WRITE));
        AuthFilter filter = AuthFilter.builder(accounts, "arno-test", AuthFilterTest::answer)
                .open(AuthFilter.paths("/health"))
                .require(AuthFilter.methods("GET", "HEAD"), Accounts.Role.READ, ErrorMessage.STORE_READ_NEEDS_ACCOUNT, "read")
                .require(AuthFilter.methods("POST", "PUT", "DELETE"), Accounts.Role.WRITE, null)
                .build();
        tomcat = new Tomcat();
        tomcat.setBaseDir(tmp.resolve("tomcat").toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context ctx = tomcat.addContext("", null);
        context = ctx;
        Endpoint.of(new Echo(), filter).mount(ctx, "api", "/api/*");
        // The throttle counts failures per address too: its test has accounts (and a throttle) of its own.
        Accounts throttled = new Accounts(tmp.resolve("users"));
        Endpoint.of(new Echo(), AuthFilter.builder(throttled, "arno-throttled", AuthFilterTest::answer)
                .require(AuthFilter.any(), Accounts.Role.READ, null).build()).mount(ctx, "throttled", "/throttled/*");
        Tomcat.addServlet(ctx, "plain", new Echo());
        ctx.addServletMappingDecoded("/api/plain", "plain");
        tomcat.start();
        port = tomcat.getConnector().getLocalPort();
    }

    @AfterAll
    static void stop() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }

    /** Says who it was let through with. */
    static final class Echo extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Accounts.Account a = AuthFilter.account(req);
            resp.setContentType("text/plain");
            resp.getWriter().print((AuthFilter.admitted(req) ? "admitted" : "not filtered") + " as "
                    + (a == null ? "nobody" : a.name() + " " + a.roles()));
        }
    }

    static void answer(HttpServletRequest req, HttpServletResponse resp, ArnoException e) throws IOException {
        resp.setStatus(e.status());
        resp.setContentType("application/xml;charset=UTF-8");
        resp.getOutputStream().write(ErrorXml.toBytes(e, null, false));
    }

    @Test
    void anOpenPathNeedsNoAccount() {
        HttpResponse<String> r = send("GET", "/api/health", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("admitted as nobody");
    }

    @Test
    void noCredentialsIs401WithTheChallengeAndTheRulesSentence() {
        HttpResponse<String> r = send("GET", "/api/things", null);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"arno-test\", charset=\"UTF-8\"");
        assertThat(r.body()).contains("code=\"unauthorized\"").contains("reading the store needs an account (HTTP Basic) with the read role");
        // without a sentence of its own the rule says what the accounts say
        HttpResponse<String> w = send("POST", "/api/things", null);
        assertThat(w.statusCode()).isEqualTo(401);
        assertThat(w.body()).contains("no credentials (HTTP Basic) were given");
    }

    @Test
    void aWrongPasswordIs401SayingSo() {
        HttpResponse<String> r = send("GET", "/api/things", "reader:wrong");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"arno-test\", charset=\"UTF-8\"");
        assertThat(r.body()).contains("the account name or password is wrong").doesNotContain("read role");
    }

    @Test
    void anAccountWithoutTheRoleIs403NamingAccountRoleAndMethod() {
        HttpResponse<String> r = send("PUT", "/api/things", "reader:reader-password");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.headers().firstValue("WWW-Authenticate")).isEmpty();
        assertThat(r.body()).contains("code=\"forbidden\"")
                .contains("the account reader lacks the write role that PUT needs here; an administrator can add it in the accounts file");
    }

    @Test
    void anAdmittedRequestCarriesItsAccountToTheServlet() {
        HttpResponse<String> r = send("GET", "/api/things", "reader:reader-password");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("admitted as reader [READ]");
        HttpResponse<String> w = send("DELETE", "/api/things", "editor:editor-password");
        assertThat(w.body()).isEqualTo("admitted as editor [READ, WRITE]");
    }

    @Test
    void aRequestNoRuleMatchesIsRefused() {
        HttpResponse<String> r = send("PATCH", "/api/things", "editor:editor-password");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("PATCH /api/things is not open to anyone");
    }

    @Test
    void anotherServletUnderTheSamePrefixIsNotFiltered() {
        HttpResponse<String> r = send("GET", "/api/plain", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("not filtered as nobody");
    }

    /** Tomcat never calls a filter added to a started context: mounting one there is refused, not left unguarded. */
    @Test
    void anEndpointWithFiltersIsNotMountedOnAStartedContext() {
        AuthFilter filter = AuthFilter.builder(new Accounts(tmp.resolve("users")), "late", AuthFilterTest::answer)
                .open(AuthFilter.any()).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Endpoint.of(new Echo(), filter).mount(context, "late", "/late/*"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("before the server serves");
        assertThat(send("GET", "/late/x", null).statusCode()).isEqualTo(404);
    }

    /** LoginThrottle: the first ten failures are free, the eleventh closes the name for a second. */
    @Test
    void repeatedFailuresAre429WithRetryAfter() {
        List<HttpResponse<String>> r = new ArrayList<>();
        for (int i = 0; i < 12; i++) r.add(send("GET", "/throttled/things", "guess:wrong-" + i));
        assertThat(r.subList(0, 11)).allSatisfy(x -> assertThat(x.statusCode()).isEqualTo(401));
        HttpResponse<String> last = r.get(11);
        assertThat(last.statusCode()).as(last.body()).isEqualTo(429);
        assertThat(last.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(last.headers().firstValue("WWW-Authenticate")).isEmpty();
        assertThat(last.body()).contains("code=\"too-many-attempts\"");
    }

    private static HttpResponse<String> send(String method, String path, String credentials) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).method(method, HttpRequest.BodyPublishers.noBody());
        if (credentials != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
