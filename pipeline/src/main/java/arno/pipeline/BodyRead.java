package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Reads one request body into memory with Servlet non-blocking IO, before any pipeline worker
 * sees the request. The container calls {@link #onDataAvailable} when bytes have arrived; between
 * calls no thread waits on the connection. A timer checks the {@link BodyRate} every
 * {@code tick}; the size is checked as bytes arrive.
 *
 * <p>Exactly one of {@code done} (with the whole body) and {@code refused} (with the error:
 * {@link ErrorCode#BODY_TOO_SLOW}, {@link ErrorCode#BODY_TOO_LARGE}, or null when the client went
 * away) is called, once, from a container thread or the timer's thread. {@code refused} writes
 * the answer; the read then ends the exchange: at once, or, for a body that passed the limit,
 * after a {@link Linger} over the rest of it, so that a client still writing reads the 413 rather
 * than a reset (as for a body declared over the limit, which is refused before any read).
 */
final class BodyRead implements ReadListener {
    private final AsyncContext async;
    private final ServletInputStream in;
    private final long limit;
    private final BodyRate rate;
    private final Consumer<byte[]> done;
    private final Consumer<ArnoException> refused;
    private final long start = System.nanoTime();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final byte[] buffer = new byte[8192];
    private final ByteArrayOutputStream body;
    private final ScheduledExecutorService timer;
    private volatile long received;
    private ScheduledFuture<?> check;
    /** Set once the body passed the limit: what still comes is dropped there. */
    private volatile Linger linger;

    private BodyRead(AsyncContext async, ServletInputStream in, long limit, BodyRate rate, ScheduledExecutorService timer,
                     Consumer<byte[]> done, Consumer<ArnoException> refused) {
        this.async = async;
        this.timer = timer;
        this.in = in;
        this.limit = limit;
        this.rate = rate;
        this.done = done;
        this.refused = refused;
        long declared = async.getRequest().getContentLengthLong();
        this.body = new ByteArrayOutputStream((int) Math.max(64, Math.min(declared, 1 << 20)));
    }

    /** Starts reading the body of {@code async}'s request; returns at once. */
    static void start(AsyncContext async, long limit, BodyRate rate, ScheduledExecutorService timer, Consumer<byte[]> done,
                      Consumer<ArnoException> refused) throws IOException {
        HttpServletRequest request = (HttpServletRequest) async.getRequest();
        BodyRead read = new BodyRead(async, request.getInputStream(), limit, rate, timer, done, refused);
        // Checked often enough that a refusal comes soon after the rule is broken, but at most 4 times a second.
        long tick = Math.max(250, Math.min(1000, Math.min(rate.grace().toMillis(), rate.timeLimit().toMillis()) / 4));
        read.check = timer.scheduleAtFixedRate(read::checkRate, tick, tick, TimeUnit.MILLISECONDS);
        read.in.setReadListener(read);
    }

    @Override
    public void onDataAvailable() throws IOException {
        Linger l = linger;
        if (l != null) {
            l.onDataAvailable();
            return;
        }
        while (!finished.get() && in.isReady()) {
            int n = in.read(buffer);
            if (n < 0) return; // onAllDataRead follows
            if (received + n > limit) {
                if (finished.compareAndSet(false, true)) {
                    check.cancel(false);
                    try {
                        refused.accept(ErrorMessage.BODY_OVER_LIMIT.error(limit));
                    } finally {
                        linger = l = Linger.after(async, in, timer);
                    }
                    l.onDataAvailable();
                }
                return;
            }
            body.write(buffer, 0, n);
            received += n;
        }
    }

    @Override
    public void onAllDataRead() {
        Linger l = linger;
        if (l != null) {
            l.onAllDataRead();
            return;
        }
        if (!finished.compareAndSet(false, true)) return;
        check.cancel(false);
        done.accept(body.toByteArray());
    }

    @Override
    public void onError(Throwable t) {
        Linger l = linger;
        if (l != null) {
            l.onError(t);
            return;
        }
        // The client went away, or the container gave up on the connection: nothing to answer.
        finish(null);
    }

    private void checkRate() {
        ArnoException tooSlow = rate.tooSlow(received, System.nanoTime() - start);
        if (tooSlow != null) finish(tooSlow);
    }

    private void finish(ArnoException error) {
        if (!finished.compareAndSet(false, true)) return;
        check.cancel(false);
        try {
            refused.accept(error);
        } finally {
            try {
                async.complete();
            } catch (IllegalStateException e) {
                // The container ended the exchange first (the connection failed).
            }
        }
    }

    /** Bytes read so far. */
    long received() {
        return received;
    }

    AsyncContext async() {
        return async;
    }
}
