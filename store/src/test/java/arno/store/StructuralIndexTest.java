package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Corpus;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;

import javax.xml.transform.stream.StreamSource;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.Txn;

import net.sf.saxon.expr.LastPositionFinder;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.pattern.CombinedNodeTest;
import net.sf.saxon.pattern.NameTest;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.expr.parser.Token;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.type.Type;

/**
 * The structural index ({@link NameIndex}) against references: name steps through the index
 * against the same XPath on Saxon's TinyTree of the same XML, node by node (by {@code path()}),
 * from many context nodes; every list against a full scan of the records; a tiny spill budget
 * against the default; the checker against damage written behind the store's back; and replace
 * and delete against leftovers. The index is used for every document and range here
 * ({@link TestStores#INDEX_EVERYTHING}), and a test proves that name steps really go through it;
 * the thresholds a store records against the options it is opened with.
 */
class StructuralIndexTest {

    static final String NS = "urn:n";
    /** Element names: plain ones and one name written with two prefixes (two codes, one fingerprint). */
    static final String[] NAMES = {"a", "b", "c", "sec", "p:x", "r:x"};
    static final String[] ATTS = {"k", "t", "p:k"};
    static final String[] VALUES = {"v1", "v2", "fig", "rare"};

    @TempDir
    Path dir;
    Store store;
    final Processor processor = new Processor(false);

    @BeforeEach
    void open() {
        store = Store.open(dir, TestStores.INDEX_EVERYTHING);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** A random tree over a small alphabet: deep or shallow, mixed content, attributes, comments. */
    static String generate(long seed, int maxDepth, int fanout) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder("<root xmlns:p='" + NS + "' xmlns:r='" + NS + "'>");
        element(r, b, 0, maxDepth, fanout);
        return b.append("</root>").toString();
    }

    private static void element(Random r, StringBuilder b, int depth, int maxDepth, int fanout) {
        String name = NAMES[r.nextInt(NAMES.length)];
        b.append('<').append(name);
        for (String a : ATTS) {
            if (r.nextInt(3) == 0) {
                b.append(' ').append(a).append("='").append(VALUES[r.nextInt(VALUES.length)]).append('\'');
            }
        }
        int n = depth >= maxDepth ? 0 : r.nextInt(fanout + 1);
        if (n == 0 && r.nextBoolean()) {
            b.append("/>");
            return;
        }
        b.append('>');
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(8)) {
                case 0 -> b.append("text ").append(i);
                case 1 -> b.append("<!--c-->");
                default -> element(r, b, depth + 1, maxDepth, fanout);
            }
        }
        b.append("</").append(name).append('>');
    }

    static List<String> documents() {
        List<String> docs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            docs.add(generate(7000 + i, 3 + i % 3, 8));          // shallow and wide
            docs.add(generate(8000 + i, 12 + i % 7, 3));         // deep and narrow
        }
        docs.add(Corpus.abstractDocs(400, 5));
        return docs;
    }

    private XPathCompiler xpath() {
        XPathCompiler c = processor.newXPathCompiler();
        c.declareNamespace("p", NS);
        return c;
    }

    private List<String> eval(XPathCompiler c, String expr, XdmItem context) throws Exception {
        XPathSelector s = c.compile(expr).load();
        s.setContextItem(context);
        List<String> out = new ArrayList<>();
        for (XdmItem i : s.evaluate()) {
            out.add(i.isAtomicValue() ? i.getStringValue() : c.evaluate("path(.)", i).toString());
        }
        return out;
    }

    private XdmNode tiny(String xml) throws Exception {
        return processor.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
    }

    private XdmNode stored(Snapshot s, String uri) {
        return new XdmNode(s.document(uri, processor.getUnderlyingConfiguration()).getRootNode());
    }

    @Test
    void nameStepsFromEveryContextEqualTinyTree() throws Exception {
        List<String> docs = documents();
        try (WriteTransaction w = store.write()) {
            for (int i = 0; i < docs.size(); i++) {
                TestStores.put(w, "/d" + i + ".xml", docs.get(i));
            }
            w.commit();
        }
        XPathCompiler c = xpath();
        String[] tests = {"a", "b", "sec", "p:x", "doc", "sublink", "nothing", "element(b)"};
        int compared = 0;
        try (Snapshot s = store.read()) {
            for (int i = 0; i < docs.size(); i++) {
                XdmNode tiny = tiny(docs.get(i));
                XdmNode stored = stored(s, "/d" + i + ".xml");
                List<XdmItem> tinyContexts = new ArrayList<>(c.evaluate("/, //*", tiny).stream().toList());
                List<XdmItem> storedContexts = new ArrayList<>(c.evaluate("/, //*", stored).stream().toList());
                assertThat(storedContexts).hasSameSizeAs(tinyContexts);
                for (int k = 0; k < tinyContexts.size(); k += 1 + tinyContexts.size() / 25) {
                    for (String t : tests) {
                        for (String axis : List.of("descendant::", "descendant-or-self::", "following::")) {
                            String expr = axis + t;
                            assertThat(eval(c, expr, storedContexts.get(k)))
                                    .as("%s from context %d of document %d", expr, k, i)
                                    .isEqualTo(eval(c, expr, tinyContexts.get(k)));
                            compared++;
                        }
                    }
                }
            }
        }
        assertThat(compared).isGreaterThan(3000);
    }

    @Test
    void queriesAndKeysEqualTinyTree() throws Exception {
        List<String> docs = documents();
        try (WriteTransaction w = store.write()) {
            for (int i = 0; i < docs.size(); i++) {
                TestStores.put(w, "/d" + i + ".xml", docs.get(i));
            }
            w.commit();
        }
        XPathCompiler c = xpath();
        List<String> exprs = List.of("count(//a)", "count(//p:x)", "//a[@k = 'v1']", "count(//b[@t = 'fig'])",
                "//sec[@p:k = 'rare']", "count(//(a|b))", "//(sec|p:x)[@k]", "//a//b", "count(//sec//p:x[@k])",
                "count(//sublink[@linktype = 'nav'])", "//doc[links/sublink][3]//anchor", "//c[1]", "//b[last()]",
                "for $s in //sec return count($s//a)", "//*[count(descendant::c) = 2]");
        Xslt30Transformer keys = processor.newXsltCompiler().compile(new StreamSource(new StringReader("""
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:p="urn:n">
                  <xsl:key name="k" match="a | p:x" use="@k"/>
                  <xsl:key name="t" match="sublink" use="anchor"/>
                  <xsl:template match="/">
                    <xsl:variable name="doc" select="/"/>
                    <r>
                      <xsl:for-each select="'v1', 'v2', 'fig', 'rare', 'none'">
                        <v n="{.}" count="{count(key('k', ., $doc))}" paths="{key('k', ., $doc) ! path(.)}"/>
                      </xsl:for-each>
                      <t count="{count(key('t', 'Album'))}"/>
                    </r>
                  </xsl:template>
                </xsl:stylesheet>"""))).load30();
        try (Snapshot s = store.read()) {
            for (int i = 0; i < docs.size(); i++) {
                XdmNode tiny = tiny(docs.get(i));
                XdmNode stored = stored(s, "/d" + i + ".xml");
                for (String e : exprs) {
                    assertThat(eval(c, e, stored)).as("%s on document %d", e, i).isEqualTo(eval(c, e, tiny));
                }
                StringWriter a = new StringWriter();
                StringWriter b = new StringWriter();
                keys.applyTemplates(tiny, keys.newSerializer(a));
                keys.applyTemplates(stored, keys.newSerializer(b));
                assertThat(b.toString()).as("keys on document %d", i).isEqualTo(a.toString()).contains("count=");
            }
        }
    }

    @Test
    void nameStepsGoThroughTheIndexAndOtherStepsScan() {
        TestStores.putAll(store, "/x.xml", generate(1, 6, 5));
        var pool = processor.getUnderlyingConfiguration().getNamePool();
        NameTest a = new NameTest(Type.ELEMENT, NamespaceUri.NULL, "a", pool);
        NameTest x = new NameTest(Type.ELEMENT, NamespaceUri.of(NS), "x", pool);
        try (Snapshot s = store.read()) {
            NodeInfo root = s.document("/x.xml", processor.getUnderlyingConfiguration()).getRootNode();
            assertThat(root.iterateAxis(AxisInfo.DESCENDANT, a)).isInstanceOf(Axes.Indexed.class);
            assertThat(root.iterateAxis(AxisInfo.DESCENDANT, new CombinedNodeTest(a, Token.UNION, x)))
                    .isInstanceOf(Axes.Indexed.class);
            assertThat(root.iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT)).isInstanceOf(Axes.Scan.class);
            assertThat(root.iterateAxis(AxisInfo.DESCENDANT, new NameTest(Type.ATTRIBUTE, NamespaceUri.NULL, "k", pool)))
                    .isNotInstanceOf(Axes.Indexed.class);
            // both prefixes of {urn:n}x are found: two codes merged into one list in document order
            AxisIterator it = root.iterateAxis(AxisInfo.DESCENDANT, x);
            List<String> prefixes = new ArrayList<>();
            long last = -1;
            for (NodeInfo n; (n = it.next()) != null; ) {
                assertThat(((StoredNode) n).pos).isGreaterThan(last);
                last = ((StoredNode) n).pos;
                prefixes.add(n.getPrefix());
            }
            assertThat(prefixes).contains("p", "r");
            // count() asks for the length: from the lists alone, equal to what iteration gives
            for (NodeInfo context : List.of(root, root.iterateAxis(AxisInfo.DESCENDANT, a).next())) {
                for (NameTest t : List.of(a, x)) {
                    int n = 0;
                    AxisIterator all = context.iterateAxis(AxisInfo.DESCENDANT, t);
                    while (all.next() != null) {
                        n++;
                    }
                    LastPositionFinder f = (LastPositionFinder) context.iterateAxis(AxisInfo.DESCENDANT, t);
                    assertThat(f.supportsGetLength()).isTrue();
                    assertThat(f.getLength()).as("%s from %s", t, context).isEqualTo(n);
                }
            }
            assertThat(((LastPositionFinder) root.iterateAxis(AxisInfo.DESCENDANT,
                    new CombinedNodeTest(a, Token.INTERSECT, NodeKindTest.ELEMENT))).supportsGetLength()).isFalse();
        }
        // a range threshold is a setting of the open store: above the document's size, the same step scans
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING.indexMinRangeBytes(1 << 30));
        try (Snapshot s = store.read()) {
            NodeInfo root = s.document("/x.xml", processor.getUnderlyingConfiguration()).getRootNode();
            assertThat(root.iterateAxis(AxisInfo.DESCENDANT, a)).isInstanceOf(Axes.Scan.class);
        }
    }

    /** Every (kind, code) list of a document, read from the index. */
    private static Map<String, List<Long>> lists(StoredTree t) {
        Map<String, List<Long>> out = new TreeMap<>();
        for (byte kind = 0; kind < 2; kind++) {
            for (int code = 0; code < t.header.nameCodes(); code++) {
                NameIndex.Positions l = new NameIndex.Positions(t, kind, code, 0);
                List<Long> ps = new ArrayList<>();
                for (long p; (p = l.next()) >= 0; ) {
                    ps.add(p);
                }
                if (!ps.isEmpty()) {
                    out.put(kind + ":" + t.names[code].getDisplayName(), ps);
                }
            }
        }
        return out;
    }

    /** The same lists from a full scan of the records: the reference. */
    private static Map<String, List<Long>> scanned(StoredTree t) {
        Map<String, List<Long>> out = new TreeMap<>();
        Rec r = new Rec(t);
        AttrEntry a = new AttrEntry();
        long p = 0;
        while (p < t.header.length()) {
            r.read(p);
            if (r.kind == Format.ELEMENT) {
                out.computeIfAbsent("0:" + t.names[r.code].getDisplayName(), k -> new ArrayList<>()).add(p);
                for (long q = r.attrs(); q < r.first; q = a.next) {
                    a.read(t, q);
                    out.computeIfAbsent("1:" + t.names[a.code].getDisplayName(), k -> new ArrayList<>()).add(p);
                }
            }
            p = r.kind == Format.END ? p + 1 : r.first;
        }
        return out;
    }

    private long runs(String uri) {
        long id = docId(uri);
        long n = 0;
        try (Txn<DirectBuffer> txn = store.engine.env.txnRead();
             Cursor<DirectBuffer> c = store.engine.docs.openCursor(txn)) {
            boolean more = c.get(new Keys().doc(id, Keys.NAMES), GetOp.MDB_SET_RANGE);
            while (more && c.key().getLong(0, Keys.BE) == id && c.key().getByte(8) == Keys.NAMES) {
                n++;
                more = c.next();
            }
        }
        return n;
    }

    private long docId(String uri) {
        try (Txn<DirectBuffer> txn = store.engine.env.txnRead()) {
            return store.engine.paths.get(txn, new Keys().utf8(uri)).getLong(0, Keys.BE);
        }
    }

    @Test
    void aSmallDocumentHasNoIndexAndIsScannedCorrectly() throws Exception {
        store.close();
        store = Store.open(dir.resolve("defaults"), TestStores.SMALL);
        String small = SMALL_ENTRY;
        String big = Corpus.abstractDocs(200, 5) + "";
        TestStores.putAll(store, "/small.xml", small, "/big.xml", big);
        assertThat(runs("/small.xml")).as("no lists for a 1-2 KB entry").isZero();
        assertThat(runs("/big.xml")).isPositive();
        assertThat(store.check()).isEmpty();
        try (Snapshot s = store.read()) {
            XPathCompiler c = xpath();
            for (String expr : List.of("//link/@href/string()", "count(//link)", "//*[@term]/name()")) {
                assertThat(eval(c, expr, stored(s, "/small.xml"))).as(expr).isEqualTo(eval(c, expr, tiny(small)));
            }
        }
    }

    static final String SMALL_ENTRY = "<entry><title>t</title><link href='a'/><link href='b'/><category term='x'/></entry>";

    /** Expressions over {@link #SMALL_ENTRY} on the stored document against TinyTree, and how {@code //link} is read. */
    private void smallEntryReadsRight(String uri, Class<?> linkStep) throws Exception {
        try (Snapshot s = store.read()) {
            XPathCompiler c = xpath();
            for (String expr : List.of("//link/@href/string()", "count(//link)", "//*[@term]/name()", "count(//entry//*)")) {
                assertThat(eval(c, expr, stored(s, uri))).as(expr).isEqualTo(eval(c, expr, tiny(SMALL_ENTRY)))
                        .isNotEmpty();
            }
            NodeInfo root = s.document(uri, processor.getUnderlyingConfiguration()).getRootNode();
            NameTest link = new NameTest(Type.ELEMENT, NamespaceUri.NULL, "link",
                    processor.getUnderlyingConfiguration().getNamePool());
            assertThat(root.iterateAxis(AxisInfo.DESCENDANT, link)).isInstanceOf(linkStep);
        }
    }

    /**
     * Which documents have an index is part of what was written: a store records the threshold it
     * was created with, and it wins over the options that open the store later, so a name step
     * neither reads lists that were never written (it would find nothing) nor ignores lists that
     * were (the checker would refuse them), and later writes follow the recorded one too.
     */
    @Test
    void theIndexThresholdAStoreWasCreatedWithWinsOverTheOptionsThatReopenIt() throws Exception {
        // created indexing every document (this class's store), reopened with the default document threshold
        TestStores.putAll(store, "/small.xml", SMALL_ENTRY);
        store = TestStores.reopen(store, TestStores.SMALL.indexMinRangeBytes(0));
        assertThat(store.indexMinDocumentBytes).isZero();
        TestStores.putAll(store, "/later.xml", SMALL_ENTRY);
        assertThat(runs("/small.xml")).isPositive();
        assertThat(runs("/later.xml")).isPositive();
        assertThat(store.check()).isEmpty();
        smallEntryReadsRight("/small.xml", Axes.Indexed.class);
        smallEntryReadsRight("/later.xml", Axes.Indexed.class);

        // created with the defaults (a 2 KiB entry has no index), reopened asking to index everything
        store.close();
        store = Store.open(dir.resolve("defaults"), TestStores.SMALL);
        TestStores.putAll(store, "/small.xml", SMALL_ENTRY);
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING);
        assertThat(store.indexMinDocumentBytes).isEqualTo(2048);
        TestStores.putAll(store, "/later.xml", SMALL_ENTRY);
        assertThat(runs("/small.xml")).isZero();
        assertThat(runs("/later.xml")).isZero();
        assertThat(store.check()).isEmpty();
        smallEntryReadsRight("/small.xml", Axes.Scan.class);
        smallEntryReadsRight("/later.xml", Axes.Scan.class);
    }

    @Test
    void aBadThresholdIsRefusedWhenSetWithItsName() {
        StoreOptions o = StoreOptions.defaults();
        for (Runnable bad : List.<Runnable>of(() -> o.indexMinDocumentBytes(-1), () -> o.indexMinRangeBytes(-1),
                () -> o.indexSpillBytes(0), () -> o.columnBudgetBytes(-1))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(bad::run)
                    .satisfies(e -> assertThat(((arno.xml.ArnoException) e).code()).isEqualTo(arno.xml.ErrorCode.BAD_CONFIGURATION))
                    .hasMessageStartingWith("store ");
        }
        assertThat(o.indexMinDocumentBytes(0).indexSpillBytes(50).toString()).contains("minDocumentBytes=0", "spillBytes=50");
    }

    /** A store created before the threshold was recorded was written with the default, and reads so. */
    @Test
    void aStoreWithoutARecordedThresholdReadsWithTheDefaultAndAMalformedOneIsRefused() throws Exception {
        store.close();
        store = Store.open(dir.resolve("older"), TestStores.SMALL);
        TestStores.putAll(store, "/small.xml", SMALL_ENTRY);
        try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
            assertThat(store.engine.meta.delete(txn, new Keys().utf8(Engine.INDEX_MIN_DOCUMENT_BYTES))).isTrue();
            txn.commit();
        }
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING);
        assertThat(store.indexMinDocumentBytes).isEqualTo(2048);
        assertThat(store.check()).isEmpty();
        smallEntryReadsRight("/small.xml", Axes.Scan.class);

        try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
            store.engine.meta.put(txn, new Keys().utf8(Engine.INDEX_MIN_DOCUMENT_BYTES), Keys.direct(new byte[] {0, 0, 8, 0}));
            txn.commit();
        }
        Path older = store.directory();
        store.close();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Store.open(older, TestStores.SMALL))
                .isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(arno.xml.ErrorCode.STORE_CORRUPT))
                .hasMessageContaining("meta entry 'indexMinDocumentBytes' is malformed");
        store = Store.open(dir.resolve("fresh"), TestStores.SMALL);
    }

    /**
     * A document under the recorded threshold keeps no index even when its writer wrote runs out
     * before it knew the document's size (a high threshold, a small spill budget): they are taken
     * out again, so the checker finds none and a name step scans.
     */
    @Test
    void aDocumentUnderAHighThresholdKeepsNoRunsEvenWhenItsWriterSpilled() throws Exception {
        store.close();
        store = Store.open(dir.resolve("high"), TestStores.SMALL.indexMinDocumentBytes(1 << 20).indexMinRangeBytes(0)
                .indexSpillBytes(50));
        String mixed = generate(99, 9, 6);
        TestStores.putAll(store, "/mixed.xml", mixed, "/small.xml", SMALL_ENTRY);
        assertThat(runs("/mixed.xml")).isZero();
        assertThat(store.check()).isEmpty();
        try (Snapshot s = store.read()) {
            StoredTree t = (StoredTree) s.document("/mixed.xml", processor.getUnderlyingConfiguration());
            assertThat(t.header.length()).isBetween(2_000L, (long) (1 << 20));
            XPathCompiler c = xpath();
            for (String expr : List.of("//a/@k/string()", "count(//p:x)", "//sec//b/path()")) {
                assertThat(eval(c, expr, stored(s, "/mixed.xml"))).as(expr).isEqualTo(eval(c, expr, tiny(mixed)));
            }
        }
        smallEntryReadsRight("/small.xml", Axes.Scan.class);
    }

    @Test
    void everyListEqualsAScanAndSpillingChangesNothing() {
        String big = Corpus.abstractDocs(3000, 11) + "";
        String mixed = generate(99, 9, 6);
        TestStores.putAll(store, "/big.xml", big, "/mixed.xml", mixed);
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING.indexSpillBytes(100));
        TestStores.putAll(store, "/big-spilled.xml", big, "/mixed-spilled.xml", mixed);
        assertThat(runs("/big-spilled.xml")).isGreaterThan(3 * runs("/big.xml"));
        // a name with more occurrences than one run holds has several runs even without spilling
        assertThat(runs("/big.xml")).isGreaterThan(12);
        try (Snapshot s = store.read()) {
            for (String name : List.of("big", "mixed")) {
                StoredTree plain = (StoredTree) s.document("/" + name + ".xml", processor.getUnderlyingConfiguration());
                StoredTree spilled = (StoredTree) s.document("/" + name + "-spilled.xml",
                        processor.getUnderlyingConfiguration());
                Map<String, List<Long>> reference = scanned(plain);
                assertThat(reference).isNotEmpty();
                assertThat(lists(plain)).isEqualTo(reference);
                assertThat(lists(spilled)).isEqualTo(reference);
                // from the middle of a list, as a subtree's descendant step reads it
                String key = name.equals("big") ? "0:sublink" : "0:a";
                List<Long> all = reference.get(key);
                assertThat(all).hasSizeGreaterThan(10);
                long from = all.get(all.size() / 2) - 1;
                int code = -1;
                for (int i = 0; i < spilled.header.nameCodes(); i++) {
                    if (("0:" + spilled.names[i].getDisplayName()).equals(key)) {
                        code = i;
                    }
                }
                NameIndex.Positions l = new NameIndex.Positions(spilled, NameIndex.ELEMENTS, code, from);
                List<Long> tail = new ArrayList<>();
                for (long p; (p = l.next()) >= 0; ) {
                    tail.add(p);
                }
                assertThat(tail).isEqualTo(all.subList(all.size() / 2, all.size()));
            }
        }
        assertThat(store.check()).isEmpty();
    }

    @Test
    void replaceAndDeleteTakeTheIndexAlong() {
        TestStores.putAll(store, "/a.xml", generate(3, 5, 5), "/b.xml", generate(4, 5, 5));
        long a = docId("/a.xml");
        long b = docId("/b.xml");
        assertThat(runs("/a.xml")).isPositive();
        TestStores.putAll(store, "/a.xml", "<only><one/></only>");
        assertThat(runs("/a.xml")).isEqualTo(2);
        try (WriteTransaction w = store.write()) {
            w.delete("/b.xml");
            w.commit();
        }
        try (Txn<DirectBuffer> txn = store.engine.env.txnRead();
             Cursor<DirectBuffer> c = store.engine.docs.openCursor(txn)) {
            for (long id : new long[] {a, b}) {
                boolean found = c.get(new Keys().doc(id, Keys.HEADER), GetOp.MDB_SET_RANGE);
                assertThat(found && c.key().getLong(0, Keys.BE) == id).as("entries of document %d", id).isFalse();
            }
        }
        assertThat(store.check()).isEmpty();
    }

    /** Rewrites the first index run of {@code uri} for element name {@code local}. */
    private void damage(String uri, String local, Consumer<byte[]> change) {
        long id = docId(uri);
        try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
            int code = -1;
            try (Cursor<DirectBuffer> c = store.engine.names.openCursor(txn)) {
                for (boolean more = c.first(); more; more = c.next()) {
                    String v = Keys.string(c.val(), 0, c.val().capacity());
                    if (v.endsWith("\0" + local)) {
                        code = c.key().getInt(0, Keys.BE);
                    }
                }
            }
            assertThat(code).isNotNegative();
            byte[] key;
            byte[] bytes;
            try (Cursor<DirectBuffer> c = store.engine.docs.openCursor(txn)) {
                assertThat(c.get(new Keys().name(id, NameIndex.ELEMENTS, code, 0), GetOp.MDB_SET_RANGE)).isTrue();
                key = new byte[c.key().capacity()];
                c.key().getBytes(0, key);
                bytes = new byte[c.val().capacity()];
                c.val().getBytes(0, bytes);
            }
            change.accept(bytes);
            store.engine.docs.put(txn, Keys.direct(key), Keys.direct(bytes));
            txn.commit();
        }
    }

    @Test
    void theCheckerFindsADamagedIndex() {
        String xml = "<r><a/><b><a/></b><a k='1'/></r>";
        TestStores.putAll(store, "/one.xml", xml, "/two.xml", xml, "/three.xml", xml);
        assertThat(store.check()).isEmpty();
        // a gap one byte too long: the second <a> is listed one byte after where it is
        damage("/one.xml", "a", v -> v[1]++);
        // a position dropped: the run ends early
        damage("/two.xml", "a", v -> v[v.length - 1] = 0);
        List<String> problems = store.check();
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("store:/one.xml: ")
                .contains("structural index of elements 'a'"));
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("store:/two.xml: "));
        assertThat(problems).noneSatisfy(p -> assertThat(p).contains("three.xml"));
        // and reading through the damaged index fails as store-corrupt, never with wrong nodes
        try (Snapshot s = store.read()) {
            NodeInfo root = s.document("/one.xml", processor.getUnderlyingConfiguration()).getRootNode();
            var pool = processor.getUnderlyingConfiguration().getNamePool();
            AxisIterator it = root.iterateAxis(AxisInfo.DESCENDANT,
                    new NameTest(Type.ELEMENT, NamespaceUri.NULL, "a", pool));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
                while (it.next() != null) {
                    // drain
                }
            }).isInstanceOf(StoreException.class).hasMessageContaining("store check");
        }
    }

    @Test
    void theCheckerFindsAListForANameTheDocumentDoesNotUse() {
        // z gets the first name code; the later document may use codes up to its own, but not z
        TestStores.putAll(store, "/other.xml", "<z/>");
        TestStores.putAll(store, "/one.xml", "<r><a/><b/></r>");
        long id = docId("/one.xml");
        int z;
        try (Snapshot s = store.read()) {
            StoredTree other = (StoredTree) s.document("/other.xml", processor.getUnderlyingConfiguration());
            z = ((StoredNode) other.root.iterateAxis(AxisInfo.CHILD).next()).code;
            assertThat(((StoredTree) s.document("/one.xml", processor.getUnderlyingConfiguration())).header.nameCodes())
                    .isGreaterThan(z);
        }
        assertThat(store.check()).isEmpty();
        try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
            store.engine.docs.put(txn, new Keys().name(id, NameIndex.ELEMENTS, z, 3), Keys.direct(new byte[] {3}));
            txn.commit();
        }
        assertThat(store.check()).containsExactly("store:/one.xml: structural index of elements 'z': a list for a"
                + " name the document does not use");
    }
}
