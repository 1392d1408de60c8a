package arno.perf.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.xml.transform.stream.StreamSource;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.Corpus;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.NullDestination;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.type.Type;

/**
 * The stored tree against TinyTree, pair by pair, in one JMH run so the ratios are fair on a
 * noisy machine: open (stored: snapshot + document + root node; TinyTree: parse), a full walk
 * reading names and values through the NodeInfo API, an identity XSLT transform to a null sink,
 * and a {@code //x[@y = 'z']} scan. Sample-time mode: {@code perf/store/run.sh} reports medians.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g", "-Xss4m"})
public class StoreBench {

    static final String IDENTITY = "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>"
            + "<xsl:template match='@*|node()'><xsl:copy><xsl:apply-templates select='@*|node()'/></xsl:copy>"
            + "</xsl:template></xsl:stylesheet>";

    @Param({"flat-20MB", "article-100KB"})
    public String doc;

    byte[] xml;
    Path dir;
    Store store;
    Processor processor;
    Configuration config;
    XdmNode tiny;
    Snapshot snapshot;
    XdmNode stored;
    NodeInfo storedRoot;
    XsltExecutable identity;
    XPathExecutable scan;
    String uri;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        boolean flat = doc.startsWith("flat");
        xml = (flat ? Corpus.abstracts(20L << 20, 42) : Corpus.article(42)).getBytes(StandardCharsets.UTF_8);
        uri = flat ? "/bench/abstracts.xml" : "/bench/article.xml";
        dir = Files.createTempDirectory("arno-store-bench");
        store = Store.open(dir);
        try (WriteTransaction w = store.write()) {
            w.put(uri, xml);
            w.commit();
        }
        processor = new Processor(false);
        config = processor.getUnderlyingConfiguration();
        tiny = parse();
        snapshot = store.read();
        storedRoot = snapshot.document(uri, config).getRootNode();
        stored = new XdmNode(storedRoot);
        identity = processor.newXsltCompiler().compile(new StreamSource(new StringReader(IDENTITY)));
        scan = processor.newXPathCompiler().compile(flat ? "count(//sublink[@linktype = 'rare'])"
                : "count(//xref[@ref-type = 'fig'])");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        snapshot.close();
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    XdmNode parse() throws SaxonApiException {
        return processor.newDocumentBuilder().build(new StreamSource(new ByteArrayInputStream(xml)));
    }

    @Benchmark
    public Object openTiny() throws SaxonApiException {
        return parse();
    }

    @Benchmark
    public int openStored() {
        try (Snapshot s = store.read()) {
            return s.document(uri, config).getRootNode().getNodeKind();
        }
    }

    @Benchmark
    public long walkTiny() {
        return walk(tiny.getUnderlyingNode());
    }

    @Benchmark
    public long walkStored() {
        return walk(storedRoot);
    }

    @Benchmark
    public void xsltTiny() throws SaxonApiException {
        identity.load30().applyTemplates(tiny, new NullDestination());
    }

    @Benchmark
    public void xsltStored() throws SaxonApiException {
        identity.load30().applyTemplates(stored, new NullDestination());
    }

    @Benchmark
    public Object scanTiny() throws SaxonApiException {
        return select(tiny);
    }

    @Benchmark
    public Object scanStored() throws SaxonApiException {
        return select(stored);
    }

    private Object select(XdmNode context) throws SaxonApiException {
        XPathSelector s = scan.load();
        s.setContextItem(context);
        return s.evaluateSingle();
    }

    /** Every node through the NodeInfo API: names of elements and attributes, every value. */
    static long walk(NodeInfo n) {
        long h = 0;
        AxisIterator kids = n.iterateAxis(AxisInfo.CHILD);
        for (NodeInfo c; (c = kids.next()) != null; ) {
            switch (c.getNodeKind()) {
                case Type.ELEMENT -> {
                    h += c.getFingerprint() + c.getLocalPart().length();
                    AxisIterator atts = c.iterateAxis(AxisInfo.ATTRIBUTE);
                    for (NodeInfo a; (a = atts.next()) != null; ) {
                        h += a.getFingerprint() + a.getUnicodeStringValue().length();
                    }
                    h += walk(c);
                }
                case Type.TEXT -> h += c.getUnicodeStringValue().length();
                default -> h++;
            }
        }
        return h;
    }
}
