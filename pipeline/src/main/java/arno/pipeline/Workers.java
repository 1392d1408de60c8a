package arno.pipeline;

import arno.xml.ErrorMessage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed number of threads that run pipelines, taking requests from one queue in the order they
 * arrived, with a bound on how many may wait.
 *
 * <p>Why not Tomcat's own request threads: a page is CPU work from start to end, and Tomcat
 * serves a keep-alive connection's next request on the thread that answered the previous one
 * whenever it has already arrived, ahead of requests queued earlier on other connections. Under
 * load a quarter of the requests jumped the queue that way and the rest waited the longer for it
 * (perf/RESULTS.md, 32 users: p25 of 2 ms beside a p50 of 15 and a p99 of 28-34 ms; in arrival
 * order the standard deviation fell from 7-9 to 2-3 ms and the p99 to 20-23 ms). More threads
 * than cores only share the cores more finely, which makes every request as slow as the slowest.
 */
final class Workers {
    private final ThreadPoolExecutor pool;
    private final int queueLimit;

    Workers(int threads, int queueLimit) {
        check(threads, queueLimit);
        this.queueLimit = queueLimit;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(queueLimit),
                r -> {
                    Thread t = new Thread(r, "arno-worker-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    static void check(int threads, int queueLimit) {
        if (threads < 1) throw ErrorMessage.WORKERS.error(threads);
        if (queueLimit < 1) {
            throw ErrorMessage.QUEUE.error(queueLimit);
        }
    }

    /** Queues {@code task} behind the requests already waiting; false if {@link #queueLimit} are waiting. */
    boolean submit(Runnable task) {
        try {
            pool.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    int threads() {
        return pool.getMaximumPoolSize();
    }

    int queueLimit() {
        return queueLimit;
    }

    /** Requests waiting for a worker now. */
    int waiting() {
        return pool.getQueue().size();
    }

    /** Requests a worker is running now (approximate, as a snapshot of a moving thing must be). */
    int running() {
        return pool.getActiveCount();
    }

    /** Takes no more requests and lets the ones queued and running finish, for at most {@code seconds}. */
    void close(long seconds) {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(seconds, TimeUnit.SECONDS)) pool.shutdownNow();
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
