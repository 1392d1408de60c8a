package arno.store.atom;

import arno.xml.ErrorMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.function.Consumer;

/**
 * The queue and the one thread of a grouping {@link WritePath} (the single node's LMDB writer, a
 * cluster node's PostgreSQL one): callers' operations wait here in their order; the thread takes
 * the first, hands the group to the path, which may take more ({@link #next}) while it has room, and
 * may put some back at the head ({@link #again}) to run in a new group, still in their order.
 * Closing lets what was queued run, then ends the thread.
 */
public final class WriteQueue implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("arno");

    /** One queued operation, what it applied, and its caller's answer. */
    public static final class Task {
        /** The operation. */
        public final WritePath.Op op;
        /** Its caller's answer. */
        public final CompletableFuture<WritePath.Done> future = new CompletableFuture<>();
        /** What the operation applied, once it ran. */
        public WritePath.Applied applied;

        Task(WritePath.Op op) {
            this.op = op;
        }
    }

    private static final Task STOP = new Task(null);

    private final Path store;
    private final LinkedBlockingDeque<Task> queue = new LinkedBlockingDeque<>();
    private final Thread thread;
    private volatile boolean closing;

    /**
     * Starts the thread {@code name}, which hands each group to {@code runGroup}; {@code store} is
     * named when an operation comes after closing.
     */
    public WriteQueue(Path store, String name, Consumer<List<Task>> runGroup) {
        this.store = store;
        this.thread = new Thread(() -> run(runGroup), name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Queues {@code op}; its future completes when the path has stored (or refused) it. */
    public CompletableFuture<WritePath.Done> submit(WritePath.Op op) {
        if (closing) throw ErrorMessage.STORE_CLOSING.error(store);
        Task t = new Task(op);
        queue.add(t);
        return t.future;
    }

    /** Operations waiting. */
    public int size() {
        return queue.size();
    }

    /** The next queued task, taken into a group, or null when none waits (or closing stops here). */
    public Task next() {
        Task next = queue.poll();
        if (next == STOP) {
            queue.addFirst(STOP);
            return null;
        }
        return next;
    }

    /** Puts {@code tasks} back at the head of the queue, in their order, ahead of anything queued since. */
    public void again(List<Task> tasks) {
        for (int i = tasks.size() - 1; i >= 0; i--) queue.addFirst(tasks.get(i));
    }

    /** Fails every task of {@code group} not answered yet. */
    public static void fail(List<Task> group, Throwable e) {
        for (Task t : group) if (!t.future.isDone()) t.future.completeExceptionally(e);
    }

    private void run(Consumer<List<Task>> runGroup) {
        while (true) {
            Task first;
            try {
                first = queue.take();
            } catch (InterruptedException e) {
                continue;
            }
            if (first == STOP) return;
            List<Task> group = new ArrayList<>();
            group.add(first);
            try {
                runGroup.accept(group);
            } catch (RuntimeException | Error e) {
                // a bug here must not stop the writes: the group fails, the queue goes on
                LOG.log(System.Logger.Level.ERROR, "the store's write path failed", e);
                fail(group, e);
            }
        }
    }

    /** Stops taking operations, lets the queued ones run, and waits for the thread to end. */
    @Override
    public void close() {
        if (closing) return;
        closing = true;
        queue.add(STOP);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
