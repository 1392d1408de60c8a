package arno.store.atom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import javax.xml.namespace.QName;

import org.junit.jupiter.api.Test;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.XmlPolicy;

class IntrospectionTest {

    private final AtomXml xml = new AtomXml(XmlPolicy.DEFAULT);

    private Kind parse(String kind, String text) {
        return Introspection.parse(xml, text.getBytes(StandardCharsets.UTF_8), kind, "store:/_model/" + kind + ".xml");
    }

    private ArnoException failure(String kind, String text) {
        try {
            parse(kind, text);
        } catch (ArnoException e) {
            return e;
        }
        throw new AssertionError("no error for " + text);
    }

    @Test
    void everyDefaultDocumentIsValidAndNamesItsKind() {
        for (String k : Introspection.DEFAULT_KINDS) {
            Kind kind = Introspection.parse(xml, Introspection.defaultDocument(k), k, "classpath:" + k);
            assertThat(kind.name()).isEqualTo(k);
            assertThat(kind.source()).isEqualTo("/_model/" + k + ".xml");
        }
    }

    @Test
    void readsTheSpecExample() {
        Kind k = parse("article", """
                <kind xmlns="urn:arno:introspection" name="article">
                  <title>Article</title>
                  <require element="atom:title" xmlns:atom="http://www.w3.org/2005/Atom"/>
                  <variant role="jats" media-type="application/xml" extension="xml"/>
                  <variant role="pdf"  media-type="application/pdf" extension="pdf"/>
                  <collection name="figures" kinds="figure" naming="slug"/>
                  <collection name="tables"  kinds="table"  naming="pattern" pattern="t{n}"/>
                  <collection name="media"   media-types="image/png image/jpeg application/pdf" naming="counter"/>
                  <link role="figure" kinds="figure" reciprocal="article"/>
                </kind>""");
        assertThat(k.title()).isEqualTo("Article");
        assertThat(k.requires()).containsExactly(new QName("http://www.w3.org/2005/Atom", "title"));
        assertThat(k.variantByExtension("pdf").role()).isEqualTo("pdf");
        assertThat(k.variantByRole("jats").mediaType()).isEqualTo("application/xml");
        assertThat(k.collection("tables").effectivePattern()).isEqualTo("t{n}");
        assertThat(k.collection("media").effectivePattern()).isEqualTo("{n}");
        assertThat(k.collection("media").acceptsMediaType("image/PNG; q=1")).isTrue();
        assertThat(k.collection("media").acceptsMediaType("image/gif")).isFalse();
        assertThat(k.collection("figures").acceptsKind("figure")).isTrue();
        assertThat(k.link("figure").reciprocal()).isEqualTo("article");
        assertThat(k.link("figure").acceptsTarget("table")).isFalse();
    }

    @Test
    void malformedIsReportedWithLineAndColumn() {
        ArnoException e = failure("a", "<kind xmlns=\"urn:arno:introspection\" name=\"a\">\n  <title>x</titel>\n</kind>");
        assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_XML);
        assertThat(e.where().line()).isEqualTo(2);
        assertThat(e.where().column()).isPositive();
    }

    @Test
    void schemaErrorsAreInvalidWithLineAndColumn() {
        ArnoException e = failure("a", "<kind xmlns=\"urn:arno:introspection\" name=\"a\">\n\n"
                + "  <collection name=\"c\" kinds=\"b\" naming=\"alphabetical\"/>\n</kind>");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_XML);
        assertThat(e.where().line()).isEqualTo(3);
        assertThat(e.getMessage()).contains("alphabetical");
        ArnoException unknown = failure("a", "<kind xmlns=\"urn:arno:introspection\" name=\"a\"><colection/></kind>");
        assertThat(unknown.code()).isEqualTo(ErrorCode.INVALID_XML);
        ArnoException dup = failure("a", "<kind xmlns=\"urn:arno:introspection\" name=\"a\">"
                + "<variant role=\"x\" media-type=\"image/png\" extension=\"png\"/>"
                + "<variant role=\"x\" media-type=\"image/jpeg\" extension=\"jpg\"/></kind>");
        assertThat(dup.code()).isEqualTo(ErrorCode.INVALID_XML);
    }

    @Test
    void rulesBeyondTheSchema() {
        String head = "<kind xmlns=\"urn:arno:introspection\" name=\"a\">\n";
        ArnoException noPattern = failure("a", head + "<collection name=\"c\" kinds=\"b\" naming=\"pattern\"/></kind>");
        assertThat(noPattern.code()).isEqualTo(ErrorCode.INVALID_XML);
        assertThat(noPattern.getMessage()).contains("naming=\"pattern\" but no pattern");
        assertThat(noPattern.where().line()).isEqualTo(2);
        ArnoException constant = failure("a", head + "<collection name=\"c\" kinds=\"b\" naming=\"pattern\" pattern=\"t\"/></kind>");
        assertThat(constant.getMessage()).contains("names only one child");
        ArnoException empty = failure("a", head + "<collection name=\"c\" naming=\"slug\"/></kind>");
        assertThat(empty.getMessage()).contains("accepts nothing");
        ArnoException entryExtension = failure("a", head + "<variant role=\"x\" media-type=\"application/xml\" extension=\"atom\"/></kind>");
        assertThat(entryExtension.getMessage()).contains("PATH.atom is the entry");
        ArnoException otherName = failure("b", head + "</kind>");
        assertThat(otherName.getMessage()).contains("declares name=\"a\"");
    }

    @Test
    void hostileDocumentsAreRefusedByThePolicy() {
        assertThatThrownBy(() -> parse("a", "<!DOCTYPE kind [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<kind xmlns=\"urn:arno:introspection\" name=\"a\"><title>&x;</title></kind>"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REFUSED_XML));
    }
}
