package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Corpus;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import javax.xml.transform.stream.StreamSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.tree.util.Navigator;
import net.sf.saxon.type.Type;

/**
 * The stored tree against Saxon's TinyTree, the reference: the same documents (edge cases and
 * random ones) parsed into a TinyTree and loaded into the store must agree on every node
 * property through the NodeInfo API, on a broad set of XPath expressions over every axis from
 * many context nodes (fixed and randomly generated paths), and on several XSLT transformations.
 * Both trees live in one Configuration, so even fingerprints must be equal.
 */
class DifferentialTest {

    static final int RANDOM_DOCUMENTS = 60;

    @TempDir
    static Path dir;
    static Store store;
    static Snapshot snapshot;
    static final Processor PROCESSOR = new Processor(false);
    static final Map<String, XPathExecutable> COMPILED = new HashMap<>();
    static XPathCompiler xpath;

    /** Expressions evaluated at every sampled context node; errors are compared by code. */
    static final List<String> EXPRESSIONS = List.of(
            "child::node()", "child::*", "child::text()", "child::comment()", "child::processing-instruction()",
            "descendant::node()", "descendant::*[1]", "descendant::text()", "descendant::comment()",
            "descendant::processing-instruction('pi-in-content')", "descendant-or-self::node()",
            "ancestor::node()", "ancestor-or-self::*", "(ancestor::*)[1]", "parent::node()", "self::node()",
            "following-sibling::node()", "following-sibling::*[1]", "preceding-sibling::node()",
            "preceding-sibling::*[1]", "(preceding-sibling::node())[last()]",
            "following::node()[position() le 50]", "count(following::node())", "following::*[1]",
            "preceding::node()[position() le 50]", "count(preceding::node())", "preceding::*[1]",
            "(preceding::node())[last()]", "attribute::*", "@*[local-name() = 'n']", "@xml:id", "@p:n",
            "namespace::*", "namespace::node()/string()", "descendant::a", "descendant::p:a", "descendant::*:c",
            "descendant::p:*", "child::d:b", "descendant::*[@id]", "descendant::*[@n = 'alpha']",
            "descendant::*[@*]/@*", "descendant::title", "descendant::*:sublink[@linktype = 'nav']",
            "string(.)", "data(.)", "name()", "local-name()", "namespace-uri()", "node-name(.)",
            "string-length(string(.))", "normalize-space(.)", "count(descendant::node())", "base-uri(.)",
            "document-uri(/)", "sort(in-scope-prefixes(.))", "namespace-uri-for-prefix('p', .)",
            "has-children(.)", "path(.)", "root(.) is /", ". is (descendant::node())[1]",
            ". << (following::node())[1]", "(preceding::node())[1] << .", "exists(following-sibling::*)",
            "descendant::node()[position() mod 3 = 0]", "descendant::*[last()]", "outermost(descendant::*)",
            "innermost(descendant::*)", "for $n in descendant-or-self::* return count($n/@*)",
            "generate-id(.) = generate-id(parent::node())", "lang('en')", "id(('c1','s1','s2','i1','i3'))",
            "idref(('c1','c2','s1'))", "descendant::text()[. = ' ']", "string(descendant::*[1]/@*[1])",
            "deep-equal(., .)", "count(//node() intersect descendant::node())",
            "count((//node() except descendant-or-self::node()))", "let $c := . return (//node())[. is $c]/name()");

    static final String[] AXES = {"child", "descendant", "descendant-or-self", "parent", "ancestor",
        "ancestor-or-self", "following-sibling", "preceding-sibling", "following", "preceding", "self",
        "attribute", "namespace"};
    static final String[] TESTS = {"node()", "*", "text()", "comment()", "processing-instruction()", "a", "b", "c",
        "p:a", "q:b", "d:c", "*:d", "p:*", "n", "xml:id", "processing-instruction('pi1')"};
    static final String[] PREDICATES = {"", "", "", "[1]", "[last()]", "[position() > 1]", "[@n]", "[. = 'alpha']",
        "[not(*)]", "[count(node()) > 1]", "[@*]", "[self::*]"};

    @BeforeAll
    static void load() {
        store = TestStores.open(dir);
        try (WriteTransaction w = store.write()) {
            documents().forEach(a -> TestStores.put(w, "/diff/" + a.get()[0], (String) a.get()[1]));
            w.commit();
        }
        snapshot = store.read();
        xpath = PROCESSOR.newXPathCompiler();
        xpath.declareNamespace("p", "urn:p0");
        xpath.declareNamespace("q", "urn:q1");
        xpath.declareNamespace("d", "urn:d0");
        xpath.declareNamespace("a", "urn:a");
        xpath.declareNamespace("c", "urn:c");
    }

    @AfterAll
    static void close() {
        snapshot.close();
        store.close();
    }

    static Stream<Arguments> documents() {
        List<Arguments> out = new ArrayList<>();
        Corpus.edgeCases().forEach((name, xml) -> out.add(Arguments.of(name, xml)));
        for (int i = 0; i < RANDOM_DOCUMENTS; i++) {
            out.add(Arguments.of("random-" + i + ".xml", Corpus.random(1000 + i)));
        }
        return out.stream();
    }

    record Pair(NodeInfo tiny, NodeInfo stored) {
    }

    static Pair trees(String name, String xml) throws SaxonApiException {
        StreamSource src = new StreamSource(new StringReader(xml), Store.SCHEME + "/diff/" + name);
        XdmNode tiny = PROCESSOR.newDocumentBuilder().build(src);
        TreeInfo stored = snapshot.document("/diff/" + name, PROCESSOR.getUnderlyingConfiguration());
        return new Pair(tiny.getUnderlyingNode(), stored.getRootNode());
    }

    /** Pre-order through the NodeInfo API: node, its namespaces, its attributes, its children. */
    static List<NodeInfo> walk(NodeInfo root) {
        List<NodeInfo> out = new ArrayList<>();
        List<NodeInfo> stack = new ArrayList<>();
        stack.add(root);
        while (!stack.isEmpty()) {
            NodeInfo n = stack.remove(stack.size() - 1);
            out.add(n);
            if (n.getNodeKind() == Type.ELEMENT) {
                AxisIterator ns = n.iterateAxis(AxisInfo.NAMESPACE);
                for (NodeInfo x; (x = ns.next()) != null; ) {
                    out.add(x);
                }
                AxisIterator at = n.iterateAxis(AxisInfo.ATTRIBUTE);
                for (NodeInfo x; (x = at.next()) != null; ) {
                    out.add(x);
                }
            }
            List<NodeInfo> kids = new ArrayList<>();
            AxisIterator ch = n.iterateAxis(AxisInfo.CHILD);
            for (NodeInfo x; (x = ch.next()) != null; ) {
                kids.add(x);
            }
            for (int i = kids.size() - 1; i >= 0; i--) {
                stack.add(kids.get(i));
            }
        }
        return out;
    }

    static String shorten(String s) {
        return s.length() <= 80 ? s : s.substring(0, 40) + "…[" + s.length() + "#" + s.hashCode() + "]…"
                + s.substring(s.length() - 20);
    }

    /** Everything the NodeInfo API says about a node, except identity. */
    static String properties(NodeInfo n, Map<NodeInfo, Integer> index) throws Exception {
        StringBuilder b = new StringBuilder();
        b.append(n.getNodeKind()).append('|').append(n.getDisplayName()).append('|').append(n.getLocalPart())
                .append('|').append(n.getPrefix()).append('|').append(n.getNamespaceUri()).append('|')
                .append(n.getFingerprint()).append('|').append(shorten(n.getStringValue())).append('|');
        Item atom = n.atomize().head();
        b.append(atom == null ? "()" : ((net.sf.saxon.value.AtomicValue) atom).getItemType() + ":"
                + shorten(atom.getStringValue())).append('|');
        b.append(n.getBaseURI()).append('|').append(n.getSystemId()).append('|').append(n.hasChildNodes())
                .append('|').append(n.isId()).append('|').append(n.isIdref()).append('|').append(n.isNilled())
                .append('|').append(n.getSchemaType() == null ? "-" : n.getSchemaType().getDisplayName());
        b.append("|parent=").append(n.getParent() == null ? "-" : index.get(n.getParent()));
        b.append("|root=").append(index.get(n.getRoot()));
        if (n.getNodeKind() == Type.ELEMENT) {
            b.append("|all=").append(n.getAllNamespaces());
            NamespaceBinding[] declared = n.getDeclaredNamespaces(null);
            List<String> d = new ArrayList<>();
            for (NamespaceBinding nb : declared) {
                if (nb != null) {
                    d.add(nb.getPrefix() + "=" + nb.getNamespaceUri());
                }
            }
            d.sort(null);
            b.append("|declared=").append(d);
            List<String> atts = new ArrayList<>();
            for (net.sf.saxon.om.AttributeInfo a : n.attributes()) {
                atts.add(a.getNodeName().getDisplayName() + "=" + shorten(a.getValue()) + "/" + a.isId()
                        + "=" + shorten(String.valueOf(n.getAttributeValue(a.getNodeName().getNamespaceUri(),
                        a.getNodeName().getLocalPart()))));
            }
            b.append("|attributes=").append(atts);
            b.append("|missing=").append(n.getAttributeValue(net.sf.saxon.om.NamespaceUri.NULL, "no-such"));
        }
        return b.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void nodeApiAgrees(String name, String xml) throws Exception {
        Pair p = trees(name, xml);
        List<NodeInfo> tiny = walk(p.tiny());
        List<NodeInfo> stored = walk(p.stored());
        assertThat(stored).hasSameSizeAs(tiny);
        Map<NodeInfo, Integer> ti = index(tiny);
        Map<NodeInfo, Integer> si = index(stored);
        assertThat(si).as("equals/hashCode give each stored node one identity").hasSize(stored.size());
        Set<String> ids = new HashSet<>();
        boolean small = tiny.size() < 3000;
        for (int i = 0; i < tiny.size(); i++) {
            NodeInfo t = tiny.get(i);
            NodeInfo s = stored.get(i);
            assertThat(properties(s, si)).as("node %d of %s", i, name).isEqualTo(properties(t, ti));
            if (small) {
                assertThat(Navigator.getPath(s)).isEqualTo(Navigator.getPath(t));
            }
            StringBuilder id = new StringBuilder();
            s.generateId(id);
            assertThat(ids.add(id.toString())).as("generate-id unique: %s", id).isTrue();
            if (i > 0 && s.getNodeKind() != Type.NAMESPACE && stored.get(i - 1).getNodeKind() != Type.NAMESPACE) {
                assertThat(Integer.signum(stored.get(i - 1).compareOrder(s)))
                        .isEqualTo(Integer.signum(tiny.get(i - 1).compareOrder(t)));
            }
        }
        Random r = new Random(name.hashCode());
        for (int k = 0; k < Math.min(2000, tiny.size()); k++) {
            int a = r.nextInt(tiny.size());
            int b = r.nextInt(tiny.size());
            assertThat(Integer.signum(stored.get(a).compareOrder(stored.get(b))))
                    .as("compareOrder(%d, %d) in %s", a, b, name)
                    .isEqualTo(Integer.signum(tiny.get(a).compareOrder(tiny.get(b))));
            assertThat(stored.get(a).equals(stored.get(b))).isEqualTo(a == b);
        }
    }

    static Map<NodeInfo, Integer> index(List<NodeInfo> nodes) {
        Map<NodeInfo, Integer> m = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            m.putIfAbsent(nodes.get(i), i);
        }
        return m;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void xpathAgreesOnEveryAxis(String name, String xml) throws Exception {
        Pair p = trees(name, xml);
        List<NodeInfo> tiny = walk(p.tiny());
        List<NodeInfo> stored = walk(p.stored());
        Map<NodeInfo, Integer> ti = index(tiny);
        Map<NodeInfo, Integer> si = index(stored);
        Random r = new Random(name.hashCode() * 31L);
        int contexts = tiny.size() > 20_000 ? 8 : tiny.size() > 3000 ? 25 : Math.min(tiny.size(), 60);
        List<String> expressions = new ArrayList<>(EXPRESSIONS);
        for (int i = 0; i < 40; i++) {
            expressions.add(randomPath(r));
        }
        for (int c = 0; c < contexts; c++) {
            int at = contexts == tiny.size() ? c : r.nextInt(tiny.size());
            for (String e : expressions) {
                String expected = evaluate(e, tiny.get(at), ti);
                String actual = evaluate(e, stored.get(at), si);
                assertThat(actual).as("%s at node %d of %s", e, at, name).isEqualTo(expected);
            }
        }
    }

    static String randomPath(Random r) {
        StringBuilder b = new StringBuilder();
        int steps = 1 + r.nextInt(3);
        for (int i = 0; i < steps; i++) {
            if (i > 0) {
                b.append('/');
            }
            String axis = AXES[r.nextInt(AXES.length)];
            String test = TESTS[r.nextInt(TESTS.length)];
            if (axis.equals("namespace") && test.contains(":")) {
                test = "*";
            }
            b.append(axis).append("::").append(test).append(PREDICATES[r.nextInt(PREDICATES.length)]);
        }
        return r.nextInt(4) == 0 ? "count(" + b + ")" : b.toString();
    }

    static String evaluate(String expression, NodeInfo context, Map<NodeInfo, Integer> index) {
        try {
            XPathExecutable x = COMPILED.computeIfAbsent(expression, e -> {
                try {
                    return xpath.compile(e);
                } catch (SaxonApiException ex) {
                    throw new IllegalArgumentException(e, ex);
                }
            });
            XPathSelector sel = x.load();
            sel.setContextItem(new XdmNode(context));
            XdmValue v = sel.evaluate();
            StringBuilder b = new StringBuilder();
            for (XdmItem item : v) {
                Item it = item.getUnderlyingValue();
                if (it instanceof NodeInfo n) {
                    Integer i = index.get(n);
                    b.append('#').append(i == null ? "?" + n.getNodeKind() + n.getDisplayName() + "=" + n.getStringValue() : i)
                            .append(' ');
                } else {
                    b.append(((net.sf.saxon.value.AtomicValue) it).getItemType()).append(':')
                            .append(shorten(it.getStringValue())).append(' ');
                }
            }
            return b.toString();
        } catch (SaxonApiException e) {
            return "error " + (e.getErrorCode() == null ? e.getMessage() : e.getErrorCode().getLocalName());
        }
    }

    static final Map<String, XsltExecutable> STYLESHEETS = new LinkedHashMap<>();

    static XsltExecutable stylesheet(String name) {
        return STYLESHEETS.computeIfAbsent(name, n -> {
            try {
                return PROCESSOR.newXsltCompiler().compile(new StreamSource(
                        DifferentialTest.class.getResource("xsl/" + n).toString()));
            } catch (SaxonApiException e) {
                throw new IllegalStateException(n, e);
            }
        });
    }

    static String transform(String xsl, NodeInfo source) throws SaxonApiException {
        Xslt30Transformer t = stylesheet(xsl).load30();
        StringWriter out = new StringWriter();
        Serializer s = PROCESSOR.newSerializer(out);
        s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
        t.applyTemplates(source, s);
        return out.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void xsltAgrees(String name, String xml) throws Exception {
        Pair p = trees(name, xml);
        for (String xsl : List.of("identity.xsl", "copy-of.xsl", "report.xsl", "strip.xsl")) {
            if (name.equals("deep.xml") && !xsl.equals("copy-of.xsl")) {
                continue; // template recursion 1000 deep tests Saxon's stack, not the tree
            }
            if (name.equals("wide.xml") && xsl.equals("report.xsl")) {
                continue; // quadratic in the report itself (preceding counts), for TinyTree too
            }
            String expected = transform(xsl, p.tiny());
            String actual = transform(xsl, p.stored());
            assertThat(actual).as("%s on %s", xsl, name).isEqualTo(expected);
        }
    }

    @Test
    void storedDocumentsAreReachableThroughDocFromXsltAndXQuery() throws Exception {
        net.sf.saxon.s9api.XQueryEvaluator q = PROCESSOR.newXQueryCompiler().compile(
                "count(doc('store:/diff/jats.xml')//sec), doc-available('store:/diff/missing.xml'),"
                        + " doc('store:/diff/jats.xml') is doc('store:/diff/jats.xml'),"
                        + " doc('store:/diff/jats.xml')//article-title/string()").load();
        q.setResourceResolver(snapshot.resolver(PROCESSOR.getUnderlyingConfiguration()));
        List<String> values = new ArrayList<>();
        q.evaluate().forEach(i -> values.add(i.getStringValue()));
        assertThat(values).containsExactly("2", "false", "true", "On the persistence of trees");

        XsltExecutable x = PROCESSOR.newXsltCompiler().compile(new StreamSource(new StringReader(
                "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>"
                        + "<xsl:template name='xsl:initial-template'><n><xsl:value-of select=\"count(document('store:/diff/ids.xml')//chapter)\"/></n></xsl:template>"
                        + "</xsl:stylesheet>")));
        Xslt30Transformer t = x.load30();
        t.setResourceResolver(snapshot.resolver(PROCESSOR.getUnderlyingConfiguration()));
        StringWriter out = new StringWriter();
        Serializer s = PROCESSOR.newSerializer(out);
        s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
        t.callTemplate(null, s);
        assertThat(out.toString()).isEqualTo("<n>3</n>");
    }
}
