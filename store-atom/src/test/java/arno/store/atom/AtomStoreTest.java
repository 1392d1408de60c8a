package arno.store.atom;

import static arno.store.atom.Fixtures.bytes;
import static arno.store.atom.Fixtures.entry;
import static arno.store.atom.Fixtures.link;
import static arno.store.atom.Fixtures.links;
import static arno.store.atom.Fixtures.xpath;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

import arno.store.Binary;
import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;

class AtomStoreTest {

    @TempDir
    Path dir;
    Store store;
    AtomStore atom;
    ResourcePath journals;
    ResourcePath ja;
    ResourcePath v1;
    ResourcePath i1;
    ResourcePath a1;

    @BeforeEach
    void open() {
        store = Fixtures.store(dir);
        atom = AtomStore.open(store, AtomOptions.defaults().maxBodyBytes(3 << 20));
        journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed").path();
        ja = atom.createEntry(journals, null, "ja", entry("journal", "Journal A"), "ed").path();
        v1 = atom.createEntry(ja, null, null, entry("volume", "Volume 1"), "ed").path();
        i1 = atom.createEntry(v1, null, null, entry("issue", "Issue 1"), "ed").path();
        a1 = atom.createEntry(i1, null, "a0001", entry("article", "Article 1"), "ed").path();
    }

    @AfterEach
    void close() {
        atom.close();
        store.close();
    }

    private static ArnoException failure(Runnable r) {
        try {
            r.run();
        } catch (ArnoException e) {
            return e;
        }
        throw new AssertionError("no error");
    }

    private long version(String doc) {
        try (Snapshot s = store.read()) {
            DocumentInfo i = s.info(doc);
            return i == null ? -1 : i.version();
        }
    }

    private boolean exists(String doc) {
        try (Snapshot s = store.read()) {
            return s.exists(doc);
        }
    }

    @Test
    void installsTheDefaultModelsIntoAnEmptyStore() {
        try (Snapshot s = store.read()) {
            assertThat(s.uris("/_model/")).hasSize(Introspection.DEFAULT_KINDS.size());
            assertThat(atom.model(s).kinds()).containsExactlyInAnyOrderElementsOf(Introspection.DEFAULT_KINDS);
            assertThat(atom.model(s)).isSameAs(atom.model(s));
        }
    }

    @Test
    void namesByTheCollectionsRules() {
        assertThat(journals.path()).isEqualTo("/journals");
        assertThat(v1.path()).isEqualTo("/journals/ja/v1");
        assertThat(i1.path()).isEqualTo("/journals/ja/v1/i1");
        assertThat(a1.path()).isEqualTo("/journals/ja/v1/i1/a0001");
        ResourcePath v2 = atom.createEntry(ja, null, "ignored", entry("volume", "Volume 2"), "ed").path();
        assertThat(v2.name()).isEqualTo("v2");
        // tables: pattern t{n}, the next after the largest, never a gap's
        ResourcePath t1 = atom.createEntry(a1, null, null, entry("table", "T"), "ed").path();
        ResourcePath t2 = atom.createEntry(a1, null, null, entry("table", "T"), "ed").path();
        atom.delete(t1, -1, "ed");
        ResourcePath t3 = atom.createEntry(a1, "tables", null, entry("table", "T"), "ed").path();
        assertThat(List.of(t1.name(), t2.name(), t3.name())).containsExactly("t1", "t2", "t3");
        // slugs are cleaned to the name syntax
        ResourcePath f = atom.createEntry(a1, null, " Fig. 1 (café) ", entry("figure", "F"), "ed").path();
        assertThat(f.name()).isEqualTo("Fig-1-cafe");
    }

    @Test
    void anExistingSlugIsAConflictAndWithoutOneTheServerNames() {
        ArnoException e = failure(() -> atom.createEntry(i1, null, "a0001", entry("article", "Again"), "ed"));
        assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
        assertThat(xpath(store, a1.entryDocument(), "/a:entry/a:title")).containsExactly("Article 1");
        // RFC 5023 9.7: the Slug is a hint; without one a slug collection names from the title, never in conflict
        ResourcePath first = atom.createEntry(i1, null, null, entry("article", "No slug"), "ed").path();
        ResourcePath second = atom.createEntry(i1, null, null, entry("article", "No slug"), "ed").path();
        ResourcePath blank = atom.createEntry(i1, null, " -- ", entry("article", "No slug"), "ed").path();
        ResourcePath third = atom.createEntry(i1, null, null, entry("article", "No slug"), "ed").path();
        assertThat(List.of(first.name(), second.name(), blank.name(), third.name()))
                .containsExactly("No-slug", "No-slug-2", "No-slug-3", "No-slug-4");
        ResourcePath symbols = atom.createEntry(i1, null, null, entry("article", "?!"), "ed").path();
        assertThat(symbols.name()).isEqualTo("1");
        // a title longer than a name is cut to leave room for the number
        String longTitle = "T".repeat(150);
        assertThat(atom.createEntry(i1, null, null, entry("article", longTitle), "ed").path().name()).isEqualTo("T".repeat(100));
        assertThat(atom.createEntry(i1, null, null, entry("article", longTitle), "ed").path().name())
                .isEqualTo("T".repeat(90) + "-2");
    }

    @Test
    void storesTheManagedFormAndKeepsTheRestAsSent() {
        byte[] posted = ("<entry xmlns='http://www.w3.org/2005/Atom' xmlns:x='urn:x' xmlns:arno='urn:arno:atom'>"
                + "<id>urn:client</id><updated>2000-01-01T00:00:00Z</updated><title type='text'>A figure</title>"
                + "<link rel='self' href='/elsewhere.atom'/><link rel='alternate' href='/nowhere.xml'/>"
                + "<link rel='via' href='http://example.org/source'/>"
                + "<category scheme='urn:arno:kind' term='figure'/><category term='open-access'/>"
                + "<summary>S &amp; T</summary><x:caption n='1'>Cap <x:b>bold</x:b></x:caption></entry>")
                .getBytes(StandardCharsets.UTF_8);
        AtomStore.Written w = atom.createEntry(a1, null, "f1", posted, "ed");
        String doc = "/journals/ja/v1/i1/a0001/f1.atom";
        assertThat(w.document()).isEqualTo(doc);
        try (Snapshot s = store.read()) {
            DocumentInfo info = s.info(doc);
            assertThat(info.version()).isEqualTo(w.version());
            assertThat(info.mediaType()).isEqualTo("application/atom+xml");
            assertThat(info.modified()).isEqualTo(w.time());
        }
        String stored = Fixtures.export(store, doc);
        String id = xpath(store, doc, "/a:entry/a:id").get(0);
        assertThat(id).startsWith("urn:uuid:");
        String updated = xpath(store, doc, "/a:entry/a:updated").get(0);
        assertThat(java.time.Instant.parse(updated)).isEqualTo(w.time());
        XmlAssert.assertThat(stored).and("<entry xmlns='http://www.w3.org/2005/Atom' xmlns:arno='urn:arno:atom' xmlns:x='urn:x'>"
                + "<id>" + id + "</id><updated>" + updated + "</updated><author><name>ed</name></author>"
                + "<category scheme='urn:arno:kind' term='figure'/>"
                + "<link rel='self' href='" + doc + "'/><link rel='edit' href='" + doc + "'/>"
                + "<link rel='up' href='/journals/ja/v1/i1/a0001.atom'/>"
                + "<link rel='describedby' type='application/xml' href='/_model/figure.xml'/>"
                + "<title type='text'>A figure</title><link rel='alternate' href='/nowhere.xml'/>"
                + "<link rel='via' href='http://example.org/source'/>"
                + "<category term='open-access'/><summary>S &amp; T</summary>"
                + "<x:caption n='1'>Cap <x:b>bold</x:b></x:caption></entry>")
                .ignoreWhitespace().areSimilar();
        // the parent is a reference of the entry (the reverse link index), its model is not
        try (Snapshot s = store.read()) {
            assertThat(s.references(doc)).containsExactly("/journals/ja/v1/i1/a0001.atom");
        }
    }

    @Test
    void replacingKeepsTheIdAndChecksIfMatch() {
        String doc = a1.entryDocument();
        String id = xpath(store, doc, "/a:entry/a:id").get(0);
        long v = version(doc);
        ArnoException stale = failure(() -> atom.replaceEntry(a1, v - 1, entry("article", "Stale"), "ed"));
        assertThat(stale.code()).isEqualTo(ErrorCode.PRECONDITION_FAILED);
        assertThat(version(doc)).isEqualTo(v);
        AtomStore.Written w = atom.replaceEntry(a1, v, entry(null, "Renamed", "<author><name>Ann</name></author>"), "ed");
        assertThat(w.version()).isGreaterThan(v);
        assertThat(xpath(store, doc, "/a:entry/a:id")).containsExactly(id);
        assertThat(xpath(store, doc, "/a:entry/a:title")).containsExactly("Renamed");
        assertThat(xpath(store, doc, "/a:entry/a:author/a:name")).containsExactly("Ann");
        assertThat(xpath(store, doc, "/a:entry/a:category[@scheme='urn:arno:kind']/@term")).containsExactly("article");
        ArnoException otherKind = failure(() -> atom.replaceEntry(a1, -1, entry("figure", "X"), "ed"));
        assertThat(otherKind.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        ArnoException missing = failure(() -> atom.replaceEntry(i1.child("nope"), 1, entry("article", "X"), "ed"));
        assertThat(missing.code()).isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void badEntriesAreRefusedWithTheirReason() {
        ArnoException malformed = failure(() -> atom.createEntry(i1, null, "x", "<entry>\n<title>x</entry>"
                .getBytes(StandardCharsets.UTF_8), "ed"));
        assertThat(malformed.code()).isEqualTo(ErrorCode.MALFORMED_XML);
        assertThat(malformed.where().line()).isEqualTo(2);
        ArnoException feed = failure(() -> atom.createEntry(i1, null, "x",
                "<feed xmlns='http://www.w3.org/2005/Atom'/>".getBytes(StandardCharsets.UTF_8), "ed"));
        assertThat(feed.code()).isEqualTo(ErrorCode.INVALID_XML);
        ArnoException untitled = failure(() -> atom.createEntry(i1, null, "x", entry("article", null), "ed"));
        assertThat(untitled.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        ArnoException wrongPlace = failure(() -> atom.createEntry(i1, null, "x", entry("volume", "V"), "ed"));
        assertThat(wrongPlace.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(wrongPlace.getMessage()).contains("kind 'volume' may not be a child of /journals/ja/v1/i1 (kind issue)"
                + ": its collections accept article; see /_model/issue.xml");
        ArnoException unknownKind = failure(() -> atom.createEntry(i1, "articles", "x", entry("poem", "P"), "ed"));
        assertThat(unknownKind.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        ArnoException noParent = failure(() -> atom.createEntry(i1.child("nope"), null, "x", entry("figure", "F"), "ed"));
        assertThat(noParent.code()).isEqualTo(ErrorCode.NOT_FOUND);
        ArnoException tooLarge = failure(() -> atom.createEntry(i1, null, "x", entry("article", "x".repeat(2 << 20)), "ed"));
        assertThat(tooLarge.code()).isEqualTo(ErrorCode.BODY_TOO_LARGE);
        try (Snapshot s = store.read()) {
            assertThat(s.uris("/journals/ja/v1/i1/x")).isEmpty();
        }
    }

    @Test
    void editingTheModelLetsAnIssueBeCreatedUnderAJournal() {
        ArnoException before = failure(() -> atom.createEntry(ja, null, null, entry("issue", "Special"), "ed"));
        assertThat(before.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(before.getMessage()).isEqualTo("kind 'issue' may not be a child of /journals/ja (kind journal): "
                + "its collections accept volume; see /_model/journal.xml");
        String model = new String(Introspection.defaultDocument("journal"), StandardCharsets.UTF_8)
                .replace("</kind>", "  <collection name=\"issues\" kinds=\"issue\" naming=\"pattern\" pattern=\"s{n}\"/>\n</kind>");
        long v = version("/_model/journal.xml");
        ArnoException stale = failure(() -> atom.putModel("journal", v + 100, model.getBytes(StandardCharsets.UTF_8), "ed"));
        assertThat(stale.code()).isEqualTo(ErrorCode.PRECONDITION_FAILED);
        ArnoException invalid = failure(() -> atom.putModel("journal", v, "<kind xmlns='urn:arno:introspection' name='journal'><x/></kind>"
                .getBytes(StandardCharsets.UTF_8), "ed"));
        assertThat(invalid.code()).isEqualTo(ErrorCode.INVALID_XML);
        atom.putModel("journal", v, model.getBytes(StandardCharsets.UTF_8), "ed");
        ResourcePath special = atom.createEntry(ja, null, null, entry("issue", "Special"), "ed").path();
        assertThat(special.path()).isEqualTo("/journals/ja/s1");
    }

    @Test
    void requiredElementsComeFromTheModel() {
        String model = new String(Introspection.defaultDocument("volume"), StandardCharsets.UTF_8)
                .replace("</kind>", "<require element=\"arno:number\" xmlns:arno=\"urn:arno:atom\"/></kind>");
        atom.putModel("volume", -1, model.getBytes(StandardCharsets.UTF_8), "ed");
        ArnoException e = failure(() -> atom.createEntry(ja, null, null, entry("volume", "V2"), "ed"));
        assertThat(e.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(e.getMessage()).contains("arno:number").contains("/_model/volume.xml");
        atom.createEntry(ja, null, null, entry("volume", "V2", "<arno:number>2</arno:number>"), "ed");
    }

    @Test
    void variantsXmlAsTreesOthersAsBytes() {
        String jats = "<article xmlns:xlink='http://www.w3.org/1999/xlink'><front><article-meta/></front></article>";
        AtomStore.Written w = atom.putVariant(a1, "xml", null, 0, bytes(jats), "ed");
        assertThat(w.document()).isEqualTo("/journals/ja/v1/i1/a0001.xml");
        byte[] pdf = new byte[300_000];
        Arrays.fill(pdf, (byte) 7);
        atom.putVariant(a1, "pdf", "application/pdf", 0, new ByteArrayInputStream(pdf), "ed");
        try (Snapshot s = store.read()) {
            assertThat(s.info("/journals/ja/v1/i1/a0001.xml").binary()).isFalse();
            Binary b = s.binary("/journals/ja/v1/i1/a0001.pdf");
            assertThat(b.length()).isEqualTo(pdf.length);
            assertThat(b.mediaType()).isEqualTo("application/pdf");
        }
        String doc = a1.entryDocument();
        assertThat(xpath(store, doc, "/a:entry/a:link[@rel='alternate']/concat(@arno:role, ' ', @type, ' ', @href, ' ', @length)"))
                .containsExactly("pdf application/pdf /journals/ja/v1/i1/a0001.pdf 300000",
                        "jats application/xml /journals/ja/v1/i1/a0001.xml " + jats.length());
        // conditions
        assertThat(failure(() -> atom.putVariant(a1, "xml", null, 0, bytes(jats), "ed")).code())
                .isEqualTo(ErrorCode.PRECONDITION_FAILED);
        long v = version("/journals/ja/v1/i1/a0001.xml");
        atom.putVariant(a1, "xml", "application/xml", v, bytes("<article/>"), "ed");
        // refusals, each leaving nothing
        long entryVersion = version(doc);
        ArnoException malformed = failure(() -> atom.putVariant(a1, "xhtml", null, 0, bytes("<html>\n<p></html>"), "ed"));
        assertThat(malformed.code()).isEqualTo(ErrorCode.MALFORMED_XML);
        assertThat(malformed.where().line()).isEqualTo(2);
        assertThat(exists("/journals/ja/v1/i1/a0001.xhtml")).isFalse();
        ArnoException role = failure(() -> atom.putVariant(a1, "png", null, 0, bytes("x"), "ed"));
        assertThat(role.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(role.getMessage()).contains("no variant with the extension 'png'").contains("/_model/article.xml");
        ArnoException type = failure(() -> atom.putVariant(a1, "pdf", "image/png", -1, bytes("x"), "ed"));
        assertThat(type.code()).isEqualTo(ErrorCode.UNSUPPORTED_MEDIA_TYPE);
        assertThat(version(doc)).isEqualTo(entryVersion);
        // delete one
        atom.deleteVariant(a1, "pdf", -1, "ed");
        assertThat(exists("/journals/ja/v1/i1/a0001.pdf")).isFalse();
        assertThat(xpath(store, doc, "/a:entry/a:link[@rel='alternate']/@arno:role")).containsExactly("jats");
        assertThat(failure(() -> atom.deleteVariant(a1, "pdf", -1, "ed")).code()).isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void bodiesOverTheLimitAreRefusedAndLargeOnesSpooled() {
        byte[] big = new byte[(3 << 20) + 1];
        ArnoException e = failure(() -> atom.putVariant(a1, "pdf", null, 0, new ByteArrayInputStream(big), "ed"));
        assertThat(e.code()).isEqualTo(ErrorCode.BODY_TOO_LARGE);
        assertThat(exists("/journals/ja/v1/i1/a0001.pdf")).isFalse();
        byte[] spooled = new byte[(2 << 20) + 17];
        new java.util.Random(1).nextBytes(spooled);
        atom.putVariant(a1, "pdf", null, 0, new ByteArrayInputStream(spooled), "ed");
        try (Snapshot s = store.read(); var in = s.binary("/journals/ja/v1/i1/a0001.pdf").open()) {
            assertThat(in.readAllBytes()).isEqualTo(spooled);
        } catch (java.io.IOException x) {
            throw new AssertionError(x);
        }
    }

    @Test
    void mediaResourcesGetMediaLinkEntries() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};
        AtomStore.Written w = atom.createMedia(a1, null, "Plate 1", "image/png", new ByteArrayInputStream(png), "ed");
        assertThat(w.path().path()).isEqualTo("/journals/ja/v1/i1/a0001/m1");
        String doc = w.document();
        assertThat(xpath(store, doc, "/a:entry/a:title")).containsExactly("Plate 1");
        assertThat(xpath(store, doc, "/a:entry/a:link[@rel='edit-media']/@href")).containsExactly("/journals/ja/v1/i1/a0001/m1.png");
        assertThat(xpath(store, doc, "/a:entry/a:content/@src")).containsExactly("/journals/ja/v1/i1/a0001/m1.png");
        assertThat(xpath(store, doc, "/a:entry/a:link[@rel='alternate']/@arno:role")).containsExactly("media");
        try (Snapshot s = store.read()) {
            assertThat(s.binary("/journals/ja/v1/i1/a0001/m1.png").length()).isEqualTo(png.length);
        }
        ResourcePath m2 = atom.createMedia(a1, "media", null, "application/pdf", bytes("%PDF"), "ed").path();
        assertThat(m2.name()).isEqualTo("m2");
        // replacing a media-link entry keeps its media
        atom.replaceEntry(w.path(), -1, entry(null, "Plate one", "<content type='text'>client's</content>"), "ed");
        assertThat(xpath(store, doc, "/a:entry/a:content/@src")).containsExactly("/journals/ja/v1/i1/a0001/m1.png");
        // the media itself can be replaced, not deleted alone
        atom.putVariant(w.path(), "png", "image/png", -1, new ByteArrayInputStream(new byte[] {1}), "ed");
        assertThat(failure(() -> atom.deleteVariant(w.path(), "png", -1, "ed")).code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        ArnoException gif = failure(() -> atom.createMedia(a1, null, "g", "image/gif", bytes("GIF"), "ed"));
        assertThat(gif.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(gif.getMessage()).contains("no collection of /journals/ja/v1/i1/a0001 (kind article) accepts media type image/gif");
    }

    @Test
    void reciprocalLinksFollowCreateReplaceAndDelete() {
        ResourcePath f1 = atom.createEntry(a1, null, "f1", entry("figure", "F1"), "ed").path();
        atom.replaceEntry(a1, -1, entry("article", "Article 1", link("figure", f1.entryDocument())), "ed");
        assertThat(links(store, f1)).containsExactly("article " + a1.entryDocument());
        try (Snapshot s = store.read()) {
            assertThat(s.referrers(f1.entryDocument())).containsExactly(a1.entryDocument());
        }
        // the figure sends its entry back as read: nothing changes on either side
        atom.replaceEntry(f1, -1, entry("figure", "F1 again", link("article", a1.entryDocument())), "ed");
        assertThat(links(store, a1)).containsExactly("figure " + f1.entryDocument());
        // the figure drops the link: the article's goes too
        atom.replaceEntry(f1, -1, entry("figure", "F1"), "ed");
        assertThat(links(store, a1)).isEmpty();
        // created with a link whose href is the resource path (no .atom): taken as the entry
        ResourcePath f2 = atom.createEntry(a1, null, "f2", entry("figure", "F2", link("article", a1.path())), "ed").path();
        assertThat(links(store, a1)).containsExactly("figure " + f2.entryDocument());
        AtomStore.Deleted d = atom.delete(f2, -1, "ed");
        assertThat(d.linksRemoved()).isEqualTo(1);
        assertThat(d.documents()).containsExactly(f2.entryDocument());
        assertThat(links(store, a1)).isEmpty();
    }

    @Test
    void hrefsBehindTheApisMountAreStoredAsStorePaths() {
        ResourcePath f1 = atom.createEntry(a1, null, "f1", entry("figure", "F1"), "ed").path();
        try (AtomStore mounted = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store/"))) {
            mounted.replaceEntry(a1, -1, entry("article", "A", link("figure", "/store" + f1.entryDocument())), "ed");
        }
        assertThat(links(store, a1)).containsExactly("figure " + f1.entryDocument());
        assertThat(links(store, f1)).containsExactly("article " + a1.entryDocument());
    }

    @Test
    void typedLinksAreChecked() {
        ResourcePath f1 = atom.createEntry(a1, null, "f1", entry("figure", "F1"), "ed").path();
        ArnoException role = failure(() -> atom.replaceEntry(a1, -1, entry("article", "A", link("sees", f1.entryDocument())), "ed"));
        assertThat(role.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(role.getMessage()).contains("declares no link role 'sees'").contains("/_model/article.xml");
        ArnoException absent = failure(() -> atom.replaceEntry(a1, -1, entry("article", "A", link("figure", "/journals/x.atom")), "ed"));
        assertThat(absent.getMessage()).contains("does not exist");
        ArnoException kind = failure(() -> atom.replaceEntry(a1, -1, entry("article", "A", link("figure", i1.entryDocument())), "ed"));
        assertThat(kind.getMessage()).contains("kind 'issue'");
        ArnoException notEntry = failure(() -> atom.replaceEntry(a1, -1, entry("article", "A", link("figure", "http://x.org/")), "ed"));
        assertThat(notEntry.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
        assertThat(links(store, a1)).isEmpty();
    }

    @Test
    void deleteChecksIfMatchAndTheRootCannotBeDeleted() {
        long v = version(a1.entryDocument());
        assertThat(failure(() -> atom.delete(a1, v - 1, "ed")).code()).isEqualTo(ErrorCode.PRECONDITION_FAILED);
        assertThat(exists(a1.entryDocument())).isTrue();
        assertThat(failure(() -> atom.delete(ResourcePath.ROOT, -1, "ed")).code()).isEqualTo(ErrorCode.METHOD_NOT_ALLOWED);
        assertThat(failure(() -> atom.delete(i1.child("nope"), -1, "ed")).code()).isEqualTo(ErrorCode.NOT_FOUND);
        atom.delete(a1, v, "ed");
        assertThat(exists(a1.entryDocument())).isFalse();
        assertThat(store.check()).isEmpty();
    }
}
