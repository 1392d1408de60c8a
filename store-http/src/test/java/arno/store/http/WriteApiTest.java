package arno.store.http;

import arno.store.atom.Rfc;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write side over real sockets, through the real service on a real store with the default
 * models: creating the hierarchy by POST, variants by PUT, replacing with If-Match, the cascading
 * DELETE, and every refusal of the spec's list, each answered with its status and err:error and
 * with nothing stored (the store's version does not move).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteApiTest {
    @TempDir static Path tmp;
    static StoreServer server;
    static final String ENTRY = "application/atom+xml;type=entry";
    static final String ISSUE = "/journals/ja/v1/i1";

    static String entry(String kind, String title, String more) {
        return "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:arno='urn:arno:atom'><title>" + title + "</title>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/>" + more + "</entry>";
    }

    @BeforeAll static void start() {
        server = new StoreServer(tmp.resolve("w"));
        created(server.write("POST", "/", ENTRY, entry("journals", "Journals", ""), "Slug", "journals"), "/journals.atom");
        created(server.write("POST", "/journals/", ENTRY, entry("journal", "Journal A", ""), "Slug", "ja"), "/journals/ja.atom");
        created(server.write("POST", "/journals/ja/", ENTRY, entry("volume", "Volume 1", "")), "/journals/ja/v1.atom");
        created(server.write("POST", "/journals/ja/v1/", ENTRY, entry("issue", "Issue 1", "")), ISSUE + ".atom");
    }

    @AfterAll static void stop() {
        server.close();
    }

    static HttpResponse<String> created(HttpResponse<String> r, String path) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().firstValue("Location")).hasValue("/store" + path);
        assertThat(r.headers().firstValue("ETag").orElseThrow()).matches("\"[0-9]+\"");
        Rfc.assertAtom(r.body());
        return r;
    }

    /** Runs a request that must fail with {@code status} and {@code code}, and checks that nothing was stored. */
    static HttpResponse<String> refused(int status, String code, Supplier<HttpResponse<String>> request) {
        long before = server.store.version();
        HttpResponse<String> r = request.get();
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.body()).contains("urn:arno:error").contains("code=\"" + code + "\"");
        assertThat(server.store.version()).as("nothing stored").isEqualTo(before);
        return r;
    }

    @Test void anArticleIsCreatedWithItsManagedLinksAndServedBack() {
        HttpResponse<String> r = created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "First", ""), "Slug", "a1"),
                ISSUE + "/a1.atom");
        assertThat(r.body()).contains("<id>urn:uuid:").contains("href=\"/store" + ISSUE + ".atom\"")
                .contains("rel=\"describedby\"").contains("<name>editor</name>");
        HttpResponse<String> get = server.get(ISSUE + "/a1.atom");
        assertThat(get.headers().firstValue("ETag")).isEqualTo(r.headers().firstValue("ETag"));
    }

    @Test void variantsArePutWithIfNoneMatchAndMediaIsPostedWithItsEntry() {
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Second", ""), "Slug", "a2"), ISSUE + "/a2.atom");
        HttpResponse<String> jats = server.write("PUT", ISSUE + "/a2.xml", "application/xml", "<article><body/></article>",
                "If-None-Match", "*");
        assertThat(jats.statusCode()).as(jats.body()).isEqualTo(201);
        assertThat(server.get(ISSUE + "/a2.xml").body()).contains("<article><body/></article>");
        assertThat(server.get(ISSUE + "/a2.atom").body()).contains("arno:role=\"jats\"");

        byte[] png = new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 1, 2, 3};
        HttpResponse<String> media = server.write(StoreServer.EDITOR, "POST", ISSUE + "/a2/", "image/png", png, "Slug", "plot");
        assertThat(media.statusCode()).as(media.body()).isEqualTo(201);
        String location = media.headers().firstValue("Location").orElseThrow();
        assertThat(media.body()).contains("rel=\"edit-media\"");
        Rfc.assertAtom(media.body());
        String pngUrl = location.replace(".atom", ".png").substring("/store".length());
        assertThat(server.getBytes(pngUrl).body()).isEqualTo(png);
    }

    @Test void anEntryIsReplacedOnlyWithItsCurrentETag() {
        HttpResponse<String> a = created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Third", ""), "Slug", "a3"),
                ISSUE + "/a3.atom");
        String etag = a.headers().firstValue("ETag").orElseThrow();
        refused(428, "precondition-required", () -> server.write("PUT", ISSUE + "/a3.atom", ENTRY, entry("article", "No", "")));
        refused(412, "precondition-failed", () -> server.write("PUT", ISSUE + "/a3.atom", ENTRY, entry("article", "No", ""),
                "If-Match", "\"1\""));
        HttpResponse<String> ok = server.write("PUT", ISSUE + "/a3.atom", ENTRY, entry("article", "Third, revised", ""),
                "If-Match", etag);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(ok.headers().firstValue("ETag").orElseThrow()).isNotEqualTo(etag);
        assertThat(server.get(ISSUE + "/a3.atom").body()).contains("Third, revised");
        // the old ETag is stale now
        refused(412, "precondition-failed", () -> server.write("PUT", ISSUE + "/a3.atom", ENTRY, entry("article", "No", ""),
                "If-Match", etag));
    }

    @Test void writesNeedAnAccountWithTheWriteRole() {
        HttpResponse<String> anonymous = refused(401, "unauthorized", () -> server.write(null, "POST", ISSUE + "/", ENTRY,
                entry("article", "x", "").getBytes(StandardCharsets.UTF_8)));
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic "));
        refused(401, "unauthorized", () -> server.write("editor:wrong-password", "POST", ISSUE + "/", ENTRY,
                entry("article", "x", "").getBytes(StandardCharsets.UTF_8)));
        refused(403, "forbidden", () -> server.write(StoreServer.READER, "DELETE", ISSUE + ".atom", null, (byte[]) null));
    }

    @Test void badBodiesAreRefusedWithTheirStatusAndNothingStored() {
        HttpResponse<String> malformed = refused(400, "malformed-xml", () -> server.write("POST", ISSUE + "/", ENTRY,
                "<entry xmlns='http://www.w3.org/2005/Atom'>\n<title>x</titel></entry>", "Slug", "bad"));
        assertThat(malformed.body()).contains("line=\"2\"").contains("column=");
        HttpResponse<String> rule = refused(422, "unprocessable", () -> server.write("POST", "/journals/", ENTRY,
                entry("issue", "Misplaced", "")));
        assertThat(rule.body()).contains("issue");
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Taken", ""), "Slug", "taken"), ISSUE + "/taken.atom");
        refused(409, "conflict", () -> server.write("POST", ISSUE + "/", ENTRY, entry("article", "Again", ""), "Slug", "taken"));
        refused(404, "not-found", () -> server.write("POST", "/journals/none/", ENTRY, entry("article", "x", "")));
        refused(415, "unsupported-media-type", () -> server.write("POST", ISSUE + "/taken/", "text/plain", "hello"));
        refused(415, "unsupported-media-type", () -> server.write("POST", ISSUE + "/taken/", null, "hello"));
    }

    /** A Content-Type that is no media type is the client's mistake, never a 500 (issue 21, 3.9). */
    @Test void aContentTypeThatIsNoMediaTypeIs400NamingIt() {
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Typed", ""), "Slug", "typed"), ISSUE + "/typed.atom");
        for (String type : new String[] {";", "image", "/png", "image/ png; x=1"}) {
            HttpResponse<String> post = refused(400, "bad-request", () -> server.write(StoreServer.EDITOR, "POST", ISSUE + "/typed/",
                    type, new byte[] {1, 2, 3}));
            assertThat(post.body()).as(type).contains("Content-Type").contains("is not a media type").doesNotContain("Internal");
            refused(400, "bad-request", () -> server.write(StoreServer.EDITOR, "PUT", ISSUE + "/typed.pdf", type,
                    new byte[] {1, 2, 3}, "If-None-Match", "*"));
        }
        // the server goes on serving
        assertThat(server.get(ISSUE + "/typed.atom").statusCode()).isEqualTo(200);
    }

    @Test void aBodyOverTheLimitIs413WithOrWithoutContentLength() {
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Big", ""), "Slug", "big"), ISSUE + "/big.atom");
        byte[] big = new byte[(1 << 20) + 10];
        refused(413, "body-too-large", () -> server.write(StoreServer.EDITOR, "POST", ISSUE + "/big/", "image/png", big));
        refused(413, "body-too-large", () -> server.postChunked(ISSUE + "/big/", "image/png", new ByteArrayInputStream(big)));
        refused(413, "body-too-large", () -> server.write(StoreServer.EDITOR, "PUT", ISSUE + "/big.pdf", "application/pdf", big,
                "If-None-Match", "*"));
        // exactly the limit is accepted
        HttpResponse<String> fits = server.postChunked(ISSUE + "/big/", "image/png", new ByteArrayInputStream(new byte[1 << 20]));
        assertThat(fits.statusCode()).as(fits.body()).isEqualTo(201);
    }

    @Test void deletingAnArticleTakesItsDescendantsVariantsAndTheLinksIntoIt() {
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Doomed", ""), "Slug", "doomed"), ISSUE + "/doomed.atom");
        assertThat(server.write("PUT", ISSUE + "/doomed.xml", "application/xml", "<article/>", "If-None-Match", "*").statusCode())
                .isEqualTo(201);
        created(server.write("POST", ISSUE + "/doomed/", ENTRY, entry("figure", "Figure 1",
                "<link rel='related' arno:role='article' href='" + ISSUE + "/doomed.atom'/>"), "Slug", "f1"), ISSUE + "/doomed/f1.atom");
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Citing", "<link rel='related' arno:role='cites' href='"
                + ISSUE + "/doomed.atom'/>"), "Slug", "citing"), ISSUE + "/citing.atom");
        // the reciprocal links are there before
        assertThat(server.get(ISSUE + "/doomed.atom").body()).contains("/doomed/f1.atom").contains("/citing.atom");

        HttpResponse<String> gone = server.write("DELETE", ISSUE + "/doomed.atom", null, null);
        assertThat(gone.statusCode()).as(gone.body()).isEqualTo(204);
        for (String path : new String[] {ISSUE + "/doomed.atom", ISSUE + "/doomed.xml", ISSUE + "/doomed/f1.atom"}) {
            assertThat(server.get(path).statusCode()).as(path).isEqualTo(404);
        }
        assertThat(server.get(ISSUE + "/citing.atom").body()).doesNotContain("doomed");
        assertThat(server.get("/changes?since=0&limit=1000").body()).contains("delete " + ISSUE + "/doomed/f1.atom");
        refused(404, "not-found", () -> server.write("DELETE", ISSUE + "/doomed.atom", null, null));
    }

    /**
     * Issue 21, 3.5: {@code Slug: bad%01title} once stored an entry titled with U+0001, which no
     * XML 1.0 parser reads back (nor its parent's feed, nor an export). Such a character is refused
     * wherever it comes from, with a 400 naming it, and nothing is stored.
     */
    @Test void aCharacterXml10CannotCarryIsRefusedWhereverItComesFrom() {
        created(server.write("POST", ISSUE + "/", ENTRY, entry("article", "Chars", ""), "Slug", "chars"), ISSUE + "/chars.atom");
        byte[] png = new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10};
        HttpResponse<String> media = refused(400, "bad-request", () -> server.write(StoreServer.EDITOR, "POST",
                ISSUE + "/chars/", "image/png", png, "Slug", "bad%01title"));
        assertThat(media.body()).contains("Slug").contains("bad[U+0001]title").contains("U+0001 at character 4");
        refused(400, "bad-request", () -> server.write("POST", ISSUE + "/", ENTRY, entry("article", "X", ""), "Slug", "x%EF%BF%BF"));
        // XML 1.1 can carry U+0001 as a reference; what the store keeps must be XML 1.0
        HttpResponse<String> xml11 = refused(400, "refused-xml", () -> server.write("POST", ISSUE + "/", ENTRY,
                "<?xml version='1.1'?>\n" + entry("article", "bad&#x1;title", ""), "Slug", "xml11"));
        assertThat(xml11.body()).contains("U+0001").contains("line=\"2\"");
        refused(400, "refused-xml", () -> server.write("PUT", ISSUE + "/chars.xml", "application/xml",
                "<?xml version='1.1'?><article title='&#x2;'/>", "If-None-Match", "*"));
        // a Slug with other characters still names by cleaning and titles as sent
        HttpResponse<String> fine = server.write(StoreServer.EDITOR, "POST", ISSUE + "/chars/", "image/png", png,
                "Slug", "caf%C3%A9%20plot");
        assertThat(fine.statusCode()).as(fine.body()).isEqualTo(201);
        assertThat(fine.body()).contains("<title>café plot</title>");
        for (String path : new String[] {ISSUE + "/chars/", ISSUE + "/?with-descendants=all", "/changes?since=0&limit=1000"}) {
            Rfc.assertAtom(server.get(path).body());
        }
    }
}
