package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.xml.ErrorCode;

/**
 * Marks: a named number committed with the documents (a cluster node's applied log position), read
 * back from snapshots and the transaction's own view, kept across reopening, gone with an abort.
 */
class MarkTest {

    @TempDir
    Path dir;

    @Test
    void aMarkCommitsWithTheDocumentsAndIsReadBackAfterReopening() {
        try (Store store = TestStores.open(dir)) {
            try (Snapshot s = store.read()) {
                assertThat(s.mark("cluster.position")).isEmpty();
            }
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/a.xml", "<a/>");
                w.setMark("cluster.position", 7);
                assertThat(w.view().mark("cluster.position")).isEqualTo(OptionalLong.of(7));
                assertThat(w.commit()).isEqualTo(1);
            }
            try (Snapshot s = store.read()) {
                assertThat(s.mark("cluster.position")).isEqualTo(OptionalLong.of(7));
                assertThat(s.mark("other")).isEmpty();
            }
        }
        try (Store store = TestStores.open(dir)) {
            try (Snapshot s = store.read()) {
                assertThat(s.mark("cluster.position")).isEqualTo(OptionalLong.of(7));
                assertThat(s.exists("/a.xml")).isTrue();
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void anAbortedTransactionLeavesTheMarkAsItWas() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                w.setMark("p", 1);
                w.commit();
            }
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/a.xml", "<a/>");
                w.setMark("p", 2);
                // closed without commit: aborted
            }
            try (Snapshot s = store.read()) {
                assertThat(s.mark("p")).isEqualTo(OptionalLong.of(1));
                assertThat(s.exists("/a.xml")).isFalse();
            }
        }
    }

    /** A commit that only sets a mark is durable, and makes no version and no change. */
    @Test
    void aMarkAloneCommitsWithoutANewVersion() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a/>");
            try (WriteTransaction w = store.write()) {
                w.setMark("p", 42);
                assertThat(w.commit()).isEqualTo(1);
            }
            assertThat(store.version()).isEqualTo(1);
            assertThat(store.changesSince(1)).isEmpty();
            try (Snapshot s = store.read()) {
                assertThat(s.mark("p")).isEqualTo(OptionalLong.of(42));
            }
        }
    }

    /** A mark never overwrites the engine's own meta entries, whatever its name. */
    @Test
    void marksAreApartFromTheEnginesEntries() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.xml", "<a/>");
            try (WriteTransaction w = store.write()) {
                w.setMark("version", 99);
                w.setMark("nextDoc", 99);
                w.commit();
            }
            assertThat(store.version()).isEqualTo(1);
            TestStores.putAll(store, "/b.xml", "<b/>");
            assertThat(store.version()).isEqualTo(2);
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aBadNameIsRefused() {
        try (Store store = TestStores.open(dir); WriteTransaction w = store.write()) {
            assertThatThrownBy(() -> w.setMark("has space", 1))
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_PARAMETER))
                    .hasMessageContaining("'has space'");
            assertThatThrownBy(() -> w.setMark("", 1)).isInstanceOf(StoreException.class);
            assertThatThrownBy(() -> w.view().mark("x".repeat(WriteTransaction.MAX_MARK_NAME + 1)))
                    .isInstanceOf(StoreException.class);
        }
    }
}
