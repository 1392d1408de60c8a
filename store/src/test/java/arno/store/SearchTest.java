package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;

import arno.store.query.StoreQuery;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.XmlPolicy;

/**
 * The structured search against its definition, {@code collection('store:/x/')[CONDITION]}
 * evaluated by Saxon over every stored document: random Atom entries (DOIs in two cases, keyword
 * and status categories, volume and issue numbers written several ways, author names with stray
 * spaces, dates with and without timezones) in a hierarchy, with feeds that hold entries deeper
 * down; random conditions from a grammar, each written nested and flat. Both forms must give the
 * reference's documents, in its order, and equal plans. Then the platform's report, errors for
 * syntax outside the subset, and the plans themselves.
 */
class SearchTest {

    static final String ATOM = "http://www.w3.org/2005/Atom";
    static final String PRISM = "http://prismstandard.org/namespaces/basic/2.0/";
    static final Map<String, String> NS = Map.of("atom", ATOM, "prism", PRISM);

    /** The demo's indexes (sites/…/demo/indexes.xml), and the authors' names of an entry. */
    static final String CONFIG = """
            <indexes xmlns="urn:arno:indexes" xmlns:atom="http://www.w3.org/2005/Atom"
                     xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">
              <index name="doi" match="atom:entry" value="prism:doi" normalise="case"/>
              <index name="category" match="atom:entry/atom:category" key="@scheme" value="@term"/>
              <index name="issue-id" type="number" match="atom:entry" key="prism:volume" value="prism:number"/>
              <index name="author" match="atom:entry/atom:author" value="atom:name" normalise="case space"/>
              <index name="published" type="date" match="atom:entry" value="atom:published"/>
            </indexes>""";

    static final String[] TERMS = {"physics", "chemistry", "biology", "maths"};
    static final String[] NAMES = {"Smith", "smith", " Smith ", "Lee", "Öhman", "van der Berg"};
    static final String[] VOLUMES = {"1", "2", "3", "03"};
    static final String[] NUMBERS = {"1", "2", " 2 ", "2.0", "3", "10"};
    static final String[] DATES = {"2024-03-01", "2024-03-01Z", "2024-03-02+10:00", "2024-02-29-14:00", "2023-12-31",
            "2024-06-30"};

    @TempDir
    Path dir;

    Store store;
    final Random random = new Random(42);

    @BeforeEach
    void fill() {
        store = TestStores.open(dir);
        try (WriteTransaction w = store.write()) {
            ValueIndexes.install(w, IndexConfig.parse(CONFIG.getBytes(StandardCharsets.UTF_8), "config", XmlPolicy.DEFAULT),
                    null);
            for (int i = 0; i < 320; i++) {
                String uri = "/j/v" + (1 + random.nextInt(3)) + "/i" + (1 + random.nextInt(3)) + "/a" + i + ".atom";
                TestStores.put(w, uri, entry(i));
            }
            for (int i = 0; i < 12; i++) {
                // entries inside a feed: found by //, never by the anchored indexes
                TestStores.put(w, "/j/feeds/f" + i + ".atom", "<feed xmlns='" + ATOM + "'>" + entry(1000 + i) + "</feed>");
            }
            TestStores.put(w, "/k/other.atom", entry(2000));
            w.putBinary("/j/v1/cover.png", "image/png", new java.io.ByteArrayInputStream(new byte[] {1, 2, 3}));
            w.commit();
        }
    }

    @org.junit.jupiter.api.AfterEach
    void close() {
        store.close();
    }

    String entry(int n) {
        StringBuilder b = new StringBuilder("<entry xmlns='" + ATOM + "' xmlns:prism='" + PRISM + "'>");
        b.append("<title>T").append(n % 7).append("</title>");
        if (random.nextInt(8) > 0) {
            b.append("<prism:doi>10.5555/").append(random.nextBoolean() ? "J" : "j").append('.').append(n % 50)
                    .append("</prism:doi>");
        }
        for (int i = random.nextInt(3); i > 0; i--) {
            b.append("<category scheme='urn:arno:keyword' term='").append(pick(TERMS)).append("'/>");
        }
        if (random.nextInt(10) == 0) {
            b.append("<category scheme='urn:arno:status' term='retracted'/>");
        }
        if (random.nextInt(6) > 0) {
            b.append("<prism:volume>").append(pick(VOLUMES)).append("</prism:volume>");
        }
        if (random.nextInt(6) > 0) {
            b.append("<prism:number>").append(pick(NUMBERS)).append("</prism:number>");
        }
        for (int i = random.nextInt(3); i > 0; i--) {
            b.append("<author><name>").append(pick(NAMES)).append("</name></author>");
        }
        if (random.nextInt(5) > 0) {
            b.append("<published>").append(pick(DATES)).append("</published>");
        }
        return b.append("</entry>").toString();
    }

    private String pick(String[] a) {
        return a[random.nextInt(a.length)];
    }

    /** One condition on an entry: its nested form (a predicate of atom:entry) and its flat form (from the document). */
    record Atom(String nested, String flat) {
    }

    Atom atom() {
        switch (random.nextInt(15)) {
            case 0: {
                String doi = "10.5555/" + (random.nextBoolean() ? "J" : "j") + "." + random.nextInt(60);
                return new Atom("prism:doi = '" + doi + "'", "atom:entry/prism:doi = '" + doi + "'");
            }
            case 1: {
                String t = pick(TERMS);
                return new Atom("atom:category[@scheme = 'urn:arno:keyword'][@term = '" + t + "']",
                        "atom:entry/atom:category[@scheme = 'urn:arno:keyword' and @term = '" + t + "']");
            }
            case 2:
                return new Atom("atom:category[@scheme = 'urn:arno:keyword']",
                        "atom:entry/atom:category/@scheme = 'urn:arno:keyword'");
            case 3: {
                String v = pick(VOLUMES);
                return new Atom("prism:volume = '" + v + "'", "atom:entry/prism:volume = '" + v + "'");
            }
            case 4: {
                int n = 1 + random.nextInt(4);
                String op = pick(new String[] {"=", "<", "<=", ">", ">=", "!="});
                return new Atom("prism:number[. " + op + " " + n + "]", "atom:entry/prism:number " + op + " " + n);
            }
            case 5: {
                String name = pick(NAMES).strip();
                return new Atom("atom:author[atom:name = '" + name + "']", "atom:entry/atom:author/atom:name = '" + name + "'");
            }
            case 6: {
                String d = pick(new String[] {"2024-03-01", "2024-03-02", "2024-02-29", "2023-12-31", "2024-01-01"});
                String op = pick(new String[] {"=", "<", ">=", ">"});
                return new Atom("atom:published " + op + " xs:date('" + d + "')",
                        "xs:date('" + d + "') " + flip(op) + " atom:entry/atom:published");
            }
            case 7:
                return new Atom("not(atom:category[@scheme = 'urn:arno:status'][@term = 'retracted'])",
                        "not(atom:entry/atom:category[@scheme = 'urn:arno:status' and @term = 'retracted'])");
            case 8: {
                String a = pick(VOLUMES);
                String b = pick(VOLUMES);
                return new Atom("(prism:volume = '" + a + "' or prism:volume = '" + b + "')",
                        "(atom:entry/prism:volume = '" + a + "' or atom:entry/prism:volume = '" + b + "')");
            }
            case 9: {
                String t = "T" + random.nextInt(7);
                return new Atom("atom:title = '" + t + "'", "atom:entry/atom:title = '" + t + "'");
            }
            case 10: {
                int v = 1 + random.nextInt(3);
                // a number against the string key of issue-id: XPath compares numbers, so '03' = 3; verified only
                return new Atom("prism:volume = " + v, "atom:entry/prism:volume = " + v);
            }
            case 11: {
                String t = pick(TERMS);
                return new Atom(".//atom:category[@term = '" + t + "']", "atom:entry//atom:category/@term = '" + t + "'");
            }
            case 12: {
                String n = pick(new String[] {"2", "02", "2.0", "x"});
                // a string against a number index: compared as strings; '2' may use the index, 'x' may not
                return new Atom("prism:number = '" + n + "'", "atom:entry/prism:number = '" + n + "'");
            }
            case 13:
                return new Atom("atom:author/atom:name", "atom:entry/atom:author/atom:name");
            default: {
                String t = pick(TERMS);
                return new Atom("atom:category[@term = '" + t + "' and @scheme = 'urn:arno:keyword']",
                        "atom:entry/atom:category[@term = '" + t + "'][@scheme = 'urn:arno:keyword']");
            }
        }
    }

    private static String flip(String op) {
        return switch (op) {
            case "<" -> ">";
            case ">" -> "<";
            case ">=" -> "<=";
            case "<=" -> ">=";
            default -> op;
        };
    }

    /** The URIs, space-separated, of collection('store:' || under)[condition] and of store:search(under, condition). */
    String[] both(String under, String condition) {
        String query = "declare namespace atom = '" + ATOM + "'; declare namespace prism = '" + PRISM + "';\n"
                + "string-join(collection('store:" + under + "')[" + condition + "] ! document-uri(.), ' ') || '#' ||"
                + " string-join(store:search('" + under + "', \"" + condition.replace("\"", "\"\"") + "\") ! document-uri(.), ' ')";
        StringWriter out = new StringWriter();
        StoreQuery.compile(query, URI.create("file:/q"), "query", XmlPolicy.DEFAULT).run(store, null, out);
        String s = out.toString().strip();
        int hash = s.indexOf('#');
        return new String[] {s.substring(0, hash), s.substring(hash + 1)};
    }

    Plan plan(String under, String condition) {
        try (Snapshot s = store.read()) {
            return s.planSearch(under, condition, NS, store.ownConfiguration()).plan();
        }
    }

    @Test
    void randomConditionsNestedAndFlatEqualTheirXPathWithEqualPlans() {
        String[] folders = {"/j/", "/j/v1/", "/", "/j/feeds/", "/j/v2/i1/"};
        int nonEmpty = 0;
        int indexed = 0;
        for (int round = 0; round < 120; round++) {
            List<Atom> atoms = new ArrayList<>();
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                atoms.add(atom());
            }
            StringBuilder nested = new StringBuilder(random.nextBoolean() ? "atom:entry" : "/atom:entry");
            // the flat form says that the document element is an atom:entry, as the nested form does
            List<String> flat = new ArrayList<>(List.of(random.nextBoolean() ? "atom:entry" : "/atom:entry"));
            for (Atom a : atoms) {
                nested.append('[').append(a.nested()).append(']');
                flat.add(a.flat());
            }
            String under = folders[random.nextInt(folders.length)];
            String[] n = both(under, nested.toString());
            String[] f = both(under, String.join(" and ", flat));
            assertThat(n[1]).as("search %s under %s", nested, under).isEqualTo(n[0]);
            assertThat(f[1]).as("search %s under %s", flat, under).isEqualTo(f[0]);
            assertThat(f[0]).as("the two forms mean the same").isEqualTo(n[0]);
            Plan pn = plan(under, nested.toString());
            Plan pf = plan(under, String.join(" and ", flat));
            assertThat(pf).as("plans of %s and %s", nested, flat).isEqualTo(pn);
            if (!n[0].isEmpty()) {
                nonEmpty++;
            }
            if (!pn.scan()) {
                indexed++;
            }
        }
        // the generator is not degenerate: many searches find something, many use an index, some scan
        assertThat(nonEmpty).isGreaterThan(30);
        assertThat(indexed).isGreaterThan(40).isLessThan(120);
    }

    @Test
    void descendantPathsAndOtherShapesEqualTheirXPath() {
        List<String> conditions = List.of(
                "//atom:category[@scheme = 'urn:arno:keyword'][@term = 'physics']",
                "//atom:entry[prism:doi = '10.5555/j.3']",
                "atom:feed/atom:entry/prism:doi = '10.5555/j.3'",
                "atom:feed[atom:entry[prism:volume = '2'][prism:number = 2]]",
                "atom:entry[prism:volume = '2'][prism:number = 2]",
                "atom:entry[prism:volume = '2' and prism:number = '2']",
                "atom:entry[prism:volume = '03']/prism:number >= 2",
                "atom:entry/prism:number[. > 1][. < 3]",
                "atom:entry[atom:published = '2024-03-01']",
                "atom:entry[atom:published = '2024-03-01Z']",
                "atom:entry[atom:published < xs:date('2024-03-01Z')]",
                "atom:entry[atom:published = xs:date('2024-03-01+10:00')]",
                "atom:entry[not(prism:doi)]",
                "atom:entry[atom:author/atom:name = ' Smith ']",
                "atom:entry[atom:author/atom:name = 'SMITH']",
                "atom:entry[prism:doi = '10.5555/J.7' or atom:title = 'T3']",
                "self::node()/atom:entry/atom:category[@term = 'maths']",
                "atom:entry/self::atom:entry[prism:doi = '10.5555/j.4']",
                "atom:entry/*[@term = 'biology']",
                "child::atom:entry/attribute::* = 'x'",
                "descendant::atom:name = 'Lee'",
                "descendant-or-self::atom:entry/atom:category/@term = 'physics'",
                "atom:entry[prism:number = 1e1]",
                "atom:entry[prism:number = -0 or prism:number > 2.5]",
                "atom:entry[atom:category[@scheme = 'urn:arno:keyword'][@term = 'physics']][atom:category[@scheme = 'urn:arno:keyword'][@term = 'maths']]",
                "atom:entry[prism:doi != '10.5555/j.3']",
                "/",
                "atom:entry[atom:category/@scheme = 'urn:arno:status' and atom:category/@term = 'physics']");
        for (String c : conditions) {
            for (String under : List.of("/", "/j/", "/j/feeds/", "/k")) {
                String[] r = both(under, c);
                assertThat(r[1]).as("search %s under %s", c, under).isEqualTo(r[0]);
            }
        }
    }

    /**
     * The platform's report: articles of volume V, issue N, with category (S, T), by an author
     * named X, not retracted, written with nested predicates as the platform's users wrote it and
     * flat: the same documents, the same plan, driven by the most selective index.
     */
    @Test
    void thePlatformsNestedPredicateReportHasTheSamePlanAsItsFlatForm() {
        String nested = "atom:entry[atom:category[@scheme = 'urn:arno:keyword'][@term = 'physics']]"
                + "[prism:volume = '2'][prism:number = 2][atom:author[atom:name = 'Smith']]"
                + "[not(atom:category[@scheme = 'urn:arno:status'][@term = 'retracted'])]";
        String flat = "atom:entry/atom:category[@scheme = 'urn:arno:keyword' and @term = 'physics']"
                + " and atom:entry/prism:volume = '2' and atom:entry/prism:number = 2"
                + " and atom:entry/atom:author/atom:name = 'Smith'"
                + " and not(atom:entry/atom:category[@scheme = 'urn:arno:status' and @term = 'retracted'])";
        String[] n = both("/j/", nested);
        String[] f = both("/j/", flat);
        assertThat(n[1]).isEqualTo(n[0]);
        assertThat(f[1]).isEqualTo(f[0]).isEqualTo(n[0]);
        assertThat(n[0]).as("the data has such articles").isNotEmpty();
        Plan p = plan("/j/", nested);
        assertThat(plan("/j/", flat)).isEqualTo(p);
        assertThat(p.scan()).isFalse();
        List<String> indexes = p.conjuncts().stream().map(Plan.Conjunct::index).toList();
        assertThat(indexes).containsExactlyInAnyOrder("category", "issue-id", "author");
        assertThat(p.conjuncts().get(0).role()).isEqualTo(Plan.Role.DRIVE);
        // the driver is the smallest: no other conjunct read completely has fewer documents
        long driver = p.conjuncts().get(0).documents();
        for (Plan.Conjunct c : p.conjuncts()) {
            if (c.exact()) {
                assertThat(c.documents()).isGreaterThanOrEqualTo(driver);
            }
        }
        assertThat(p.verifiedOnly()).containsExactly(
                "not(/atom:entry/atom:category[@scheme = 'urn:arno:status'][@term = 'retracted'])");
        assertThat(p.conjuncts()).extracting(Plan.Conjunct::condition).contains(
                "/atom:entry/atom:category[@scheme = 'urn:arno:keyword'][@term = 'physics']",
                "/atom:entry[prism:volume = '2'][prism:number = 2]", "/atom:entry/atom:author/atom:name = 'Smith'");
    }

    @Test
    void thePlanSaysWhatNoIndexAnswersAndWhy() {
        Plan p = plan("/j/", "atom:entry[atom:title = 'T1'][prism:volume = 2][prism:doi != 'x'][prism:doi = 'y']");
        assertThat(p.scan()).isFalse();
        assertThat(p.conjuncts()).hasSize(4);
        assertThat(p.conjuncts().get(0)).extracting(Plan.Conjunct::index, Plan.Conjunct::role, Plan.Conjunct::entries)
                .containsExactly("doi", Plan.Role.DRIVE, 0L);
        assertThat(p.text()).contains("no index  /atom:entry/atom:title = 'T1'  (no index on /atom:entry/atom:title)")
                .contains("/atom:entry/prism:volume = 2  (the key of index 'issue-id' is a string")
                .contains("/atom:entry/prism:doi != 'x'  ('!=' is verified)")
                .contains("drive     /atom:entry/prism:doi = 'y'  by doi = 'y'  (0 entries, 0 documents)");
        Plan scan = plan("/j/", "atom:entry[atom:title = 'T1']");
        assertThat(scan.scan()).isTrue();
        try (Snapshot s = store.read()) {
            Search search = s.planSearch("/j/v1/", "atom:entry[atom:title = 'T1']", NS, store.ownConfiguration());
            List<NodeInfo> found = search.results();
            assertThat(search.stats().examined()).as("every document under the folder, the binary one skipped")
                    .isEqualTo(s.uris("/j/v1/").size());
            assertThat(search.stats().results()).isEqualTo(found.size());
        }
    }

    @Test
    void aLargeLookupIsVerifiedRatherThanRead() {
        // every keyword entry (most of the store) against one DOI: the DOI drives, the keyword lookup stops at its bound
        Plan p = plan("/", "atom:entry[atom:category[@scheme = 'urn:arno:keyword']][prism:doi = '10.5555/j.3']");
        assertThat(p.conjuncts().get(0).index()).isEqualTo("doi");
        Plan.Conjunct big = p.conjuncts().stream().filter(c -> "category".equals(c.index())).findFirst().orElseThrow();
        assertThat(big.role()).isEqualTo(Plan.Role.VERIFY);
        assertThat(big.exact()).isFalse();
        assertThat(big.entries()).isEqualTo(Planner.FIRST_LIMIT);
    }

    @Test
    void syntaxOutsideTheSubsetIsRefusedWithItsPosition() {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("atom:entry[1]", "a positional predicate at line 1 column 12");
        cases.put("atom:entry/../x", "the parent step '..' at line 1 column 12");
        cases.put("count(atom:entry) = 1", "the function count() at line 1 column 1");
        cases.put("atom:entry[prism:doi = $d]", "a variable at line 1 column 24");
        cases.put("ancestor::x", "the axis ancestor:: at line 1 column 1");
        cases.put("a = b", "a comparison of two paths (a join) at line 1 column 5");
        cases.put("'a' = 'b'", "a comparison of two literals at line 1 column 1");
        cases.put("x:entry", "the prefix 'x' is not declared at line 1 column 1");
        cases.put("atom:entry[prism:doi eq 'x']", "the operator 'eq' at line 1 column 22");
        cases.put("atom:entry/text() = 'x'", "the kind test text() at line 1 column 12");
        cases.put("atom:entry[\n  prism:doi = 'x'", "the end, where ']' was expected at line 2 column 18");
        cases.put("atom:published = xs:date('2024-13-01')", "'2024-13-01', which is not an xs:date at line 1 column 26");
        cases.put("", "it is empty");
        cases.put("a b", "'b' cannot follow what precedes it at line 1 column 3");
        cases.put("3", "a literal alone is not a condition at line 1 column 1");
        cases.put("a | b", "the operator '|' at line 1 column 3");
        try (Snapshot s = store.read()) {
            for (Map.Entry<String, String> c : cases.entrySet()) {
                assertThatThrownBy(() -> s.planSearch("/", c.getKey(), NS, store.ownConfiguration()))
                        .as(c.getKey()).isInstanceOf(ArnoException.class)
                        .hasMessageContaining(c.getValue())
                        .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.BAD_PARAMETER));
            }
            assertThatThrownBy(() -> s.planSearch("j/", "a", NS, store.ownConfiguration()))
                    .hasMessageContaining("starts with '/'");
        }
    }

    @Test
    void aConditionThatFailsOnACandidateNamesTheDocument() {
        try (WriteTransaction w = store.write()) {
            TestStores.put(w, "/bad/x.atom", "<entry xmlns='" + ATOM + "'><title>abc</title></entry>");
            w.commit();
        }
        try (Snapshot s = store.read()) {
            Search search = s.planSearch("/bad/", "atom:entry/atom:title > 3", NS, store.ownConfiguration());
            assertThatThrownBy(search::results).isInstanceOf(ArnoException.class)
                    .hasMessageContaining("the search condition failed on store:/bad/x.atom: FORG0001");
        }
    }

    @Test
    void explainReturnsThePlanAsXml() {
        String q = "declare namespace atom = '" + ATOM + "'; declare namespace prism = '" + PRISM + "';\n"
                + "store:explain('/j/', \"atom:entry[prism:doi = '10.5555/j.3'][atom:title = 'x']\")";
        StringWriter out = new StringWriter();
        StoreQuery.compile(q, URI.create("file:/q"), "query", XmlPolicy.DEFAULT).run(store, null, out);
        org.xmlunit.assertj3.XmlAssert.assertThat(out.toString()).nodesByXPath(
                "/*[local-name() = 'plan'][@under = '/j/'][@scan = 'false']/*[local-name() = 'conjunct'][1]"
                        + "[@role = 'drive'][@index = 'doi'][@exact = 'true']").exist();
        org.xmlunit.assertj3.XmlAssert.assertThat(out.toString()).nodesByXPath(
                "/*/*[local-name() = 'conjunct'][@role = 'no-index'][. = \"/atom:entry/atom:title = 'x'\"]").exist();
    }

    @Test
    void prefixesComeFromTheMapWhenTheQueryHasNone() {
        String q = "count(store:search('/j/', \"a:entry[p:doi = '10.5555/j.3']\", map { 'a': '" + ATOM + "', 'p': '" + PRISM
                + "' })) = count(collection('store:/j/')[Q{" + ATOM + "}entry/Q{" + PRISM + "}doi = '10.5555/j.3'])";
        StringWriter out = new StringWriter();
        StoreQuery.compile(q, URI.create("file:/q"), "query", XmlPolicy.DEFAULT).run(store, null, out);
        assertThat(out.toString().strip()).isEqualTo("true");
        // the default element namespace of the query applies to unprefixed names, as in the query itself
        String d = "declare default element namespace '" + ATOM + "'; declare namespace prism = '" + PRISM + "';\n"
                + "deep-equal(store:search('/j/', \"entry[author/name = 'Lee']\"), collection('store:/j/')[entry[author/name = 'Lee']])";
        out = new StringWriter();
        StoreQuery.compile(d, URI.create("file:/q"), "query", XmlPolicy.DEFAULT).run(store, null, out);
        assertThat(out.toString().strip()).isEqualTo("true");
    }

    @Test
    void resultsAreTheStoresDocumentsAndComeLazily() {
        try (Snapshot s = store.read()) {
            Configuration c = store.ownConfiguration();
            Search search = s.planSearch("/", "atom:entry/atom:title = 'T1'", NS, c);
            java.util.Iterator<NodeInfo> it = search.iterator(null);
            assertThat(it.hasNext()).isTrue();
            NodeInfo first = it.next();
            assertThat(search.stats().examined()).as("no further than the first result").isLessThan(search.stats().candidates());
            assertThat(first).isSameAs(s.document(first.getSystemId().substring(Store.SCHEME.length()), c).getRootNode());
        }
    }
}
