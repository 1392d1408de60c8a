package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.stream.Stream;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The hostile corpus through the policy's parser, into Saxon as every module parses. */
class XmlPolicyTest {
    @RegisterExtension
    static final HostileCorpus.Leak leak = HostileCorpus.Leak.open();

    static Stream<HostileCorpus.Case> corpus() {
        return leak.cases().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void everyCaseEndsAsItMust(HostileCorpus.Case c) throws Exception {
        Processor processor = new Processor(false);
        XmlPolicy.DEFAULT.install(processor.getUnderlyingConfiguration());
        int before = leak.requests();
        switch (c.outcome()) {
            case ACCEPTED -> {
                XdmNode doc = parse(processor, c.xml());
                assertThat(doc.getStringValue()).isEqualTo(c.text());
            }
            case REFUSED -> assertThatThrownBy(() -> parse(processor, c.xml())).satisfies(t -> {
                ArnoException e = XmlPolicy.translate(t, "test.xml");
                assertThat(e.code()).isEqualTo(ErrorCode.REFUSED_XML);
                assertThat(XmlPolicy.refusal(t).kind()).isEqualTo(c.kind());
                assertThat(e.getMessage()).startsWith("test.xml was refused: ").doesNotContain("LEAKED");
            });
            case MALFORMED -> assertThatThrownBy(() -> parse(processor, c.xml())).satisfies(t -> {
                ArnoException e = XmlPolicy.translate(t, "test.xml");
                assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_XML);
                assertThat(XmlPolicy.refusal(t)).isNull();
            });
        }
        assertThat(leak.requests()).as("requests to the leak URL").isEqualTo(before);
    }

    /** As Saxon parses a stream source once the policy is installed: no reader is passed by hand. */
    private static XdmNode parse(Processor processor, byte[] xml) throws Exception {
        javax.xml.transform.stream.StreamSource s = new javax.xml.transform.stream.StreamSource(new ByteArrayInputStream(xml), "test.xml");
        return processor.newDocumentBuilder().build(s);
    }

    @Test
    void malformedNamesLineAndColumn() {
        Processor processor = new Processor(false);
        XmlPolicy.DEFAULT.install(processor.getUnderlyingConfiguration());
        assertThatThrownBy(() -> parse(processor, "<a>\n  <b></a>".getBytes())).satisfies(t -> {
            ArnoException e = XmlPolicy.translate(t, "body");
            assertThat(e.where().line()).isEqualTo(2);
            assertThat(e.where().column()).isPositive();
            assertThat(e.describe()).contains("line 2");
        });
    }

    /** Straight SAX, without Saxon in between: the same case gets the same answer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void rawSaxAgreesWithSaxon(HostileCorpus.Case c) {
        org.xml.sax.XMLReader reader = XmlPolicy.DEFAULT.newReader();
        org.xml.sax.helpers.DefaultHandler text = new org.xml.sax.helpers.DefaultHandler();
        reader.setContentHandler(text);
        Throwable failure = null;
        try {
            reader.parse(new org.xml.sax.InputSource(new ByteArrayInputStream(c.xml())));
        } catch (Exception e) {
            failure = e;
        }
        switch (c.outcome()) {
            case ACCEPTED -> assertThat(failure).isNull();
            case REFUSED -> assertThat(XmlPolicy.translate(failure, "x").code()).isEqualTo(ErrorCode.REFUSED_XML);
            case MALFORMED -> assertThat(XmlPolicy.translate(failure, "x").code()).isEqualTo(ErrorCode.MALFORMED_XML);
        }
    }

    /** Readers are reused per thread after a clean parse, never after a failed one, and never mixed up. */
    @Test
    void pooledReadersStartEveryParseClean() throws Exception {
        Processor processor = new Processor(false);
        XmlPolicy.DEFAULT.install(processor.getUnderlyingConfiguration());
        for (int i = 0; i < 3; i++) {
            assertThat(processor.newDocumentBuilder().build(XmlPolicy.DEFAULT.source(
                    new ByteArrayInputStream(("<a>" + i + "</a>").getBytes()), "a.xml")).getStringValue()).isEqualTo("" + i);
            final int n = i;
            assertThatThrownBy(() -> parse(processor, "<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/hostname'>]><a>&x;</a>".getBytes()))
                    .satisfies(t -> assertThat(XmlPolicy.refusal(t)).as("round " + n).isNotNull());
            assertThatThrownBy(() -> parse(processor, "<a>".repeat(2000).getBytes()))
                    .satisfies(t -> assertThat(XmlPolicy.refusal(t).kind()).isEqualTo(XmlPolicy.Kind.DEPTH));
            assertThat(parse(processor, "<!DOCTYPE b [<!ENTITY y 'why'>]><b>&y;</b>".getBytes()).getStringValue()).isEqualTo("why");
        }
        // the same source parsed on two threads at once: each thread has its own reader
        Thread other = new Thread(() -> {
            try {
                for (int i = 0; i < 200; i++) parse(processor, ("<t>" + i + "</t>").getBytes());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        other.start();
        for (int i = 0; i < 200; i++) assertThat(parse(processor, ("<m>" + i + "</m>").getBytes()).getStringValue()).isEqualTo("" + i);
        other.join();
    }

    @Test
    void limitsAreConfigurable() throws Exception {
        XmlPolicy tight = new XmlPolicy(new XmlPolicy.Limits(10, 1000, 3, 10));
        Processor processor = new Processor(false);
        tight.install(processor.getUnderlyingConfiguration());
        assertThat(parse(processor, "<a><b><c/></b></a>".getBytes()).getStringValue()).isEmpty();
        assertThatThrownBy(() -> parse(processor, "<a><b><c><d/></c></b></a>".getBytes()))
                .satisfies(t -> assertThat(XmlPolicy.refusal(t).kind()).isEqualTo(XmlPolicy.Kind.DEPTH));
        assertThatThrownBy(() -> parse(processor, "<a x='12345678901'/>".getBytes()))
                .satisfies(t -> assertThat(XmlPolicy.refusal(t).kind()).isEqualTo(XmlPolicy.Kind.ATTRIBUTE_LENGTH));
        assertThatThrownBy(() -> new XmlPolicy.Limits(1, 1, 0, 1)).isInstanceOf(ArnoException.class);
    }

    /**
     * Each Configuration parses by the policy installed on it, also where Saxon makes a parser by
     * class name ({@code parse-xml()}): a policy installed later on another Configuration changes
     * nothing here, in either order.
     */
    @Test
    void eachConfigurationParsesByItsOwnPolicy() throws Exception {
        Processor tight = new Processor(false);
        new XmlPolicy(new XmlPolicy.Limits(10, 1000, 3, 10)).install(tight.getUnderlyingConfiguration());
        Processor roomy = new Processor(false);
        XmlPolicy.DEFAULT.install(roomy.getUnderlyingConfiguration());
        String deep = "parse-xml('<a><b><c><d/></c></b></a>')/count(//*)";
        for (int round = 0; round < 2; round++) {
            assertThat(roomy.newXPathCompiler().evaluateSingle(deep, null).getStringValue()).isEqualTo("4");
            // parse-xml() keeps the parser's message only
            assertThatThrownBy(() -> tight.newXPathCompiler().evaluateSingle(deep, null))
                    .hasMessageContaining("elements nest deeper than the limit of 3");
            // and documents given as streams, by the reader maker of the parse options
            assertThat(parse(roomy, "<a><b><c><d/></c></b></a>".getBytes()).getStringValue()).isEmpty();
            assertThatThrownBy(() -> parse(tight, "<a><b><c><d/></c></b></a>".getBytes()))
                    .satisfies(t -> assertThat(XmlPolicy.refusal(t).kind()).isEqualTo(XmlPolicy.Kind.DEPTH));
            // installed again, in the other order: still each its own
            XmlPolicy.DEFAULT.install(roomy.getUnderlyingConfiguration());
            new XmlPolicy(new XmlPolicy.Limits(10, 1000, 3, 10)).install(tight.getUnderlyingConfiguration());
        }
    }

    @Test
    void limitsListInTheCatalogue() {
        assertThat(List.of(ErrorCode.values())).extracting(ErrorCode::code).doesNotHaveDuplicates();
    }
}
