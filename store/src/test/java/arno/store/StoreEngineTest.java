package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import org.xmlunit.assertj3.XmlAssert;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.DirectBufferProxy;
import org.lmdbjava.Env;
import org.lmdbjava.Txn;

import net.sf.saxon.Configuration;

import arno.xml.ErrorCode;

/** Transactions, snapshots, versions, the change feed, and opening/locking of the engine. */
class StoreEngineTest {

    @TempDir
    Path dir;

    @Test
    void committedDocumentIsReadBackWithItsVersion() {
        try (Store store = TestStores.open(dir)) {
            long v = TestStores.putAll(store, "/a/one.xml", "<a x='1'>one<b/></a>");
            assertThat(v).isEqualTo(1);
            assertThat(store.version()).isEqualTo(1);
            try (Snapshot s = store.read()) {
                assertThat(s.version()).isEqualTo(1);
                assertThat(s.exists("/a/one.xml")).isTrue();
                DocumentInfo info = s.info("/a/one.xml");
                assertThat(info.version()).isEqualTo(1);
                assertThat(info.nodes()).isEqualTo(5); // document, a, @x, text, b
                assertThat(info.xmlBytes()).isEqualTo("<a x='1'>one<b/></a>".length());
                XmlAssert.assertThat(TestStores.export(s, "/a/one.xml")).and("<a x='1'>one<b/></a>").areSimilar();
            }
        }
    }

    /** Issue 21: under umask 022 the store was readable by every user of the machine. */
    @Test
    void theStoreIsReadableByItsOwnerOnly() {
        Path data = dir.resolve("data");
        try (Store store = TestStores.open(data.resolve("store"))) {
            TestStores.putAll(store, "/a/one.xml", "<a>unpublished</a>");
            assertThat(arno.xml.OwnerOnlyFiles.assertOwnerOnly(data))
                    .contains("store", "store/" + Engine.DATA_FILE, "store/lock.mdb", "store/" + Engine.LOCK_FILE);
        }
    }

    @Test
    void abortAndCloseWithoutCommitLeaveNothing() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/a.xml", "<a/>");
                w.abort();
            }
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/b.xml", "<b/>");
            }
            assertThat(store.version()).isZero();
            try (Snapshot s = store.read()) {
                assertThat(s.exists("/a.xml")).isFalse();
                assertThat(s.exists("/b.xml")).isFalse();
                assertThat(s.uris("")).isEmpty();
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void severalDocumentsCommitAtomically() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write(); Snapshot before = store.read()) {
                TestStores.put(w, "/x/1.xml", "<d n='1'/>");
                TestStores.put(w, "/x/2.xml", "<d n='2'/>");
                TestStores.put(w, "/x/3.xml", "<d n='3'/>");
                assertThat(before.uris("/x/")).isEmpty();
                assertThat(w.exists("/x/2.xml")).isTrue();
                w.commit();
                assertThat(before.uris("/x/")).isEmpty();
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("/x/")).containsExactly("/x/1.xml", "/x/2.xml", "/x/3.xml");
                assertThat(s.uris("/x/")).allSatisfy(u -> assertThat(s.info(u).version()).isEqualTo(1));
            }
        }
    }

    @Test
    void deleteRemovesTheDocumentAndAllItsEntries() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a xml:id='i1' xmlns:p='urn:p'><p:b/></a>", "/b.xml", "<b/>");
            try (WriteTransaction w = store.write()) {
                assertThat(w.delete("/a.xml")).isTrue();
                assertThat(w.delete("/nothing.xml")).isFalse();
                assertThat(w.commit()).isEqualTo(2);
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("")).containsExactly("/b.xml");
                assertThatThrownBy(() -> s.document("/a.xml", new Configuration()))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("no document store:/a.xml")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.NOT_FOUND));
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void versionsGrowPerDocumentAndReplacingLeavesNoOrphans() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a>1</a>");
            TestStores.putAll(store, "/b.xml", "<b/>");
            TestStores.putAll(store, "/a.xml", "<a>3</a>");
            try (Snapshot s = store.read()) {
                assertThat(s.info("/a.xml").version()).isEqualTo(3);
                assertThat(s.info("/b.xml").version()).isEqualTo(2);
                XmlAssert.assertThat(TestStores.export(s, "/a.xml")).and("<a>3</a>").areSimilar();
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void changeFeedListsEveryPutAndDeleteAfterAVersion() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a/>", "/b.xml", "<b/>");
            try (WriteTransaction w = store.write()) {
                w.delete("/a.xml");
                TestStores.put(w, "/c.xml", "<c/>");
                w.commit();
            }
            TestStores.putAll(store, "/b.xml", "<b2/>");
            assertThat(store.changesSince(0)).extracting(c -> c.version() + ":" + c.seq() + " " + c.kind() + " " + c.uri())
                    .containsExactly(
                            "1:1 PUT /a.xml",
                            "1:2 PUT /b.xml",
                            "2:1 DELETE /a.xml",
                            "2:2 PUT /c.xml",
                            "3:1 PUT /b.xml");
            assertThat(store.changesSince(2)).extracting(Change::uri).containsExactly("/b.xml");
            assertThat(store.changesSince(3)).isEmpty();
        }
    }

    @Test
    void aSnapshotKeepsItsVersionWhileTheWriterCommits() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a>old</a>");
            Configuration config = new Configuration();
            try (Snapshot old = store.read()) {
                TestStores.putAll(store, "/a.xml", "<a>new</a>", "/b.xml", "<b/>");
                try (WriteTransaction w = store.write()) {
                    w.delete("/a.xml");
                    w.commit();
                }
                assertThat(old.version()).isEqualTo(1);
                assertThat(old.document("/a.xml", config).getRootNode().getStringValue()).isEqualTo("old");
                assertThat(old.exists("/b.xml")).isFalse();
                assertThat(old.changesSince(0)).hasSize(1);
                try (Snapshot now = store.read()) {
                    assertThat(now.version()).isEqualTo(3);
                    assertThat(now.exists("/a.xml")).isFalse();
                    assertThat(now.exists("/b.xml")).isTrue();
                }
            }
        }
    }

    @Test
    void aTransactionThatChangesNothingKeepsTheVersion() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a/>");
            try (WriteTransaction w = store.write()) {
                assertThat(w.delete("/missing.xml")).isFalse();
                assertThat(w.commit()).isEqualTo(1);
            }
            assertThat(store.version()).isEqualTo(1);
        }
    }

    @Test
    void documentsVersionsAndNamesSurviveReopening() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<p:a xmlns:p='urn:p' q='1'><b/></p:a>");
        }
        try (Store store = TestStores.open(dir)) {
            assertThat(store.version()).isEqualTo(1);
            TestStores.putAll(store, "/b.xml", "<c><b/><p:a xmlns:p='urn:p'/></c>");
            try (Snapshot s = store.read()) {
                XmlAssert.assertThat(TestStores.export(s, "/a.xml")).and("<p:a xmlns:p='urn:p' q='1'><b/></p:a>").areSimilar();
                XmlAssert.assertThat(TestStores.export(s, "/b.xml")).and("<c><b/><p:a xmlns:p='urn:p'/></c>").areSimilar();
            }
            assertThat(store.names.size()).isEqualTo(4); // p:a, q, b, c
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void badUrisAreRefusedWithTheReason() {
        try (Store store = TestStores.open(dir); WriteTransaction w = store.write()) {
            for (String bad : List.of("", "a.xml", "/a/", "/a//b.xml", "/a/../b.xml", "/a?x", "/a\nb", "/")) {
                assertThatThrownBy(() -> TestStores.put(w, bad, "<a/>"))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("store URI")
                        .satisfies(e -> assertThat(((StoreException) e).code())
                                .isEqualTo(ErrorCode.UNSUPPORTED_URI));
            }
        }
    }

    @Test
    void aSecondOpenInTheSameProcessIsRefused() {
        try (Store store = TestStores.open(dir)) {
            assertThatThrownBy(() -> TestStores.open(dir))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("already open in this process")
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.STORE_LOCKED));
        }
        TestStores.open(dir).close();
    }

    @Test
    void aStoreOfAnotherFormatVersionIsRefused() {
        try (Store store = TestStores.open(dir)) {
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                store.engine.putLong(txn, new Keys(), "format", Format.VERSION + 1);
                txn.commit();
            }
        }
        assertThatThrownBy(() -> TestStores.open(dir))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("has format version " + (Format.VERSION + 1))
                .hasMessageContaining("this Arno reads format version " + Format.VERSION)
                .satisfies(e -> assertThat(((StoreException) e).code())
                        .isEqualTo(ErrorCode.STORE_FORMAT));
    }

    @Test
    void aStoreOfTheFormatBeforeTheValueIndexesIsRefused() {
        assertThat(Format.VERSION).isEqualTo(4);
        try (Store store = TestStores.open(dir)) {
            try (Txn<DirectBuffer> txn = store.engine.env.txnWrite()) {
                store.engine.putLong(txn, new Keys(), "format", 3);
                txn.commit();
            }
        }
        assertThatThrownBy(() -> TestStores.open(dir))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("has format version 3; this Arno reads format version 4. Export its documents"
                        + " with the Arno that wrote them and load them into a new store")
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.STORE_FORMAT));
    }

    @Test
    void anLmdbEnvironmentThatIsNotAStoreIsRefused() throws Exception {
        Path other = Files.createDirectories(dir.resolve("other"));
        try (Env<DirectBuffer> env = Env.create(DirectBufferProxy.PROXY_DB).setMapSize(1 << 20).setMaxDbs(2)
                .open(other.toFile())) {
            env.openDbi("something", DbiFlags.MDB_CREATE);
        }
        assertThatThrownBy(() -> TestStores.open(other))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("not an Arno store")
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.STORE_FORMAT));
    }

    @Test
    void closingRequiresSnapshotsClosedAndClosedThingsSaySo() {
        Store store = TestStores.open(dir);
        TestStores.putAll(store, "/a.xml", "<a/>");
        Snapshot s = store.read();
        assertThatThrownBy(store::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 read snapshot(s)");
        s.close();
        assertThatThrownBy(() -> s.exists("/a.xml")).isInstanceOf(StoreException.class)
                .hasMessageContaining("is closed");
        store.close();
        assertThatThrownBy(store::read).isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.CLOSED));
    }

    @Test
    void aCommittedTransactionCannotBeUsedAgain() {
        try (Store store = TestStores.open(dir)) {
            WriteTransaction w = store.write();
            TestStores.put(w, "/a.xml", "<a/>");
            w.commit();
            assertThatThrownBy(() -> TestStores.put(w, "/b.xml", "<b/>"))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("already committed or aborted");
            try (WriteTransaction next = store.write()) {
                assertThat(next.version()).isEqualTo(2);
                assertThatThrownBy(store::close).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("write transaction");
            }
        }
    }

    @Test
    void openExistingRefusesAMissingStoreAndCreatesNothing() throws Exception {
        Path missing = dir.resolve("no/such/folder/store");
        assertThatThrownBy(() -> Store.openExisting(missing, TestStores.SMALL))
                .isInstanceOf(StoreException.class)
                .hasMessage("no store in " + missing + "; load content with './arno store load PATH --data "
                        + missing.getParent() + "'")
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.NO_STORE));
        assertThat(dir.resolve("no")).doesNotExist();
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThatThrownBy(() -> Store.openExisting(empty, TestStores.SMALL))
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.NO_STORE));
        try (java.util.stream.Stream<Path> files = Files.list(empty)) {
            assertThat(files).isEmpty();
        }
        TestStores.open(dir.resolve("made")).close();
        try (Store store = Store.openExisting(dir.resolve("made"), TestStores.SMALL)) {
            assertThat(store.version()).isZero();
        }
    }

    @Test
    void theStoreIsADocumentStoreWhoseViewsAreSnapshots() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/j/a.xml", "<a>one</a>", "/j/b.xml", "<b/>", "/k.xml", "<k/>");
            arno.xml.DocumentStore documents = store;
            Configuration config = new Configuration();
            try (arno.xml.DocumentStore.View v = documents.read()) {
                TestStores.putAll(store, "/j/c.xml", "<c/>");
                assertThat(v.version()).isEqualTo(1);
                assertThat(v.uris("/j/")).containsExactly("/j/a.xml", "/j/b.xml");
                assertThat(v.exists("/j/a.xml")).isTrue();
                assertThat(v.exists("/j/c.xml")).isFalse();
                assertThat(v.document("/j/a.xml", config).getRootNode().getStringValue()).isEqualTo("one");
                assertThatThrownBy(() -> v.document("/j/c.xml", config))
                        .isInstanceOf(arno.xml.ArnoException.class)
                        .satisfies(e -> assertThat(((arno.xml.ArnoException) e).code()).isEqualTo(ErrorCode.NOT_FOUND));
            }
            assertThat(arno.xml.DocumentStore.SCHEME).isEqualTo(Store.SCHEME);
        }
    }
}
