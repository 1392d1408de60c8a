package arno.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The change log in commit order without gaps (issue 23, item 3), against a real PostgreSQL: a
 * follower that polls {@code position > last} never skips a commit, whatever the writers do.
 */
class ChangeLogTest {

    @RegisterExtension
    static final TestPostgres PG = new TestPostgres();

    DataSource db;
    ChangeLog log;

    @BeforeEach
    void database() throws SQLException {
        db = PG.dataSource(PG.newDatabase());
        Schema.migrate(db);
        log = new ChangeLog(db, "test");
    }

    /** A follower as a node is one: it remembers the last position it read and asks for what is after it. */
    final class Follower {
        long last;
        final List<String> seen = new ArrayList<>();

        List<Long> poll() throws SQLException {
            List<Long> got = new ArrayList<>();
            for (ChangeLog.Commit c : log.read(last, 1000)) {
                assertThat(c.position()).as("the position after %d", last).isEqualTo(last + 1);
                last = c.position();
                got.add(c.position());
                for (ChangeLog.Change ch : c.changes()) seen.add(ch.path());
            }
            return got;
        }
    }

    /**
     * The case: the first writer holds its transaction open before its commit while a
     * second one commits. The first takes its position only when it commits, so the follower
     * reads the second's commit as 1 and the first's as 2, and misses neither.
     */
    @Test
    void theFirstWriterHeldOpenBeforeCommitIsNotSkipped() throws Exception {
        Follower f = new Follower();
        try (ChangeLog.Transaction first = log.begin()) {
            first.put("/first.xml", "application/xml", false, "<first/>".getBytes(UTF_8), List.of());
            try (ChangeLog.Transaction second = log.begin()) {
                second.put("/second.xml", "application/xml", false, "<second/>".getBytes(UTF_8), List.of());
                assertThat(second.commit()).isEqualTo(1);
            }
            assertThat(f.poll()).containsExactly(1L);
            assertThat(first.commit()).isEqualTo(2);
        }
        assertThat(f.poll()).containsExactly(2L);
        assertThat(f.seen).containsExactly("/second.xml", "/first.xml");
    }

    /**
     * The same with the first writer held after it has taken its position, just before COMMIT:
     * the second waits on the log's head until the first has committed, so the follower never
     * sees position 2 before position 1.
     */
    @Test
    void aWriterHoldingItsPositionMakesTheNextWaitUntilItCommits() throws Exception {
        Follower f = new Follower();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (ChangeLog.Transaction first = log.begin()) {
            first.put("/first.xml", "application/xml", false, "<first/>".getBytes(UTF_8), List.of());
            assertThat(first.position()).isEqualTo(1);
            Future<Long> second = other.submit(() -> {
                try (ChangeLog.Transaction t = log.begin()) {
                    t.put("/second.xml", "application/xml", false, "<second/>".getBytes(UTF_8), List.of());
                    return t.commit();
                }
            });
            awaitWaitingOnALock(1);
            assertThat(second).isNotDone();
            assertThat(f.poll()).isEmpty();
            assertThat(log.head()).isZero();
            first.commit();
            assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(2);
        } finally {
            other.shutdownNow();
        }
        assertThat(f.poll()).containsExactly(1L, 2L);
        assertThat(f.seen).containsExactly("/first.xml", "/second.xml");
    }

    /**
     * A commit made only on the head a writer checked against ({@link ChangeLog.Transaction#commitAfter}):
     * it commits when the head is still there, and stores nothing when another commit came first,
     * also when that one was still running (holding the head) as this one asked.
     */
    @Test
    void aCommitAfterABaseIsRefusedWhenAnotherCameFirst() throws Exception {
        try (ChangeLog.Transaction t = log.begin()) {
            t.put("/a.xml", "application/xml", false, "<a/>".getBytes(UTF_8), List.of());
            assertThat(t.commitAfter(0)).isEqualTo(1);
        }
        try (ChangeLog.Transaction stale = log.begin()) {
            stale.put("/stale.xml", "application/xml", false, "<stale/>".getBytes(UTF_8), List.of());
            assertThat(stale.commitAfter(0)).isEqualTo(-1);
        }
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (ChangeLog.Transaction first = log.begin()) {
            first.put("/first.xml", "application/xml", false, "<first/>".getBytes(UTF_8), List.of());
            assertThat(first.position()).isEqualTo(2);
            Future<Long> second = other.submit(() -> {
                try (ChangeLog.Transaction t = log.begin()) {
                    t.put("/second.xml", "application/xml", false, "<second/>".getBytes(UTF_8), List.of());
                    return t.commitAfter(1);
                }
            });
            awaitWaitingOnALock(1);
            first.commit();
            assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(-1);
        } finally {
            other.shutdownNow();
        }
        assertThat(log.head()).isEqualTo(2);
        Follower f = new Follower();
        assertThat(f.poll()).containsExactly(1L, 2L);
        assertThat(f.seen).containsExactly("/a.xml", "/first.xml");
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM arno.document_versions")) {
            r.next();
            // the refused ones' content rolled back with them
            assertThat(r.getLong(1)).isEqualTo(2);
        }
    }

    /**
     * Why not a sequence: the same two writers with a number taken before commit (what
     * {@code bigserial} does) and the same follower, which then skips the first writer's row. This
     * is the behaviour the log must not have, shown on PostgreSQL itself.
     */
    @Test
    void aSequenceTakenBeforeCommitWouldSkipTheFirstWriter() throws Exception {
        SchemaTest.exec(db, "CREATE TABLE seq_log (id bigserial PRIMARY KEY, what text)");
        try (Connection first = db.getConnection(); Connection second = db.getConnection();
             Connection reader = db.getConnection()) {
            first.setAutoCommit(false);
            first.createStatement().execute("INSERT INTO seq_log (what) VALUES ('first')");
            second.createStatement().execute("INSERT INTO seq_log (what) VALUES ('second')");
            long last = 0;
            List<String> seen = new ArrayList<>();
            last = readSeq(reader, last, seen);
            first.commit();
            readSeq(reader, last, seen);
            assertThat(seen).containsExactly("second");
        }
    }

    private static long readSeq(Connection c, long last, List<String> seen) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT id, what FROM seq_log WHERE id > " + last + " ORDER BY id")) {
            while (r.next()) {
                last = r.getLong(1);
                seen.add(r.getString(2));
            }
        }
        return last;
    }

    /** An aborted write gives its position back: the next commit takes it, and no gap is left. */
    @Test
    void anAbortedWriteLeavesNoGap() throws Exception {
        Follower f = new Follower();
        try (ChangeLog.Transaction t = log.begin()) {
            t.put("/a.xml", "application/xml", false, "<a/>".getBytes(UTF_8), List.of());
            assertThat(t.commit()).isEqualTo(1);
        }
        try (ChangeLog.Transaction aborted = log.begin()) {
            aborted.put("/aborted.xml", "application/xml", false, "<x/>".getBytes(UTF_8), List.of());
            assertThat(aborted.position()).isEqualTo(2);
            // closed without commit: rolled back
        }
        try (ChangeLog.Transaction t = log.begin()) {
            t.delete("/a.xml");
            assertThat(t.commit()).isEqualTo(2);
        }
        assertThat(f.poll()).containsExactly(1L, 2L);
        assertThat(f.seen).containsExactly("/a.xml", "/a.xml");
        assertThat(SchemaTest.rows(db, "SELECT count(*) FROM arno.document_versions WHERE path = '/aborted.xml'"))
                .containsExactly("0");
        assertThat(log.head()).isEqualTo(2);
    }

    /** Many writers at once and a follower polling all the while: every position once, in order, each commit whole. */
    @Test
    void concurrentWritersAndAPollingFollowerAgree() throws Exception {
        int writers = 6;
        int commits = 25;
        Follower f = new Follower();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try {
            for (int w = 0; w < writers; w++) {
                int id = w;
                done.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < commits; i++) {
                        try (ChangeLog.Transaction t = log.begin()) {
                            t.put("/w" + id + "/" + i + "/a.xml", "application/xml", false, "<a/>".getBytes(UTF_8), List.of());
                            t.put("/w" + id + "/" + i + "/b.bin", "application/octet-stream", true, new byte[] {1, 2}, List.of());
                            if (i % 5 == 4) {
                                t.close(); // an aborted one now and then
                            } else {
                                t.commit();
                            }
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }, pool));
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(done.toArray(new CompletableFuture[0]));
            while (!all.isDone()) {
                f.poll();
            }
            all.get();
        } finally {
            pool.shutdownNow();
        }
        f.poll();
        int committed = writers * (commits - commits / 5);
        assertThat(f.last).isEqualTo(committed);
        assertThat(f.seen).hasSize(2 * committed).doesNotHaveDuplicates();
        // each commit whole: its two documents side by side
        for (int i = 0; i < f.seen.size(); i += 2) {
            assertThat(f.seen.get(i + 1)).isEqualTo(f.seen.get(i).replace("/a.xml", "/b.bin"));
        }
    }

    /** What the log holds: content, media type, form and references of each put; the current documents. */
    @Test
    void theLogAndTheCurrentDocumentsHoldWhatWasWritten() throws Exception {
        try (ChangeLog.Transaction t = log.begin()) {
            t.put("/e/entry.atom", "application/atom+xml", false, "<entry/>".getBytes(UTF_8), List.of("/p/entry.atom"));
            t.put("/e/fig.png", "image/png", true, new byte[] {(byte) 0x89, 'P', 'N', 'G', 0}, List.of());
            t.commit();
        }
        try (ChangeLog.Transaction t = log.begin()) {
            t.put("/e/entry.atom", "application/atom+xml", false, "<entry v='2'/>".getBytes(UTF_8), List.of());
            t.delete("/e/fig.png");
            t.commit();
        }
        try (ChangeLog.Transaction t = log.begin()) {
            assertThat(t.commit()).as("nothing written: no position").isEqualTo(-1);
        }
        List<ChangeLog.Commit> commits = log.read(0, 10);
        assertThat(commits).extracting(ChangeLog.Commit::position).containsExactly(1L, 2L);
        assertThat(commits.get(0).node()).isEqualTo("test");
        assertThat(commits.get(1).time()).isAfterOrEqualTo(commits.get(0).time());
        ChangeLog.Change entry = commits.get(0).changes().get(0);
        assertThat(entry.seq()).isEqualTo(1);
        assertThat(entry.mediaType()).isEqualTo("application/atom+xml");
        assertThat(entry.binary()).isFalse();
        assertThat(new String(entry.content(), UTF_8)).isEqualTo("<entry/>");
        assertThat(entry.refs()).containsExactly("/p/entry.atom");
        ChangeLog.Change png = commits.get(0).changes().get(1);
        assertThat(png.binary()).isTrue();
        assertThat(png.content()).containsExactly(0x89, 'P', 'N', 'G', 0);
        assertThat(commits.get(1).changes().get(1).isDelete()).isTrue();
        assertThat(log.read(1, 10)).extracting(ChangeLog.Commit::position).containsExactly(2L);
        assertThat(log.read(0, 1)).extracting(ChangeLog.Commit::position).containsExactly(1L);
        assertThat(log.read(2, 10)).isEmpty();
        assertThat(SchemaTest.rows(db, "SELECT d.path || ' ' || d.position || ' ' || convert_from(v.content, 'UTF8')"
                + " FROM arno.documents d JOIN arno.document_versions v ON v.id = d.version_id"))
                .containsExactly("/e/entry.atom 2 <entry v='2'/>");
        assertThat(log.oldest()).isEqualTo(1);
    }

    /** A read stops at a commit's end once its content passed the budget, and the next read goes on from there. */
    @Test
    void aReadStopsAtTheBudgetAndNeverSplitsACommit() throws Exception {
        byte[] big = new byte[1000];
        for (int i = 1; i <= 4; i++) {
            try (ChangeLog.Transaction t = log.begin()) {
                t.put("/b/" + i + ".bin", "application/octet-stream", true, big, List.of());
                t.put("/b/" + i + "-copy.bin", "application/octet-stream", true, big, List.of());
                t.commit();
            }
        }
        // 2,000 bytes a commit: the second passes a budget of 3,000, so the read stops there
        assertThat(log.read(0, 10, 3000)).extracting(ChangeLog.Commit::position).containsExactly(1L, 2L);
        assertThat(log.read(0, 10, 3000).get(1).changes()).hasSize(2);
        assertThat(log.read(2, 10, 3000)).extracting(ChangeLog.Commit::position).containsExactly(3L, 4L);
        // one commit bigger than the budget still comes, alone
        assertThat(log.read(0, 10, 10)).extracting(ChangeLog.Commit::position).containsExactly(1L);
        assertThat(log.read(0, 10)).hasSize(4);
    }

    /** Waits until {@code n} backends of this test's database wait on a lock. */
    private void awaitWaitingOnALock(int n) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            String waiting = SchemaTest.rows(db, "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND wait_event_type = 'Lock'").get(0);
            if (Integer.parseInt(waiting) == n) return;
            if (System.nanoTime() > end) throw new AssertionError(waiting + " backends wait on a lock, not " + n);
            Thread.sleep(20);
        }
    }
}
