package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Corpus;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

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

/**
 * The fast paths of attribute scans against TinyTree: attribute values read in place and the
 * cache of short ASCII values ({@link StoredTree#attributeValue}: hits, slot collisions, values
 * that are not ASCII, longer than the cache takes, or cut by a chunk boundary), short copies
 * ({@link StoredTree#bytes}), and counts of a name in a range answered from the structural index
 * without decoding ({@link NameIndex.Positions#count}), whole document or any sub-range, over a
 * list of many runs.
 */
class AttributeScanTest {

    @TempDir
    Path dir;
    Store store;
    final Processor processor = new Processor(false);

    @BeforeEach
    void open() {
        store = TestStores.open(dir);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /**
     * About {@code bytes} of elements with attributes: repeated short values (cache hits), many
     * distinct short values (misses and slot collisions among 1,024 slots), non-ASCII values,
     * values of 20 to 300 bytes; attribute blocks and values fall on 1 MiB chunk boundaries.
     */
    static String attributes(long seed, int bytes) {
        Random r = new Random(seed);
        String[] types = {"nav", "rare", "fig", "bibr", "", "a", "table-wrap", "x y"};
        StringBuilder b = new StringBuilder(bytes + 1000).append("<doc>");
        int i = 0;
        while (b.length() < bytes) {
            b.append("<e n='").append(i).append("' type='").append(types[r.nextInt(types.length)]).append('\'');
            switch (r.nextInt(5)) {
                case 0 -> b.append(" id='id").append(r.nextInt(5000)).append('\'');
                case 1 -> b.append(" lang='").append(r.nextBoolean() ? "en" : "fr").append("' note='caf\u00e9 \u00fcber'");
                case 2 -> b.append(" long='").append("v".repeat(20 + r.nextInt(280))).append(r.nextInt(10)).append('\'');
                case 3 -> b.append(" note='").append("x".repeat(r.nextInt(40))).append('\'');
                default -> b.append("");
            }
            b.append('>');
            if (r.nextInt(4) == 0) {
                b.append("<f type='").append(types[r.nextInt(types.length)]).append("'/>");
            }
            b.append("t</e>");
            i++;
        }
        return b.append("</doc>").toString();
    }

    private XdmNode tiny(String xml) throws Exception {
        return processor.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
    }

    private List<String> eval(String expr, XdmNode context) throws Exception {
        XPathCompiler c = processor.newXPathCompiler();
        XPathSelector s = c.compile(expr).load();
        s.setContextItem(context);
        List<String> out = new ArrayList<>();
        for (XdmItem i : s.evaluate()) {
            out.add(i.isAtomicValue() ? i.getStringValue() : c.evaluate("path(.)", i).toString());
        }
        return out;
    }

    @Test
    void attributeValuesAndPredicatesEqualTinyTree() throws Exception {
        String xml = attributes(3, 2_600_000);
        TestStores.putAll(store, "/a.xml", xml);
        XdmNode tiny = tiny(xml);
        try (Snapshot s = store.read()) {
            StoredTree t = (StoredTree) s.document("/a.xml", processor.getUnderlyingConfiguration());
            assertThat(t.chunkCount()).as("values cross chunk boundaries").isGreaterThanOrEqualTo(2);
            XdmNode stored = new XdmNode(t.getRootNode());
            for (String e : List.of("//e[@type = 'nav']/@n/string()", "count(//e[@type = 'rare'])",
                    "//*[@type = 'x y']/@n/string()", "//e[@note = 'caf\u00e9 \u00fcber']/@n/string()",
                    "//e[@lang = 'fr'][@type = '']/@n/string()", "//e[@id = 'id42']/@n/string()",
                    "sum(//e/string-length(@long))", "//e[starts-with(@note, 'xxxxxxxxxx')]/@n/string()",
                    "count(//f[@type = 'fig'])", "string-join(//e/@*, ',')")) {
                assertThat(eval(e, stored)).as(e).isEqualTo(eval(e, tiny));
            }
            // getAttributeValue (the fast path) and the attribute nodes' values for every element, twice:
            // the second pass hits the cache where the first filled it
            NodeInfo troot = tiny.getUnderlyingNode();
            for (int pass = 0; pass < 2; pass++) {
                AxisIterator a = troot.iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT);
                AxisIterator b = t.getRootNode().iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT);
                int elements = 0;
                for (NodeInfo x; (x = a.next()) != null; ) {
                    NodeInfo y = b.next();
                    for (String name : List.of("n", "type", "id", "lang", "note", "long", "absent")) {
                        assertThat(y.getAttributeValue(NamespaceUri.NULL, name))
                                .as("@%s of element %d", name, elements)
                                .isEqualTo(x.getAttributeValue(NamespaceUri.NULL, name));
                    }
                    AxisIterator xa = x.iterateAxis(AxisInfo.ATTRIBUTE);
                    AxisIterator ya = y.iterateAxis(AxisInfo.ATTRIBUTE);
                    for (NodeInfo p; (p = xa.next()) != null; ) {
                        NodeInfo q = ya.next();
                        assertThat(q.getStringValue()).isEqualTo(p.getStringValue());
                        assertThat(q.getUnicodeStringValue().toString()).isEqualTo(p.getStringValue());
                    }
                    assertThat(ya.next()).isNull();
                    elements++;
                }
                assertThat(b.next()).isNull();
                assertThat(elements).isGreaterThan(20_000);
            }
        }
    }

    /**
     * A page's one pass reads its short values without the value cache; a tree that reads more
     * than {@link StoredTree#CACHE_AFTER} of them starts it, and its answers stay TinyTree's.
     */
    @Test
    void theValueCacheStartsOnlyAfterManyReadsAndChangesNoAnswer() throws Exception {
        String xml = attributes(7, 15_000); // a few hundred elements: a pass reads far fewer values than CACHE_AFTER
        TestStores.putAll(store, "/p.xml", xml);
        NodeInfo troot = tiny(xml).getUnderlyingNode();
        try (Snapshot s = store.read()) {
            StoredTree t = (StoredTree) s.document("/p.xml", processor.getUnderlyingConfiguration());
            int reads = 0;
            for (int pass = 0; reads <= 2 * StoredTree.CACHE_AFTER; pass++) {
                if (pass == 1) {
                    assertThat(reads).as("values read in the first pass").isLessThan(StoredTree.CACHE_AFTER / 4);
                    assertThat(t.valueCacheMade()).as("a cache made by one pass of " + reads + " reads").isFalse();
                }
                AxisIterator a = troot.iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT);
                AxisIterator b = t.getRootNode().iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT);
                for (NodeInfo x; (x = a.next()) != null; ) {
                    NodeInfo y = b.next();
                    assertThat(y.getAttributeValue(NamespaceUri.NULL, "type")).as("pass %d", pass)
                            .isEqualTo(x.getAttributeValue(NamespaceUri.NULL, "type"));
                    NodeInfo q = y.iterateAxis(AxisInfo.ATTRIBUTE, new NameTest(net.sf.saxon.type.Type.ATTRIBUTE, NamespaceUri.NULL, "n",
                            processor.getUnderlyingConfiguration().getNamePool())).next();
                    NodeInfo p = x.iterateAxis(AxisInfo.ATTRIBUTE, new NameTest(net.sf.saxon.type.Type.ATTRIBUTE, NamespaceUri.NULL, "n",
                            processor.getUnderlyingConfiguration().getNamePool())).next();
                    if (p == null) { // the document element has no attributes
                        assertThat(q).isNull();
                        continue;
                    }
                    assertThat(q.getUnicodeStringValue().toString()).isEqualTo(p.getStringValue());
                    reads += 2;
                }
            }
            assertThat(t.valueCacheMade()).as("the cache, after " + reads + " reads").isTrue();
        }
    }

    @Test
    void childStepsAskedAgainFromTheSameElementsEqualTinyTree() throws Exception {
        List<String> docs = List.of(StructuralIndexTest.generate(31, 6, 6), StructuralIndexTest.generate(32, 14, 3),
                Corpus.wide(300), attributes(9, 30_000));
        for (int i = 0; i < docs.size(); i++) {
            TestStores.putAll(store, "/c" + i + ".xml", docs.get(i));
        }
        try (Snapshot s = store.read()) {
            for (int i = 0; i < docs.size(); i++) {
                XdmNode tiny = tiny(docs.get(i));
                XdmNode stored = new XdmNode(s.document("/c" + i + ".xml", processor.getUnderlyingConfiguration())
                        .getRootNode());
                // each element three times in a row and again later: the first two visits mark, the third builds
                for (String e : List.of("for $r in 1 to 2, $e in //*, $i in 1 to 3 return $e/(a | b | f)/path()",
                        "for $r in 1 to 2, $e in //*, $i in 1 to 2 return $e/text()/string()",
                        "for $r in 1 to 2, $e in //*, $i in 1 to 2 return count($e/comment()) + count($e/element())",
                        "for $e in /*, $i in 1 to 3 return $e/*[3]/path()",
                        "for $e in //e, $o in (1 to 3) return $e/f/@type/string()")) {
                    assertThat(eval(e, stored)).as("%s on document %d", e, i).isEqualTo(eval(e, tiny));
                }
            }
        }
        // the cache is really used: a kind or name step from an element seen before reads the arrays
        // (asked of another node object for the same element: the same object answers from its own memo)
        try (Snapshot s = store.read()) {
            NodeInfo root = s.document("/c0.xml", processor.getUnderlyingConfiguration()).getRootNode();
            NodeInfo top = root.iterateAxis(AxisInfo.CHILD).next();
            NodeInfo again = root.iterateAxis(AxisInfo.CHILD).next();
            NodeInfo third = root.iterateAxis(AxisInfo.CHILD).next();
            assertThat(again).isNotSameAs(top).isEqualTo(top);
            assertThat(third).isNotSameAs(again).isEqualTo(top);
            // the first two visits walk the records (an element asked twice is not worth an entry), the third builds
            assertThat(top.iterateAxis(AxisInfo.CHILD, NodeKindTest.ELEMENT)).isNotInstanceOf(ChildCache.Cached.class);
            assertThat(again.iterateAxis(AxisInfo.CHILD, NodeKindTest.ELEMENT)).isNotInstanceOf(ChildCache.Cached.class);
            assertThat(third.iterateAxis(AxisInfo.CHILD, NodeKindTest.ELEMENT)).isInstanceOf(ChildCache.Cached.class);
        }
    }

    @Test
    void countsOfANameInAnyRangeEqualIteration() throws Exception {
        store.close();
        store = Store.open(dir.resolve("indexed"), TestStores.INDEX_EVERYTHING);
        String xml = attributes(5, 400_000);
        TestStores.putAll(store, "/plain.xml", xml);
        store = TestStores.reopen(store, TestStores.INDEX_EVERYTHING.indexSpillBytes(50));
        TestStores.putAll(store, "/spilled.xml", xml);
        Random r = new Random(1);
        try (Snapshot s = store.read()) {
            for (String uri : List.of("/plain.xml", "/spilled.xml")) {
                StoredTree t = (StoredTree) s.document(uri, processor.getUnderlyingConfiguration());
                Map<String, List<Long>> lists = new TreeMap<>();
                for (int code = 0; code < t.header.nameCodes(); code++) {
                    NameIndex.Positions l = new NameIndex.Positions(t, NameIndex.ELEMENTS, code, 0);
                    List<Long> ps = new ArrayList<>();
                    for (long p; (p = l.next()) >= 0; ) {
                        ps.add(p);
                    }
                    if (!ps.isEmpty()) {
                        lists.put(code + "", ps);
                    }
                }
                assertThat(lists).hasSize(3);
                for (Map.Entry<String, List<Long>> e : lists.entrySet()) {
                    int code = Integer.parseInt(e.getKey());
                    List<Long> all = e.getValue();
                    assertThat(t.elementCount(code)).isEqualTo(all.size());
                    assertThat(t.elementCount(code)).as("cached").isEqualTo(all.size());
                    assertThat(new NameIndex.Positions(t, NameIndex.ELEMENTS, code, 0).count(Long.MAX_VALUE))
                            .isEqualTo(all.size());
                    for (int k = 0; k < 200; k++) {
                        long from = (long) (r.nextDouble() * t.header.length());
                        long limit = from + (long) (r.nextDouble() * (t.header.length() - from));
                        long expected = all.stream().filter(p -> p >= from && p < limit).count();
                        assertThat(new NameIndex.Positions(t, NameIndex.ELEMENTS, code, from).count(limit))
                                .as("%s: code %d in [%d, %d)", uri, code, from, limit).isEqualTo(expected);
                    }
                }
            }
            XdmNode stored = new XdmNode(s.document("/spilled.xml", processor.getUnderlyingConfiguration())
                    .getRootNode());
            XdmNode tiny = tiny(xml);
            for (String e : List.of("count(//e)", "count(//f)", "count(//e[500]//f)", "count(/doc/e[700]/following::e)",
                    "for $e in //e[position() mod 97 = 0] return count($e/following::f)")) {
                assertThat(eval(e, stored)).as(e).isEqualTo(eval(e, tiny));
            }
        }
        assertThat(store.check()).isEmpty();
    }
}
