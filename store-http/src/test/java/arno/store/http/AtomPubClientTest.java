package arno.store.http;

import arno.store.atom.Rfc;
import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Snapshot;
import arno.store.StoreOptions;
import arno.store.atom.ResourcePath;
import arno.testkit.Http;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store API as a generic AtomPub client meets it (issue 21, section 2). The client knows one
 * URL, the service document's; from there it follows only what the documents say (collections'
 * hrefs and their categories, each entry's {@code app:collection}, {@code edit} and
 * {@code edit-media} links, {@code next} links, {@code Location}), down from the top to articles
 * and their media, and posts, edits with If-Match and deletes there. Every document on the way
 * (service document, collection feeds, entries, media-link entries, the change feed) is checked
 * against RFC 4287 and RFC 5023 by {@link Rfc}, and every member of a collection carries one
 * {@code app:edited}.
 */
class AtomPubClientTest {
    static final String ENTRY_TYPE = "application/atom+xml;type=entry";
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    static final Processor SAXON = new Processor(false);

    @TempDir Path dir;
    StoreServer server;

    @BeforeEach void start() {
        // the server answers as 127.0.0.1 (as --host 127.0.0.1 says), not as localhost
        server = new StoreServer(dir, StoreOptions.defaults().mapSize(256L << 20), StoreServlet.ReadPolicy.PUBLIC, 1 << 20,
                "", List.of("127.0.0.1"));
    }

    @AfterEach void stop() {
        server.close();
    }

    @Test void aClientFindsEveryCollectionFromTheServiceDocumentAndWritesThroughThem() throws Exception {
        Doc service = get("/store/");
        String top = service.one("/app:service/app:workspace[1]/app:collection/@href");
        // RFC 5023 8.3.3: the collection's IRI answers its feed, whatever Accept says
        Doc topFeed = get(top);
        assertThat(topFeed.type()).startsWith("application/atom+xml;type=feed");
        assertThat(topFeed.one("/atom:feed/app:collection/@href")).isEqualTo(top);
        assertThat(topFeed.all("/atom:feed/atom:entry")).isEmpty();
        for (String accept : List.of("application/atomsvc+xml", "*/*", "text/html")) {
            assertThat(send("GET", top, null, null, "Accept", accept).headers().firstValue("Content-Type").orElseThrow())
                    .as(accept).startsWith("application/atom+xml;type=feed");
        }

        // no Slug: the server names from the title; Location is absolute for a host it answers as
        HttpResponse<String> posted = post(top, entry(kindIn(service, top), "All journals", ""));
        Doc journals = created(posted);
        assertThat(posted.headers().firstValue("Location"))
                .hasValue("http://127.0.0.1:" + server.port + "/store/All-journals.atom");
        String journalsCollection = journals.one("/atom:entry/app:collection/@href");
        Doc tides = created(post(journalsCollection, entry(kindIn(journals, journalsCollection), "Journal of Tides", "")));
        assertThat(tides.location()).endsWith("/store/All-journals/Journal-of-Tides.atom");

        // the service document lists the collections one can post to: the root's, a workspace per
        // top-level entry and per child of one (here: the journals folder, each journal)
        service = get("/store/");
        assertThat(service.all("/app:service/app:workspace/atom:title")).containsExactly("Arno store", "All journals",
                "Journal of Tides");
        String volumes = service.one("/app:service/app:workspace[atom:title = 'Journal of Tides']/app:collection/@href");
        assertThat(volumes).isEqualTo(tides.one("/atom:entry/app:collection/@href"));

        // down to an article, each entry naming its collections
        Doc volume = created(post(volumes, entry(kindIn(tides, volumes), "Volume 1", "")));
        assertThat(volume.location()).endsWith("/Journal-of-Tides/v1.atom");
        String issues = volume.one("/atom:entry/app:collection/@href");
        Doc issue = created(post(issues, entry(kindIn(volume, issues), "Issue 1", "")));
        String articles = issue.one("/atom:entry/app:collection/@href");
        String clientLinks = "<link rel='alternate' type='text/html' href='https://tides.example.org/articles/1'/>"
                + "<link rel='alternate' type='text/html' hreflang='fr' href='/fr/articles/1'/>";
        Doc article = created(post(articles, entry(kindIn(issue, articles), "On tides", clientLinks)));
        assertThat(article.location()).endsWith("/i1/On-tides.atom");
        // the client's own alternate links are kept, as sent
        assertThat(article.all("/atom:entry/atom:link[@rel = 'alternate']/@href"))
                .containsExactly("https://tides.example.org/articles/1", "/fr/articles/1");
        assertThat(article.all("/atom:entry/atom:content")).isEmpty();
        Map<String, String> collections = collections(article);
        assertThat(collections).containsOnlyKeys("figures", "tables", "media");

        // media, as a generic client posts it: the bytes with their type, no Slug
        Doc media = created(send("POST", collections.get("media"), "image/png", PNG));
        String editMedia = media.one("/atom:entry/atom:link[@rel = 'edit-media']/@href");
        assertThat(media.one("/atom:entry/atom:content/@src")).isEqualTo(editMedia);
        assertThat(media.all("/atom:entry/atom:summary")).hasSize(1);
        assertThat(server.getBytes(editMedia.substring("/store".length())).body()).isEqualTo(PNG);

        Doc figure = created(post(collections.get("figures"), entry("figure", "Figure 1", ""), "Slug", "fig1"));
        assertThat(figure.location()).endsWith("/On-tides/fig1.atom");
        // each collection's feed holds its own members only
        assertThat(get(collections.get("figures")).all("/atom:feed/atom:entry/atom:id")).containsExactly(figure.id());
        assertThat(get(collections.get("media")).all("/atom:feed/atom:entry/atom:id")).containsExactly(media.id());
        assertThat(get(collections.get("tables")).all("/atom:feed/atom:entry")).isEmpty();

        // edit as a client does: GET the edit link, change the document, PUT it back with If-Match
        String edit = article.one("/atom:entry/atom:link[@rel = 'edit']/@href");
        Doc current = get(edit);
        String changed = current.text().replace(">On tides<", ">On tides, revised<");
        assertThat(send("PUT", edit, ENTRY_TYPE, utf8(changed), "If-Match", "\"1\"").statusCode()).isEqualTo(412);
        HttpResponse<String> put = send("PUT", edit, ENTRY_TYPE, utf8(changed), "If-Match", current.etag());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        Doc revised = checked(put);
        assertThat(revised.one("/atom:entry/atom:title")).isEqualTo("On tides, revised");
        // what the server adds came back with the document and is not doubled; the client's links stay
        assertThat(revised.all("/atom:entry/app:edited")).hasSize(1);
        assertThat(collections(revised)).isEqualTo(collections);
        assertThat(revised.all("/atom:entry/atom:link[@rel = 'alternate']/@href"))
                .containsExactly("https://tides.example.org/articles/1", "/fr/articles/1");
        assertThat(Instant.parse(revised.one("/atom:entry/app:edited")))
                .isAfterOrEqualTo(Instant.parse(current.one("/atom:entry/app:edited")));
        try (Snapshot s = server.store.read()) {
            ByteArrayOutputStream stored = new ByteArrayOutputStream();
            s.export(ResourcePath.document(edit.substring("/store".length())).storePath(), stored);
            assertThat(stored.toString(StandardCharsets.UTF_8)).doesNotContain("http://www.w3.org/2007/app")
                    .contains("href=\"/fr/articles/1\"");
        }

        // the collection is ordered by app:edited, newest first: a new article, then the revised one again
        Doc second = created(post(articles, entry("article", "Second", "")));
        assertThat(get(articles).all("/atom:feed/atom:entry/atom:title")).containsExactly("Second", "On tides, revised");
        Doc again = get(edit);
        assertThat(send("PUT", edit, ENTRY_TYPE, utf8(again.text()), "If-Match", again.etag()).statusCode()).isEqualTo(200);
        assertThat(get(articles).all("/atom:feed/atom:entry/atom:id")).containsExactly(article.id(), second.id());

        // delete through the edit link, with If-Match
        String figureEdit = figure.one("/atom:entry/atom:link[@rel = 'edit']/@href");
        HttpResponse<String> deleted = send("DELETE", figureEdit, null, null, "If-Match", get(figureEdit).etag());
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(204);
        assertThat(get(collections.get("figures")).all("/atom:feed/atom:entry")).isEmpty();
        assertThat(send("GET", figureEdit, null, null).statusCode()).isEqualTo(404);

        // the change feed, at its documented URL, is RFC 4287 too: every change has content
        Doc changes = get("/store/changes?since=0&limit=1000");
        assertThat(changes.all("/atom:feed/atom:entry[not(atom:content)]")).isEmpty();
        assertThat(changes.all("/atom:feed/atom:entry")).hasSizeGreaterThan(10);
    }

    @Test void aLocationIsAPathForAHostTheServerDoesNotAnswerAs() throws Exception {
        String top = get("/store/").one("/app:service/app:workspace[1]/app:collection/@href");
        HttpResponse<String> r = server.send(HttpRequest.newBuilder(URI.create("http://localhost:" + server.port + top))
                .timeout(Duration.ofSeconds(30)).header("Authorization", Http.basic(StoreServer.EDITOR))
                .header("Content-Type", ENTRY_TYPE).POST(HttpRequest.BodyPublishers.ofString(entry("journals", "J", "")))
                .build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().firstValue("Location")).hasValue("/store/J.atom");
    }

    /**
     * RFC 5023 10 and 10.1: a collection is ordered by app:edited, newest first, and paged from
     * the newest. Walking its next links sees each member at most once, also while members are
     * edited between pages (an edited one moves to the front; the RFC's client starts again from
     * the first page to find such); a walk of an unchanging collection sees each exactly once.
     */
    @Test void pagesFollowAppEditedAndAWalkSeesEachMemberOnce() throws Exception {
        Doc journals = created(post(topCollection(), entry("journals", "Journals", "")));
        Doc j = created(post(journals.one("//app:collection/@href"), entry("journal", "J", "")));
        Doc v = created(post(j.one("//app:collection/@href"), entry("volume", "V", "")));
        Doc i = created(post(v.one("//app:collection/@href"), entry("issue", "I", "")));
        String articles = i.one("//app:collection/@href");
        Map<String, String> edits = new LinkedHashMap<>();
        for (int n = 1; n <= 7; n++) {
            Doc a = created(post(articles, entry("article", "a" + n, ""), "Slug", "a" + n));
            edits.put("a" + n, a.one("/atom:entry/atom:link[@rel = 'edit']/@href"));
        }
        assertThat(walk(articles + "&limit=3", null)).containsExactly("a7", "a6", "a5", "a4", "a3", "a2", "a1");

        // while a client walks: a2 (not seen yet) and a7 (seen) are edited after the first page
        List<String> seen = walk(articles + "&limit=3", () -> {
            touch(edits.get("a2"));
            touch(edits.get("a7"));
        });
        assertThat(seen).containsExactly("a7", "a6", "a5", "a4", "a3", "a1");
        // from the first page again: the edited ones first, the last edited first
        assertThat(walk(articles + "&limit=3", null)).containsExactly("a7", "a2", "a6", "a5", "a4", "a3", "a1");
        assertThat(walk(articles + "&limit=1000", null)).hasSize(7);

        assertThat(send("GET", articles + "&after=a3", null, null).statusCode()).isEqualTo(400);
        assertThat(send("GET", articles.replace("articles", "nope"), null, null).statusCode()).isEqualTo(404);
    }

    // ---- the client ------------------------------------------------------------------------

    /** Walks a feed's next links from {@code first}, once {@code betweenPages} after the first page; the titles seen. */
    private List<String> walk(String first, Runnable betweenPages) throws Exception {
        List<String> titles = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Instant last = Instant.MAX;
        String url = first;
        for (int page = 0; url != null; page++) {
            Doc d = get(url);
            for (XdmItem e : d.nodes("/atom:feed/atom:entry")) {
                assertThat(ids.add(Doc.xpath(e, "atom:id").get(0))).as("each member once").isTrue();
                titles.add(Doc.xpath(e, "atom:title").get(0));
                Instant edited = Instant.parse(Doc.xpath(e, "app:edited").get(0));
                assertThat(edited).as("newest first").isBeforeOrEqualTo(last);
                last = edited;
            }
            List<String> next = d.all("/atom:feed/atom:link[@rel = 'next']/@href");
            url = next.isEmpty() ? null : next.get(0);
            if (url != null) assertThat(url).contains("after=");
            if (page == 0 && betweenPages != null) betweenPages.run();
        }
        return titles;
    }

    /** Sends an entry back as it is, so that its app:edited moves. */
    private void touch(String edit) {
        try {
            Doc d = get(edit);
            assertThat(send("PUT", edit, ENTRY_TYPE, utf8(d.text()), "If-Match", d.etag()).statusCode()).isEqualTo(200);
        } catch (SaxonApiException e) {
            throw new AssertionError(e);
        }
    }

    private String topCollection() throws SaxonApiException {
        return get("/store/").one("/app:service/app:workspace[1]/app:collection/@href");
    }

    /** The one kind collection {@code href} accepts, from its fixed categories in {@code where}. */
    private static String kindIn(Doc where, String href) throws SaxonApiException {
        return where.one("//app:collection[@href = '" + href + "']/app:categories/atom:category/@term");
    }

    /** The entry's collections by title. */
    private static Map<String, String> collections(Doc entry) throws SaxonApiException {
        Map<String, String> m = new LinkedHashMap<>();
        for (XdmItem c : entry.nodes("/atom:entry/app:collection")) m.put(Doc.xpath(c, "atom:title").get(0), Doc.xpath(c, "@href").get(0));
        return m;
    }

    static String entry(String kind, String title, String more) {
        return "<entry xmlns='http://www.w3.org/2005/Atom'><title>" + title + "</title>"
                + "<category scheme='urn:arno:kind' term='" + kind + "'/>" + more + "</entry>";
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private HttpResponse<String> post(String collection, String entry, String... headers) {
        return send("POST", collection, ENTRY_TYPE, utf8(entry), headers);
    }

    /** A request with the editor's credentials to an href as a document gave it (a path, or an absolute URL). */
    private HttpResponse<String> send(String method, String href, String type, byte[] body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(resolve(href)).timeout(Duration.ofSeconds(30))
                .header("Authorization", Http.basic(StoreServer.EDITOR))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (type != null) b.header("Content-Type", type);
        if (headers.length > 0) b.headers(headers);
        return server.send(b.build());
    }

    private URI resolve(String href) {
        return URI.create("http://127.0.0.1:" + server.port + "/").resolve(href);
    }

    /** GET without Accept, as a client that knows nothing of content negotiation; 200 and checked. */
    private Doc get(String href) throws SaxonApiException {
        HttpResponse<String> r = send("GET", href, null, null);
        assertThat(r.statusCode()).as(href + ": " + r.body()).isEqualTo(200);
        return checked(r);
    }

    /** A 201 with its Location and the entry created, checked. */
    private static Doc created(HttpResponse<String> r) throws SaxonApiException {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().firstValue("Location")).isPresent();
        Doc d = checked(r);
        assertThat(d.all("/atom:entry")).hasSize(1);
        return d;
    }

    /** The document of {@code r}, validated by its media type against RFC 5023 or RFC 4287. */
    private static Doc checked(HttpResponse<String> r) throws SaxonApiException {
        String type = r.headers().firstValue("Content-Type").orElseThrow();
        if (type.startsWith("application/atomsvc+xml")) {
            Rfc.assertService(r.body());
        } else {
            assertThat(type).startsWith("application/atom+xml");
            Rfc.assertAtom(r.body());
        }
        Doc d = new Doc(r, SAXON.newDocumentBuilder().build(new StreamSource(new StringReader(r.body()))));
        // RFC 5023 10.2: members carry app:edited (every served entry but the change feed's, which are no members)
        if (!r.uri().getPath().endsWith("/changes")) {
            assertThat(d.all("//atom:entry[count(app:edited) != 1]")).as("entries without one app:edited").isEmpty();
        }
        return d;
    }

    /** A fetched document, with XPath over it (prefixes atom and app). */
    record Doc(HttpResponse<String> response, XdmNode root) {
        String text() {
            return response.body();
        }

        String type() {
            return response.headers().firstValue("Content-Type").orElseThrow();
        }

        String etag() {
            return response.headers().firstValue("ETag").orElseThrow();
        }

        String location() {
            return response.headers().firstValue("Location").orElseThrow();
        }

        String id() throws SaxonApiException {
            return one("/atom:entry/atom:id");
        }

        List<String> all(String expr) throws SaxonApiException {
            return xpath(root, expr);
        }

        String one(String expr) throws SaxonApiException {
            List<String> values = all(expr);
            assertThat(values).as(expr + " in\n" + text()).hasSize(1);
            return values.get(0);
        }

        List<XdmItem> nodes(String expr) throws SaxonApiException {
            List<XdmItem> items = new ArrayList<>();
            for (XdmItem i : compiler().evaluate(expr, root)) items.add(i);
            return items;
        }

        static List<String> xpath(XdmItem context, String expr) throws SaxonApiException {
            List<String> values = new ArrayList<>();
            for (XdmItem i : compiler().evaluate(expr, context)) values.add(i.getStringValue());
            return values;
        }

        private static XPathCompiler compiler() {
            XPathCompiler x = SAXON.newXPathCompiler();
            x.declareNamespace("atom", Rfc.ATOM);
            x.declareNamespace("app", Rfc.APP);
            return x;
        }
    }
}
