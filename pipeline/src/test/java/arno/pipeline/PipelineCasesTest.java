package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.xmlunit.builder.DiffBuilder;
import org.xmlunit.diff.ComparisonResult;
import org.xmlunit.diff.ComparisonType;
import org.xmlunit.diff.DefaultNodeMatcher;
import org.xmlunit.diff.Diff;
import org.xmlunit.diff.DifferenceEvaluators;
import org.xmlunit.diff.ElementSelectors;

/**
 * Runs every case file under src/test/resources/cases (format and schema: case.xsd beside them)
 * through the public API: {@link Sites#compile} once per setup, one {@link Exchange} per case,
 * the rsp:response as a tree, validated against response.xsd. A new pipeline behaviour is one
 * more case file. Other modules
 * (filters) run their own case folders with {@link #cases(Path)} from this module's test jar.
 */
public class PipelineCasesTest {
    static final Path RESOURCES = Path.of("src/test/resources");
    static final Path TEMPLATES = Path.of("../templates/xsl");
    static final String T = "urn:arno:test-case";
    private static final Map<String, Sites> compiled = new HashMap<>();
    private static final List<Path> temporary = new ArrayList<>();
    private static final Schema SCHEMA = schema("/case.xsd");
    private static final Schema RESPONSE = schema("/arno/schema/response.xsd");

    @TestFactory
    Stream<DynamicTest> cases() throws IOException {
        return cases(RESOURCES.resolve("cases"));
    }

    /** One dynamic test per case file in {@code folder}. */
    public static Stream<DynamicTest> cases(Path folder) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(folder)) {
            files = s.filter(p -> p.toString().endsWith(".xml")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), f.toUri(), () -> run(f)));
    }

    @AfterAll
    public static void clean() {
        for (Path p : temporary) FileUtils.deleteQuietly(p.toFile());
    }

    private static Schema schema(String resource) {
        try {
            return SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
                    .newSchema(PipelineCasesTest.class.getResource(resource));
        } catch (org.xml.sax.SAXException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void run(Path file) throws Exception {
        SCHEMA.newValidator().validate(new StreamSource(file.toFile()));
        Processor builder = new Processor(false);
        XdmNode c = child(builder.newDocumentBuilder().build(file.toFile()), "case");
        Sites sites = sites(child(c, "setup"));
        Exchange x;
        XdmNode request = child(c, "request");
        if (request != null) {
            x = sites.exchange(httpRequest(sites.processor(), request));
        } else {
            XdmNode doc = sites.processor().newDocumentBuilder().build(new StreamSource(
                    new java.io.StringReader(firstElement(child(c, "request-document")).toString())));
            x = sites.exchange(doc);
        }
        XdmNode response = x.respond();
        // Every answer, pages and error pages alike, is a valid rsp:response.
        RESPONSE.newValidator().validate(new StreamSource(new java.io.StringReader(response.toString())));
        XdmNode expect = child(c, "expect");
        XPathCompiler xpath = sites.processor().newXPathCompiler();
        xpath.declareNamespace("rsp", "urn:arno:response");
        String status = xpath.evaluate("string((/*/@status, '200')[1])", response).toString();
        String errorCode = x.error() == null ? null : x.error().code().code();
        String context = "\nresponse: " + response + "\nerror: " + (x.error() == null ? "none" : x.error().describe());
        assertThat(status).as("status" + context).isEqualTo(attribute(expect, "status", "200"));
        assertThat(errorCode).as("error code" + context).isEqualTo(expect.attribute("error"));
        XdmNode golden = child(expect, "response");
        if (golden != null) {
            Diff diff = DiffBuilder.compare(firstElement(golden).toString()).withTest(response.toString())
                    .ignoreWhitespace().ignoreComments().checkForSimilar()
                    .withNodeMatcher(new DefaultNodeMatcher(ElementSelectors.byNameAndText, ElementSelectors.byName))
                    .withDifferenceEvaluator(DifferenceEvaluators.chain(DifferenceEvaluators.Default, PipelineCasesTest::anyValue))
                    .build();
            assertThat(diff.hasDifferences()).as(diff + context).isFalse();
        }
        for (XdmNode a : children(expect, "assert")) {
            XPathCompiler scoped = sites.processor().newXPathCompiler();
            a.getUnderlyingNode().getAllNamespaces().forEach(ns -> {
                // Unprefixed names in a test are the page's (no namespace), not the case file's.
                if (!ns.getPrefix().isEmpty()) scoped.declareNamespace(ns.getPrefix(), ns.getNamespaceUri().toString());
            });
            scoped.declareNamespace("rsp", "urn:arno:response");
            String test = a.attribute("test");
            assertThat(scoped.evaluateSingle("boolean(" + test + ")", response).getStringValue()).as(test + context)
                    .isEqualTo("true");
        }
    }

    /** "..." in the expected response matches any text or attribute value. */
    private static ComparisonResult anyValue(org.xmlunit.diff.Comparison comparison, ComparisonResult outcome) {
        if (outcome == ComparisonResult.EQUAL) return outcome;
        ComparisonType t = comparison.getType();
        if ((t == ComparisonType.TEXT_VALUE || t == ComparisonType.ATTR_VALUE)
                && "...".equals(String.valueOf(comparison.getControlDetails().getValue()).strip())) {
            return ComparisonResult.EQUAL;
        }
        return outcome;
    }

    /** The sites of a setup: a root compiled once for all its cases, or inline files compiled per case. */
    static Sites sites(XdmNode setup) throws Exception {
        boolean development = !"false".equals(setup.attribute("development"));
        String root = setup.attribute("root");
        if (root != null) {
            String key = root + "/" + development;
            Sites s = compiled.get(key);
            if (s == null) {
                s = Sites.compile(config(RESOURCES.resolve("roots").resolve(root), development), null);
                compiled.put(key, s);
            }
            return s;
        }
        Path dir = Files.createTempDirectory("arno-case");
        temporary.add(dir);
        Files.createDirectories(dir.resolve("sites"));
        Files.createDirectories(dir.resolve("content"));
        for (XdmNode f : children(setup, "file")) {
            Path target = dir.resolve(f.attribute("path")).normalize();
            assertThat(target.startsWith(dir)).as(target + " inside the case folder").isTrue();
            Files.createDirectories(target.getParent());
            XdmNode content = firstElement(f);
            Files.writeString(target, content != null ? serialize(content) : f.getStringValue());
        }
        return Sites.compile(config(dir, development), null);
    }

    static PipelineConfig config(Path root, boolean development) {
        List<Path> packages = new ArrayList<>();
        if (Files.isDirectory(root.resolve("packages"))) packages.add(root.resolve("packages"));
        packages.add(TEMPLATES);
        return PipelineConfig.of(root.resolve("sites"), root.resolve("content"))
                .withPackages(packages, false).withDevelopment(development);
    }

    private static String serialize(XdmNode node) throws Exception {
        java.io.StringWriter w = new java.io.StringWriter();
        Serializer s = node.getProcessor().newSerializer(w);
        s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
        s.serializeNode(node);
        return w.toString();
    }

    static HttpRequest httpRequest(Processor processor, XdmNode r) throws Exception {
        HttpRequest.Builder b = HttpRequest.builder(attribute(r, "method", "GET"), r.attribute("path"))
                .host(attribute(r, "host", "localhost"), 80);
        for (XdmNode h : children(r, "header")) b.header(h.attribute("name"), h.getStringValue());
        XdmNode body = child(r, "body");
        if (body != null) {
            XdmNode xml = firstElement(body);
            b.body(body.attribute("content-type"), xml != null ? serialize(xml) : attribute(body, "text", ""));
        }
        return b.build();
    }

    private static String attribute(XdmNode e, String name, String fallback) {
        String v = e.attribute(name);
        return v == null ? fallback : v;
    }

    static XdmNode child(XdmNode parent, String name) {
        List<XdmNode> all = children(parent, name);
        return all.isEmpty() ? null : all.get(0);
    }

    static List<XdmNode> children(XdmNode parent, String name) {
        List<XdmNode> out = new ArrayList<>();
        QName q = new QName(T, name);
        for (XdmNode n : parent.children()) {
            if (n.getNodeKind() == XdmNodeKind.ELEMENT && n.getNodeName().equals(q)) out.add(n);
        }
        return out;
    }

    static XdmNode firstElement(XdmNode parent) {
        for (XdmNode n : parent.children()) if (n.getNodeKind() == XdmNodeKind.ELEMENT) return n;
        return null;
    }
}
