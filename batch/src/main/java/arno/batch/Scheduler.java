package arno.batch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;

/**
 * The bounded queue of accepted jobs and the jobs running. A job leaves the
 * queue when fewer than {@code maxRunning} jobs run; the next is the one with
 * the highest priority, and among equal priorities the oldest (jobs that were
 * running when the service stopped carry their old sequence number, so they go
 * first again). Each running job gets a thread of its own that feeds the shared
 * worker pool.
 *
 * <p>Thread rules: every method synchronizes on this scheduler.
 */
final class Scheduler {
    static final Comparator<Job> ORDER = Comparator.comparingInt((Job j) -> -j.priority)
            .thenComparingLong(j -> j.sequence);

    private final PriorityQueue<Job> queue = new PriorityQueue<>(ORDER);
    private final Map<String, JobRun> running = new HashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final int queueBound;
    private final int maxRunning;
    private final Function<Job, JobRun> runs;
    private boolean closed;
    /** Told when a run has ended (cluster mode: the node has room to claim another job); null when no one listens. */
    private Runnable onEnded;

    Scheduler(int queueBound, int maxRunning, Function<Job, JobRun> runs) {
        this.queueBound = queueBound;
        this.maxRunning = maxRunning;
        this.runs = runs;
    }

    synchronized void onEnded(Runnable listener) {
        onEnded = listener;
    }

    synchronized boolean isFull() {
        return queue.size() >= queueBound;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** Jobs accepted and waiting to start. */
    synchronized int waiting() {
        return queue.size();
    }

    /** Queues a newly accepted job; the caller checked {@link #isFull} under the same lock. */
    synchronized void enqueue(Job job) {
        queue.add(job);
        startNext();
    }

    /** Queues a job found unfinished at start-up; resumed jobs are admitted whatever the bound. */
    synchronized void resume(Job job) {
        enqueue(job);
    }

    synchronized JobRun runOf(String id) {
        return running.get(id);
    }

    synchronized int runningCount() {
        return running.size();
    }

    synchronized List<JobRun> runs() {
        return new ArrayList<>(running.values());
    }

    /**
     * Whether {@code job} waits in the queue or runs, asked under one lock: asked as two questions,
     * a job moving from the queue to its run between them seemed to be neither (ended), and its
     * folder was deleted under the starting run.
     */
    synchronized boolean inHand(Job job) {
        return running.containsKey(job.id) || queue.contains(job);
    }

    /** Whether {@code job} waits in the queue. */
    synchronized boolean isWaiting(Job job) {
        return queue.contains(job);
    }

    /** Removes a job that has not started; false when it is not waiting (it runs or ran). */
    synchronized boolean withdraw(Job job) {
        return queue.remove(job);
    }

    private void startNext() {
        while (!closed && running.size() < maxRunning && !queue.isEmpty()) {
            Job job = queue.poll();
            JobRun run = runs.apply(job);
            running.put(job.id, run);
            Thread thread = new Thread(() -> {
                try {
                    run.run();
                } finally {
                    ended(job);
                }
            }, "arno-batch-job-" + job.id);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    private synchronized void ended(Job job) {
        running.remove(job.id);
        threads.remove(Thread.currentThread());
        notifyAll();
        startNext();
        if (onEnded != null) onEnded.run();
    }

    /**
     * Starts nothing more, asks every running job to stop feeding, and waits up
     * to {@code timeoutMillis} for the transformations under way to finish.
     */
    void close(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        synchronized (this) {
            closed = true;
            for (JobRun run : running.values()) run.stop();
            while (!running.isEmpty()) {
                long wait = deadline - System.currentTimeMillis();
                if (wait <= 0) break;
                wait(wait);
            }
        }
    }
}
