package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.http.Conditional;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.Test;

class StaticFilesTest {
    @Test
    void fingerprintedNamesAreKeptForAYearOthersRevalidated() {
        assertThat(StaticFiles.cacheControl("site.3f9a2c1e.css")).isEqualTo(StaticFiles.IMMUTABLE);
        assertThat(StaticFiles.cacheControl("app-0123456789abcdef.js")).isEqualTo(StaticFiles.IMMUTABLE);
        assertThat(StaticFiles.cacheControl("site.css")).isEqualTo(StaticFiles.REVALIDATE);
        assertThat(StaticFiles.cacheControl("logo.2024.png")).as("a year is not a fingerprint").isEqualTo(StaticFiles.REVALIDATE);
        assertThat(StaticFiles.cacheControl("3f9a2c1e")).as("no extension").isEqualTo(StaticFiles.REVALIDATE);
    }

    @Test
    void aPathWithASegmentStartingWithADotIsHidden() {
        assertThat(StaticFiles.hidden("/.env")).isTrue();
        assertThat(StaticFiles.hidden("/.git/config")).isTrue();
        assertThat(StaticFiles.hidden("/fonts/.DS_Store")).isTrue();
        assertThat(StaticFiles.hidden("/.well-known/security.txt")).isTrue();
        assertThat(StaticFiles.hidden("/journal-a/static/.htpasswd")).isTrue();
        assertThat(StaticFiles.hidden("/site.3f9a2c1e.css")).isFalse();
        assertThat(StaticFiles.hidden("/fonts/a.b.woff2")).isFalse();
        assertThat(StaticFiles.hidden("/")).isFalse();
    }

    /** Issue 21: static folders served {@code .env}; over real HTTP, every dot-file answers 404 as a missing file does. */
    @Test
    void dotFilesAreNotServed() throws Exception {
        Path root = TestServer.copy("testroot");
        Path shared = Files.createDirectories(root.resolve("sites/static"));
        Files.writeString(shared.resolve("site.css"), "body{}");
        Files.writeString(shared.resolve(".env"), "SECRET=1");
        Files.createDirectories(shared.resolve(".git"));
        Files.writeString(shared.resolve(".git/config"), "[remote]");
        Files.createDirectories(shared.resolve("fonts/.cache"));
        Files.writeString(shared.resolve("fonts/.cache/x.woff2"), "WOFF-CACHED");
        Path own = Files.createDirectories(root.resolve("sites/alpha/static"));
        Files.writeString(own.resolve(".htpasswd"), "admin:x");
        Files.writeString(own.resolve("a.css"), "a{}");
        try (TestServer s = TestServer.start(root, false, 1 << 20)) {
            assertThat(s.get("/static/site.css").statusCode()).isEqualTo(200);
            assertThat(s.get("/alpha/static/a.css").statusCode()).isEqualTo(200);
            for (String path : new String[] {"/static/.env", "/static/.git/config", "/static/fonts/.cache/x.woff2",
                    "/static/%2eenv", "/static/%2Egit/config", "/alpha/static/.htpasswd", "/alpha/static/%2ehtpasswd"}) {
                HttpResponse<String> r = s.get(path);
                assertThat(r.statusCode()).as(path).isEqualTo(404);
                assertThat(r.body()).as(path).doesNotContain("SECRET").doesNotContain("[remote]").doesNotContain("admin:x")
                        .doesNotContain("WOFF-CACHED");
            }
            assertThat(s.get("/static/no-such.css").statusCode()).isEqualTo(404);
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }

    /** Conditional requests for static files are answered as pages and the store answer theirs (arno.http.Conditional). */
    @Test
    void conditionalRequestsAreAnsweredWithTheFilesValidators() throws Exception {
        Path root = TestServer.copy("testroot");
        Path shared = Files.createDirectories(root.resolve("sites/static"));
        Files.writeString(shared.resolve("site.css"), "body{}");
        try (TestServer s = TestServer.start(root, false, 1 << 20)) {
            HttpResponse<String> full = s.get("/static/site.css");
            String etag = full.headers().firstValue("ETag").orElseThrow();
            String modified = full.headers().firstValue("Last-Modified").orElseThrow();
            HttpResponse<String> same = s.get("/static/site.css", "If-None-Match", "\"x\"", "If-None-Match", etag);
            assertThat(same.statusCode()).isEqualTo(304);
            assertThat(same.body()).isEmpty();
            assertThat(same.headers().firstValue("ETag")).hasValue(etag);
            assertThat(same.headers().firstValue("Cache-Control")).hasValue(StaticFiles.REVALIDATE);
            assertThat(s.get("/static/site.css", "If-Modified-Since", modified).statusCode()).isEqualTo(304);
            assertThat(s.get("/static/site.css", "If-None-Match", "\"x\"", "If-Modified-Since", modified).statusCode()).isEqualTo(200);
            assertThat(s.get("/static/site.css", "If-Match", "\"x\"").statusCode()).isEqualTo(412);
            // a weak tag never matches If-Match (strong comparison); the default servlet's tags are weak
            assertThat(s.get("/static/site.css", "If-Match", etag).statusCode()).isEqualTo(etag.startsWith("W/") ? 412 : 200);
            assertThat(s.get("/static/site.css", "If-Match", "*").body()).isEqualTo("body{}");
            // the gzip form of the file's tag (as Conditional knows it) revalidates it
            assertThat(s.get("/static/site.css", "If-None-Match", Conditional.gzipTag(etag)).statusCode()).isEqualTo(304);
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }
}
