package arno.server.war;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Deploys the WAR into a real standalone Tomcat 11 (the distribution from
 * Maven Central, started as its own process) and reads the demo pages, over
 * content the test generates (the WAR finds its stylesheets in its own jars).
 */
class StandaloneTomcatIT {
    static Process tomcat;
    static Path home;
    static int port;
    static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void deploy() throws Exception {
        home = Path.of(System.getProperty("tomcat.home"));
        Path war = Path.of(System.getProperty("arno.war"));
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path serverXml = home.resolve("conf/server.xml");
        // Start from the distribution's own file: Maven unpacks Tomcat once per target folder,
        // so a second run would otherwise find the first run's port and keep it.
        Path pristine = home.resolve("conf/server.xml.dist");
        if (!Files.exists(pristine)) Files.copy(serverXml, pristine);
        String xml = Files.readString(pristine)
                .replace("port=\"8080\"", "port=\"" + port + "\" address=\"127.0.0.1\"")
                .replace("port=\"8005\"", "port=\"-1\"");
        Files.writeString(serverXml, xml);
        for (String app : List.of("ROOT", "docs", "examples", "manager", "host-manager")) {
            FileUtils.deleteDirectory(home.resolve("webapps").resolve(app).toFile());
        }
        Files.copy(war, home.resolve("webapps/arno.war"), StandardCopyOption.REPLACE_EXISTING);
        Path data = home.resolve("arno-data-it");
        FileUtils.deleteDirectory(data.toFile());
        // The WAR serves the operator's content and never makes any: the test supplies it.
        arno.demo.Generator.generate(data.resolve("content"), 8, 1);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        tomcat = new ProcessBuilder(java,
                "-Dcatalina.home=" + home, "-Dcatalina.base=" + home, "-Djava.io.tmpdir=" + home.resolve("temp"),
                "-Darno.data=" + data,
                "-cp", home.resolve("bin/bootstrap.jar") + File.pathSeparator + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start")
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("logs/it-console.log").toFile())
                .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            if (!tomcat.isAlive()) throw new AssertionError("Tomcat exited: " + console());
            try {
                if (get("/arno/journal-a/").statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(500);
        }
        throw new AssertionError("Arno did not answer within 180 s: " + console());
    }

    @AfterAll
    static void undeploy() throws InterruptedException {
        if (tomcat != null) {
            tomcat.destroy();
            if (!tomcat.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) tomcat.destroyForcibly();
        }
    }

    @Test
    void servesTheDemoSitesUnderTheContextPath() throws Exception {
        HttpResponse<String> home = get("/arno/journal-a/");
        assertThat(home.statusCode()).isEqualTo(200);
        assertThat(home.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
        assertThat(home.body()).contains("<html").contains("href=\"/arno/journal-a/");
        assertThat(get("/arno/journal-b/").statusCode()).isEqualTo(200);
        HttpResponse<String> missing = get("/arno/journal-a/no/such/page/here");
        assertThat(missing.statusCode()).isEqualTo(404);
        // The issue pages read the generated content: one of its issues is linked from the home page.
        assertThat(get("/arno/journal-a/v1/i1").statusCode()).isEqualTo(200);
    }

    static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String console() {
        try {
            return Files.readString(home.resolve("logs/it-console.log"));
        } catch (IOException e) {
            return "(no console log: " + e + ")";
        }
    }
}
