package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lmdbjava.Cursor;
import org.lmdbjava.Txn;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmAtomicValue;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.XmlPolicy;

/**
 * The path summary and the value indexes against the reference they must equal: the same
 * condition written as plain XPath and evaluated by Saxon over every stored document. Random
 * Atom-like entries (DOIs in several cases, categories, surnames with stray spaces, numbers that
 * are sometimes not, dates and dateTimes and junk, summaries longer than a key) are put, replaced
 * and deleted over several transactions; after each commit every lookup and range tried equals
 * the full scan, the path summary equals a recount by XPath, and {@code check} finds nothing.
 * Then: damage is reported, and indexes added to a populated store equal those kept from the start.
 */
class ValueIndexTest {

    static final String ATOM = "http://www.w3.org/2005/Atom";
    static final String PRISM = "http://prismstandard.org/namespaces/basic/2.0/";

    static final String CONFIG = """
            <indexes xmlns="urn:arno:indexes" xmlns:a="http://www.w3.org/2005/Atom"
                     xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">
              <index name="doi" match="a:entry" value="prism:doi"/>
              <index name="doi-ci" match="a:entry" value="prism:doi" normalise="case"/>
              <index name="category" match="a:entry/a:category" key="@scheme" value="@term"/>
              <index name="surname" match="//a:author" value="name/surname" normalise="case space"/>
              <index name="volume" type="number" match="a:entry" value="prism:volume"/>
              <index name="published" type="date" match="a:entry" value="a:published"/>
              <index name="summary" match="a:entry" value="a:summary"/>
            </indexes>""";

    /** Each index's reference condition as XPath over one document, with $k (key), $lo and $hi. */
    static final Map<String, String> REFERENCE = Map.of(
            "doi", "/a:entry[some $x in prism:doi satisfies ($x ge $lo and $x le $hi)]",
            "doi-ci", "/a:entry[some $x in prism:doi satisfies (lower-case($x) ge lower-case($lo) and lower-case($x) le lower-case($hi))]",
            "category", "/a:entry/a:category[@scheme = $k and (some $t in @term satisfies ($t ge $lo and $t le $hi))]",
            "surname", "//a:author[some $x in name/surname satisfies (lower-case(normalize-space($x)) ge lower-case(normalize-space($lo))"
                    + " and lower-case(normalize-space($x)) le lower-case(normalize-space($hi)))]",
            "volume", "/a:entry[some $x in prism:volume satisfies (number($x) ge number($lo) and number($x) le number($hi))]",
            "published", "/a:entry[some $x in a:published satisfies (let $s := normalize-space($x) return"
                    + " ($s castable as xs:date or $s castable as xs:dateTime)"
                    + " and xs:date(substring($s, 1, 10)) ge xs:date($lo) and xs:date(substring($s, 1, 10)) le xs:date($hi))]",
            "summary", "/a:entry[some $x in a:summary satisfies ($x ge $lo and $x le $hi)]");

    static final String[] DOIS = {"10.1234/abc", "10.1234/ABC", "10.1234/abd", "10.5555/x1", "10.5555/X1", "10.9/é"};
    static final String[] SURNAMES = {"Smith", "smith", " Smith  ", "Öhman", "van  der Berg", "Lee"};
    static final String[] VOLUMES = {"1", "2", "10", " 3 ", "1e1", "-0", "abc", "2.5"};
    static final String[] DATES = {"2024-03-01T10:00:00Z", "2024-03-01", "2023-12-31", "2024-02-29+05:00",
            "2024-03-02T00:00:00-01:00", "not a date", " 2020-01-01 "};
    static final String LONG = "L".repeat(395) + "ééé";

    @TempDir
    Path dir;

    final Random random = new Random(12);

    String entry(int n) {
        StringBuilder b = new StringBuilder("<entry xmlns='" + ATOM + "' xmlns:prism='" + PRISM + "'>");
        int dois = random.nextInt(4) == 0 ? 2 : random.nextInt(6) == 0 ? 0 : 1;
        for (int i = 0; i < dois; i++) {
            b.append("<prism:doi>").append(pick(DOIS)).append(random.nextInt(3) == 0 ? "" : "/" + random.nextInt(20))
                    .append("</prism:doi>");
        }
        for (int i = random.nextInt(4); i > 0; i--) {
            b.append("<category scheme='s").append(random.nextInt(3)).append("' term='t").append(random.nextInt(5))
                    .append("'/>");
        }
        for (int i = random.nextInt(3); i > 0; i--) {
            b.append("<author><name><surname>").append(esc(pick(SURNAMES))).append("</surname></name></author>");
        }
        if (random.nextInt(5) > 0) {
            b.append("<prism:volume>").append(pick(VOLUMES)).append("</prism:volume>");
        }
        if (random.nextInt(5) > 0) {
            b.append("<published>").append(pick(DATES)).append("</published>");
        }
        if (random.nextInt(4) == 0) {
            // longer than a key can hold: the same 398-byte start, different ends
            b.append("<summary>").append(LONG).append(random.nextInt(3)).append("</summary>");
        } else if (random.nextInt(3) == 0) {
            b.append("<summary>s").append(random.nextInt(4)).append("</summary>");
        }
        if (random.nextInt(5) == 0) {
            // an author deeper down: found by the // match only; an entry below the root: matched by no anchored index
            b.append("<source><author><name><surname>Deep</surname></name></author>")
                    .append("<entry><prism:doi>10.1234/abc</prism:doi></entry></source>");
        }
        return b.append("</entry>").toString();
    }

    String feed() {
        return "<feed xmlns='" + ATOM + "'><entry><author><name><surname>Lee</surname></name></author></entry></feed>";
    }

    private String pick(String[] a) {
        return a[random.nextInt(a.length)];
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;");
    }

    static IndexConfig config() {
        return IndexConfig.parse(CONFIG.getBytes(StandardCharsets.UTF_8), "test-config", XmlPolicy.DEFAULT);
    }

    /** The conditions tried after each commit: [index, key, lo, hi]. */
    List<String[]> conditions() {
        List<String[]> c = new ArrayList<>();
        for (String d : DOIS) {
            c.add(new String[] {"doi", null, d, d});
            c.add(new String[] {"doi", null, d + "/3", d + "/3"});
            c.add(new String[] {"doi-ci", null, d, d});
        }
        c.add(new String[] {"doi", null, "10.1234/", "10.1234/b"});
        c.add(new String[] {"doi", null, null, "10.2"});
        c.add(new String[] {"doi", null, "10.5555/x1/1", null});
        for (int s = 0; s < 3; s++) {
            for (int t = 0; t < 5; t++) {
                c.add(new String[] {"category", "s" + s, "t" + t, "t" + t});
            }
            c.add(new String[] {"category", "s" + s, "t1", "t3"});
            c.add(new String[] {"category", "s" + s, null, null});
        }
        c.add(new String[] {"category", "none", "t1", "t1"});
        for (String s : SURNAMES) {
            c.add(new String[] {"surname", null, s, s});
        }
        c.add(new String[] {"surname", null, "deep", "deep"});
        c.add(new String[] {"surname", null, "a", "m"});
        c.add(new String[] {"volume", null, "1", "1"});
        c.add(new String[] {"volume", null, "0", "0"});
        c.add(new String[] {"volume", null, "2", "10"});
        c.add(new String[] {"volume", null, "-1", "2.5"});
        c.add(new String[] {"volume", null, "3", "3"});
        c.add(new String[] {"volume", null, "10", "10"});
        c.add(new String[] {"published", null, "2024-03-01", "2024-03-01"});
        c.add(new String[] {"published", null, "2024-01-01", "2024-12-31"});
        c.add(new String[] {"published", null, "2020-01-01", "2020-01-01"});
        c.add(new String[] {"published", null, "2024-02-29", "2024-03-02"});
        for (int i = 0; i < 3; i++) {
            c.add(new String[] {"summary", null, LONG + i, LONG + i});
        }
        c.add(new String[] {"summary", null, LONG + "1", LONG + "2"});
        c.add(new String[] {"summary", null, "s1", "s2"});
        c.add(new String[] {"summary", null, LONG, null});
        return c;
    }

    @Test
    void everyLookupAndRangeEqualsAFullScanThroughPutsReplacesAndDeletes() throws Exception {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                ValueIndexes.install(w, config(), null);
                w.commit();
            }
            List<String> uris = new ArrayList<>();
            for (int round = 0; round < 5; round++) {
                try (WriteTransaction w = store.write()) {
                    for (int i = 0; i < 80; i++) {
                        String uri = "/e/" + round + "/" + i + ".xml";
                        TestStores.put(w, uri, entry(i));
                        uris.add(uri);
                    }
                    TestStores.put(w, "/feeds/" + round + ".xml", feed());
                    for (int i = 0; i < 25 && round > 0; i++) {   // replaces
                        TestStores.put(w, uris.get(random.nextInt(uris.size())), entry(i));
                    }
                    for (int i = 0; i < 15 && round > 0; i++) {   // deletes
                        w.delete(uris.remove(random.nextInt(uris.size())));
                    }
                    w.commit();
                }
                verify(store);
            }
            assertThat(store.check()).isEmpty();
            try (Snapshot s = store.read()) {
                assertThat(s.lookup("category", "s1", "t2")).isNotEmpty();
                assertThat(s.lookup("doi", "10.1234/abc")).hasSizeGreaterThan(3);
                assertThat(s.lookup("summary", LONG + "1")).isNotEmpty();
            }
        }
    }

    /** Every condition against its XPath reference; the path summary against a recount. */
    private void verify(Store store) throws Exception {
        Processor p = new Processor(false);
        Configuration config = p.getUnderlyingConfiguration();
        XPathCompiler xp = p.newXPathCompiler();
        xp.declareNamespace("a", ATOM);
        xp.declareNamespace("prism", PRISM);
        try (Snapshot s = store.read()) {
            List<String> docs = new ArrayList<>();
            for (String u : s.uris("/")) {
                if (!u.startsWith("/_config/")) {
                    docs.add(u);
                }
            }
            for (String[] c : conditions()) {
                List<IndexHit> hits = c[1] == null ? s.range(c[0], c[2], c[3]) : s.range(c[0], c[1], c[2], c[3]);
                if (c[2] != null && c[2].equals(c[3])) {
                    assertThat(c[1] == null ? s.lookup(c[0], c[2]) : s.lookup(c[0], c[1], c[2])).isEqualTo(hits);
                }
                TreeSet<String> got = new TreeSet<>();
                for (IndexHit h : hits) {
                    assertThat(got.add(h.uri() + "#" + h.position())).as("each element once").isTrue();
                    NodeInfo n = s.node(h, config);
                    assertThat(n.getNodeKind()).isEqualTo(net.sf.saxon.type.Type.ELEMENT);
                }
                String lo = c[2] == null ? low(c[0]) : c[2];
                String hi = c[3] == null ? high(c[0]) : c[3];
                XPathCompiler cx = p.newXPathCompiler();
                cx.declareNamespace("a", ATOM);
                cx.declareNamespace("prism", PRISM);
                for (String v : List.of("lo", "hi")) {
                    cx.declareVariable(new QName(v));
                }
                if (c[1] != null) {
                    cx.declareVariable(new QName("k"));
                }
                XPathSelector sel = cx.compile(REFERENCE.get(c[0])).load();
                if (c[1] != null) {
                    sel.setVariable(new QName("k"), new XdmAtomicValue(c[1]));
                }
                sel.setVariable(new QName("lo"), new XdmAtomicValue(lo));
                sel.setVariable(new QName("hi"), new XdmAtomicValue(hi));
                TreeSet<String> want = new TreeSet<>();
                for (String u : docs) {
                    sel.setContextItem(new XdmNode(s.document(u, config).getRootNode()));
                    for (XdmItem item : sel) {
                        want.add(u + "#" + ((StoredNode) ((XdmNode) item).getUnderlyingNode()).pos);
                    }
                }
                assertThat(got).as(String.join(" ", java.util.Arrays.asList(c))).isEqualTo(want);
            }
            assertThat(summary(s)).isEqualTo(recount(s, xp, config));
        }
    }

    private static String low(String index) {
        return switch (index) {
            case "volume" -> "-1e308";
            case "published" -> "0001-01-01";
            default -> "";
        };
    }

    private static String high(String index) {
        return switch (index) {
            case "volume" -> "1e308";
            case "published" -> "9999-12-31";
            default -> "\uFFFF";
        };
    }

    private static Map<String, String> summary(Snapshot s) {
        Map<String, String> out = new TreeMap<>();
        for (PathCount p : s.paths()) {
            out.put(p.expandedPath(), p.occurrences() + " in " + p.documents());
        }
        return out;
    }

    private static Map<String, String> recount(Snapshot s, XPathCompiler xp, Configuration config) throws Exception {
        XPathSelector sel = xp.compile("//*/string-join(ancestor-or-self::*/concat('/Q{', namespace-uri(), '}', local-name()), '')").load();
        Map<String, long[]> n = new TreeMap<>();
        for (String u : s.uris("/")) {
            sel.setContextItem(new XdmNode(s.document(u, config).getRootNode()));
            Map<String, Long> inDoc = new HashMap<>();
            for (XdmItem i : sel) {
                inDoc.merge(i.getStringValue(), 1L, Long::sum);
            }
            inDoc.forEach((path, count) -> {
                long[] c = n.computeIfAbsent(path, k -> new long[2]);
                c[0] += count;
                c[1]++;
            });
        }
        Map<String, String> out = new TreeMap<>();
        n.forEach((path, c) -> out.put(path, c[0] + " in " + c[1]));
        return out;
    }

    @Test
    void checkReportsADamagedIndexEntryAndPathCount() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                ValueIndexes.install(w, config(), null);
                for (int i = 0; i < 30; i++) {
                    TestStores.put(w, "/e/" + i + ".xml", entry(i));
                }
                TestStores.put(w, "/x.xml", "<entry xmlns='" + ATOM + "' xmlns:prism='" + PRISM
                        + "'><prism:doi>10.7/z</prism:doi></entry>");
                w.commit();
            }
            assertThat(store.check()).isEmpty();
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                // lose the entry of /x.xml, and forge one for a value it does not have
                byte[] key;
                try (Cursor<DirectBuffer> c = store.engine.values.openCursor(txn)) {
                    byte[] found = null;
                    for (boolean more = c.first(); more; more = c.next()) {
                        byte[] k = new byte[c.key().capacity()];
                        c.key().getBytes(0, k);
                        if (found == null && new String(k, StandardCharsets.ISO_8859_1).contains("10.7/z")) {
                            found = k;
                        }
                    }
                    key = found;
                }
                assertThat(key).isNotNull();
                store.engine.values.delete(txn, Keys.direct(key));
                byte[] forged = new String(key, StandardCharsets.ISO_8859_1).replace("10.7/z", "10.7/q")
                        .getBytes(StandardCharsets.ISO_8859_1);
                store.engine.values.put(txn, Keys.direct(forged), Keys.direct(new byte[0]));
                // and one path's count
                try (Cursor<DirectBuffer> c = store.engine.pathSummary.openCursor(txn)) {
                    c.first();
                    byte[] v = new byte[c.val().capacity()];
                    c.val().getBytes(0, v);
                    v[11]++;
                    store.engine.pathSummary.put(txn, Keys.direct(new byte[] {0, 0, 0, 1}), Keys.direct(v));
                }
                txn.commit();
            }
            List<String> problems = store.check();
            assertThat(problems).anySatisfy(p -> assertThat(p).contains("value index 'doi': missing entry value '10.7/z'")
                    .contains("store:/x.xml"));
            assertThat(problems).anySatisfy(p -> assertThat(p).contains("value index 'doi': stale entry value '10.7/q'")
                    .contains("store:/x.xml"));
            assertThat(problems).anySatisfy(p -> assertThat(p).isEqualTo("path summary: /indexes counts 2 element(s) in 1 document(s); the documents have 1 in 1"));
            assertThat(problems).hasSize(3);
        }
    }

    @Test
    void indexesAddedToAPopulatedStoreEqualThoseKeptFromTheStart() {
        List<String> docs = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            docs.add(entry(i));
        }
        Map<String, List<String>> dumps = new HashMap<>();
        for (String mode : List.of("from-start", "added-later")) {
            Path d = dir.resolve(mode);
            try (Store store = TestStores.open(d)) {
                if (mode.equals("from-start")) {
                    try (WriteTransaction w = store.write()) {
                        ValueIndexes.install(w, config(), null);
                        w.commit();
                    }
                }
                try (WriteTransaction w = store.write()) {
                    for (int i = 0; i < docs.size(); i++) {
                        TestStores.put(w, "/e/" + i + ".xml", docs.get(i));
                    }
                    w.commit();
                }
                if (mode.equals("added-later")) {
                    List<Long> seen = new ArrayList<>();
                    try (WriteTransaction w = store.write()) {
                        // first half the indexes, then all: unchanged ones are kept, new ones built
                        IndexConfig all = config();
                        ValueIndexes.install(w, new IndexConfig(all.indexes().subList(0, 3)), null);
                        w.commit();
                    }
                    try (WriteTransaction w = store.write()) {
                        ValueIndexes.install(w, config(), (done, total, uri) -> seen.add(done));
                        w.commit();
                    }
                    assertThat(seen).hasSize(docs.size() + 1);   // every document and the configuration
                    assertThat(seen.get(seen.size() - 1)).isEqualTo(docs.size() + 1L);
                }
                assertThat(store.check()).isEmpty();
                dumps.put(mode, dump(store));
            }
        }
        List<String> later = new ArrayList<>(dumps.get("added-later"));
        later.removeAll(dumps.get("from-start"));
        List<String> start = new ArrayList<>(dumps.get("from-start"));
        start.removeAll(dumps.get("added-later"));
        assertThat(later).as("only when added later").isEmpty();
        assertThat(start).as("only when kept from the start").isEmpty();
        assertThat(dumps.get("added-later")).hasSizeGreaterThan(200).isEqualTo(dumps.get("from-start"));
    }

    /**
     * The values database with index ids replaced by names and document ids and positions by URIs
     * and element paths (positions depend on the namebase: a name code's varint length), sorted.
     */
    private static List<String> dump(Store store) {
        List<String> out = new ArrayList<>();
        try (Snapshot s = store.read()) {
            Map<Integer, String> names = new HashMap<>();
            for (ValueWalk.Active a : Indexer.active(store.engine, s.txn())) {
                names.put(a.id(), a.definition().name());
            }
            try (Cursor<DirectBuffer> c = store.engine.values.openCursor(s.txn())) {
                for (boolean more = c.first(); more; more = c.next()) {
                    byte[] k = new byte[c.key().capacity()];
                    c.key().getBytes(0, k);
                    long docId = ValueLookup.getLong(k, k.length - 16);
                    String uri = DocHeader.decode(docId, store.engine.docs.get(s.txn(), new Keys().doc(docId, Keys.HEADER))).uri();
                    out.add(names.get(java.nio.ByteBuffer.wrap(k).getInt(0)) + " "
                            + HexFormat.of().formatHex(k, 4, k.length - 16) + " " + uri + " " + net.sf.saxon.tree.util.Navigator.getPath(
                                    s.node(new IndexHit(uri, ValueLookup.getLong(k, k.length - 8)), store.ownConfiguration()))
                            + " " + c.val().capacity());
                }
            }
        }
        out.sort(null);
        return out;
    }

    @Test
    void removingAnIndexDropsItsEntriesAndDeletingTheConfigurationDropsAll() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                ValueIndexes.install(w, config(), null);
                for (int i = 0; i < 20; i++) {
                    TestStores.put(w, "/e/" + i + ".xml", entry(i));
                }
                w.commit();
            }
            try (WriteTransaction w = store.write()) {
                ValueIndexes.install(w, config().without("doi"), null);
                w.commit();
            }
            assertThat(store.check()).isEmpty();
            try (Snapshot s = store.read()) {
                assertThat(s.indexes().get("doi")).isNull();
                assertThatThrownBy(() -> s.lookup("doi", "10.1234/abc")).isInstanceOf(ArnoException.class)
                        .hasMessageContaining("there is no index named 'doi'; the store's indexes are doi-ci, category")
                        .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.BAD_PARAMETER));
                assertThat(dump(store)).noneMatch(l -> l.startsWith("doi "));
            }
            try (WriteTransaction w = store.write()) {
                w.delete(IndexConfig.URI);
                w.commit();
            }
            assertThat(store.check()).isEmpty();
            assertThat(dump(store)).isEmpty();
        }
    }

    @Test
    void aBadConfigurationIsRefusedAndNothingIsStored() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                assertThatThrownBy(() -> TestStores.put(w, IndexConfig.URI,
                        "<indexes xmlns='urn:arno:indexes'><index name='x' match='a[1]' value='b'/></indexes>"))
                        .isInstanceOf(ArnoException.class)
                        .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.INVALID_XML));
                assertThatThrownBy(() -> TestStores.put(w, IndexConfig.URI,
                        "<indexes xmlns='urn:arno:indexes'><index name='x' match='p:a' value='b'/></indexes>"))
                        .isInstanceOf(ArnoException.class).hasMessageContaining("prefix 'p' is not declared")
                        .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.BAD_CONFIGURATION));
                assertThat(w.exists(IndexConfig.URI)).isFalse();
                w.commit();
            }
            assertThat(store.check()).isEmpty();
            try (Snapshot s = store.read()) {
                assertThat(s.indexes().indexes()).isEmpty();
                assertThatThrownBy(() -> s.lookup("x", "1")).hasMessageContaining("the store has no indexes");
            }
        }
    }

    @Test
    void theConfigurationRoundTripsThroughItsXml() {
        IndexConfig c = config();
        IndexConfig again = IndexConfig.parse(c.toXml(), "again", XmlPolicy.DEFAULT);
        assertThat(again).isEqualTo(c);
        assertThat(again.get("category").key().display()).isEqualTo("@scheme");
        assertThat(again.get("surname").match().display()).isEqualTo("//a:author");
    }
}
