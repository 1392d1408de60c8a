package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.XMark;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import javax.xml.transform.stream.StreamSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XQueryEvaluator;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;
import net.sf.saxon.s9api.Xslt30Transformer;

/**
 * perf's XMark-like workload ({@code arno.perf.store.XMarkBench}) at a small size: every query
 * gives the same serialised result on the stored tree as on TinyTree, with the structural index
 * at its defaults and with it used for every range. The document and the queries are the test
 * kit's {@link XMark}, the ones the benchmark times.
 */
class XMarkWorkloadTest {

    @TempDir
    Path dir;
    Store store;
    final Processor processor = new Processor(false);

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyQueryGivesTheSameResultOnBothTrees(boolean indexEverything) throws Exception {
        store = Store.open(dir, indexEverything ? TestStores.INDEX_EVERYTHING : TestStores.SMALL);
        byte[] xml = XMark.auctions(0.4, 7).getBytes(StandardCharsets.UTF_8);
        try (WriteTransaction w = store.write()) {
            w.put("/xmark.xml", xml);
            w.commit();
        }
        XdmNode tiny = processor.newDocumentBuilder().build(new StreamSource(new ByteArrayInputStream(xml)));
        int nonEmpty = 0;
        try (Snapshot s = store.read()) {
            XdmNode stored = new XdmNode(s.document("/xmark.xml", processor.getUnderlyingConfiguration()).getRootNode());
            for (Map.Entry<String, String> q : XMark.QUERIES.entrySet()) {
                String expected = run(q.getValue(), tiny);
                assertThat(run(q.getValue(), stored)).as(q.getKey()).isEqualTo(expected);
                if (!expected.isBlank() && !expected.equals("0\n")) {
                    nonEmpty++;
                }
            }
        }
        // the document is shaped so that the queries find something (a query that finds nothing proves little)
        assertThat(nonEmpty).isGreaterThanOrEqualTo(XMark.QUERIES.size() - 2);
    }

    private String run(String query, XdmNode doc) throws Exception {
        XdmValue v;
        if (query.equals(XMark.KEY_JOIN)) {
            Xslt30Transformer t = processor.newXsltCompiler().compile(new StreamSource(new StringReader(query))).load30();
            t.setGlobalContextItem(doc);
            v = t.applyTemplates(doc);
        } else {
            XQueryEvaluator e = processor.newXQueryCompiler().compile(query).load();
            e.setContextItem(doc);
            v = e.evaluate();
        }
        StringBuilder b = new StringBuilder();
        for (XdmItem i : v) {
            if (i instanceof XdmNode n) {
                StringWriter w = new StringWriter();
                Serializer s = processor.newSerializer(w);
                s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
                s.serializeNode(n);
                b.append(w);
            } else {
                b.append(i.getStringValue());
            }
            b.append('\n');
        }
        return b.toString();
    }
}
