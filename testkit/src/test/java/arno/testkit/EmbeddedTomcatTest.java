package arno.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EmbeddedTomcatTest {
    final HttpClient client = Http.client();

    /** Answers with its path info, or from another thread when the path is /async. */
    static final class Echo extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if ("/async".equals(req.getPathInfo())) {
                AsyncContext async = req.startAsync();
                async.start(() -> {
                    try {
                        async.getResponse().getWriter().write("later");
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                    async.complete();
                });
                return;
            }
            resp.setContentType("text/plain");
            resp.getWriter().write("echo " + req.getPathInfo() + " " + req.getAttribute("seen"));
        }
    }

    @Test
    void servesTheMountedServletsBehindTheirFiltersInTheContextOnLoopback() {
        Filter mark = (req, resp, chain) -> {
            req.setAttribute("seen", "filtered");
            chain.doFilter(req, resp);
        };
        Filter refuse = (req, resp, chain) -> ((HttpServletResponse) resp).sendError(403);
        try (EmbeddedTomcat tomcat = EmbeddedTomcat.builder().context("/arno").servlet("/echo/*", new Echo())
                .servlet("/closed/*", new Echo()).filter("/*", mark).filter("/closed/*", refuse).start()) {
            assertThat(tomcat.port()).isPositive();
            assertThat(tomcat.url("/echo/a")).isEqualTo("http://127.0.0.1:" + tomcat.port() + "/arno/echo/a");
            HttpResponse<String> r = Http.send(client, HttpRequest.newBuilder(tomcat.uri("/echo/a")).build());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("echo /a filtered");
            assertThat(Http.send(client, HttpRequest.newBuilder(tomcat.uri("/async")).build()).statusCode())
                    .as("nothing is mounted there").isEqualTo(404);
            assertThat(Http.send(client, HttpRequest.newBuilder(tomcat.uri("/echo/async")).build()).body()).isEqualTo("later");
            assertThat(Http.send(client, HttpRequest.newBuilder(tomcat.uri("/closed/a")).build()).statusCode()).isEqualTo(403);
        }
    }

    @Test
    void closingFreesThePortForARestartThere() throws IOException {
        int port;
        try (EmbeddedTomcat first = EmbeddedTomcat.builder().servlet("/*", new Echo()).start()) {
            port = first.port();
        }
        assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 2000))
                .isInstanceOf(ConnectException.class);
        try (EmbeddedTomcat again = EmbeddedTomcat.builder().port(port).servlet("/*", new Echo()).start()) {
            assertThat(again.port()).isEqualTo(port);
            assertThat(Http.send(client, HttpRequest.newBuilder(again.uri("/x")).build()).body()).isEqualTo("echo /x null");
        }
    }

    @Test
    void aPortInUseIsRefusedAtStart() {
        try (EmbeddedTomcat first = EmbeddedTomcat.builder().servlet("/*", new Echo()).start()) {
            assertThatThrownBy(() -> EmbeddedTomcat.builder().port(first.port()).start())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining(Integer.toString(first.port()));
            assertThat(Http.send(client, HttpRequest.newBuilder(first.uri("/y")).build()).body())
                    .as("the first still serves").isEqualTo("echo /y null");
        }
    }

    @Test
    void aContextPathIsEmptyOrSlashName() {
        assertThatThrownBy(() -> EmbeddedTomcat.builder().context("arno")).hasMessageContaining("arno");
        assertThatThrownBy(() -> EmbeddedTomcat.builder().context("/arno/")).hasMessageContaining("/arno/");
    }

    @Test
    void readToEndKeepsWhatArrivedBeforeTheEnd() throws IOException {
        try (EmbeddedTomcat tomcat = EmbeddedTomcat.builder().servlet("/*", new Echo()).start();
             Socket s = new Socket("127.0.0.1", tomcat.port())) {
            s.getOutputStream().write("GET /raw HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(Http.readToEnd(s.getInputStream())).startsWith("HTTP/1.1 200").endsWith("echo /raw null");
        }
    }

    @Test
    void basicCredentials() {
        assertThat(Http.basic("editor:pässword")).isEqualTo("Basic ZWRpdG9yOnDDpHNzd29yZA==");
    }
}
