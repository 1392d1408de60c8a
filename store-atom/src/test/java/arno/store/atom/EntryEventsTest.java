package arno.store.atom;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.XmlPolicy;

/**
 * The writer stores an entry from its parsed form, as events ({@link Entry#source}), and what it
 * stores is the document that parsing the entry's stored form as text gives: written out here by
 * hand from the rules of the stored entry (managed parts first, in their order, then the kept
 * elements as sent), stored by parsing, and compared by meaning (XMLUnit, comments and processing
 * instructions included) and by the in-scope namespaces of every element, which XMLUnit does not
 * compare. The same holds for an entry read back from the store and written again (how reciprocal
 * links and deletes rewrite entries), and for the media-link entry the server makes.
 */
class EntryEventsTest {

    @TempDir
    Path dir;

    private static final AtomXml XML = new AtomXml(XmlPolicy.DEFAULT);
    private static final Instant TIME = Instant.parse("2026-01-02T03:04:05.678Z");

    /** arno is bound on the link only: the kept elements have it in scope once stored, as the entry's text says. */
    private static final String POSTED = "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:x='urn:x'>"
            + "<id>ignored: the server's</id>\n  "
            + "<title type='html'>A &amp; B</title>"
            + "<category scheme='urn:arno:kind' term='article'/>"
            + "<link rel='self' href='/ignored.atom'/>"
            + "<link xmlns:arno='urn:arno:atom' rel='related' arno:role='cites' href='/j/a2.atom' title='Other'/>"
            + "<x:meta x:a='1' plain='2'><x:deep>t<!-- c --><?pi d?></x:deep></x:meta>"
            + "<summary xmlns:y='urn:y'><y:b>bold</y:b> and <i xmlns=''>plain</i></summary>"
            + "<z:ext xmlns:z='urn:z'><![CDATA[<raw> & ]]></z:ext>"
            + "<author><name>Ann</name></author>"
            + "<plain xmlns=''>v</plain>"
            + "</entry>";

    /** POSTED stored at /j/a1 by user u at TIME with a JATS variant of 1234 bytes. */
    private static final String EXPECTED = "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:arno='urn:arno:atom'>"
            + "<id>urn:uuid:1</id><updated>2026-01-02T03:04:05.678Z</updated>"
            + "<category scheme='urn:arno:kind' term='article'/>"
            + "<link rel='self' href='/j/a1.atom'/><link rel='edit' href='/j/a1.atom'/><link rel='up' href='/j.atom'/>"
            + "<link rel='describedby' type='application/xml' href='/_model/article.xml'/>"
            + "<link rel='alternate' arno:role='jats' type='application/xml' href='/j/a1.xml' length='1234'/>"
            + "<link rel='related' arno:role='cites' href='/j/a2.atom' title='Other'/>"
            + "<title xmlns:x='urn:x' type='html'>A &amp; B</title>"
            + "<x:meta xmlns:x='urn:x' x:a='1' plain='2'><x:deep>t<!-- c --><?pi d?></x:deep></x:meta>"
            + "<summary xmlns:x='urn:x' xmlns:y='urn:y'><y:b>bold</y:b> and <i xmlns=''>plain</i></summary>"
            + "<z:ext xmlns:x='urn:x' xmlns:z='urn:z'>&lt;raw&gt; &amp; </z:ext>"
            + "<author xmlns:x='urn:x'><name>Ann</name></author>"
            + "<plain xmlns='' xmlns:x='urn:x'>v</plain>"
            + "</entry>";

    private static final List<Entry.Alternate> JATS = List.of(new Entry.Alternate("jats", "application/xml", "/j/a1.xml", 1234));

    @Test
    void aPostedEntryIsStoredAsParsingItsStoredFormWould() {
        Entry posted = Entry.parse(XML, POSTED.getBytes(StandardCharsets.UTF_8), "the test entry", "store:/j/", "")
                .withId("urn:uuid:1");
        try (Store store = Fixtures.store(dir)) {
            write(store, "/j/a1.atom", posted.source(ResourcePath.of("/j/a1"), TIME, "u", JATS, "store:/j/a1.atom"));
            parse(store, "/expected/a1.atom", EXPECTED);
            assertSameDocument(store, "/j/a1.atom", "/expected/a1.atom");
        }
    }

    @Test
    void anEntryReadBackAndWrittenAgainIsTheSame() {
        Entry posted = Entry.parse(XML, POSTED.getBytes(StandardCharsets.UTF_8), "the test entry", "store:/j/", "")
                .withId("urn:uuid:1");
        try (Store store = Fixtures.store(dir)) {
            write(store, "/j/a1.atom", posted.source(ResourcePath.of("/j/a1"), TIME, "u", JATS, "store:/j/a1.atom"));
            try (WriteTransaction w = store.write()) {
                Snapshot v = w.view();
                Entry stored = Entry.stored(XML, new XdmNode(v.document("/j/a1.atom", XML.config).getRootNode()), "store:/j/a1.atom");
                // the view's trees go stale at this write; the entry read before must not depend on them
                w.put("/j/other.atom", "<other/>".getBytes(StandardCharsets.UTF_8));
                w.put("/j/a1.atom", stored.source(ResourcePath.of("/j/a1"), TIME, "u", JATS, "store:/j/a1.atom"),
                        Tx.ENTRY_MEDIA_TYPE);
                w.commit();
            }
            parse(store, "/expected/a1.atom", EXPECTED);
            assertSameDocument(store, "/j/a1.atom", "/expected/a1.atom");
        }
    }

    @Test
    void theMediaLinkEntryTheServerMakes() {
        Entry media = Entry.forMedia("T & <x>", "figure", new Entry.Media("/j/a1/m1.png", "image/png")).withId("urn:uuid:2");
        try (Store store = Fixtures.store(dir)) {
            write(store, "/j/a1/m1.atom", media.source(ResourcePath.of("/j/a1/m1"), TIME, null, List.of(), "store:/j/a1/m1.atom"));
            parse(store, "/expected/m1.atom", "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:arno='urn:arno:atom'>"
                    + "<id>urn:uuid:2</id><updated>2026-01-02T03:04:05.678Z</updated><author><name>arno</name></author>"
                    + "<category scheme='urn:arno:kind' term='figure'/>"
                    + "<link rel='self' href='/j/a1/m1.atom'/><link rel='edit' href='/j/a1/m1.atom'/><link rel='up' href='/j/a1.atom'/>"
                    + "<link rel='describedby' type='application/xml' href='/_model/figure.xml'/>"
                    + "<link rel='edit-media' type='image/png' href='/j/a1/m1.png'/><content type='image/png' src='/j/a1/m1.png'/>"
                    + "<title>T &amp; &lt;x&gt;</title></entry>");
            assertSameDocument(store, "/j/a1/m1.atom", "/expected/m1.atom");
        }
    }

    private static void write(Store store, String uri, javax.xml.transform.Source source) {
        try (WriteTransaction w = store.write()) {
            w.put(uri, source, Tx.ENTRY_MEDIA_TYPE);
            w.commit();
        }
    }

    private static void parse(Store store, String uri, String xml) {
        try (WriteTransaction w = store.write()) {
            w.put(uri, xml.getBytes(StandardCharsets.UTF_8));
            w.commit();
        }
    }

    private static void assertSameDocument(Store store, String actual, String expected) {
        XmlAssert.assertThat(Fixtures.export(store, actual)).and(Fixtures.export(store, expected)).areIdentical();
        assertThat(scopes(store, actual)).isEqualTo(scopes(store, expected));
    }

    /** For each element of the stored tree in document order: its name and in-scope namespaces, sorted. */
    private static List<String> scopes(Store store, String uri) {
        try (Snapshot s = store.read()) {
            XdmNode doc = new XdmNode(s.document(uri, XML.config).getRootNode());
            List<String> out = new ArrayList<>();
            XML.processor.newXPathCompiler().evaluate("//*!(let $e := . return name($e) || ' ' || string-join(sort("
                    + "in-scope-prefixes($e)!(. || '=' || namespace-uri-for-prefix(., $e))), ' '))", doc)
                    .forEach(i -> out.add(i.getStringValue()));
            assertThat(out).isNotEmpty();
            return out;
        } catch (SaxonApiException e) {
            throw new AssertionError(e);
        }
    }
}
