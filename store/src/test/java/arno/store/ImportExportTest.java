package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.testkit.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.TreeInfo;

import arno.xml.ErrorCode;
import arno.xml.Where;

/** Secure import, export equal in infoset, the binary format's size, and the namebase. */
class ImportExportTest {

    @TempDir
    Path dir;

    @Test
    void everyEdgeCaseExportsEqualInInfoset() {
        try (Store store = TestStores.open(dir)) {
            Map<String, String> docs = Corpus.edgeCases();
            try (WriteTransaction w = store.write()) {
                docs.forEach((name, xml) -> TestStores.put(w, "/corpus/" + name, xml));
                w.commit();
            }
            try (Snapshot s = store.read()) {
                // xml:id values are normalized on the way in, as the xml:id spec asks (and TinyTree does)
                docs.forEach((name, xml) -> TestStores.assertSameInfoset(TestStores.export(s, "/corpus/" + name),
                        xml.replace("xml:id=\" s2 \"", "xml:id=\"s2\"")));
                // the differential test relies on these spanning chunks
                assertThat(s.info("/corpus/wide.xml").storedBytes()).isGreaterThan(Format.CHUNK_SIZE);
                assertThat(s.info("/corpus/long-text.xml").storedBytes()).isGreaterThan(Format.CHUNK_SIZE);
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aDocumentOverSeveralChunksKeepsLongTextAndLargeAttributesIntact() {
        String xml = Corpus.longText(3_000_000);
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/long.xml", xml);
            try (Snapshot s = store.read()) {
                DocumentInfo info = s.info("/long.xml");
                assertThat(info.storedBytes()).isGreaterThan(2L * Format.CHUNK_SIZE);
                TreeInfo t = s.document("/long.xml", new Configuration());
                String text = t.getRootNode().getStringValue();
                assertThat(text).startsWith("xlorem ipsum é 😀").endsWith("y").hasSizeGreaterThan(3_000_000);
                XmlAssert.assertThat(TestStores.export(s, "/long.xml")).and(xml).areSimilar();
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void malformedXmlIsRejectedWithLineAndColumnAndNothingIsStored() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/good.xml", "<good/>");
                assertThatThrownBy(() -> TestStores.put(w, "/bad.xml", "<a>\n  <b>\n  </c>\n</a>"))
                        .isInstanceOf(StoreException.class)
                        .hasMessageStartingWith("store:/bad.xml is not well-formed XML: ")
                        .hasMessageEndingWith("; nothing was stored")
                        .satisfies(e -> {
                            StoreException se = (StoreException) e;
                            assertThat(se.code()).isEqualTo(ErrorCode.MALFORMED_XML);
                            assertThat(se.where()).isEqualTo(Where.at("store:/bad.xml", 3, 5));
                            assertThat(se.describe()).contains("(at store:/bad.xml line 3 column 5)");
                        });
                // the transaction is still usable and holds only the good document
                assertThat(w.exists("/bad.xml")).isFalse();
                TestStores.put(w, "/good2.xml", "<good2/>");
                w.commit();
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("")).containsExactly("/good.xml", "/good2.xml");
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aFailedMultiDocumentTransactionLeavesNothingBehind() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/keep.xml", "<keep/>");
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/a.xml", "<a>" + "x".repeat(3_000_000) + "</a>");
                TestStores.put(w, "/keep.xml", "<replaced/>");
                assertThatThrownBy(() -> TestStores.put(w, "/c.xml", "<c><unclosed></c>"))
                        .isInstanceOf(StoreException.class);
                // the caller gives up: close without commit aborts everything
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("")).containsExactly("/keep.xml");
                XmlAssert.assertThat(TestStores.export(s, "/keep.xml")).and("<keep/>").areSimilar();
            }
            assertThat(store.check()).isEmpty();
            assertThat(store.version()).isEqualTo(1);
        }
    }

    @Test
    void billionLaughsFailsFast() {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
        for (int i = 1; i <= 9; i++) {
            b.append("<!ENTITY lol").append(i).append(" \"");
            String prev = i == 1 ? "&lol;" : "&lol" + (i - 1) + ";";
            b.append(prev.repeat(10)).append("\">\n");
        }
        b.append("]>\n<lolz>&lol9;</lolz>");
        try (Store store = TestStores.open(dir); WriteTransaction w = store.write()) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> TestStores.put(w, "/lol.xml", b.toString()))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("entity expansions")
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.REFUSED_XML));
            // fails within the expansion limit, long before a billion: seconds would mean no limit
            assertThat(System.nanoTime() - t0).isLessThan(10_000_000_000L);
            assertThat(w.exists("/lol.xml")).isFalse();
        }
    }

    @Test
    void externalEntitiesAndDtdsAreNeverRead() throws Exception {
        Path secret = Files.writeString(dir.resolve("secret.txt"), "TOP-SECRET");
        Path dtd = Files.writeString(dir.resolve("ents.dtd"), "<!ENTITY ext SYSTEM \"" + secret.toUri() + "\">\n"
                + "<!ENTITY nbsp \"&#160;\">");
        String viaInternalSubset = "<!DOCTYPE a [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]><a>&x;</a>";
        String viaExternalDtd = "<!DOCTYPE a SYSTEM \"" + dtd.toUri() + "\"><a>&nbsp;</a>";
        String dtdButNoEntity = "<!DOCTYPE a SYSTEM \"" + dir.resolve("missing.dtd").toUri() + "\"><a>fine</a>";
        try (Store store = TestStores.open(dir.resolve("store")); WriteTransaction w = store.write()) {
            for (String xml : new String[] {viaInternalSubset, viaExternalDtd}) {
                assertThatThrownBy(() -> TestStores.put(w, "/e.xml", xml))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining(xml == viaInternalSubset ? "external entity" : "&nbsp; cannot be expanded")
                        .hasMessageNotContaining("TOP-SECRET")
                        .satisfies(e -> {
                            assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.REFUSED_XML);
                            assertThat(((StoreException) e).where().line()).isEqualTo(1);
                        });
            }
            // the external DTD is not fetched at all: a missing one is no error
            TestStores.put(w, "/fine.xml", dtdButNoEntity);
            w.commit();
        }
    }

    @Test
    void aStreamSourceIsParsedSecurelyAndCountedAndNamedInErrors() throws Exception {
        Path file = Files.writeString(dir.resolve("in.xml"), "<a>\n<b>&undeclared;</b></a>");
        try (Store store = TestStores.open(dir.resolve("store")); WriteTransaction w = store.write()) {
            assertThatThrownBy(() -> w.put("/in.xml", new javax.xml.transform.stream.StreamSource(file.toFile())))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("undeclared")
                    .satisfies(e -> {
                        StoreException se = (StoreException) e;
                        assertThat(se.code()).isEqualTo(ErrorCode.MALFORMED_XML);
                        assertThat(se.where().uri()).startsWith("file:").endsWith("/in.xml");
                        assertThat(se.where().line()).isEqualTo(2);
                    });
            Path ok = Files.writeString(dir.resolve("ok.xml"), "<ok>é</ok>", StandardCharsets.UTF_8);
            DocumentInfo info = w.put("/ok.xml", new javax.xml.transform.stream.StreamSource(ok.toFile()));
            assertThat(info.xmlBytes()).isEqualTo(Files.size(ok));
        }
    }

    @Test
    void aTreeCanBeStoredAsIs() throws Exception {
        net.sf.saxon.s9api.Processor p = new net.sf.saxon.s9api.Processor(false);
        net.sf.saxon.s9api.XdmNode tree = p.newDocumentBuilder().build(new javax.xml.transform.stream.StreamSource(
                new java.io.StringReader(Corpus.file("namespaces.xml"))));
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                w.put("/tree.xml", tree.getUnderlyingNode());
                w.put("/element.xml", tree.getUnderlyingNode().iterateAxis(net.sf.saxon.om.AxisInfo.CHILD).next());
                w.commit();
            }
            try (Snapshot s = store.read()) {
                XmlAssert.assertThat(TestStores.export(s, "/tree.xml")).and(Corpus.file("namespaces.xml")).areSimilar();
                XmlAssert.assertThat(TestStores.export(s, "/element.xml")).and(Corpus.file("namespaces.xml")).areSimilar();
                assertThat(s.info("/tree.xml").xmlBytes()).isEqualTo(-1);
            }
        }
    }

    @Test
    void storedFormIsSmallerThanTheXml() {
        String abstracts = Corpus.abstractDocs(2000, 11);
        String jats = Corpus.file("jats.xml");
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/abstracts.xml", abstracts, "/jats.xml", jats);
            try (Snapshot s = store.read()) {
                DocumentInfo a = s.info("/abstracts.xml");
                DocumentInfo j = s.info("/jats.xml");
                assertThat((double) a.storedBytes() / a.xmlBytes()).isLessThan(0.9);
                assertThat((double) j.storedBytes() / j.xmlBytes()).isLessThan(0.9);
            }
        }
    }

    @Test
    void namesAreSharedAcrossDocumentsAndMappedPerConfiguration() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/1.xml", "<a><b c='1'/></a>", "/2.xml", "<b c='2'><a/></b>");
            assertThat(store.names.size()).isEqualTo(3);
            Configuration c1 = new Configuration();
            Configuration c2 = new Configuration();
            c2.getNamePool().allocateFingerprint(net.sf.saxon.om.NamespaceUri.NULL, "shift-the-pool");
            try (Snapshot s = store.read()) {
                TreeInfo t1 = s.document("/1.xml", c1);
                TreeInfo t2 = s.document("/1.xml", c2);
                assertThat(t1).isSameAs(s.document("/1.xml", c1));
                net.sf.saxon.om.NodeInfo a1 = t1.getRootNode().iterateAxis(net.sf.saxon.om.AxisInfo.CHILD).next();
                net.sf.saxon.om.NodeInfo a2 = t2.getRootNode().iterateAxis(net.sf.saxon.om.AxisInfo.CHILD).next();
                assertThat(a1.getFingerprint()).isEqualTo(c1.getNamePool().getFingerprint(
                        net.sf.saxon.om.NamespaceUri.NULL, "a"));
                assertThat(a2.getFingerprint()).isEqualTo(c2.getNamePool().getFingerprint(
                        net.sf.saxon.om.NamespaceUri.NULL, "a"));
                assertThat(a1.getFingerprint()).isNotEqualTo(a2.getFingerprint());
            }
        }
    }
}
