package arno.store.atom;

import static arno.store.atom.Fixtures.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;

/**
 * The seam a cluster node plugs into: every write of the service goes through the {@link WritePath}
 * it was opened with, and the service's change feed is that path's; the single node's path is the
 * store's own feed, change for change.
 */
class WritePathTest {

    @TempDir
    Path dir;

    /** The local path, counting what passes through it. */
    static final class Counting implements WritePath {
        final WritePath local;
        final AtomicInteger submitted = new AtomicInteger();
        final AtomicInteger feedReads = new AtomicInteger();

        Counting(WritePath local) {
            this.local = local;
        }

        @Override
        public CompletableFuture<Done> submit(Op op) {
            submitted.incrementAndGet();
            return local.submit(op);
        }

        @Override
        public List<Change> changesSince(long version, int seq, int limit) {
            feedReads.incrementAndGet();
            return local.changesSince(version, seq, limit);
        }

        @Override
        public long version() {
            return local.version();
        }

        @Override
        public int queued() {
            return local.queued();
        }

        @Override
        public void close() {
            local.close();
        }
    }

    @Test
    void everyWriteAndTheFeedGoThroughThePathTheServiceWasOpenedWith() {
        List<Counting> opened = new ArrayList<>();
        try (Store store = Fixtures.store(dir)) {
            long before = store.version();
            try (AtomStore atom = AtomStore.open(store, AtomOptions.defaults(), (a, o) -> {
                Counting c = new Counting(WritePath.LOCAL.open(a, o));
                opened.add(c);
                return c;
            })) {
                assertThat(opened).hasSize(1);
                Counting path = opened.get(0);
                int installing = path.submitted.get();
                ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed").path();
                AtomStore.Written v = atom.replaceEntry(journals, -1, entry("journals", "Journals again"), "ed");
                atom.delete(journals, -1, "ed");
                assertThat(path.submitted.get() - installing).isEqualTo(3);
                assertThat(atom.version()).isEqualTo(store.version()).isGreaterThan(v.version());

                List<Change> feed = atom.changesSince(before, 0, 1000);
                assertThat(path.feedReads.get()).isEqualTo(1);
                try (Snapshot s = store.read()) {
                    assertThat(feed).isEqualTo(s.changesSince(before, 0, 1000));
                }
                assertThat(feed).extracting(Change::uri).contains(journals.entryDocument());
                assertThat(feed.get(feed.size() - 1).kind()).isEqualTo(Change.Kind.DELETE);
            }
        }
    }
}
