package arno.store.atom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The write paths' shared queue: groups in order, tasks put back ahead of the queue, a bug that does not stop it. */
class WriteQueueTest {

    private static final WritePath.Op OP = new Numbered(-1);

    /** An operation told apart by its number. */
    private record Numbered(int n) implements WritePath.Op {
        @Override
        public WritePath.Applied apply(Tx tx) {
            return null;
        }
    }

    @Test
    void groupsTakeMoreInOrderAndTasksPutBackRunFirst() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        List<List<Integer>> groups = new ArrayList<>();
        List<CompletableFuture<WritePath.Done>> futures = new ArrayList<>();
        boolean[] putBack = {false};
        java.util.concurrent.atomic.AtomicReference<WriteQueue> self = new java.util.concurrent.atomic.AtomicReference<>();
        try (WriteQueue q = new WriteQueue(Path.of("s"), "test-writer", group -> {
            await(hold);
            for (WriteQueue.Task next; (next = self.get().next()) != null; ) group.add(next);
            List<Integer> numbers = new ArrayList<>();
            for (WriteQueue.Task t : group) numbers.add(((Numbered) t.op).n());
            groups.add(numbers);
            if (!putBack[0] && group.size() > 2) {
                // the last two run again, in their order, before anything else
                putBack[0] = true;
                self.get().again(group.subList(group.size() - 2, group.size()));
                group.subList(0, group.size() - 2).forEach(t -> t.future.complete(done()));
                return;
            }
            group.forEach(t -> t.future.complete(done()));
        })) {
            self.set(q);
            for (int i = 0; i < 5; i++) futures.add(q.submit(new Numbered(i)));
            hold.countDown();
            for (CompletableFuture<WritePath.Done> f : futures) f.get(10, TimeUnit.SECONDS);
        }
        assertThat(groups).first().isEqualTo(List.of(0, 1, 2, 3, 4));
        assertThat(groups.get(1)).isEqualTo(List.of(3, 4));
    }

    @Test
    void aGroupThatThrowsAnErrorFailsAndTheQueueGoesOn() throws Exception {
        try (WriteQueue q = new WriteQueue(Path.of("s"), "test-writer", group -> {
            if (group.get(0).op != OP) throw new StackOverflowError("a bug");
            group.forEach(t -> t.future.complete(done()));
        })) {
            CompletableFuture<WritePath.Done> bad = q.submit(new Numbered(0));
            assertThatThrownBy(() -> bad.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(StackOverflowError.class);
            assertThat(q.submit(OP).get(10, TimeUnit.SECONDS)).isNotNull();
        }
    }

    @Test
    void afterCloseASubmitIsRefusedAndWhatWasQueuedRan() throws Exception {
        WriteQueue q = new WriteQueue(Path.of("s"), "test-writer", group -> group.forEach(t -> t.future.complete(done())));
        CompletableFuture<WritePath.Done> queued = q.submit(OP);
        q.close();
        assertThat(queued).isCompleted();
        assertThatThrownBy(() -> q.submit(OP)).isInstanceOf(ArnoException.class).hasMessageContaining("s");
    }

    private static WritePath.Done done() {
        return new WritePath.Done(null, 1, Instant.EPOCH);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
