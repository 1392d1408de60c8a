package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@value FulltextConfig#URI} the index could not use is refused when it is stored, by the
 * store's own write transaction (so by every write path), with the line and what is wrong, and
 * nothing is stored: the configuration before stays. Real LMDB store.
 */
class ConfigCheckTest {

    @TempDir
    Path dir;

    static final String GOOD = "<fulltext xmlns=\"urn:arno:fulltext\" xmlns:atom=\"http://www.w3.org/2005/Atom\">\n"
            + "  <field name=\"title\" select=\"atom:entry/atom:title\"/>\n</fulltext>";

    /** Each bad configuration, the line the refusal must name, and words its message must hold. */
    static final Map<String, String[]> BAD = Map.of(
            "<fulltext xmlns=\"urn:arno:fulltext\">\n  <field name=\"t\" select=\"x\">\n</fulltext>",
            new String[] {"3", "must be terminated by the matching end-tag"},
            "<fulltext xmlns=\"urn:arno:fulltext\">\n  <field name=\"t\" select=\"x\" boost=\"heavy\"/>\n</fulltext>",
            new String[] {"2", "heavy"},
            "<fulltext xmlns=\"urn:arno:fulltext\">\n\n  <field name=\"t\" select=\"x\"/>\n  <field name=\"u\" select=\"((\"/>\n</fulltext>",
            new String[] {"4", "the field 'u' has the XPath '((', which does not compile"},
            "<fulltext xmlns=\"urn:arno:fulltext\">\n  <field name=\"t\" select=\"x\" analyzer=\"klingon\"/>\n</fulltext>",
            new String[] {"2", "klingon"},
            "<fulltext xmlns=\"urn:arno:fulltext\">\n  <field name=\"t\" select=\"x\"/>\n  <field name=\"t\" select=\"y\"/>\n</fulltext>",
            new String[] {"3", "the field 't' is defined twice"},
            "<fulltext xmlns=\"urn:arno:fulltext\">\n  <field name=\"t\" select=\"p:x\"/>\n</fulltext>",
            new String[] {"2", "p:x"},
            "<fulltext xmlns=\"urn:arno:fulltext\">\n\n  <field name=\"t\" select=\"x\" numbers=\"some\"/>\n</fulltext>",
            new String[] {"3", "some"});

    @Test
    void aConfigurationTheIndexWouldRefuseIsNeverStored() throws Exception {
        try (Store store = Store.open(dir.resolve("store"))) {
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, GOOD.getBytes(StandardCharsets.UTF_8));
                w.commit();
            }
            for (Map.Entry<String, String[]> bad : BAD.entrySet()) {
                try (WriteTransaction w = store.write()) {
                    // As a load sends it: a stream named by its file, whose lines the refusal names.
                    assertThatThrownBy(() -> w.put(FulltextConfig.URI, new javax.xml.transform.stream.StreamSource(
                            new ByteArrayInputStream(bad.getKey().getBytes(StandardCharsets.UTF_8)), "file:/tmp/fulltext.xml"),
                            "application/xml"))
                            .as(bad.getKey())
                            .isInstanceOfSatisfying(ArnoException.class, e -> {
                                assertThat(e.status()).as(bad.getKey()).isIn(400, 500);
                                assertThat(e.where().line()).as(bad.getKey() + ": " + e.getMessage()).isEqualTo(Integer.parseInt(bad.getValue()[0]));
                                assertThat(e.getMessage()).as(bad.getKey()).contains("file:/tmp/fulltext.xml").contains(bad.getValue()[1]);
                            });
                    // The transaction goes on; a binary one is refused too.
                    assertThatThrownBy(() -> w.putBinary(FulltextConfig.URI, "application/octet-stream",
                            new ByteArrayInputStream(new byte[] {1, 2})))
                            .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.getMessage()).contains("binary"));
                    w.put("/other.xml", "<x/>".getBytes(StandardCharsets.UTF_8));
                    w.commit();
                }
                try (Snapshot s = store.read()) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    s.export(FulltextConfig.URI, out);
                    assertThat(out.toString(StandardCharsets.UTF_8)).as("the good configuration stays").contains("atom:entry/atom:title");
                }
            }
        }
    }
}
