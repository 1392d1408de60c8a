package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * One request must not empty the store (issue 21, 3.4): a delete near the top of the hierarchy or
 * of many documents, and any change to the model, needs the admin role and an explicit
 * confirmation; the store's configuration is not written over HTTP at all. Over real sockets,
 * through the real service on a real store; every refusal leaves the store's version where it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfirmedWritesTest {
    static final String ENTRY = WriteApiTest.ENTRY;

    @TempDir static Path tmp;
    StoreServer server;
    int trees;
    /** This test's top-level entry ({@code /t1}, {@code /t2}, ...) and its issue. */
    String top;
    String issue;

    @BeforeAll void start() {
        // Depth 2 as by default; more than 3 documents need confirmation.
        server = new StoreServer(tmp, new DeleteGuard(2, 3));
    }

    @AfterAll void stop() {
        server.close();
    }

    /** A tree of its own for each test: TOP, ja, v1, i1 and articles a1 (with a variant) and a2: 7 documents. */
    @BeforeEach void tree() {
        String name = "t" + ++trees;
        top = "/" + name;
        issue = top + "/ja/v1/i1";
        post("/", "journals", name);
        post(top + "/", "journal", "ja");
        post(top + "/ja/", "volume", "v1");
        post(top + "/ja/v1/", "issue", "i1");
        post(issue + "/", "article", "a1");
        post(issue + "/", "article", "a2");
        assertThat(server.write("PUT", issue + "/a1.xml", "application/xml", "<article/>", "If-None-Match", "*").statusCode())
                .isEqualTo(201);
    }

    private void post(String folder, String kind, String slug) {
        HttpResponse<String> r = server.write("POST", folder, ENTRY, WriteApiTest.entry(kind, slug, ""), "Slug", slug);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private String etag(String path) {
        return server.get(path).headers().firstValue("ETag").orElseThrow();
    }

    private HttpResponse<String> delete(String credentials, String path, String... headers) {
        return server.write(credentials, "DELETE", path, null, null, headers);
    }

    private HttpResponse<String> refused(int status, String code, Supplier<HttpResponse<String>> request) {
        long before = server.store.version();
        HttpResponse<String> r = request.get();
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.body()).contains("urn:arno:error").contains("code=\"" + code + "\"");
        assertThat(server.store.version()).as("nothing stored or deleted").isEqualTo(before);
        return r;
    }

    @Test void theTopOfTheHierarchyIsDeletedOnlyByAnAdministratorWhoConfirmsTheCount() {
        String journals = top + ".atom";
        String etag = etag(journals);
        // A writer cannot, whatever it sends.
        HttpResponse<String> writer = refused(403, "forbidden", () -> delete(StoreServer.EDITOR, journals, "If-Match", etag));
        assertThat(writer.body()).contains("admin role").contains("deleting " + top);
        refused(403, "forbidden", () -> delete(StoreServer.EDITOR, journals + "?recursive=7", "If-Match", etag));

        // An administrator is told what it would remove and how to confirm it.
        HttpResponse<String> bare = refused(428, "precondition-required", () -> delete(StoreServer.ADMIN, journals));
        assertThat(bare.body()).contains("removes 7 documents").contains("If-Match").contains("?recursive=7");
        HttpResponse<String> star = refused(428, "precondition-required",
                () -> delete(StoreServer.ADMIN, journals + "?recursive=7", "If-Match", "*"));
        assertThat(star.body()).contains("If-Match: * confirms nothing");
        assertThat(refused(428, "precondition-required", () -> delete(StoreServer.ADMIN, journals, "If-Match", etag)).body())
                .contains("?recursive=7");
        assertThat(refused(428, "precondition-required",
                () -> delete(StoreServer.ADMIN, journals + "?recursive=yes", "If-Match", etag)).body())
                .contains("recursive=yes states no number").contains("?recursive=7");
        HttpResponse<String> wrong = refused(409, "conflict", () -> delete(StoreServer.ADMIN, journals + "?recursive=2290",
                "If-Match", etag));
        assertThat(wrong.body()).contains("removes 7 documents").contains("not 2290").contains("?recursive=7");
        refused(412, "precondition-failed", () -> delete(StoreServer.ADMIN, journals + "?recursive=7", "If-Match", "\"1\""));
        assertThat(server.get(issue + "/a1.xml").statusCode()).isEqualTo(200);

        HttpResponse<String> done = delete(StoreServer.ADMIN, journals + "?recursive=7", "If-Match", etag);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(204);
        for (String gone : new String[] {journals, top + "/ja.atom", issue + ".atom", issue + "/a1.xml", issue + "/a2.atom"}) {
            assertThat(server.get(gone).statusCode()).as(gone).isEqualTo(404);
        }
    }

    @Test void aDeleteOfManyDocumentsNeedsConfirmationAndASmallOneDoesNot() {
        // The issue is at depth 4, below the guarded depth, but it takes 4 documents (i1, a1, a1.xml, a2).
        String entry = issue + ".atom";
        HttpResponse<String> writer = refused(403, "forbidden", () -> delete(StoreServer.EDITOR, entry));
        assertThat(writer.body()).contains("admin role");
        assertThat(refused(428, "precondition-required", () -> delete(StoreServer.ADMIN, entry)).body())
                .contains("removes 4 documents");
        // One article with its variant (2 documents) is a writer's one request, as before.
        HttpResponse<String> article = delete(StoreServer.EDITOR, issue + "/a1.atom");
        assertThat(article.statusCode()).as(article.body()).isEqualTo(204);
        assertThat(server.get(issue + "/a1.xml").statusCode()).isEqualTo(404);
        // Now the issue is small enough: a writer deletes it without confirmation.
        HttpResponse<String> small = delete(StoreServer.EDITOR, entry);
        assertThat(small.statusCode()).as(small.body()).isEqualTo(204);
    }

    @Test void theRootAndWhatIsNotThereAreNoDeletesToConfirm() {
        refused(404, "not-found", () -> delete(StoreServer.ADMIN, "/.atom?recursive=1", "If-Match", "\"1\""));
        refused(404, "not-found", () -> delete(StoreServer.ADMIN, top + "/none.atom?recursive=1"));
    }

    @Test void aStatedCountIsHeldToEvenWhereNoConfirmationIsNeeded() {
        refused(409, "conflict", () -> delete(StoreServer.EDITOR, issue + "/a2.atom?recursive=5"));
        assertThat(delete(StoreServer.EDITOR, issue + "/a2.atom?recursive=1").statusCode()).isEqualTo(204);
    }

    @Test void theModelIsChangedOnlyByAnAdministratorWithItsETag() {
        String model = "/_model/article.xml";
        HttpResponse<String> current = server.get(model);
        String etag = current.headers().firstValue("ETag").orElseThrow();
        byte[] same = current.body().getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> writer = refused(403, "forbidden", () -> server.write(StoreServer.EDITOR, "PUT", model,
                "application/xml", same, "If-Match", etag));
        assertThat(writer.body()).contains("changing the model").contains("admin role");
        refused(428, "precondition-required", () -> server.write(StoreServer.ADMIN, "PUT", model, "application/xml", same));
        HttpResponse<String> star = refused(428, "precondition-required", () -> server.write(StoreServer.ADMIN, "PUT", model,
                "application/xml", same, "If-Match", "*"));
        assertThat(star.body()).contains("If-Match: * does not confirm");
        // A writer cannot add a kind either.
        refused(403, "forbidden", () -> server.write(StoreServer.EDITOR, "PUT", "/_model/poster.xml", "application/xml", same,
                "If-None-Match", "*"));

        HttpResponse<String> ok = server.write(StoreServer.ADMIN, "PUT", model, "application/xml", same, "If-Match", etag);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    }

    @Test void theStoresConfigurationIsNotWrittenOverHttpByAnyone() {
        for (String method : new String[] {"PUT", "DELETE", "POST"}) {
            HttpResponse<String> r = refused(403, "forbidden", () -> server.write(StoreServer.ADMIN, method, "/_config/indexes.xml",
                    "application/xml", "<indexes xmlns='urn:arno:indexes'/>".getBytes(StandardCharsets.UTF_8), "If-None-Match", "*"));
            assertThat(r.body()).as(method).contains("not changed over HTTP").contains("./arno store index add");
            // The full-text configuration too, valid or not (a load checks it: FulltextConfig.Check); the
            // answer says how to change it.
            for (String body : new String[] {"<fulltext xmlns='urn:arno:fulltext'/>", "<fulltext xmlns='urn:arno:fulltext'><field"}) {
                HttpResponse<String> f = refused(403, "forbidden", () -> server.write(StoreServer.ADMIN, method,
                        "/_config/fulltext.xml", "application/xml", body.getBytes(StandardCharsets.UTF_8), "If-None-Match", "*"));
                assertThat(f.body()).as(method).contains("not changed over HTTP")
                        .contains("./arno store load fulltext.xml --prefix /_config");
            }
        }
    }
}
