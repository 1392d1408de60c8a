package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.xml.ErrorCode;

/** Commit times, the paged change feed and its pruning, on a clock the test moves. */
class ChangeFeedTest {

    @TempDir
    Path dir;

    private static final long T0 = Instant.parse("2026-11-24T10:00:00Z").toEpochMilli();

    private final TestStores.ManualClock clock = new TestStores.ManualClock(T0);

    private Store open(Duration retention) {
        return Store.open(dir, TestStores.SMALL.clock(clock).changeRetention(retention));
    }

    @Test
    void commitTimesComeFromTheClockAndNeverGoBackwards() {
        try (Store store = open(Duration.ZERO)) {
            TestStores.putAll(store, "/a.xml", "<a/>");
            clock.advance(Duration.ofSeconds(5));
            TestStores.putAll(store, "/b.xml", "<b/>");
            clock.set(T0 - 60_000); // the clock is set back
            TestStores.putAll(store, "/c.xml", "<c/>");
            try (Snapshot s = store.read()) {
                assertThat(s.committedAt(1)).isEqualTo(Instant.ofEpochMilli(T0));
                assertThat(s.committedAt(2)).isEqualTo(Instant.ofEpochMilli(T0 + 5000));
                assertThat(s.committedAt(3)).as("not before commit 2").isEqualTo(Instant.ofEpochMilli(T0 + 5000));
                assertThat(s.committedAt(4)).isNull();
                assertThat(s.info("/b.xml").modified()).isEqualTo(Instant.ofEpochMilli(T0 + 5000));
                assertThat(s.changesSince(0)).extracting(Change::time)
                        .containsExactly(s.committedAt(1), s.committedAt(2), s.committedAt(3));
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void changesCarrySeqKindMediaTypeAndPageThroughCommits() {
        try (Store store = open(Duration.ZERO)) {
            try (WriteTransaction w = store.write()) {
                for (int i = 0; i < 5; i++) {
                    TestStores.put(w, "/d" + i + ".xml", "<d/>");
                }
                w.commit();
            }
            try (WriteTransaction w = store.write()) {
                w.putBinary("/p.pdf", "application/pdf", new ByteArrayInputStream(new byte[10]));
                w.delete("/d1.xml");
                w.commit();
            }
            TestStores.putAll(store, "/d2.xml", "<d2/>");
            List<Change> all = store.changesSince(0);
            assertThat(all).extracting(c -> c.version() + ":" + c.seq() + " " + c.kind() + " " + c.uri() + " " + c.mediaType())
                    .containsExactly("1:1 PUT /d0.xml application/xml", "1:2 PUT /d1.xml application/xml",
                            "1:3 PUT /d2.xml application/xml", "1:4 PUT /d3.xml application/xml",
                            "1:5 PUT /d4.xml application/xml", "2:1 PUT /p.pdf application/pdf",
                            "2:2 DELETE /d1.xml application/xml", "3:1 PUT /d2.xml application/xml");
            // pages of every size, continuing as the HTTP feed does: since = last version, seq = last seq + 1
            for (int limit = 1; limit <= all.size() + 1; limit++) {
                List<Change> paged = new ArrayList<>();
                long since = 0;
                int seq = 0;
                while (true) {
                    List<Change> page = store.changesSince(since, seq, limit);
                    paged.addAll(page);
                    if (page.size() < limit) {
                        break;
                    }
                    Change last = page.get(page.size() - 1);
                    since = last.version();
                    seq = last.seq() + 1;
                }
                assertThat(paged).as("limit " + limit).isEqualTo(all);
            }
            assertThat(store.changesSince(1, 0, 100)).isEqualTo(all.subList(5, 8));
            assertThat(store.changesSince(2, 2, 100)).isEqualTo(all.subList(6, 8));
            assertThat(store.changesSince(3, 0, 100)).isEmpty();
            assertThatThrownBy(() -> store.changesSince(0, 0, 0))
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.BAD_PARAMETER));
        }
    }

    @Test
    void changesOlderThanTheRetentionArePrunedAndAskingForThemIsGone() {
        try (Store store = open(Duration.ofMillis(10))) {
            TestStores.putAll(store, "/a.xml", "<a/>", "/b.xml", "<b/>");  // version 1
            TestStores.putAll(store, "/c.xml", "<c/>");                     // version 2
            try (Snapshot s = store.read()) {
                assertThat(s.oldestChange()).isEqualTo(1);
                assertThat(s.changesSince(0)).hasSize(3);
            }
            clock.advance(Duration.ofMillis(5));
            TestStores.putAll(store, "/d.xml", "<d/>");                     // version 3, at +5 ms
            clock.advance(Duration.ofMillis(10));
            TestStores.putAll(store, "/e.xml", "<e/>");                     // version 4, at +15: prunes 1 and 2
            try (Snapshot s = store.read()) {
                assertThat(s.oldestChange()).isEqualTo(3);
                assertThat(s.changesSince(2)).extracting(Change::uri).containsExactly("/d.xml", "/e.xml");
                for (long since : new long[] {0, 1}) {
                    assertThatThrownBy(() -> s.changesSince(since, 0, 10))
                            .isInstanceOf(StoreException.class)
                            .hasMessageContaining("the changes after version " + since + " are no longer in the change feed")
                            .hasMessageContaining("it keeps the changes from version 3 on")
                            .hasMessageContaining("must resynchronise")
                            .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.GONE));
                }
                assertThatThrownBy(() -> s.changesSince(2, 1, 10)).as("inside a pruned version")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.GONE));
                // the documents and their commit times stay
                assertThat(s.info("/a.xml").modified()).isEqualTo(Instant.ofEpochMilli(T0));
            }
            assertThat(store.check()).isEmpty();
        }
        try (Store store = open(Duration.ofMillis(10))) {
            assertThat(store.changesSince(2)).hasSize(2);
            try (Snapshot s = store.read()) {
                assertThat(s.oldestChange()).as("survives reopening").isEqualTo(3);
            }
        }
    }

    @Test
    void pruningIsBoundedPerCommitAndCatchesUp() {
        int many = 2 * WriteTransaction.PRUNE_MIN + 10;
        try (Store store = open(Duration.ofMillis(10))) {
            try (WriteTransaction w = store.write()) {
                for (int i = 0; i < many; i++) {
                    TestStores.put(w, "/m/" + i + ".xml", "<m/>");
                }
                w.commit();                                                  // version 1: many changes
            }
            clock.advance(Duration.ofMillis(20));
            TestStores.putAll(store, "/x.xml", "<x/>");                      // version 2 prunes PRUNE_MIN of them
            try (Snapshot s = store.read()) {
                assertThat(s.oldestChange()).as("a half-pruned version is gone at once").isEqualTo(2);
                assertThatThrownBy(() -> s.changesSince(0)).isInstanceOf(StoreException.class);
                assertThat(s.changesSince(1)).extracting(Change::uri).containsExactly("/x.xml");
            }
            assertThat(changeRecords(store)).isEqualTo(many - WriteTransaction.PRUNE_MIN + 1);
            assertThat(store.check()).isEmpty();
            TestStores.putAll(store, "/y.xml", "<y/>");
            TestStores.putAll(store, "/z.xml", "<z/>");
            // the rest of version 1 is gone; 2 and 3 are not yet 10 ms old
            assertThat(changeRecords(store)).isEqualTo(3);
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aRetentionOfZeroKeepsEverything() {
        try (Store store = open(Duration.ZERO)) {
            TestStores.putAll(store, "/a.xml", "<a/>");
            clock.advance(Duration.ofDays(3650));
            TestStores.putAll(store, "/b.xml", "<b/>");
            assertThat(store.changesSince(0)).hasSize(2);
        }
        assertThat(StoreOptions.defaults().changeRetention()).isEqualTo(Duration.ofDays(7));
        assertThatThrownBy(() -> StoreOptions.defaults().changeRetention(Duration.ofSeconds(-1)))
                .hasMessageContaining("change retention");
    }

    private static long changeRecords(Store store) {
        try (org.lmdbjava.Txn<org.agrona.DirectBuffer> txn = store.engine.env.txnRead()) {
            return store.engine.changes.stat(txn).entries;
        }
    }
}
