package arno.pipeline;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.util.Random;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.expr.parser.Loc;
import java.util.List;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.CopyOptions;
import net.sf.saxon.om.FingerprintedQName;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NoNamespaceName;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.type.BuiltInAtomicType;
import net.sf.saxon.type.Untyped;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.str.BMPString;
import net.sf.saxon.str.Slice16;
import net.sf.saxon.str.Slice8;
import net.sf.saxon.str.StringTool;
import net.sf.saxon.str.StringView;
import net.sf.saxon.str.Twine16;
import net.sf.saxon.str.Twine8;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import org.jsoup.Jsoup;
import org.jsoup.helper.W3CDom;
import org.junit.jupiter.api.Test;
import org.xmlunit.builder.DiffBuilder;
import org.xmlunit.diff.Diff;

/**
 * {@link HtmlWriter} against the reference it replaces, Saxon's HTML5
 * serializer: both serialize the same documents, an HTML5 parser (jsoup)
 * reads both outputs, and XMLUnit compares the two parsed documents. Bytes
 * may differ (entity choices, DOCTYPE case); what a browser builds may not.
 */
class HtmlWriterTest {
    private static final Processor PROCESSOR = new Processor(false);

    private static final String PAGE = """
        <html lang="en">
          <head>
            <title>Tom &amp; Jerry – “quotes” &lt;ok&gt;</title>
            <style>a > b { content: "&amp;"; } p::before { content: '&lt;' }</style>
            <script>if (a &lt; b &amp;&amp; c > d) { x = "&lt;/" + "p>"; }</script>
            <link rel="stylesheet" href="/s.css"/>
          </head>
          <body class="x &quot;y&quot;">
            <h1 id="t">Ångström &amp; naïve café 漢字 😀</h1>
            <p>a &lt; b &amp; c &gt; d "q" 'a'<br/>second line<br/></p>
            <p><img src="/f/é.png" alt="a &quot;b&quot; &amp; c" width="4"/><hr/><input type="checkbox" checked="checked"/><option selected="SELECTED">o</option><div hidden="no">h</div></p>
            <p><a href="/search?q=é x&amp;p=1">link</a> <a href="#{x}">braces</a> <a title="&amp;{x}">attr</a></p>
            <table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td>1</td><td></td></tr></tbody></table>
            <div></div><span/><textarea>&lt;b&gt;</textarea>
            <!-- a comment with <b> & -->
            <?php echo 1; ?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">
              <circle cx="5" cy="5" r="4"/><text x="1" y="9">a &lt; b</text><use xlink:href="#c"/>
            </svg>
            <math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi></math>
          </body>
        </html>""";

    @Test
    void aFullPageParsesAsSaxonsDoes() throws Exception {
        assertSameAsSaxon(PAGE);
    }

    @Test
    void documentsWithoutHeadOrHtmlParseAsSaxonsDo() throws Exception {
        assertSameAsSaxon("<div><p>no head &amp; no html</p><br/></div>");
        assertSameAsSaxon("<html><body><p>no head</p></body></html>");
        assertSameAsSaxon("<html><head/><body/></html>");
        assertSameAsSaxon("<p xmlns=\"http://www.w3.org/1999/xhtml\">XHTML namespace<br/></p>");
    }

    @Test
    void aPagesOwnContentTypeMetaIsReplacedAsSaxonReplacesIt() throws Exception {
        assertSameAsSaxon("<html><head><title>t</title><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"/>"
                + "</head><body>x</body></html>");
        assertSameAsSaxon("<html><head><meta http-equiv=\"content-type\" content=\"text/html\"/><title>t</title></head><body/></html>");
    }

    @Test
    void randomDocumentsParseAsSaxonsDo() throws Exception {
        Random random = new Random(20261123);
        for (int i = 0; i < 300; i++) {
            StringBuilder xml = new StringBuilder("<html><head><title>").append(escaped(text(random, 8))).append("</title></head><body>");
            element(random, xml, 0);
            xml.append("</body></html>");
            assertSameAsSaxon(xml.toString());
        }
    }

    @Test
    void writesWhatTheHtml5MethodRequires() throws Exception {
        String html = ours(PAGE);
        assertThat(html).startsWith("<!DOCTYPE html>");
        assertThat(html).contains("<br>second line<br></p>").doesNotContain("</br>").doesNotContain("</img>")
                .doesNotContain("</hr>").doesNotContain("</link>").doesNotContain("</input>");
        assertThat(html).contains("if (a < b && c > d)"); // script is not escaped
        assertThat(html).contains("content: \"&\"; } p::before { content: '<' }"); // nor is style
        assertThat(html).contains("a &lt; b &amp; c &gt; d \"q\"");
        assertThat(html).contains("alt=\"a &quot;b&quot; &amp; c\"");
        assertThat(html).contains("<input type=\"checkbox\" checked><option selected>o</option><div hidden=\"no\">");
        assertThat(html).contains("href=\"/search?q=%C3%A9 x&amp;p=1\""); // URI attributes: non-ASCII %-escaped
        assertThat(html).contains("src=\"/f/%C3%A9.png\"");
        assertThat(html).contains("title=\"&{x}\""); // & before { is left alone in attributes
        assertThat(html).contains("Ångström &amp; naïve café 漢字 😀"); // UTF-8, not references
        assertThat(html).contains("<div></div><span></span>");
        assertThat(html).contains("<circle cx=\"5\" cy=\"5\" r=\"4\"/>"); // foreign elements are XML
        assertThat(html).contains("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"");
        assertThat(html).contains("<use xlink:href=\"#c\"/>");
        assertThat(html).contains("<?php echo 1; >"); // an HTML processing instruction ends with >
        assertThat(html).contains("<!-- a comment with <b> & -->");
        assertThat(html).containsOnlyOnce("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\">");
        assertThat(html).contains("<head><meta http-equiv");
    }

    @Test
    void aHeadThatOpensWithMetaCharsetDeclaresTheEncodingOnce() throws Exception {
        String html = ours("<html><head><meta charset=\"utf-8\"/><title>t</title>"
                + "<meta http-equiv=\"Content-Type\" content=\"text/html\"/></head><body><meta http-equiv=\"Content-Type\" content=\"x\"/></body></html>");
        assertThat(html).startsWith("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>t</title></head>");
        assertThat(html).doesNotContain("content=\"text/html");
        // Only the head is adjusted: a meta in the body is the page's business.
        assertThat(html).contains("<body><meta http-equiv=\"Content-Type\" content=\"x\"></body>");
    }

    @Test
    void everyFormOfSaxonStringIsWrittenTheSame() throws Exception {
        String s = "a<b&c>\"d\" é ü – 漢 😀 end";
        String expected = "a&lt;b&amp;c&gt;\"d\" é ü – 漢 😀 end";
        String latin = "a<b&c>\"d\" é ü";
        String latinExpected = "a&lt;b&amp;c&gt;\"d\" é ü";
        char[] chars = ("xx" + s + "yy").toCharArray();
        assertThat(text(StringView.of(s))).isEqualTo(expected);
        assertThat(text(StringTool.fromCharSequence(s))).isEqualTo(expected);
        assertThat(text(BMPString.of("a<b é –"))).isEqualTo("a&lt;b é –");
        assertThat(text(new Twine16(chars, 2, s.length()))).isEqualTo(expected);
        assertThat(text(new Slice16(chars, 2, 2 + s.length()))).isEqualTo(expected);
        assertThat(text(new Twine8(latin))).isEqualTo(latinExpected);
        byte[] bytes = ("xx" + latin + "yy").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(text(new Slice8(bytes, 2, 2 + latin.length()))).isEqualTo(latinExpected);
        assertThat(text(StringTool.fromCodePoints(s.codePoints().toArray(), s.codePointCount(0, s.length()))))
                .isEqualTo(expected);
    }

    /**
     * A compiled stylesheet hands the writer the same NodeName object for every element that one
     * literal result element makes, and the writer keeps what it worked out per object. Here the
     * same objects come again, through new writers and in other roles (one name as an element
     * and as an attribute, on an HTML and on a foreign element): every page comes out whole.
     */
    @Test
    void aNameSeenBeforeIsWrittenAsTheFirstTime() throws Exception {
        NodeName p = new NoNamespaceName("p"), a = new NoNamespaceName("a"), br = new NoNamespaceName("br");
        NodeName href = new NoNamespaceName("href"), selected = new NoNamespaceName("selected");
        NamespaceUri svgUri = NamespaceUri.of("http://www.w3.org/2000/svg");
        NodeName rect = new FingerprintedQName("svg", svgUri, "rect");
        String expected = "<p><a href=\"/%C3%A9\" selected>x</a><br><selected selected>s</selected>"
                + "<svg:rect xmlns:svg=\"http://www.w3.org/2000/svg\" href=\"/é\" selected=\"selected\"/></p>";
        for (int round = 0; round < 3; round++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            HtmlWriter w = writer(out);
            NamespaceMap none = NamespaceMap.emptyMap();
            w.open();
            w.startDocument(0);
            w.startElement(p, Untyped.getInstance(), attributes(), none, Loc.NONE, 0);
            w.startElement(a, Untyped.getInstance(), attributes(href, "/é", selected, "selected"), none, Loc.NONE, 0);
            w.characters(StringView.of("x"), Loc.NONE, 0);
            w.endElement();
            w.startElement(br, Untyped.getInstance(), attributes(), none, Loc.NONE, 0);
            w.endElement();
            w.startElement(selected, Untyped.getInstance(), attributes(selected, "SELECTED"), none, Loc.NONE, 0);
            w.characters(StringView.of("s"), Loc.NONE, 0);
            w.endElement();
            w.startElement(rect, Untyped.getInstance(), attributes(href, "/é", selected, "selected"),
                    none.put("svg", svgUri), Loc.NONE, 0);
            w.endElement();
            w.endElement();
            w.endDocument();
            w.close();
            assertThat(out.toString(UTF_8)).as("round %d", round).isEqualTo(expected);
        }
    }

    private static AttributeMap attributes(Object... nameValues) {
        List<AttributeInfo> list = new java.util.ArrayList<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            list.add(new AttributeInfo((NodeName) nameValues[i], BuiltInAtomicType.UNTYPED_ATOMIC,
                    (String) nameValues[i + 1], Loc.NONE, 0));
        }
        return net.sf.saxon.om.SequenceTool.attributeMapFromList(list);
    }

    @Test
    void longPagesCrossTheBufferIntact() throws Exception {
        StringBuilder xml = new StringBuilder("<html><body>");
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            xml.append("<p title=\"é&quot;").append(i).append("\">x &amp; 😀 ").append(i).append("</p>");
            expected.append("<p title=\"é&quot;").append(i).append("\">x &amp; 😀 ").append(i).append("</p>");
        }
        xml.append("</body></html>");
        assertThat(ours(xml.toString())).isEqualTo("<!DOCTYPE html>\n<html><body>" + expected + "</body></html>");
    }

    // ---- the comparison

    private static void assertSameAsSaxon(String xml) throws Exception {
        String saxon = saxon(xml);
        String ours = ours(xml);
        Diff diff = DiffBuilder.compare(parse(saxon)).withTest(parse(ours)).checkForIdentical().build();
        assertThat(diff.hasDifferences())
                .as("%s%n--- Saxon:%n%s%n--- HtmlWriter:%n%s", diff, saxon, ours)
                .isFalse();
    }

    private static org.w3c.dom.Document parse(String html) {
        return new W3CDom().fromJsoup(Jsoup.parse(html));
    }

    private static XdmNode document(String xml) throws SaxonApiException {
        return PROCESSOR.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
    }

    private static String saxon(String xml) throws SaxonApiException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Serializer s = PROCESSOR.newSerializer(out);
        s.setOutputProperty(Serializer.Property.METHOD, "html");
        s.setOutputProperty(Serializer.Property.HTML_VERSION, "5");
        s.setOutputProperty(Serializer.Property.ENCODING, "UTF-8");
        s.setOutputProperty(Serializer.Property.INDENT, "no");
        s.serializeNode(document(xml));
        return out.toString(UTF_8);
    }

    private static String ours(String xml) throws SaxonApiException, XPathException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HtmlWriter w = writer(out);
        w.open();
        document(xml).getUnderlyingNode().copy(w, CopyOptions.ALL_NAMESPACES, Loc.NONE);
        w.close();
        return out.toString(UTF_8);
    }

    private static String text(UnicodeString s) throws XPathException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HtmlWriter w = writer(out);
        w.open();
        w.startDocument(0);
        w.characters(s, Loc.NONE, 0);
        w.endDocument();
        w.close();
        return out.toString(UTF_8);
    }

    private static HtmlWriter writer(ByteArrayOutputStream out) {
        PipelineConfiguration pipe = PROCESSOR.getUnderlyingConfiguration().makePipelineConfiguration();
        return new HtmlWriter(out, pipe);
    }

    // ---- random documents: HTML elements, void and raw-text ones, inline SVG, awkward text

    private static final String[] ELEMENTS = {"div", "p", "span", "em", "a", "ul", "li", "table", "br", "img", "hr",
            "input", "script", "style", "svg", "textarea", "pre"};

    private static void element(Random r, StringBuilder xml, int depth) {
        int children = depth > 4 ? 0 : r.nextInt(5);
        for (int i = 0; i < children; i++) {
            if (r.nextInt(3) == 0) {
                xml.append(escaped(text(r, 12)));
                continue;
            }
            String name = ELEMENTS[r.nextInt(ELEMENTS.length)];
            switch (name) {
                case "br", "hr", "input" -> xml.append('<').append(name).append(attributes(r)).append("/>");
                case "img" -> xml.append("<img src=\"").append(escaped(text(r, 6))).append('"').append(attributes(r)).append("/>");
                case "script", "style" -> xml.append('<').append(name).append('>')
                        .append(escaped(text(r, 20).replace("/", ""))).append("</").append(name).append('>');
                case "svg" -> xml.append("<svg xmlns=\"http://www.w3.org/2000/svg\"><g").append(attributes(r))
                        .append("><rect width=\"1\"/><text>").append(escaped(text(r, 5))).append("</text></g></svg>");
                case "a" -> {
                    xml.append("<a href=\"").append(escaped(text(r, 6))).append("\">");
                    element(r, xml, depth + 1);
                    xml.append("</a>");
                }
                default -> {
                    xml.append('<').append(name).append(attributes(r)).append('>');
                    element(r, xml, depth + 1);
                    xml.append("</").append(name).append('>');
                }
            }
        }
    }

    private static String attributes(Random r) {
        StringBuilder a = new StringBuilder();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) a.append(" data-").append(i).append("=\"").append(escaped(text(r, 6))).append('"');
        if (r.nextBoolean()) a.append(" title=\"").append(escaped(text(r, 4))).append('"');
        return a.toString();
    }

    private static final String[] PIECES = {"a", "b", " ", "\n", "&", "<", ">", "\"", "'", "{", "}", "é", "ß", "–",
            "漢", "😀", "\u00a0", "x y", "&amp;", "=", "#", "?", "%"};

    private static String text(Random r, int max) {
        StringBuilder s = new StringBuilder();
        int n = 1 + r.nextInt(max);
        for (int i = 0; i < n; i++) s.append(PIECES[r.nextInt(PIECES.length)]);
        return s.toString();
    }

    private static String escaped(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace("\"", "&quot;");
    }

    /** The eight-bytes-at-a-time scan finds the same end as a byte-by-byte one, wherever specials fall. */
    @Test
    void plainRunEndsWhereTheByteByByteScanEnds() {
        byte[] specials = {'&', '<', '>', '"', (byte) 0x80, (byte) 0xE9, (byte) 0xFF};
        Random random = new Random(11);
        for (int round = 0; round < 20_000; round++) {
            byte[] b = new byte[random.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                b[i] = random.nextInt(12) == 0 ? specials[random.nextInt(specials.length)]
                        : (byte) random.nextInt(0x80);
            }
            int from = b.length == 0 ? 0 : random.nextInt(b.length);
            int to = from + random.nextInt(b.length - from + 1);
            int expected = from;
            while (expected < to && (b[expected] & 0xFF) < 0x80 && "&<>\"".indexOf(b[expected]) < 0) expected++;
            assertThat(HtmlWriter.plainRun(b, from, to)).as("run in %s from %d to %d", java.util.Arrays.toString(b), from, to)
                    .isEqualTo(expected);
        }
    }
}
