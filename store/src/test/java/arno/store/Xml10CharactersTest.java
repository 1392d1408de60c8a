package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import javax.xml.transform.Source;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import net.sf.saxon.event.EventSource;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.expr.parser.Loc;
import net.sf.saxon.lib.ParseOptions;
import net.sf.saxon.om.EmptyAttributeMap;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NoNamespaceName;
import net.sf.saxon.str.StringView;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.Untyped;

/**
 * A character XML 1.0 cannot carry (U+0001 from an XML 1.1 character reference, a control
 * character or U+FFFF in a tree built in Java) never reaches a stored document: a document holding
 * one could not be exported and loaded again (issue 21, 3.5). The put is refused with where it
 * was, nothing of the document is stored, and the transaction goes on.
 */
class Xml10CharactersTest {
    @TempDir
    Path dir;

    @Test
    void xml11TextAndAttributesWithAC0ControlAreRefusedAndTheTransactionGoesOn() {
        try (Store store = TestStores.open(dir.resolve("store"))) {
            try (WriteTransaction w = store.write()) {
                ArnoException text = refused(() -> TestStores.put(w, "/t.xml",
                        "<?xml version='1.1'?>\n<a>\n  <title>bad&#x1;title</title></a>"));
                assertThat(text.getMessage()).contains("store:/t.xml").contains("text").contains("U+0001")
                        .contains("XML 1.0 cannot carry");
                assertThat(text.where().line()).isEqualTo(3);
                ArnoException attribute = refused(() -> TestStores.put(w, "/a.xml",
                        "<?xml version='1.1'?><a title='x&#x1F;'/>"));
                assertThat(attribute.getMessage()).contains("attribute title").contains("U+001F");
                // an XML 1.1 document with only characters XML 1.0 has is stored
                TestStores.put(w, "/fine.xml", "<?xml version='1.1'?><a title='x'>y</a>");
                w.commit();
            }
            try (Snapshot s = store.read()) {
                assertThat(s.exists("/t.xml")).isFalse();
                assertThat(s.exists("/a.xml")).isFalse();
                assertThat(s.exists("/fine.xml")).isTrue();
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aTreeBuiltInJavaIsCheckedToo() {
        try (Store store = TestStores.open(dir.resolve("store"))) {
            try (WriteTransaction w = store.write()) {
                assertThat(refused(() -> w.put("/c.xml", events("comment", "a\u0002b"))).getMessage())
                        .contains("comment").contains("U+0002");
                assertThat(refused(() -> w.put("/p.xml", events("pi", "x\uFFFF"))).getMessage())
                        .contains("processing instruction").contains("U+FFFF");
                assertThat(refused(() -> w.put("/t.xml", events("text", "a\u0000"))).getMessage())
                        .contains("text").contains("U+0000");
                w.put("/ok.xml", events("text", "tab\t, line\n, astral \uD83D\uDE00, last BMP \uFFFD"));
                w.commit();
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("/")).containsExactly("/ok.xml");
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                s.export("/ok.xml", out);
                assertThat(out.toString(StandardCharsets.UTF_8)).contains("\uD83D\uDE00");
            }
        }
    }

    private static ArnoException refused(Runnable put) {
        Throwable t = catchThrowable(put::run);
        assertThat(t).isInstanceOf(StoreException.class);
        ArnoException e = (ArnoException) t;
        assertThat(e.code()).isEqualTo(ErrorCode.REFUSED_XML);
        assertThat(e.getMessage()).contains("nothing was stored");
        return e;
    }

    /** A document {@code <a>} holding one node of {@code kind} with {@code value}, as Saxon events. */
    private static Source events(String kind, String value) {
        return new EventSource() {
            @Override
            public void deliver(Receiver out, ParseOptions options) throws XPathException {
                out.open();
                out.startDocument(ReceiverOption.NONE);
                out.startElement(new NoNamespaceName("a"), Untyped.getInstance(), EmptyAttributeMap.getInstance(),
                        NamespaceMap.emptyMap(), Loc.NONE, ReceiverOption.NONE);
                switch (kind) {
                    case "comment" -> out.comment(StringView.of(value), Loc.NONE, ReceiverOption.NONE);
                    case "pi" -> out.processingInstruction("x", StringView.of(value), Loc.NONE, ReceiverOption.NONE);
                    default -> out.characters(StringView.of(value), Loc.NONE, ReceiverOption.NONE);
                }
                out.endElement();
                out.endDocument();
                out.close();
            }
        };
    }
}
