package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import javax.xml.transform.stream.StreamSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.pattern.NameTest;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.type.Type;

/**
 * The fast paths of scans and joins against TinyTree: lazy nodes from an index step (every
 * property asked of them equals TinyTree's), attribute columns (built after enough asks, from a
 * sub-range, after the document is replaced in a later snapshot, for a document a write
 * transaction has not committed, and with the cache at its bound), and nodes' memos of the
 * questions asked again (more questions than memo slots, answers longer than a memo keeps).
 */
class ScanPathsTest {

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

    /**
     * Sections of {@code x} elements (some nested, some in a namespace under two prefixes) whose
     * {@code y} is one of a few values, unique, absent, non-ASCII or long; {@code z} on some.
     */
    static String doc(long seed, int elements) {
        Random r = new Random(seed);
        String[] values = {"nav", "rare", "", "caf\u00e9", "x y", "l".repeat(70)};
        StringBuilder b = new StringBuilder("<r xmlns:p='urn:p' xmlns:q='urn:p'>");
        for (int i = 0; i < elements; i++) {
            if (i % 50 == 0) {
                b.append(i == 0 ? "" : "</part>").append("<part n='").append(i / 50).append("'>");
            }
            String name = r.nextInt(10) == 0 ? (r.nextBoolean() ? "p:x" : "q:x") : "x";
            b.append('<').append(name).append(" n='").append(i).append('\'');
            switch (r.nextInt(4)) {
                case 0 -> b.append(" y='u").append(i).append('\'');
                case 1 -> { }
                default -> b.append(" y='").append(values[r.nextInt(values.length)]).append('\'');
            }
            if (r.nextInt(3) == 0) {
                b.append(" z='").append(r.nextInt(4)).append('\'');
            }
            b.append('>');
            if (r.nextInt(5) == 0) {
                b.append("<x n='in").append(i).append("' y='nav'/>");
            }
            b.append("t").append(i).append("</").append(name).append('>');
        }
        return b.append("</part></r>").toString();
    }

    private XdmNode tiny(String xml) throws Exception {
        return processor.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
    }

    private List<String> eval(String expr, XdmNode context) throws Exception {
        XPathCompiler c = processor.newXPathCompiler();
        c.declareNamespace("p", "urn:p");
        XPathSelector s = c.compile(expr).load();
        s.setContextItem(context);
        List<String> out = new ArrayList<>();
        for (XdmItem i : s.evaluate()) {
            out.add(i.isAtomicValue() ? i.getStringValue() : c.evaluate("path(.)", i).toString());
        }
        return out;
    }

    private XdmNode stored(Snapshot s, String uri) {
        return new XdmNode(s.document(uri, processor.getUnderlyingConfiguration()).getRootNode());
    }

    private StoredTree tree(Snapshot s, String uri) {
        return (StoredTree) s.document(uri, processor.getUnderlyingConfiguration());
    }

    static final List<String> SCANS = List.of("count(//x[@y = 'rare'])", "//x[@y = 'nav']/@n/string()",
            "//x[@y = 'caf\u00e9']/@n/string()", "//x[@y = '']/@n/string()", "//x[@y = 'u17']/@n/string()",
            "//x[@y = '" + "l".repeat(70) + "']/@n/string()", "//x[@z = '2'][@y = 'nav']/@n/string()",
            "//x[not(@y)]/@n/string()", "//p:x[@y = 'nav']/@n/string()", "/r/part[3]//x[@y = 'nav']/@n/string()",
            "/r/part[last()]//x[@y = 'rare']/@n/string()", "//x[@y = 'nav'][5]/@n/string()",
            "//x[@y = 'nav']/../@n/string()", "//x[@y = 'rare']/x/@n/string()",
            "for $e in //x[@y = 'rare'] return $e/string()");

    /** Every scan, several times (the columns are built on the way), equals TinyTree's answer. */
    private void scansAgree(Snapshot s, String uri, XdmNode tiny) throws Exception {
        XdmNode stored = stored(s, uri);
        for (int round = 0; round < 4; round++) {
            for (String e : SCANS) {
                assertThat(eval(e, stored)).as("%s, round %d", e, round).isEqualTo(eval(e, tiny));
            }
        }
    }

    @Test
    void lazyNodesFromTheIndexAnswerLikeTinyTree() throws Exception {
        String xml = doc(1, 600);
        TestStores.putAll(store, "/a.xml", xml);
        NodeInfo troot = tiny(xml).getUnderlyingNode();
        try (Snapshot s = store.read()) {
            StoredTree t = tree(s, "/a.xml");
            int fp = processor.getUnderlyingConfiguration().getNamePool().allocateFingerprint(NamespaceUri.NULL, "x");
            NameTest x = new NameTest(Type.ELEMENT, fp, processor.getUnderlyingConfiguration().getNamePool());
            AxisIterator a = troot.iterateAxis(AxisInfo.DESCENDANT, x);
            AxisIterator b = t.getRootNode().iterateAxis(AxisInfo.DESCENDANT, x);
            assertThat(b).isInstanceOf(Axes.Indexed.class);
            int n = 0;
            for (NodeInfo p; (p = a.next()) != null; n++) {
                NodeInfo q = b.next();
                // each lazy node is asked one property first, then the rest
                switch (n % 6) {
                    case 0 -> assertThat(q.getParent().getAttributeValue(NamespaceUri.NULL, "n"))
                            .isEqualTo(p.getParent().getAttributeValue(NamespaceUri.NULL, "n"));
                    case 1 -> assertThat(q.getStringValue()).isEqualTo(p.getStringValue());
                    case 2 -> assertThat(q.hasChildNodes()).isEqualTo(p.hasChildNodes());
                    case 3 -> assertThat(q.getAllNamespaces()).isEqualTo(p.getAllNamespaces());
                    case 4 -> assertThat(q.getAttributeValue(NamespaceUri.NULL, "y"))
                            .isEqualTo(p.getAttributeValue(NamespaceUri.NULL, "y"));
                    default -> assertThat(Type.displayTypeName(q)).isEqualTo(Type.displayTypeName(p));
                }
                assertThat(q.getDisplayName()).isEqualTo(p.getDisplayName());
                assertThat(q.getAttributeValue(NamespaceUri.NULL, "n")).isEqualTo(p.getAttributeValue(NamespaceUri.NULL, "n"));
                assertThat(q.getAttributeValue(NamespaceUri.NULL, "z")).isEqualTo(p.getAttributeValue(NamespaceUri.NULL, "z"));
                assertThat(count(q, AxisInfo.CHILD)).isEqualTo(count(p, AxisInfo.CHILD));
                assertThat(count(q, AxisInfo.ATTRIBUTE)).isEqualTo(count(p, AxisInfo.ATTRIBUTE));
                assertThat(count(q, AxisInfo.FOLLOWING_SIBLING)).isEqualTo(count(p, AxisInfo.FOLLOWING_SIBLING));
                assertThat(count(q, AxisInfo.ANCESTOR)).isEqualTo(count(p, AxisInfo.ANCESTOR));
            }
            assertThat(b.next()).isNull();
            assertThat(n).isGreaterThan(500);
        }
    }

    /**
     * The second whole-document scan keeps the name's positions as an array; then every range
     * (the document, each part's descendants, the following of a node) comes from it, lazily,
     * and equals TinyTree, as do the attribute columns read through it.
     */
    @Test
    void positionsKeptAsAnArrayAnswerEveryRangeLikeTinyTree() throws Exception {
        String xml = doc(12, 1200);
        TestStores.putAll(store, "/a.xml", xml);
        XdmNode tiny = tiny(xml);
        NodeInfo troot = tiny.getUnderlyingNode();
        net.sf.saxon.om.NamePool pool = processor.getUnderlyingConfiguration().getNamePool();
        NameTest x = new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "x"), pool);
        NameTest part = new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "part"), pool);
        try (Snapshot s = store.read()) {
            StoredTree t = tree(s, "/a.xml");
            int code = t.codes(x.getFingerprint())[0];
            for (int round = 0; round < 3; round++) {
                assertThat(t.columns().hasPositions(t, code)).as("round %d", round).isEqualTo(round > 1);
                assertThat(names(t.getRootNode(), AxisInfo.DESCENDANT, x)).isEqualTo(names(troot, AxisInfo.DESCENDANT, x));
            }
            List<NodeInfo> tparts = nodes(troot.iterateAxis(AxisInfo.DESCENDANT, part));
            List<NodeInfo> sparts = nodes(t.getRootNode().iterateAxis(AxisInfo.DESCENDANT, part));
            assertThat(sparts).hasSize(tparts.size());
            for (int i = 0; i < tparts.size(); i++) {
                assertThat(names(sparts.get(i), AxisInfo.DESCENDANT, x)).isEqualTo(names(tparts.get(i), AxisInfo.DESCENDANT, x));
                assertThat(names(sparts.get(i), AxisInfo.FOLLOWING, x)).isEqualTo(names(tparts.get(i), AxisInfo.FOLLOWING, x));
            }
            scansAgree(s, "/a.xml", tiny);
        }
    }

    private static List<NodeInfo> nodes(AxisIterator it) {
        List<NodeInfo> out = new ArrayList<>();
        for (NodeInfo n; (n = it.next()) != null; ) {
            out.add(n);
        }
        return out;
    }

    /** Each node's name, @n, @y and its parent's name. */
    private static List<String> names(NodeInfo from, int axis, NameTest test) {
        List<String> out = new ArrayList<>();
        AxisIterator it = from.iterateAxis(axis, test);
        for (NodeInfo n; (n = it.next()) != null; ) {
            out.add(n.getDisplayName() + " " + n.getAttributeValue(NamespaceUri.NULL, "n") + " "
                    + n.getAttributeValue(NamespaceUri.NULL, "y") + " " + n.getParent().getDisplayName());
        }
        return out;
    }

    private static int count(NodeInfo n, int axis) {
        int k = 0;
        AxisIterator it = n.iterateAxis(axis);
        while (it.next() != null) {
            k++;
        }
        return k;
    }

    @Test
    void columnsAreBuiltAfterEnoughAsksAndAnswerLikeTinyTree() throws Exception {
        String xml = doc(2, 3000);
        TestStores.putAll(store, "/a.xml", xml);
        XdmNode tiny = tiny(xml);
        try (Snapshot s = store.read()) {
            StoredTree t = tree(s, "/a.xml");
            int x = t.codes(processor.getUnderlyingConfiguration().getNamePool()
                    .allocateFingerprint(NamespaceUri.NULL, "x"))[0];
            // one scan does not build a column: it reads as many records as the list holds, no more
            assertThat(eval("count(//x[@y = 'rare'])", stored(s, "/a.xml"))).isEqualTo(eval("count(//x[@y = 'rare'])", tiny));
            assertThat(t.columns().has(t, x, NamespaceUri.NULL, "y")).isFalse();
            scansAgree(s, "/a.xml", tiny);
            assertThat(t.columns().has(t, x, NamespaceUri.NULL, "y")).as("the column of @y on x").isTrue();
            assertThat(t.columns().has(t, x, NamespaceUri.NULL, "z")).as("the column of @z on x").isTrue();
        }
        // a later snapshot (a new tree) shares the columns
        try (Snapshot s = store.read()) {
            StoredTree t = tree(s, "/a.xml");
            int x = t.codes(processor.getUnderlyingConfiguration().getNamePool()
                    .allocateFingerprint(NamespaceUri.NULL, "x"))[0];
            assertThat(t.columns().has(t, x, NamespaceUri.NULL, "y")).isTrue();
            scansAgree(s, "/a.xml", tiny);
        }
    }

    @Test
    void aReplacedDocumentIsAnsweredFromItsOwnColumns() throws Exception {
        String first = doc(3, 2000);
        String second = doc(4, 2500);
        TestStores.putAll(store, "/a.xml", first);
        try (Snapshot old = store.read()) {
            scansAgree(old, "/a.xml", tiny(first));
            TestStores.putAll(store, "/a.xml", second);
            try (Snapshot now = store.read()) {
                scansAgree(now, "/a.xml", tiny(second));
                // the old snapshot still sees the old version, through its own columns
                scansAgree(old, "/a.xml", tiny(first));
            }
        }
    }

    @Test
    void aWriteTransactionsOwnDocumentGetsNoColumn() throws Exception {
        String xml = doc(5, 1500);
        XdmNode tiny = tiny(xml);
        try (WriteTransaction w = store.write()) {
            w.put("/a.xml", xml.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            Snapshot view = w.view();
            scansAgree(view, "/a.xml", tiny);
            assertThat(tree(view, "/a.xml").columns().size()).isZero();
            // aborted: its document id and version are used again by the next transaction
        }
        String other = doc(6, 1500);
        TestStores.putAll(store, "/a.xml", other);
        try (Snapshot s = store.read()) {
            scansAgree(s, "/a.xml", tiny(other));
        }
    }

    @Test
    void theCacheStaysWithinItsBoundAndAnswersStayRight() throws Exception {
        String xml = doc(7, 4000);
        TestStores.putAll(store, "/a.xml", xml, "/b.xml", doc(8, 4000));
        XdmNode tinyA = tiny(xml);
        XdmNode tinyB = tiny(doc(8, 4000));
        // about one column of 4,000 slots (16 KB and its values): the others are evicted or refused
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING.columnBudgetBytes(80_000));
        for (int round = 0; round < 3; round++) {
            try (Snapshot s = store.read()) {
                scansAgree(s, "/a.xml", tinyA);
                scansAgree(s, "/b.xml", tinyB);
                AttributeColumns c = tree(s, "/a.xml").columns();
                assertThat(c.budgetBytes).isEqualTo(80_000);
                assertThat(c.bytes()).isPositive().isLessThanOrEqualTo(80_000);
            }
        }
        // a budget too small for any column: every scan of a new version reads the records
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING.columnBudgetBytes(1_000));
        String other = doc(10, 4000);
        TestStores.putAll(store, "/a.xml", other);
        try (Snapshot s = store.read()) {
            scansAgree(s, "/a.xml", tiny(other));
            StoredTree t = tree(s, "/a.xml");
            int x = t.codes(processor.getUnderlyingConfiguration().getNamePool()
                    .allocateFingerprint(NamespaceUri.NULL, "x"))[0];
            assertThat(t.columns().has(t, x, NamespaceUri.NULL, "y")).isFalse();
            assertThat(t.columns().bytes()).isLessThanOrEqualTo(1_000);
        }
    }

    @Test
    void nodesRememberTheQuestionsAskedAgainAndAnswerLikeTinyTree() throws Exception {
        String xml = doc(9, 400);
        TestStores.putAll(store, "/a.xml", xml);
        XdmNode tiny = tiny(xml);
        try (Snapshot s = store.read()) {
            XdmNode stored = stored(s, "/a.xml");
            // the inner sequences are evaluated once and their nodes asked again per outer item;
            // more distinct questions per node than memo slots, and answers longer than a memo keeps
            for (String e : List.of(
                    "let $xs := //x return for $i in 1 to 3, $e in $xs return ($e/x/@n, $e/@y, $e/@z, $e/@n, "
                            + "$e/text(), $e/node(), $e/*)/string()",
                    "let $parts := /r/part return for $i in 1 to 3, $p in $parts return "
                            + "(count($p/x), count($p/p:x), $p/x[@y = 'nav'][1]/@n/string(), $p/@n/string())",
                    "let $xs := //x[@y] return for $k in ('nav', 'rare', '', 'u5') return "
                            + "count(for $e in $xs return if ($e/@y = $k) then $e else ())",
                    "let $xs := //x return for $p in //part return "
                            + "count(for $e in $xs return if ($e/@n = $p/@n) then $e else ())",
                    "let $xs := //x return for $i in 1 to 2, $e in $xs return data($e/@y) || data($e/text())")) {
                assertThat(eval(e, stored)).as(e).isEqualTo(eval(e, tiny));
            }
            // the same through the node API: each question twice and more, mixed
            NodeInfo troot = tiny.getUnderlyingNode();
            NodeInfo sroot = stored.getUnderlyingNode();
            List<NodeInfo> ts = elements(troot);
            List<NodeInfo> ss = elements(sroot);
            assertThat(ss).hasSize(ts.size());
            int fx = processor.getUnderlyingConfiguration().getNamePool().allocateFingerprint(NamespaceUri.NULL, "x");
            int fy = processor.getUnderlyingConfiguration().getNamePool().allocateFingerprint(NamespaceUri.NULL, "y");
            NameTest childX = new NameTest(Type.ELEMENT, fx, processor.getUnderlyingConfiguration().getNamePool());
            NameTest attY = new NameTest(Type.ATTRIBUTE, fy, processor.getUnderlyingConfiguration().getNamePool());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < ts.size(); i++) {
                    NodeInfo p = ts.get(i);
                    NodeInfo q = ss.get(i);
                    assertThat(strings(q, AxisInfo.CHILD, childX)).isEqualTo(strings(p, AxisInfo.CHILD, childX));
                    assertThat(strings(q, AxisInfo.ATTRIBUTE, attY)).isEqualTo(strings(p, AxisInfo.ATTRIBUTE, attY));
                    assertThat(strings(q, AxisInfo.CHILD, NodeKindTest.TEXT)).isEqualTo(strings(p, AxisInfo.CHILD, NodeKindTest.TEXT));
                    assertThat(strings(q, AxisInfo.CHILD, NodeKindTest.ELEMENT)).isEqualTo(strings(p, AxisInfo.CHILD, NodeKindTest.ELEMENT));
                    assertThat(strings(q, AxisInfo.ATTRIBUTE, NodeKindTest.ATTRIBUTE)).isEqualTo(strings(p, AxisInfo.ATTRIBUTE, NodeKindTest.ATTRIBUTE));
                    for (String name : List.of("y", "n", "z", "absent")) {
                        assertThat(q.getAttributeValue(NamespaceUri.NULL, name)).isEqualTo(p.getAttributeValue(NamespaceUri.NULL, name));
                    }
                }
            }
        }
    }

    /**
     * A node asked many different child questions (a page's citation: authors, year, title,
     * source, pages, DOI, each a step of its own) answers from its children's names kept in its
     * memo from the third question on: every kind of child (elements under two prefixes of one
     * URI and in none, text, comments, named processing instructions), a name with more children
     * than a memo keeps, a name no child has, and an element with more children than the table
     * holds (then the records are walked), each question asked in turn and again, like TinyTree.
     */
    @Test
    void aNodeAskedManyQuestionsAnswersFromItsChildrenLikeTinyTree() throws Exception {
        StringBuilder b = new StringBuilder("<r xmlns:p='urn:p' xmlns:q='urn:p'>");
        for (int i = 0; i < 40; i++) {
            b.append("<cite n='").append(i).append("'>");
            b.append("<name>a").append(i).append("</name>t").append(i).append("<!--c").append(i).append("-->");
            for (int k = 0; k < i % 12; k++) {
                b.append("<name>n").append(k).append("</name>");
            }
            b.append(i % 2 == 0 ? "<p:year>19" : "<q:year>20").append(i).append(i % 2 == 0 ? "</p:year>" : "</q:year>");
            b.append("<?doi 10.1/").append(i).append("?><source>s").append(i).append("</source>");
            if (i % 3 == 0) {
                b.append("<?other x?><year>plain").append(i).append("</year>");
            }
            b.append("tail</cite>");
        }
        b.append("<wide>");
        for (int i = 0; i < ChildCache.MAX_CHILDREN + 5; i++) {
            b.append(i % 1000 == 0 ? "<source>w" + i + "</source>" : "<x/>");
        }
        String xml = b.append("</wide></r>").toString();
        TestStores.putAll(store, "/c.xml", xml);
        XdmNode tiny = tiny(xml);
        net.sf.saxon.om.NamePool pool = processor.getUnderlyingConfiguration().getNamePool();
        List<net.sf.saxon.pattern.NodeTest> questions = new ArrayList<>(List.of(
                new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "name"), pool),
                new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.of("urn:p"), "year"), pool),
                new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "year"), pool),
                new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "source"), pool),
                new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "absent"), pool),
                new NameTest(Type.PROCESSING_INSTRUCTION, pool.allocateFingerprint(NamespaceUri.NULL, "doi"), pool),
                NodeKindTest.TEXT, NodeKindTest.ELEMENT, NodeKindTest.COMMENT,
                NodeKindTest.makeNodeKindTest(Type.PROCESSING_INSTRUCTION)));
        try (Snapshot s = store.read()) {
            XdmNode stored = stored(s, "/c.xml");
            List<NodeInfo> ts = elements(tiny.getUnderlyingNode());
            List<NodeInfo> ss = elements(stored.getUnderlyingNode());
            assertThat(ss).hasSize(ts.size());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < ts.size(); i++) {
                    // each element in its own order, so the table is built after different questions
                    for (int k = 0; k < questions.size(); k++) {
                        net.sf.saxon.pattern.NodeTest q = questions.get((i + k) % questions.size());
                        assertThat(strings(ss.get(i), AxisInfo.CHILD, q)).as("child::%s of %s", q, ts.get(i))
                                .isEqualTo(strings(ts.get(i), AxisInfo.CHILD, q));
                    }
                }
            }
            for (String e : List.of(
                    "for $c in /r/cite return string-join(($c/name, $c/*:year, $c/source, $c/processing-instruction(doi), "
                            + "$c/text(), $c/comment(), $c/year, $c/absent, $c/@n), '|')",
                    "count(/r/wide/x), string-join(/r/wide/source, ','), count(/r/wide/node())")) {
                assertThat(eval(e, stored)).as(e).isEqualTo(eval(e, tiny));
            }
        }
    }

    /**
     * Children, attributes and following siblings carry the node they were reached from as their
     * parent (a template pattern with a parent step reads it instead of decoding the record
     * again), by every way an axis makes them: the plain walk, a named step answered by the
     * node's memo and by the tree's child cache, and a sibling of a node whose parent is known or
     * not. Each parent, and its ancestors by path(), as TinyTree's.
     */
    @Test
    void aNodeReachedByAnAxisHasTheParentTinyTreeGives() throws Exception {
        StringBuilder b = new StringBuilder("<r a='1'>");
        for (int i = 0; i < 30; i++) {
            b.append("<x n='").append(i).append("' m='m'>t<b>b").append(i).append("</b><!--c--><c k='").append(i)
                    .append("'><b/>").append(i % 3 == 0 ? "<d><b x='y'/></d>" : "").append("</c><?p q?><d/>tail</x>");
        }
        sameAsTinyTree("/p.xml", b.append("<x><b/><c/></x></r>").toString(), List.of(
                "for $n in //node(), $c in $n/node() return path($c/..)",
                "for $n in //node(), $c in $n/following-sibling::node() return path($c/..)",
                "for $n in //node(), $c in $n/node(), $f in $c/following-sibling::node() return path($f/..)",
                "for $n in //*, $a in $n/@* return path($a/..)",
                // the same nodes asked named steps again: the memo, then its table of children
                "for $n in //*, $c in ($n/b, $n/c, $n/d, $n/b, $n/c, $n/d, $n/@k) return path($c/..) || '/' || name($c)",
                // new node objects for the same elements, asked again: the tree's child cache
                "for $i in 1 to 4, $c in //x/c/b return path($c/../..)",
                "for $c in //c return path($c/b/following-sibling::*/..)"));
    }

    /** Each expression's results on the document stored at {@code uri} are TinyTree's, and not none. */
    private void sameAsTinyTree(String uri, String xml, List<String> expressions) throws Exception {
        TestStores.putAll(store, uri, xml);
        XdmNode tiny = tiny(xml);
        try (Snapshot s = store.read()) {
            XdmNode stored = stored(s, uri);
            for (String e : expressions) {
                assertThat(eval(e, stored)).as(e).isNotEmpty().isEqualTo(eval(e, tiny));
            }
        }
    }

    /**
     * A node remembers the answer to a question asked of it again (a join's inner item, asked the
     * same step once per outer item): the third ask hands back the node objects of the second.
     * Questions asked once each (a page's one pass) are answered from the records every time, and
     * a first question asked again after others still starts the memo.
     */
    @Test
    void aQuestionAskedAgainIsAnsweredFromTheMemo() throws Exception {
        String xml = "<r><t id='1'><buyer person='p1'/><price>5</price><seller person='p2'/></t></r>";
        TestStores.putAll(store, "/m.xml", xml);
        net.sf.saxon.om.NamePool pool = processor.getUnderlyingConfiguration().getNamePool();
        NameTest buyer = new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "buyer"), pool);
        NameTest price = new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "price"), pool);
        NameTest seller = new NameTest(Type.ELEMENT, pool.allocateFingerprint(NamespaceUri.NULL, "seller"), pool);
        try (Snapshot s = store.read()) {
            NodeInfo r = stored(s, "/m.xml").getUnderlyingNode().iterateAxis(AxisInfo.CHILD).next();
            NodeInfo t = r.iterateAxis(AxisInfo.CHILD).next();
            NodeInfo first = t.iterateAxis(AxisInfo.CHILD, buyer).next();
            NodeInfo p1 = t.iterateAxis(AxisInfo.CHILD, price).next();
            NodeInfo p2 = t.iterateAxis(AxisInfo.CHILD, price).next();
            assertThat(p2).as("a question asked once before, but not the node's first").isNotSameAs(p1).isEqualTo(p1);
            NodeInfo second = t.iterateAxis(AxisInfo.CHILD, buyer).next();
            NodeInfo third = t.iterateAxis(AxisInfo.CHILD, buyer).next();
            assertThat(second).isEqualTo(first);
            assertThat(third).as("the first question asked again: remembered").isSameAs(second);
            NodeInfo s1 = t.iterateAxis(AxisInfo.CHILD, seller).next();
            NodeInfo s2 = t.iterateAxis(AxisInfo.CHILD, seller).next();
            assertThat(s2).as("once a memo holds, every question is remembered").isSameAs(s1);
            assertThat(s1.getAttributeValue(NamespaceUri.NULL, "person")).isEqualTo("p2");
            NodeInfo again = t.iterateAxis(AxisInfo.CHILD, buyer).next();
            assertThat(t.iterateAxis(AxisInfo.CHILD, buyer).next()).isSameAs(again).isEqualTo(first);
        }
    }

    /**
     * A node whose memo holds one answer holds that node itself, matched by the question's kind
     * and name: a child element and an attribute of the same name, two NameTest objects for one
     * name, a name under two prefixes, another question in between (the held node gives way to a
     * memo) and the wildcard steps that a held element must not answer.
     */
    @Test
    void aNodeHoldingItsOnlyAnswerAnswersOnlyThatQuestion() throws Exception {
        StringBuilder b = new StringBuilder("<r xmlns:p='urn:p' xmlns:q='urn:p'>");
        for (int i = 0; i < 60; i++) {
            b.append("<e id='a").append(i).append("' k='").append(i % 3).append("'><id>c").append(i).append("</id>");
            if (i % 4 == 0) {
                b.append("<id>second").append(i).append("</id>");
            }
            b.append(i % 2 == 0 ? "<p:x v='1'/>" : "<q:x v='2'/>").append("t").append(i).append("</e>");
        }
        String xml = b.append("</r>").toString();
        TestStores.putAll(store, "/h.xml", xml);
        XdmNode tiny = tiny(xml);
        net.sf.saxon.om.NamePool pool = processor.getUnderlyingConfiguration().getNamePool();
        int fid = pool.allocateFingerprint(NamespaceUri.NULL, "id");
        int fx = pool.allocateFingerprint(NamespaceUri.of("urn:p"), "x");
        int fv = pool.allocateFingerprint(NamespaceUri.NULL, "v");
        NameTest childId = new NameTest(Type.ELEMENT, fid, pool);
        NameTest childIdAgain = new NameTest(Type.ELEMENT, fid, pool);
        NameTest attId = new NameTest(Type.ATTRIBUTE, fid, pool);
        NameTest childX = new NameTest(Type.ELEMENT, fx, pool);
        NameTest attV = new NameTest(Type.ATTRIBUTE, fv, pool);
        try (Snapshot s = store.read()) {
            XdmNode stored = stored(s, "/h.xml");
            List<NodeInfo> ts = elements(tiny.getUnderlyingNode());
            List<NodeInfo> ss = elements(stored.getUnderlyingNode());
            assertThat(ss).hasSize(ts.size());
            // each round asks in another order, so every question meets a node holding another's answer
            List<Object[]> questions = List.of(
                    new Object[] {AxisInfo.CHILD, childId}, new Object[] {AxisInfo.ATTRIBUTE, attId},
                    new Object[] {AxisInfo.CHILD, childIdAgain}, new Object[] {AxisInfo.CHILD, NodeKindTest.ELEMENT},
                    new Object[] {AxisInfo.CHILD, childX}, new Object[] {AxisInfo.ATTRIBUTE, attV},
                    new Object[] {AxisInfo.CHILD, NodeKindTest.TEXT}, new Object[] {AxisInfo.ATTRIBUTE, NodeKindTest.ATTRIBUTE});
            for (int round = 0; round < questions.size() * 2; round++) {
                int first = round % questions.size();
                for (int i = 0; i < ts.size(); i++) {
                    // the first question alone, three times (marked, then a memo, then held), then the rest
                    int m = round < questions.size() ? 1 : questions.size();
                    for (int k = 0; k < m; k++) {
                        Object[] q = questions.get((first + k) % questions.size());
                        int reps = k == 0 ? 3 : 1;
                        for (int rep = 0; rep < reps; rep++) {
                            int axis = (Integer) q[0];
                            net.sf.saxon.pattern.NodeTest test = (net.sf.saxon.pattern.NodeTest) q[1];
                            assertThat(strings(ss.get(i), axis, test)).as("%s %s of %s", AxisInfo.axisName[axis], test, ts.get(i))
                                    .isEqualTo(strings(ts.get(i), axis, test));
                        }
                    }
                }
            }
            // getAttributeValue alternating more names than the tree keeps fingerprints of (and names never allocated)
            List<String> names = new ArrayList<>(List.of("id", "k", "v", "absent"));
            for (int i = 0; i < 10; i++) {
                names.add("never" + i + "-" + System.nanoTime());
            }
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < ts.size(); i++) {
                    for (String name : names) {
                        assertThat(ss.get(i).getAttributeValue(NamespaceUri.NULL, name)).as(name)
                                .isEqualTo(ts.get(i).getAttributeValue(NamespaceUri.NULL, name));
                    }
                }
            }
            for (String e : List.of(
                    "let $es := /r/e return for $k in ('a3', 'c3', 'a7') return (for $e in $es return if ($e/@id = $k) then $e/id/string() else ())",
                    "let $es := /r/e return for $k in ('c3', 'a7') return (for $e in $es return if ($e/id = $k) then $e/@id/string() else ())",
                    "let $es := /r/e return for $i in 1 to 3 return (for $e in $es return ($e/p:x/@v, $e/Q{urn:p}x/@v, $e/*:x/@v)/string())")) {
                assertThat(eval(e, stored)).as(e).isEqualTo(eval(e, tiny));
            }
        }
    }

    /**
     * Atomized attributes (kept as Saxon's getter makes them) compare, hash and convert like
     * TinyTree's, against getter values, literals, each other and text: ASCII, Latin-1, astral
     * (surrogate pairs), empty and numeric values.
     */
    @Test
    void atomizedAttributesCompareLikeTinyTree() throws Exception {
        String[] values = {"a", "caf\u00e9", "\uD83D\uDE00x", "", "12", "12.0", " 7 ", "a"};
        StringBuilder b = new StringBuilder("<r>");
        for (int i = 0; i < 40; i++) {
            String v = values[i % values.length];
            b.append("<x y='").append(v).append("' n='").append(i).append("'><w y='").append(values[(i * 3) % values.length])
                    .append("'/>").append(v).append("</x>");
        }
        String xml = b.append("</r>").toString();
        TestStores.putAll(store, "/v.xml", xml);
        XdmNode tiny = tiny(xml);
        try (Snapshot s = store.read()) {
            XdmNode stored = stored(s, "/v.xml");
            for (String e : List.of(
                    "let $xs := //x return for $i in 1 to 3, $e in $xs return count($xs[@y = $e/w/@y])",
                    "let $xs := //x return for $i in 1 to 3, $e in $xs return count($xs[w/@y = $e/@y])",
                    "let $xs := //x return for $i in 1 to 2, $e in $xs return count($xs[text() = $e/@y])",
                    "let $xs := //x return for $i in 1 to 2, $e in $xs return ($e/@y = '\u00e9', $e/@y = 'caf\u00e9', $e/@y < $e/w/@y, number($e/@y) = 12)",
                    "distinct-values((//x/@y, //w/@y, //x/@y/string(), 'a'))",
                    "for $v in distinct-values(//x/@y) return count(//x[@y = $v])",
                    "for $k in sort(distinct-values(//x/@y)) return $k || ':' || count(//x[@y = $k])",
                    "sum(//x/@y[. castable as xs:double])",
                    "//x[number(@y) = 12]/@n/string()", "//x[@y = '12']/@n/string()")) {
                assertThat(eval(e, stored)).as(e).isEqualTo(eval(e, tiny));
            }
        }
    }

    /** A scan's lazy candidates asked for an attribute no document uses (not in the name pool), enough times to build its column. */
    @Test
    void lazyNodesAnswerAnAttributeNameNeverSeen() throws Exception {
        String xml = doc(11, 300);
        TestStores.putAll(store, "/n.xml", xml);
        XdmNode tiny = tiny(xml);
        int fx = processor.getUnderlyingConfiguration().getNamePool().allocateFingerprint(NamespaceUri.NULL, "x");
        NameTest x = new NameTest(Type.ELEMENT, fx, processor.getUnderlyingConfiguration().getNamePool());
        String never = "never-" + System.nanoTime();
        try (Snapshot s = store.read()) {
            StoredTree t = tree(s, "/n.xml");
            for (int round = 0; round < 4; round++) {
                List<String> a = new ArrayList<>();
                List<String> b = new ArrayList<>();
                AxisIterator it = t.getRootNode().iterateAxis(AxisInfo.DESCENDANT, x);
                for (NodeInfo n; (n = it.next()) != null; ) {
                    a.add(n.getAttributeValue(NamespaceUri.NULL, never) + "|" + n.getAttributeValue(NamespaceUri.NULL, "y"));
                }
                AxisIterator jt = tiny.getUnderlyingNode().iterateAxis(AxisInfo.DESCENDANT, x);
                for (NodeInfo n; (n = jt.next()) != null; ) {
                    b.add(n.getAttributeValue(NamespaceUri.NULL, never) + "|" + n.getAttributeValue(NamespaceUri.NULL, "y"));
                }
                assertThat(a).as("round %d", round).isEqualTo(b).hasSize(b.size());
            }
            int code = t.codes(fx)[0];
            assertThat(t.columns().has(t, code, NamespaceUri.NULL, never)).isTrue();
        }
    }

    private static List<NodeInfo> elements(NodeInfo root) {
        List<NodeInfo> out = new ArrayList<>();
        AxisIterator it = root.iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT);
        for (NodeInfo n; (n = it.next()) != null; ) {
            out.add(n);
        }
        return out;
    }

    /** The string values of a step's nodes, and their atomized values, each twice (the second from the memo). */
    private static List<String> strings(NodeInfo n, int axis, net.sf.saxon.pattern.NodeTest test)
            throws net.sf.saxon.trans.XPathException {
        List<String> out = new ArrayList<>();
        AxisIterator it = n.iterateAxis(axis, test);
        for (NodeInfo c; (c = it.next()) != null; ) {
            out.add(c.getDisplayName() + "=" + c.getStringValue());
            out.add(c.atomize().getStringValue());
            out.add(c.atomize().getStringValue());
        }
        return out;
    }
}
