package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API's HTTP edge (arno.http) as the store answers through it: conditional requests with every
 * header line and the gzip form of a tag, the filter's refusals sandboxed and said as the store's
 * errors, and the servlet refusing to answer when it is mounted without its filter.
 */
class EdgeTest {
    @TempDir static Path tmp;
    static StoreServer server;
    static final String ENTRY = "application/atom+xml;type=entry";
    static final String A1 = "/journals/a1.atom";

    @BeforeAll static void start() {
        server = new StoreServer(tmp.resolve("s"));
        String journals = "<entry xmlns='http://www.w3.org/2005/Atom'><title>Journals</title>"
                + "<category scheme='urn:arno:kind' term='journals'/></entry>";
        assertThat(server.write("POST", "/", ENTRY, journals, "Slug", "journals").statusCode()).isEqualTo(201);
        String a1 = "<entry xmlns='http://www.w3.org/2005/Atom'><title>A1</title><category scheme='urn:arno:kind' term='journal'/></entry>";
        assertThat(server.write("POST", "/journals/", ENTRY, a1, "Slug", "a1").statusCode()).isEqualTo(201);
    }

    @AfterAll static void stop() {
        server.close();
    }

    /** RFC 9110 5.3: a header sent on two lines is one list; the matching tag may be on the second. */
    @Test void everyIfNoneMatchLineCounts() {
        String etag = server.get(A1).headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> r = server.get(A1, "If-None-Match", "\"999998\"", "If-None-Match", "\"999999\", " + etag);
        assertThat(r.statusCode()).isEqualTo(304);
    }

    /** RFC 9110 13.1.1: a GET whose If-Match does not hold is not performed. */
    @Test void aReadWhoseIfMatchDoesNotHoldIs412() {
        String etag = server.get(A1).headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> r = server.get(A1, "If-Match", "\"999999\"");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(412);
        assertThat(r.body()).contains("code=\"precondition-failed\"").contains("its ETag is " + etag);
        assertThat(server.get(A1, "If-Match", etag).statusCode()).isEqualTo(200);
    }

    /**
     * A client that read the entry gzipped holds its tag with the gzip suffix: a PUT with it names
     * the same version, here as behind the embedded server's connector (which no longer strips it).
     */
    @Test void aPutWithTheTagOfAGzippedGetSucceeds() {
        HttpResponse<String> b1 = server.write("POST", "/journals/", ENTRY, "<entry xmlns='http://www.w3.org/2005/Atom'><title>B1"
                + "</title><category scheme='urn:arno:kind' term='journal'/></entry>", "Slug", "b1");
        String etag = b1.headers().firstValue("ETag").orElseThrow();
        String gzipped = etag.substring(0, etag.length() - 1) + "--gzip\"";
        HttpResponse<String> put = server.write("PUT", "/journals/b1.atom", ENTRY, "<entry xmlns='http://www.w3.org/2005/Atom'>"
                + "<title>B1, revised</title><category scheme='urn:arno:kind' term='journal'/></entry>", "If-Match", gzipped);
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        assertThat(server.get("/journals/b1.atom").body()).contains("B1, revised");
    }

    /** The filter's refusals are the store's errors: err:error, sandboxed and not sniffed, with the challenge. */
    @Test void theFiltersRefusalsAreAnsweredAsTheStoresErrors() {
        HttpResponse<String> r = server.write(null, "POST", "/journals/", ENTRY, "<entry/>".getBytes(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"arno-store\", charset=\"UTF-8\"");
        assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("Content-Security-Policy")).hasValue(StoredContent.POLICY);
        assertThat(r.body()).contains("code=\"unauthorized\"")
                .contains("writing to the store needs an account (HTTP Basic) with the write role");
        HttpResponse<String> reader = server.write(StoreServer.READER, "DELETE", A1, null, (byte[]) null);
        assertThat(reader.statusCode()).isEqualTo(403);
        assertThat(reader.body()).contains("the account reader lacks the write role that DELETE needs here");
    }

    /** Mounted alone, the servlet would take writes from anyone: it answers nothing instead. */
    @Test void theServletMountedWithoutItsFilterRefusesEverything() throws LifecycleException, IOException, InterruptedException {
        Tomcat alone = new Tomcat();
        alone.setBaseDir(tmp.resolve("alone").toString());
        alone.setPort(0);
        alone.getConnector().setProperty("address", "127.0.0.1");
        Context ctx = alone.addContext("", null);
        Tomcat.addServlet(ctx, "store", new StoreServlet(server.atoms, server.accounts, StoreServlet.ReadPolicy.PUBLIC, 1 << 20));
        ctx.addServletMappingDecoded("/store/*", "store");
        alone.start();
        try {
            long before = server.store.version();
            URI uri = URI.create("http://127.0.0.1:" + alone.getConnector().getLocalPort() + "/store/journals/");
            HttpResponse<String> r = server.http.send(HttpRequest.newBuilder(uri).header("Content-Type", ENTRY)
                    .POST(HttpRequest.BodyPublishers.ofString("<entry xmlns='http://www.w3.org/2005/Atom'><title>X</title>"
                            + "<category scheme='urn:arno:kind' term='journal'/></entry>")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(500);
            assertThat(server.store.version()).as("nothing stored").isEqualTo(before);
            assertThat(server.http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(500);
        } finally {
            alone.stop();
            alone.destroy();
        }
    }
}
