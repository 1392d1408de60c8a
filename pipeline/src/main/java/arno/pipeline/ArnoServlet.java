package arno.pipeline;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The servlet that hands every request, whatever its method, to an {@link Arno} engine. The
 * container's thread only reads the request; the pipeline runs on one of a fixed number of
 * worker threads, in the order requests arrived (see {@link Workers} for why). When the
 * queue is full the answer is 503 at once, with Retry-After, and nothing waiting is dropped.
 * Needs asynchronous support in its registration.
 */
public final class ArnoServlet extends HttpServlet {
    private static final System.Logger LOG = System.getLogger("arno");

    /** Workers by default: one per core. */
    public static final int DEFAULT_WORKERS = Runtime.getRuntime().availableProcessors();
    /** Requests that may wait for a worker by default: about a third of a second of full-text pages on two cores. */
    public static final int DEFAULT_QUEUE = 1000;

    private final transient Arno arno;
    private final transient Workers workers;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong lastRefusalLog = new AtomicLong();

    /** Runs pipelines on {@code workers} threads, with at most {@code queue} requests waiting for one. */
    public ArnoServlet(Arno arno, int workers, int queue) {
        this.arno = arno;
        this.workers = new Workers(workers, queue);
    }

    /** Fails with the reason unless {@code workers} and {@code queue} would make a servlet. */
    public static void check(int workers, int queue) {
        Workers.check(workers, queue);
    }

    public int workers() {
        return workers.threads();
    }

    /** Requests waiting for a worker now. */
    public int waiting() {
        return workers.waiting();
    }

    /** Requests whose pipelines are running now. */
    public int running() {
        return workers.running();
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) {
        AsyncContext async = request.startAsync();
        // No container time-out: the route's time limit bounds a pipeline, and a time-out would
        // dispatch an error to this request while a worker still writes its response.
        async.setTimeout(0);
        if (!workers.submit(() -> run(async))) {
            busy(response);
            async.complete();
        }
    }

    private void run(AsyncContext async) {
        HttpServletRequest request = (HttpServletRequest) async.getRequest();
        HttpServletResponse response = (HttpServletResponse) async.getResponse();
        try {
            arno.service(request, response);
        } catch (IOException e) {
            // The client went away mid-response; there is nobody left to answer.
            LOG.log(System.Logger.Level.DEBUG, "response not sent: " + e);
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "unexpected failure on " + request.getRequestURI(), e);
            if (!response.isCommitted()) {
                response.resetBuffer();
                Arno.plain(response, 500, "Internal error", "Unexpected failure; the server log has the details.");
            }
        } finally {
            async.complete();
        }
    }

    private void busy(HttpServletResponse response) {
        long n = refused.incrementAndGet();
        long now = System.nanoTime();
        long last = lastRefusalLog.get();
        // At most one log line a second: an overload must not also flood the log.
        if (now - last > 1_000_000_000L && lastRefusalLog.compareAndSet(last, now)) {
            LOG.log(System.Logger.Level.WARNING, "busy: " + workers.queueLimit() + " requests waiting for "
                    + workers.threads() + " workers; " + n + " refused with 503 since start");
        }
        response.setHeader("Retry-After", "1");
        Arno.plain(response, 503, "Busy", "All " + workers.threads() + " workers are busy and "
                + workers.queueLimit() + " requests are waiting; try again in a moment.");
    }

    @Override
    public void destroy() {
        workers.close(30);
    }
}
