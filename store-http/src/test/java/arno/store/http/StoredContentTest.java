package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer's stored bytes, served from the server's own origin, cannot act in it: every answer of
 * the API is sandboxed ({@code Content-Security-Policy: sandbox ...}) and not sniffed, and the
 * types a browser renders as active pages (SVG, XHTML, HTML) are attachments. The browser's side
 * of it is ConsoleBrowserTest's (server module): a scripted SVG opened there does not run.
 */
class StoredContentTest {
    @TempDir static Path tmp;
    static StoreServer server;
    static final String ENTRY = "application/atom+xml;type=entry";
    static final String A1 = "/journals/ja/v1/i1/a1";
    static final String SCRIPT = "<script xmlns='http://www.w3.org/1999/xhtml'>fetch('/_arno/')</script>";

    @BeforeAll static void start() {
        server = new StoreServer(tmp.resolve("s"));
        String[][] entries = {{"/", "journals", "journals"}, {"/journals/", "journal", "ja"}, {"/journals/ja/", "volume", "v1"},
                {"/journals/ja/v1/", "issue", "i1"}, {"/journals/ja/v1/i1/", "article", "a1"}, {A1 + "/", "figure", "f1"}};
        for (String[] e : entries) {
            created(server.write("POST", e[0], ENTRY, "<entry xmlns='http://www.w3.org/2005/Atom'><title>" + e[2] + "</title>"
                    + "<category scheme='urn:arno:kind' term='" + e[1] + "'/></entry>",
                    "Slug", e[2]));
        }
        created(server.write("PUT", A1 + ".xhtml", "application/xhtml+xml",
                "<html xmlns='http://www.w3.org/1999/xhtml'><head><title>a</title></head><body>" + SCRIPT + "</body></html>",
                "If-None-Match", "*"));
        created(server.write("PUT", A1 + ".xml", "application/xml", "<article>" + SCRIPT + "</article>", "If-None-Match", "*"));
        created(server.write("PUT", A1 + "/f1.svg", "image/svg+xml",
                "<svg xmlns='http://www.w3.org/2000/svg'><script>fetch('/_arno/')</script></svg>", "If-None-Match", "*"));
        created(server.write(StoreServer.EDITOR, "PUT", A1 + ".pdf", "application/pdf",
                "%PDF-1.4\n%%EOF\n".getBytes(StandardCharsets.US_ASCII), "If-None-Match", "*"));
    }

    @AfterAll static void stop() {
        server.close();
    }

    static void created(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    static void sandboxed(HttpHeaders h) {
        assertThat(h.firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(h.firstValue("Content-Security-Policy")).hasValueSatisfying(p -> assertThat(p)
                .startsWith("sandbox;").contains("default-src 'none'").doesNotContain("script-src"));
    }

    @Test void activeVariantsAreSandboxedAttachments() {
        for (String[] v : new String[][] {{A1 + ".xhtml", "a1.xhtml"}, {A1 + "/f1.svg", "f1.svg"}}) {
            for (HttpResponse<String> r : new HttpResponse[] {server.get(v[0]), server.head(v[0])}) {
                assertThat(r.statusCode()).as(v[0]).isEqualTo(200);
                sandboxed(r.headers());
                assertThat(r.headers().firstValue("Content-Disposition")).as(v[0]).hasValue("attachment; filename=\"" + v[1] + "\"");
            }
        }
    }

    @Test void xmlAndAtomStayViewableButSandboxed() {
        for (String path : new String[] {A1 + ".xml", A1 + ".atom", A1 + "/", "/", "/changes?since=0", "/nothing/here.xml"}) {
            HttpResponse<String> r = server.get(path);
            sandboxed(r.headers());
            assertThat(r.headers().firstValue("Content-Disposition")).as(path).isEmpty();
        }
        assertThat(server.get(A1 + ".xml").body()).contains("<script");
    }

    @Test void aPdfIsNotSniffedAndShownByTheBrowsersViewer() {
        HttpResponse<String> r = server.get(A1 + ".pdf");
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/pdf"));
        assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("Content-Security-Policy")).isEmpty();
        assertThat(r.headers().firstValue("Content-Disposition")).isEmpty();
    }
}
