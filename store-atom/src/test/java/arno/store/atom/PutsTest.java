package arno.store.atom;

import static arno.store.atom.Fixtures.entry;
import static arno.store.atom.Fixtures.xpath;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;

/** {@link AtomStore#putAll}: several documents in one transaction, all or nothing. */
class PutsTest {

    @TempDir
    Path dir;
    Store store;
    AtomStore atom;
    ResourcePath i1;
    ResourcePath a1;

    @BeforeEach
    void open() {
        store = Fixtures.store(dir);
        atom = AtomStore.open(store, AtomOptions.defaults());
        ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed").path();
        ResourcePath ja = atom.createEntry(journals, null, "ja", entry("journal", "Journal A"), "ed").path();
        ResourcePath v1 = atom.createEntry(ja, null, null, entry("volume", "Volume 1"), "ed").path();
        i1 = atom.createEntry(v1, null, null, entry("issue", "Issue 1"), "ed").path();
        a1 = atom.createEntry(i1, null, "a0001", entry("article", "Article 1"), "ed").path();
    }

    @AfterEach
    void close() {
        atom.close();
        store.close();
    }

    private DocumentInfo info(String doc) {
        try (Snapshot s = store.read()) {
            return s.info(doc);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void entriesAndVariantsCommitTogetherAtOneVersion() throws Exception {
        ResourcePath a2 = i1.child("a0002");
        Path body = Files.writeString(dir.resolve("a2.xhtml"), "<html xmlns='http://www.w3.org/1999/xhtml'><body/></html>");
        List<AtomStore.Written> written = atom.putAll(List.of(
                Put.of(a2.variantDocument("xhtml"), null, body),                    // a variant of an entry made by the same call
                Put.of(a1.variantDocument("xml"), "application/xml", utf8("<article id='a1'/>")),
                Put.of(a2.entryDocument(), null, entry("article", "Article 2"))), "batch");

        assertThat(written).extracting(AtomStore.Written::document)
                .containsExactly(a2.variantDocument("xhtml"), a1.variantDocument("xml"), a2.entryDocument());
        long version = written.get(0).version();
        assertThat(written).allSatisfy(w -> assertThat(w.version()).isEqualTo(version));
        assertThat(store.version()).isEqualTo(version);
        assertThat(info(a2.variantDocument("xhtml")).mediaType()).isEqualTo("application/xhtml+xml");
        assertThat(info(a2.entryDocument()).version()).isEqualTo(version);
        assertThat(xpath(store, a2.entryDocument(), "/a:entry/a:link[@rel='alternate']/@href"))
                .containsExactly(a2.variantDocument("xhtml"));
        assertThat(xpath(store, a2.entryDocument(), "/a:entry/a:author/a:name")).containsExactly("batch");
        assertThat(xpath(store, a1.entryDocument(), "/a:entry/a:link[@rel='alternate']/@arno:role")).containsExactly("jats");
    }

    @Test
    void aRefusalAfterEarlierPutsStoresNothingAndLeavesOtherWritesAlone() {
        long before = store.version();
        long entry = info(a1.entryDocument()).version();
        // another caller's write, queued just before: if the writer groups it with the refused call, it runs again
        CompletableFuture<WritePath.Done> other = atom.createEntryAsync(i1, null, "a0003", entry("article", "Article 3"), "ed");
        List<Put> puts = List.of(
                Put.of(a1.entryDocument(), null, entry("article", "Replaced")),
                Put.of(a1.variantDocument("xml"), null, utf8("<article/>")),
                Put.of(i1.child("nope").variantDocument("xml"), null, utf8("<article/>")));
        assertThatThrownBy(() -> atom.putAll(puts, "batch"))
                .isInstanceOfSatisfying(ArnoException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).contains("/journals/ja/v1/i1/nope");
                });
        WritePath.await(other);
        assertThat(info(i1.child("a0003").entryDocument())).isNotNull();
        assertThat(store.version()).isEqualTo(before + 1);
        assertThat(info(a1.entryDocument()).version()).isEqualTo(entry);
        assertThat(info(a1.variantDocument("xml"))).isNull();
    }

    @Test
    void malformedXmlInALaterVariantUndoesTheEarlierOnes() {
        long before = store.version();
        assertThatThrownBy(() -> atom.putAll(List.of(
                Put.of(a1.variantDocument("xml"), null, utf8("<article/>")),
                Put.of(a1.variantDocument("xhtml"), null, utf8("<html><body></html>"))), "batch"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_XML));
        assertThat(store.version()).isEqualTo(before);
        assertThat(info(a1.variantDocument("xml"))).isNull();
    }

    @Test
    void aDocumentTwiceOrNoResourceDocumentIsRefusedBeforeAnythingIsQueued() {
        assertThatThrownBy(() -> atom.putAll(List.of(Put.of(a1.variantDocument("xml"), null, utf8("<a/>")),
                Put.of(a1.variantDocument("xml"), null, utf8("<b/>"))), "batch"))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNPROCESSABLE));
        assertThatThrownBy(() -> Put.of("/_model/article.xml", null, utf8("<a/>")))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_URI));
        assertThat(atom.putAll(List.of(), "batch")).isEmpty();
    }
}
