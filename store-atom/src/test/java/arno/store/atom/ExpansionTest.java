package arno.store.atom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import net.sf.saxon.Configuration;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xml.sax.ContentHandler;
import org.xmlunit.assertj3.XmlAssert;

/**
 * Expansion against expectations written out by hand from the resource model: a small hierarchy
 * (journals / ja / v1 / {a1, a1-x} / f1) with a JATS variant, an SVG variant and a PDF link, each
 * expanded output compared by meaning with XMLUnit and validated against RFC 4287's grammar.
 */
class ExpansionTest {
    @TempDir static Path tmp;
    static Store store;
    static final Configuration CONFIG = new Configuration();

    static final String ATOM = "http://www.w3.org/2005/Atom";
    static final String ARNO = "urn:arno:atom";

    /** The stored entry of {@code path}: id, title, updated, and the given links. */
    static String entry(String path, String links) {
        return "<entry xmlns='" + ATOM + "' xmlns:arno='" + ARNO + "'><id>urn:test:" + path + "</id><title>" + path
                + "</title><updated>2026-11-24T10:00:00Z</updated><link rel='self' href='" + path + ".atom'/>"
                + links + "</entry>";
    }

    static String up(String parent) {
        return "<link rel='up' href='" + parent + ".atom'/>";
    }

    static final String JATS = "<article article-type='research-article'><front><article-meta><title-group>"
            + "<article-title>On <italic>stores</italic></article-title></title-group></article-meta></front></article>";
    static final String SVG = "<svg xmlns='http://www.w3.org/2000/svg' width='10'><rect width='5'/></svg>";
    static final String A1_LINKS = up("/journals/ja/v1")
            + "<link rel='alternate' arno:role='jats' type='application/xml' href='/journals/ja/v1/a1.xml'/>"
            + "<link rel='alternate' arno:role='pdf' type='application/pdf' href='/journals/ja/v1/a1.pdf'/>";
    static final String F1_LINKS = up("/journals/ja/v1/a1")
            + "<link rel='alternate' arno:role='image' type='image/svg+xml' href='/journals/ja/v1/a1/f1.svg'/>";

    @BeforeAll static void load() {
        store = Store.open(tmp.resolve("store"));
        try (WriteTransaction w = store.write()) {
            put(w, "/journals.atom", entry("/journals", ""));
            put(w, "/journals/ja.atom", entry("/journals/ja", up("/journals")));
            put(w, "/journals/ja/v1.atom", entry("/journals/ja/v1", up("/journals/ja")));
            put(w, "/journals/ja/v1/a1.atom", entry("/journals/ja/v1/a1", A1_LINKS));
            put(w, "/journals/ja/v1/a1.xml", JATS);
            put(w, "/journals/ja/v1/a1-x.atom", entry("/journals/ja/v1/a1-x", up("/journals/ja/v1")));
            put(w, "/journals/ja/v1/a1/f1.atom", entry("/journals/ja/v1/a1/f1", F1_LINKS));
            put(w, "/journals/ja/v1/a1/f1.svg", SVG);
            // an entry whose parent link dangles: left as it is
            put(w, "/orphans/o1.atom", entry("/orphans/o1", up("/orphans")));
            w.commit();
        }
    }

    static void put(WriteTransaction w, String uri, String xml) {
        w.put(uri, xml.getBytes(StandardCharsets.UTF_8));
    }

    @AfterAll static void close() {
        store.close();
    }

    static String expand(String path, Expansion.Options o) throws Exception {
        StringWriter text = new StringWriter();
        Serializer s = new Processor(CONFIG).newSerializer(text);
        ContentHandler h = s.getContentHandler();
        try (Snapshot view = store.read()) {
            h.startDocument();
            Expansion.write(view, CONFIG, ResourcePath.of(path), o, h);
            h.endDocument();
        }
        String xml = text.toString();
        // The expansion's format by RFC 4287's grammar (inlined entries wrapped in a foreign element).
        // The fixtures are bare entries (no author, no content): what the API adds to every entry it
        // serves, and the RFC's rules beyond the grammar, are checked over HTTP (AtomPubClientTest).
        assertThat(Rfc.problems("atom.rnc", xml)).as(xml).isEmpty();
        return xml;
    }

    static void assertSimilar(String actual, String expected) {
        XmlAssert.assertThat(actual).and(expected).ignoreWhitespace().areSimilar();
    }

    /** An inlined resource as the expansion writes it: inside arno:inline inside the link. */
    static String inline(String linkStart, String content) {
        return linkStart + "<arno:inline>" + content + "</arno:inline></link>";
    }

    @Test void withoutOptionsTheEntryIsAsStored() throws Exception {
        assertSimilar(expand("/journals/ja/v1/a1", Expansion.Options.NONE), entry("/journals/ja/v1/a1", A1_LINKS));
    }

    @Test void ancestorsNestEachParentInItsUpLinkToTheTopLevelEntry() throws Exception {
        String journals = entry("/journals", "");
        String ja = entry("/journals/ja", inline("<link rel='up' href='/journals.atom'>", journals));
        String v1 = entry("/journals/ja/v1", inline("<link rel='up' href='/journals/ja.atom'>", ja));
        String expected = entry("/journals/ja/v1/a1", inline("<link rel='up' href='/journals/ja/v1.atom'>", v1)
                + A1_LINKS.substring(up("/journals/ja/v1").length()));
        assertSimilar(expand("/journals/ja/v1/a1", new Expansion.Options(true, 0, Set.of())), expected);
    }

    @Test void aDanglingUpLinkIsLeftAsItIs() throws Exception {
        assertSimilar(expand("/orphans/o1", new Expansion.Options(true, 0, Set.of())), entry("/orphans/o1", up("/orphans")));
    }

    @Test void variantsOfTheAskedRoleAreInlinedWithTheirOwnNamespaces() throws Exception {
        String xml = expand("/journals/ja/v1/a1", new Expansion.Options(false, 0, Set.of("jats", "pdf")));
        // the PDF is no XML and stays a plain link; the JATS article keeps its null namespace
        String expected = entry("/journals/ja/v1/a1", up("/journals/ja/v1")
                + inline("<link rel='alternate' arno:role='jats' type='application/xml' href='/journals/ja/v1/a1.xml'>",
                        JATS.replace("<article ", "<article xmlns='' "))
                + "<link rel='alternate' arno:role='pdf' type='application/pdf' href='/journals/ja/v1/a1.pdf'/>");
        assertSimilar(xml, expected);
        assertThat(xml).contains("xmlns=\"\"");
        // a role not asked for is not inlined
        assertSimilar(expand("/journals/ja/v1/a1", new Expansion.Options(false, 0, Set.of("image"))),
                entry("/journals/ja/v1/a1", A1_LINKS));
    }

    @Test void oneLevelOfDescendantsListsTheChildrenInNameOrder() throws Exception {
        // names a1 < a1-x, though by bytes the document a1-x.atom sorts before a1.atom
        String expected = entry("/journals/ja/v1", up("/journals/ja")
                + inline("<link rel='down' href='/journals/ja/v1/' type='application/atom+xml;type=feed'>",
                        entry("/journals/ja/v1/a1", A1_LINKS) + entry("/journals/ja/v1/a1-x", up("/journals/ja/v1"))));
        assertSimilar(expand("/journals/ja/v1", new Expansion.Options(false, 1, Set.of())), expected);
    }

    @Test void allDescendantsWithAllVariantsGoesToTheLeaves() throws Exception {
        String down = "<link rel='down' href='%s/' type='application/atom+xml;type=feed'>";
        String f1 = entry("/journals/ja/v1/a1/f1", up("/journals/ja/v1/a1")
                + inline("<link rel='alternate' arno:role='image' type='image/svg+xml' href='/journals/ja/v1/a1/f1.svg'>", SVG)
                + inline(String.format(down, "/journals/ja/v1/a1/f1"), ""));
        String a1 = entry("/journals/ja/v1/a1", up("/journals/ja/v1")
                + inline("<link rel='alternate' arno:role='jats' type='application/xml' href='/journals/ja/v1/a1.xml'>",
                        JATS.replace("<article ", "<article xmlns='' "))
                + "<link rel='alternate' arno:role='pdf' type='application/pdf' href='/journals/ja/v1/a1.pdf'/>"
                + inline(String.format(down, "/journals/ja/v1/a1"), f1));
        String a1x = entry("/journals/ja/v1/a1-x", up("/journals/ja/v1") + inline(String.format(down, "/journals/ja/v1/a1-x"), ""));
        String expected = entry("/journals/ja/v1", up("/journals/ja") + inline(String.format(down, "/journals/ja/v1"), a1 + a1x));
        assertSimilar(expand("/journals/ja/v1", new Expansion.Options(false, Expansion.ALL, Set.of("all"))), expected);
    }

    @Test void ancestorsAndDescendantsTogetherExpandEachDirectionOnce() throws Exception {
        String xml = expand("/journals/ja/v1/a1", new Expansion.Options(true, 1, Set.of()));
        // the parent chain is there once, and the child f1 does not repeat it
        assertThat(xml.split("rel=\"up\"", -1)).hasSize(1 + 3 + 1);
        assertThat(xml).contains("urn:test:/journals/ja/v1/a1/f1").contains("urn:test:/journals<");
    }

    @Test void anEntryThatIsNotThereIsNotFound() {
        assertThatThrownBy(() -> expand("/journals/none", Expansion.Options.NONE)).isInstanceOfSatisfying(ArnoException.class,
                e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).contains("/journals/none");
                });
    }

    @Test void optionsAreParsedFromQueryParameters() {
        Expansion.Options o = Expansion.Options.parse(Map.of("with-ancestors", new String[] {"yes"},
                "with-descendants", new String[] {"all"}, "with-variants", new String[] {"jats", "pdf,image"})::get);
        assertThat(o).isEqualTo(new Expansion.Options(true, Expansion.ALL, Set.of("jats", "pdf", "image")));
        assertThat(Expansion.Options.parse(Map.of("with-descendants", new String[] {"2"})::get).descendants()).isEqualTo(2);
        assertThat(Expansion.Options.parse(Map.<String, String[]>of()::get).none()).isTrue();
        for (Map<String, String[]> bad : java.util.List.of(Map.of("with-ancestors", new String[] {"maybe"}),
                Map.of("with-descendants", new String[] {"-1"}), Map.of("with-descendants", new String[] {"many"}),
                Map.of("with-variants", new String[] {"<x>"}))) {
            assertThatThrownBy(() -> Expansion.Options.parse(bad::get)).isInstanceOfSatisfying(ArnoException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_PARAMETER));
        }
    }
}
