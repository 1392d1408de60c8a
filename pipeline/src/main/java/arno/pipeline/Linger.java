package arno.pipeline;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A bounded lingering close: after a refusal has been written (413 for a declared body over the
 * limit), reads and drops what the client is still sending, for at most {@link #MAX_MILLIS} and
 * {@link #MAX_BYTES}, then ends the exchange and Tomcat closes the connection.
 *
 * <p>Closed at once, the connection still had the client's unread bytes, so the kernel answered
 * them with a reset; a client that writes its whole body before it reads (a simple one, or Java's
 * HttpClient at times) then lost the 413 and saw only "connection reset". Tomcat's own remedy,
 * swallowing the rest (maxSwallowSize), does it on a blocking thread, which a trickling client
 * would hold. Here the reads are Servlet non-blocking IO: no thread waits between them, and the
 * time bound ends a trickle as surely as a flood. What lies beyond the bounds is not read: such a
 * client may still lose the answer, never get another.
 */
final class Linger implements ReadListener {
    /** Long enough for a client on a slow link to finish a few megabytes; short enough to hold little. */
    static final long MAX_MILLIS = 2_000;
    /** More than any body a client would send to a server whose limit it did not know, by far. */
    static final long MAX_BYTES = 64L << 20;

    private final AsyncContext async;
    private final ServletInputStream in;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final byte[] buffer = new byte[8192];
    private long dropped;
    private volatile ScheduledFuture<?> deadline;

    private Linger(AsyncContext async, ServletInputStream in) {
        this.async = async;
        this.in = in;
    }

    /**
     * Sends the refusal already written to {@code response}, then drops the rest of the request's
     * body within the bounds; returns at once. The response must say {@code Connection: close}.
     */
    static void start(HttpServletRequest request, HttpServletResponse response, ScheduledExecutorService timer) {
        Linger linger = null;
        try {
            response.flushBuffer();
            AsyncContext async = request.startAsync();
            async.setTimeout(0);
            linger = new Linger(async, request.getInputStream());
            linger.in.setReadListener(linger);
            linger.bound(timer);
        } catch (IOException | IllegalStateException e) {
            // The client went away: nothing more to read for it.
            if (linger != null) linger.end();
        }
    }

    /**
     * The same, for a body whose reading had begun ({@link BodyRead}, a body sent in chunks that
     * passed the limit): the stream has its listener already, which hands its calls on to the
     * linger returned. The refusal must be written to {@code async}'s response.
     */
    static Linger after(AsyncContext async, ServletInputStream in, ScheduledExecutorService timer) {
        Linger linger = new Linger(async, in);
        try {
            async.getResponse().flushBuffer();
            linger.bound(timer);
        } catch (IOException | IllegalStateException e) {
            linger.end();
        }
        return linger;
    }

    /** Ends the linger after {@link #MAX_MILLIS} at the latest. */
    private void bound(ScheduledExecutorService timer) {
        try {
            // After the listener: a body already whole may have ended the linger, and the deadline then finds it ended.
            deadline = timer.schedule(this::end, MAX_MILLIS, TimeUnit.MILLISECONDS);
            if (ended.get()) deadline.cancel(false);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            end(); // the server is stopping
        }
    }

    @Override
    public void onDataAvailable() throws IOException {
        while (!ended.get() && in.isReady()) {
            int n = in.read(buffer);
            if (n < 0) return; // onAllDataRead follows
            dropped += n;
            if (dropped > MAX_BYTES) {
                end();
                return;
            }
        }
    }

    @Override
    public void onAllDataRead() {
        end();
    }

    @Override
    public void onError(Throwable t) {
        end();
    }

    private void end() {
        if (!ended.compareAndSet(false, true)) return;
        ScheduledFuture<?> d = deadline;
        if (d != null) d.cancel(false);
        try {
            async.complete();
        } catch (IllegalStateException e) {
            // The container ended the exchange first (the connection failed): nothing left to end.
        }
    }
}
