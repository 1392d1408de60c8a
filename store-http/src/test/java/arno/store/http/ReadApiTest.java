package arno.store.http;

import arno.store.atom.Rfc;
import static org.assertj.core.api.Assertions.assertThat;

import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * The read side of the API over real sockets: entries, expansions, feeds and their paging,
 * variants (XML serialized, bytes streamed with Range), validators and 304, HEAD, the service
 * document, the change feed and its 410, the read policy and the mount path. The documents are
 * laid out in the store as the resource model says, written in one transaction, so each expected
 * answer is the stored document with its hrefs under {@code /store}.
 */
class ReadApiTest {
    @TempDir static Path tmp;
    static StoreServer server;
    static final String ATOM = "http://www.w3.org/2005/Atom";
    static final byte[] PDF = new byte[3000];

    static String entry(String path, String kind, String links) {
        return "<entry xmlns='" + ATOM + "' xmlns:arno='urn:arno:atom'><id>urn:test:" + path + "</id><title>" + path
                + "</title><updated>2026-11-24T10:00:00Z</updated><author><name>test</name></author>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/>"
                + "<link rel='self' href='" + path + ".atom'/><link rel='edit' href='" + path + ".atom'/>" + links + "</entry>";
    }

    static String up(String parent) {
        return "<link rel='up' href='" + parent + ".atom'/>";
    }

    static final String JATS = "<article><front><article-meta><title-group><article-title>On stores</article-title>"
            + "</title-group></article-meta></front></article>";
    static final String A1_LINKS = up("/journals/ja/v1")
            + "<link rel='alternate' arno:role='jats' type='application/xml' href='/journals/ja/v1/a1.xml'/>"
            + "<link rel='alternate' arno:role='pdf' type='application/pdf' href='/journals/ja/v1/a1.pdf' length='3000'/>";
    static final List<String> ARTICLES = List.of("a1", "a2", "a3", "a4", "a5");

    @BeforeAll static void start() {
        for (int i = 0; i < PDF.length; i++) PDF[i] = (byte) (i * 31 + 7);
        server = new StoreServer(tmp.resolve("main"));
        try (WriteTransaction w = server.store.write()) {
            put(w, "/journals.atom", entry("/journals", "journals", ""));
            put(w, "/journals/ja.atom", entry("/journals/ja", "journal", up("/journals")));
            put(w, "/journals/ja/v1.atom", entry("/journals/ja/v1", "volume", up("/journals/ja")));
            put(w, "/journals/ja/v1/a1.atom", entry("/journals/ja/v1/a1", "article", A1_LINKS));
            for (String a : ARTICLES.subList(1, ARTICLES.size())) {
                put(w, "/journals/ja/v1/" + a + ".atom", entry("/journals/ja/v1/" + a, "article", up("/journals/ja/v1")));
            }
            put(w, "/journals/ja/v1/a1.xml", JATS);
            w.putBinary("/journals/ja/v1/a1.pdf", "application/pdf", new ByteArrayInputStream(PDF));
            w.commit();
        }
    }

    static void put(WriteTransaction w, String uri, String xml) {
        w.put(uri, xml.getBytes(StandardCharsets.UTF_8));
    }

    @AfterAll static void stop() {
        server.close();
    }

    /** The stored entry as the API shows it: every store path under /store. */
    static String asServed(String xml) {
        return xml.replace("href='/", "href='/store/");
    }

    /**
     * Similar, but for what the API adds to each served entry from RFC 5023 (app:edited, an
     * app:collection per child collection), which AtomPubClientTest checks.
     */
    static void similar(String actual, String expected) {
        XmlAssert.assertThat(actual).and(expected).ignoreWhitespace()
                .withNodeFilter(n -> !"http://www.w3.org/2007/app".equals(n.getNamespaceURI())).areSimilar();
    }

    static void assertError(HttpResponse<String> r, int status, String code) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/xml"));
        assertThat(r.body()).contains("urn:arno:error").contains("code=\"" + code + "\"").contains("status=\"" + status + "\"");
    }

    @Test void anEntryIsServedAsStoredWithItsHrefsUnderTheMountAndItsVersionAsETag() {
        HttpResponse<String> r = server.get("/journals/ja/v1/a1.atom");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/atom+xml;type=entry");
        long version;
        try (var s = server.store.read()) {
            version = s.info("/journals/ja/v1/a1.atom").version();
        }
        assertThat(r.headers().firstValue("ETag")).hasValue("\"" + version + "\"");
        assertThat(r.headers().firstValue("Last-Modified")).isPresent();
        similar(r.body(), asServed(entry("/journals/ja/v1/a1", "article", A1_LINKS)));
        Rfc.assertAtom(r.body());
    }

    @Test void conditionalGetsAnswer304AndHeadAnswersTheHeadersOnly() {
        for (String path : List.of("/journals/ja/v1/a1.atom", "/journals/ja/v1/a1.xml", "/journals/ja/v1/a1.pdf",
                "/journals/ja/v1/", "/journals/ja/v1/a1.atom?with-ancestors=yes", "/", "/changes?since=0")) {
            HttpResponse<String> full = server.get(path);
            assertThat(full.statusCode()).as(path).isEqualTo(200);
            String etag = full.headers().firstValue("ETag").orElseThrow();
            String modified = full.headers().firstValue("Last-Modified").orElseThrow();

            HttpResponse<String> byTag = server.get(path, "If-None-Match", etag);
            assertThat(byTag.statusCode()).as(path).isEqualTo(304);
            assertThat(byTag.body()).isEmpty();
            assertThat(byTag.headers().firstValue("ETag")).hasValue(etag);
            assertThat(server.get(path, "If-Modified-Since", modified).statusCode()).as(path).isEqualTo(304);
            assertThat(server.get(path, "If-None-Match", "\"999999\"").statusCode()).as(path).isEqualTo(200);
            // a tag that does not match wins over a date that would (RFC 9110 13.2.2)
            assertThat(server.get(path, "If-None-Match", "\"999999\"", "If-Modified-Since", modified).statusCode()).isEqualTo(200);

            HttpResponse<String> head = server.head(path);
            assertThat(head.statusCode()).as(path).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            assertThat(head.headers().firstValue("ETag")).hasValue(etag);
            assertThat(head.headers().firstValue("Content-Type")).isEqualTo(full.headers().firstValue("Content-Type"));
        }
    }

    @Test void ancestorsAreInlinedUpToTheTopLevelWithRewrittenHrefs() {
        HttpResponse<String> r = server.get("/journals/ja/v1/a1.atom?with-ancestors=yes");
        assertThat(r.statusCode()).isEqualTo(200);
        // an entry with neither content nor alternate link is served with an empty text content (RFC 4287 4.1.2)
        String empty = "<content type='text'/>";
        String journals = entry("/journals", "journals", empty);
        String ja = entry("/journals/ja", "journal", "<link rel='up' href='/journals.atom'><arno:inline>" + journals
                + "</arno:inline></link>" + empty);
        String v1 = entry("/journals/ja/v1", "volume", "<link rel='up' href='/journals/ja.atom'><arno:inline>" + ja
                + "</arno:inline></link>" + empty);
        String expected = entry("/journals/ja/v1/a1", "article", "<link rel='up' href='/journals/ja/v1.atom'><arno:inline>" + v1
                + "</arno:inline></link>" + A1_LINKS.substring(up("/journals/ja/v1").length()));
        similar(r.body(), asServed(expected));
        Rfc.assertAtom(r.body());
        // an expansion depends on several documents: its validator is the snapshot's, weak
        assertThat(r.headers().firstValue("ETag").orElseThrow()).startsWith("W/\"");
    }

    @Test void variantsAreInlinedByRoleAndABadExpansionIsA400() {
        HttpResponse<String> r = server.get("/journals/ja/v1/a1.atom?with-variants=jats");
        assertThat(r.body()).contains("<article-title>On stores</article-title>");
        Rfc.assertAtom(r.body());
        assertError(server.get("/journals/ja/v1/a1.atom?with-descendants=lots"), 400, "bad-parameter");
    }

    static final Pattern NEXT = Pattern.compile("<link rel=\"next\" href=\"([^\"]+)\"");
    static final Pattern ID = Pattern.compile("<id>urn:test:/journals/ja/v1/(a[0-9])</id>");

    @Test void theChildrenFeedIsPagedWithNextLinks() {
        List<String> seen = new ArrayList<>();
        String url = "/journals/ja/v1/?limit=2";
        int pages = 0;
        while (url != null) {
            HttpResponse<String> r = server.get(url);
            assertThat(r.statusCode()).as(url).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/atom+xml;type=feed");
            Rfc.assertAtom(r.body());
            Matcher id = ID.matcher(r.body());
            int onPage = 0;
            while (id.find()) {
                seen.add(id.group(1));
                onPage++;
            }
            assertThat(onPage).isLessThanOrEqualTo(2);
            Matcher next = NEXT.matcher(r.body());
            url = next.find() ? "http://127.0.0.1:" + server.port + next.group(1).replace("&amp;", "&") : null;
            if (url != null) assertThat(next.group(1)).startsWith("/store/journals/ja/v1/?").contains("after=");
            pages++;
        }
        assertThat(seen).isEqualTo(ARTICLES);
        assertThat(pages).isEqualTo(3);
        // the whole list at once, each entry with its variants inlined when asked
        HttpResponse<String> all = server.get("/journals/ja/v1/?with-variants=jats");
        assertThat(all.body()).doesNotContain("rel=\"next\"").contains("On stores");
        Rfc.assertAtom(all.body());
        assertError(server.get("/journals/ja/v1/?after=../x"), 400, "bad-parameter");
        assertError(server.get("/journals/ja/v1/?limit=0"), 400, "bad-parameter");
    }

    @Test void anXmlVariantIsSerializedWithItsMediaType() {
        HttpResponse<String> r = server.get("/journals/ja/v1/a1.xml");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/xml");
        similar(r.body(), JATS);
    }

    @Test void aBinaryVariantIsStreamedWholeOrByOneRange() {
        HttpResponse<byte[]> whole = server.getBytes("/journals/ja/v1/a1.pdf");
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.body()).isEqualTo(PDF);
        assertThat(whole.headers().firstValue("Content-Type")).hasValue("application/pdf");
        assertThat(whole.headers().firstValue("Content-Length")).hasValue("3000");
        assertThat(whole.headers().firstValue("Accept-Ranges")).hasValue("bytes");
        String etag = whole.headers().firstValue("ETag").orElseThrow();

        HttpResponse<byte[]> middle = server.getBytes("/journals/ja/v1/a1.pdf", "Range", "bytes=10-19");
        assertThat(middle.statusCode()).isEqualTo(206);
        assertThat(middle.headers().firstValue("Content-Range")).hasValue("bytes 10-19/3000");
        assertThat(middle.body()).isEqualTo(Arrays.copyOfRange(PDF, 10, 20));

        HttpResponse<byte[]> suffix = server.getBytes("/journals/ja/v1/a1.pdf", "Range", "bytes=-5");
        assertThat(suffix.headers().firstValue("Content-Range")).hasValue("bytes 2995-2999/3000");
        assertThat(suffix.body()).isEqualTo(Arrays.copyOfRange(PDF, 2995, 3000));

        HttpResponse<byte[]> open = server.getBytes("/journals/ja/v1/a1.pdf", "Range", "bytes=2990-99999");
        assertThat(open.headers().firstValue("Content-Range")).hasValue("bytes 2990-2999/3000");
        assertThat(open.body()).isEqualTo(Arrays.copyOfRange(PDF, 2990, 3000));

        HttpResponse<String> outside = server.get("/journals/ja/v1/a1.pdf", "Range", "bytes=3000-");
        assertError(outside, 416, "range-not-satisfiable");
        assertThat(outside.headers().firstValue("Content-Range")).hasValue("bytes */3000");

        // a stale If-Range gets the whole body; two ranges are answered whole (allowed by RFC 9110)
        assertThat(server.getBytes("/journals/ja/v1/a1.pdf", "Range", "bytes=0-0", "If-Range", "\"1\"").body()).isEqualTo(PDF);
        assertThat(server.getBytes("/journals/ja/v1/a1.pdf", "Range", "bytes=0-0", "If-Range", etag).body()).hasSize(1);
        assertThat(server.getBytes("/journals/ja/v1/a1.pdf", "Range", "bytes=0-1,5-6").statusCode()).isEqualTo(200);

        HttpResponse<String> head = server.head("/journals/ja/v1/a1.pdf");
        assertThat(head.headers().firstValue("Content-Length")).hasValue("3000");
        assertThat(head.body()).isEmpty();
    }

    @Test void whatIsNotThereIs404AndAnUnknownMethodIs405() {
        for (String path : List.of("/journals/none.atom", "/journals/ja/v1/a1.html", "/journals/none/", "/a..b",
                "/journals/ja/v1/a1", "/_model/none.xml", "/_secret.atom")) {
            assertError(server.get(path), 404, "not-found");
        }
        HttpResponse<String> patch = server.write("PATCH", "/journals.atom", "application/xml", "<x/>");
        assertError(patch, 405, "method-not-allowed");
        assertThat(patch.headers().firstValue("Allow")).hasValue("GET, HEAD, PUT, DELETE");
    }

    @Test void theServiceDocumentListsTheRootsCollectionsByRfc5023() {
        HttpResponse<String> r = server.get("/");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/atomsvc+xml");
        Rfc.assertService(r.body());
        // the default root model has collections: each is one app:collection under the mount
        assertThat(r.body()).contains("<collection href=\"/store/?collection=");
        // the top-level entries as a feed
        HttpResponse<String> top = server.get("/", "Accept", "application/atom+xml");
        assertThat(top.body()).contains("urn:test:/journals<").contains("Top-level entries");
        Rfc.assertAtom(top.body());
    }

    @Test void introspectionDocumentsAreServed() {
        HttpResponse<String> r = server.get("/_model/root.xml");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("urn:arno:introspection");
    }

    static final Pattern CHANGE = Pattern.compile("<id>urn:arno:change:([0-9]+):([0-9]+)</id><title>([a-z]+) ([^<]+)</title>");

    @Test void theChangeFeedListsEveryStoredDocumentOldestFirstAndPages() {
        HttpResponse<String> r = server.get("/changes?since=0&limit=1000");
        assertThat(r.statusCode()).isEqualTo(200);
        Rfc.assertAtom(r.body());
        List<String> titles = new ArrayList<>();
        Matcher m = CHANGE.matcher(r.body());
        long lastVersion = 0;
        while (m.find()) {
            assertThat(Long.parseLong(m.group(1))).isGreaterThanOrEqualTo(lastVersion);
            lastVersion = Long.parseLong(m.group(1));
            titles.add(m.group(3) + " " + m.group(4));
        }
        assertThat(titles).contains("put /journals.atom", "put /journals/ja/v1/a1.pdf", "put /journals/ja/v1/a5.atom");
        // what each change did, as a category a follower reads (one per entry, the same word as its title's)
        Matcher kinds = Pattern.compile("<title>([a-z]+) [^<]+</title><updated>[^<]+</updated>"
                + "<category scheme=\"urn:arno:change\" term=\"([a-z]+)\"/>").matcher(r.body());
        int categorised = 0;
        while (kinds.find()) {
            assertThat(kinds.group(2)).isEqualTo(kinds.group(1));
            categorised++;
        }
        assertThat(categorised).isEqualTo(titles.size());
        assertThat(r.body()).contains("href=\"/store/journals/ja/v1/a1.pdf\" type=\"application/pdf\"");

        // paged two at a time, the pages add up to the same list, across commits and inside one
        List<String> paged = new ArrayList<>();
        String url = "/changes?since=0&limit=2";
        while (url != null) {
            HttpResponse<String> page = server.get(url);
            assertThat(page.statusCode()).as(url).isEqualTo(200);
            Matcher c = CHANGE.matcher(page.body());
            while (c.find()) paged.add(c.group(3) + " " + c.group(4));
            Matcher next = NEXT.matcher(page.body());
            url = next.find() ? "http://127.0.0.1:" + server.port + next.group(1).replace("&amp;", "&") : null;
        }
        assertThat(paged).isEqualTo(titles);
        assertError(server.get("/changes?since=-1"), 400, "bad-parameter");
        assertError(server.write("POST", "/changes", "application/xml", "<x/>"), 405, "method-not-allowed");
    }

    @Test void aFeedPrunedPastTheVersionAskedForIs410(@TempDir Path dir) throws Exception {
        try (StoreServer pruned = new StoreServer(dir, StoreOptions.defaults().mapSize(64L << 20)
                .changeRetention(Duration.ofMillis(1)), StoreServlet.ReadPolicy.PUBLIC, 1 << 20, "")) {
            for (int i = 0; i < 3; i++) {
                try (WriteTransaction w = pruned.store.write()) {
                    put(w, "/t" + i + ".atom", entry("/t" + i, "journals", ""));
                    w.commit();
                }
                Thread.sleep(20);
            }
            HttpResponse<String> gone = pruned.get("/changes?since=0");
            assertError(gone, 410, "gone");
            assertThat(gone.body()).contains("resynchronise");
            long oldest;
            try (var s = pruned.store.read()) {
                oldest = s.oldestChange();
            }
            assertThat(pruned.get("/changes?since=" + (oldest - 1)).statusCode()).isEqualTo(200);
        }
    }

    @Test void withTheAccountsPolicyReadsNeedTheReadRole(@TempDir Path dir) {
        try (StoreServer closed = new StoreServer(dir, StoreOptions.defaults().mapSize(64L << 20),
                StoreServlet.ReadPolicy.ACCOUNTS, 1 << 20, "")) {
            HttpResponse<String> anonymous = closed.get("/");
            assertError(anonymous, 401, "unauthorized");
            assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic "));
            assertError(closed.send(closed.request("/", "reader:wrong").GET().build()), 401, "unauthorized");
            assertError(closed.send(closed.request("/", StoreServer.WRITE_ONLY).GET().build()), 403, "forbidden");
            assertThat(closed.send(closed.request("/", StoreServer.READER).GET().build()).statusCode()).isEqualTo(200);
        }
    }

    @Test void hrefsFollowTheContextTheServletIsMountedIn(@TempDir Path dir) {
        try (StoreServer mounted = new StoreServer(dir, StoreOptions.defaults().mapSize(64L << 20),
                StoreServlet.ReadPolicy.PUBLIC, 1 << 20, "/arno")) {
            try (WriteTransaction w = mounted.store.write()) {
                put(w, "/journals.atom", entry("/journals", "journals", ""));
                w.commit();
            }
            HttpResponse<String> r = mounted.get("/journals.atom");
            assertThat(r.body()).contains("href=\"/arno/store/journals.atom\"");
            assertThat(mounted.get("/").body()).contains("href=\"/arno/store/?collection=");
        }
    }
}
