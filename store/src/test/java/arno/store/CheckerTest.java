package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Corpus;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lmdbjava.Txn;


/** {@code store check} finds damage: each test breaks one thing behind the store's back. */
class CheckerTest {

    @TempDir
    Path dir;

    private Path storeDir() {
        return dir.resolve("data/store");
    }

    private void load() {
        try (Store store = TestStores.open(storeDir())) {
            TestStores.putAll(store, "/a.xml", "<a><b x='1'>text</b><c/></a>", "/wide.xml", Corpus.wide(8_000));
            assertThat(store.check()).isEmpty();
        }
    }

    private long docId(Store store, String uri) {
        try (Txn<DirectBuffer> txn = store.engine.env.txnRead()) {
            return store.engine.paths.get(txn, new Keys().utf8(uri)).getLong(0, Keys.BE);
        }
    }

    /** Rewrites one chunk of a document. */
    private void damageChunk(String uri, int index, Consumer<byte[]> damage) {
        try (Store store = TestStores.open(storeDir())) {
            long id = docId(store, uri);
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                Keys k = new Keys();
                DirectBuffer v = store.engine.docs.get(txn, k.chunk(id, index));
                byte[] bytes = new byte[v.capacity()];
                v.getBytes(0, bytes);
                damage.accept(bytes);
                store.engine.docs.put(txn, k.chunk(id, index), Keys.direct(bytes));
                txn.commit();
            }
        }
    }

    private List<String> check() {
        try (Store store = TestStores.open(storeDir())) {
            return store.check();
        }
    }

    @Test
    void aBadRecordTagIsFound() {
        load();
        // byte 3 is the tag of the root element's first child (after the document's tag and size)
        damageChunk("/a.xml", 0, b -> b[3] = 7);
        assertThat(check()).singleElement().asString().startsWith("store:/a.xml: ").contains("unknown record tag");
    }

    @Test
    void aWrongSizeFieldIsFound() {
        load();
        damageChunk("/a.xml", 0, b -> b[1] = (byte) (b[1] - 1));
        assertThat(check()).singleElement().asString().contains("document record ends at");
    }

    @Test
    void aMissingChunkAndAnOrphanAreFound() {
        load();
        try (Store store = TestStores.open(storeDir())) {
            long id = docId(store, "/wide.xml");
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                Keys k = new Keys();
                store.engine.docs.delete(txn, k.chunk(id, 1));
                store.engine.docs.put(txn, k.doc(999, Keys.HEADER), Keys.direct(new byte[] {1}));
                txn.commit();
            }
        }
        List<String> problems = check();
        assertThat(problems).anySatisfy(p -> assertThat(p).contains("store:/wide.xml").contains("chunk 1 is missing"));
        assertThat(problems).anySatisfy(p -> assertThat(p).contains("document 999").contains("orphan"));
        assertThat(problems).hasSize(2);
    }

    @Test
    void aNameCodeOutsideTheNamebaseIsFound() {
        load();
        try (Store store = TestStores.open(storeDir())) {
            long id = docId(store, "/a.xml");
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                Keys k = new Keys();
                DocHeader h = DocHeader.decode(id, store.engine.docs.get(txn, k.doc(id, Keys.HEADER)));
                DocHeader bad = new DocHeader(id, h.uri(), h.version(), h.length(), h.chunks(), h.xmlBytes(), h.nodes(),
                        h.nameCodes() + 50, h.flags(), h.mediaType());
                store.engine.docs.put(txn, k.doc(id, Keys.HEADER), bad.encode());
                txn.commit();
            }
        }
        assertThat(check()).singleElement().asString().contains("name codes, the namebase has");
    }

    /** Stores a binary, a reference and a later commit, then runs {@code damage} on the raw databases. */
    private List<String> checkAfter(java.util.function.BiConsumer<Store, Txn<DirectBuffer>> damage) {
        try (Store store = TestStores.open(storeDir())) {
            try (WriteTransaction w = store.write()) {
                w.putBinary("/p.pdf", "application/pdf", new java.io.ByteArrayInputStream(new byte[Format.CHUNK_SIZE + 3]));
                TestStores.put(w, "/e.atom", "<e/>");
                w.setReferences("/e.atom", List.of("/p.pdf", "/" + "t".repeat(399)));
                w.commit();
            }
            TestStores.putAll(store, "/f.atom", "<f/>");
            assertThat(store.check()).isEmpty();
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                damage.accept(store, txn);
                txn.commit();
            }
            return store.check();
        }
    }

    @Test
    void aShortBinaryChunkIsFound() {
        assertThat(checkAfter((store, txn) -> {
            long id = docId(store, "/p.pdf");
            store.engine.docs.put(txn, new Keys().chunk(id, 1), Keys.direct(new byte[2]));
        })).singleElement().asString().isEqualTo("store:/p.pdf: binary chunk 1 has 2 bytes, not 3");
    }

    @Test
    void aReferenceWithoutItsMirrorIsFound() {
        String target = "/" + "t".repeat(399);
        assertThat(checkAfter((store, txn) -> store.engine.refs.delete(txn, new Keys().pair(target, "/e.atom"))))
                .singleElement().asString()
                .isEqualTo("reference store:/e.atom → store:" + target + ": is in 'refsOut' but not in 'refs'");
    }

    @Test
    void aReferenceFromADocumentThatIsNotStoredIsFound() {
        assertThat(checkAfter((store, txn) -> store.engine.paths.delete(txn, new Keys().utf8("/e.atom"))))
                .anySatisfy(p -> assertThat(p).isEqualTo(
                        "reference store:/e.atom → store:/p.pdf: its source is not stored (a delete should have cleared it)"))
                .anySatisfy(p -> assertThat(p).contains("the last change of the URI is a put, but nothing is stored there"));
    }

    @Test
    void aFeedThatDisagreesWithTheDocumentsIsFound() {
        assertThat(checkAfter((store, txn) -> store.engine.changes.delete(txn, new Keys().version(2, 1))))
                .singleElement().asString().isEqualTo("store:/f.atom: written at version 2, which the change feed still"
                        + " holds, but the feed has no change of it");
        assertThat(checkAfter((store, txn) -> store.engine.commits.delete(txn, new Keys().version(1))))
                .singleElement().asString().isEqualTo("commit times: version 2 follows 0 (a version has no time)");
    }

    /**
     * A document with a character XML 1.0 cannot carry (stored before the store refused them, as
     * a Slug's U+0001 once was) could never be exported and loaded again: check reports it, in a
     * text, an attribute value and a comment.
     */
    @Test
    void aCharacterXml10CannotCarryIsFound() {
        try (Store store = TestStores.open(storeDir())) {
            TestStores.putAll(store, "/t.xml", "<a>bad#title</a>", "/at.xml", "<a title='bad#title'/>",
                    "/c.xml", "<a><!--bad#--></a>", "/ok.xml", "<a>tab\tline\ncr\r&#xFFFD;</a>");
            assertThat(store.check()).isEmpty();
        }
        for (String uri : List.of("/t.xml", "/at.xml", "/c.xml")) {
            damageChunk(uri, 0, b -> {
                for (int i = 3; i < b.length; i++) if (b[i] == '#' && b[i - 1] == 'd' && b[i - 2] == 'a') b[i] = 1;
            });
        }
        List<String> problems = check();
        assertThat(problems).hasSize(3);
        assertThat(problems.get(0)).startsWith("store:/at.xml: attribute title of the node at ").contains("holds U+0001")
                .contains("XML 1.0 cannot carry");
        assertThat(problems.get(1)).startsWith("store:/c.xml: comment of the node at ").contains("holds U+0001");
        assertThat(problems.get(2)).startsWith("store:/t.xml: text of the node at ").contains("holds U+0001");
    }

    /** U+FFFF is three bytes; found also where a long text's check reads it across two of its slices. */
    @Test
    void aNonCharacterAcrossTheChecksSlicesIsFound() {
        String text = "x".repeat(64 * 1024 - 1) + "\uFFFD" + "y".repeat(10);
        try (Store store = TestStores.open(storeDir())) {
            TestStores.putAll(store, "/long.xml", "<a>" + text + "</a>");
            assertThat(store.check()).isEmpty();
        }
        // U+FFFD is EF BF BD; one bit more is U+FFFF (EF BF BF), cut by the first slice's end
        damageChunk("/long.xml", 0, b -> {
            for (int i = 0; i + 2 < b.length; i++) {
                if ((b[i] & 0xFF) == 0xEF && (b[i + 1] & 0xFF) == 0xBF && (b[i + 2] & 0xFF) == 0xBD) b[i + 2] = (byte) 0xBF;
            }
        });
        assertThat(check()).singleElement().asString().startsWith("store:/long.xml: text of the node at ").contains("holds U+FFFF");
    }
}
