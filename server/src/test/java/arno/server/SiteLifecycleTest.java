package arno.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.testkit.Html;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.Test;

/** Start-up checks, development-mode reloading and production-mode reticence. */
class SiteLifecycleTest {

    @Test
    void changedSiteStylesheetAndSharedPackageShowOnTheNextRequest() throws IOException {
        try (TestServer arno = TestServer.start("testroot", true, 1 << 20)) {
            assertThat(brand(arno.get("/alpha/hello/x"))).isEqualTo("Alpha");
            edit(arno.root.resolve("sites/alpha/alpha.xsl"), "select=\"'Alpha'\"", "select=\"'Alpha Two'\"");
            assertThat(brand(arno.get("/alpha/hello/x"))).isEqualTo("Alpha Two");

            edit(arno.root.resolve("stylesheets/packages/base.xsl"), "select=\"'Base'\"", "select=\"'Base Two'\"");
            assertThat(brand(rawGet(arno, "beta.test", "/"))).isEqualTo("Base Two");
            // alpha overrides the brand, so the package change does not show there.
            assertThat(brand(arno.get("/alpha/hello/x"))).isEqualTo("Alpha Two");
        }
    }

    @Test
    void anEditedContentDocumentIsSeenDespiteTheSourceCache() throws IOException {
        try (TestServer arno = TestServer.start("testroot", false, 1 << 20)) {
            assertThat(arno.get("/alpha/docs/a").body()).contains("<title>Document A</title>");
            assertThat(arno.get("/alpha/docs/a").body()).contains("<title>Document A</title>");
            Path doc = arno.root.resolve("content/docs/a.xml");
            edit(doc, "Document A", "Document Z");
            assertThat(arno.get("/alpha/docs/a").body()).contains("<title>Document Z</title>");
        }
    }

    @Test
    void compileErrorsShowFileLineAndColumnInDevelopmentAndRecover() throws IOException {
        try (TestServer arno = TestServer.start("testroot", true, 1 << 20); LogCapture log = new LogCapture()) {
            Path xsl = arno.root.resolve("sites/alpha/alpha.xsl");
            String good = Files.readString(xsl);
            edit(xsl, "<p id=\"colour\">", "<p id=\"colour\"><xsl:value-of select=\"1 +\"/>");
            int line = PipelineHttpTest.lineOf(xsl, "select=\"1 +\"");
            HttpResponse<String> broken = arno.get("/alpha/hello/x");
            assertThat(broken.statusCode()).isEqualTo(500);
            assertThat(broken.body()).contains("alpha.xsl line " + line + " column").contains("XPST0003");
            assertThat(log.containing("alpha.xsl line " + line + " column")).isNotEmpty();
            write(xsl, good);
            assertThat(arno.get("/alpha/hello/x").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aMisspeltSiteXmlFailsAtStartUpNamingFileLineAndWord() throws IOException {
        Path root = TestServer.copy("testroot");
        try {
            edit(root.resolve("sites/alpha/site.xml"), "<route name=\"sum\" pattern=", "<route name=\"sum\" patern=");
            int line = PipelineHttpTest.lineOf(root.resolve("sites/alpha/site.xml"), "patern=");
            assertThatThrownBy(() -> TestServer.start(root, true, 1 << 20))
                    .isInstanceOf(ArnoException.class)
                    .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.SITE_ERROR))
                    .hasMessageContaining("site.xml line " + line)
                    .hasMessageContaining("patern");
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }

    @Test
    void aMissingStylesheetFailsAtStartUpNamingIt() throws IOException {
        Path root = TestServer.copy("testroot");
        try {
            edit(root.resolve("sites/alpha/site.xml"), "xquery=\"sum.xq\"", "xquery=\"summ.xq\"");
            assertThatThrownBy(() -> TestServer.start(root, true, 1 << 20))
                    .isInstanceOf(ArnoException.class)
                    .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.SITE_ERROR))
                    .hasMessageContaining("site.xml line")
                    .hasMessageContaining("summ.xq does not exist");
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }

    @Test
    void inProductionACompileErrorStopsStartUp() throws IOException {
        Path root = TestServer.copy("testroot");
        try {
            edit(root.resolve("sites/alpha/greet.xsl"), "<xsl:copy>", "<xsl:copy><xsl:bogus/>");
            assertThatThrownBy(() -> TestServer.start(root, false, 1 << 20))
                    .isInstanceOf(ArnoException.class)
                    .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.SITE_ERROR))
                    // the server's log line and the command line print describe(): summary, place, reasons
                    .satisfies(e -> assertThat(((ArnoException) e).describe()).contains("greet.xsl line").contains("xsl:bogus"));
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }

    @Test
    void inProductionErrorPagesHideLocationsButTheLogHasThem() throws IOException {
        try (TestServer arno = TestServer.start("testroot", false, 1 << 20); LogCapture log = new LogCapture()) {
            HttpResponse<String> r = arno.get("/alpha/fail");
            assertThat(r.statusCode()).isEqualTo(500);
            var page = Html.parse(r.body());
            String id = Html.text(page, "//p[@id='error-id']");
            assertThat(Html.text(page, "//p[@id='where']")).isEqualTo(":");
            assertThat(r.body()).doesNotContain("alpha.xsl").doesNotContain("it went wrong");
            assertThat(log.containing(id)).singleElement().satisfies(l -> assertThat(l).contains("alpha.xsl line"));
            assertThat(arno.get("/alpha/_debug/request").statusCode()).isEqualTo(404);
        }
    }

    private static String brand(HttpResponse<String> r) {
        return brand(r.body());
    }

    private static String brand(String html) {
        return Html.text(Html.parse(html), "//h1[@id='brand']");
    }

    private static String rawGet(TestServer arno, String host, String path) throws IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", arno.server.port())) {
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            String raw = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return raw.substring(raw.indexOf("\r\n\r\n") + 4);
        }
    }

    static void edit(Path file, String from, String to) throws IOException {
        String text = Files.readString(file);
        assertThat(text).contains(from);
        write(file, text.replace(from, to));
    }

    /** Writes and moves the modification time forward, so a change within the same second is seen. */
    static void write(Path file, String text) throws IOException {
        FileTime before = Files.getLastModifiedTime(file);
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.fromMillis(Math.max(System.currentTimeMillis(), before.toMillis() + 2000)));
    }
}
