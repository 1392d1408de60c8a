package arno.store.http;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;

/**
 * A request body that refuses to go past the limit: reading byte {@code limit + 1} throws
 * {@link ErrorCode#BODY_TOO_LARGE}, so a body without Content-Length (chunked) is stopped as soon
 * as it is too large, before the writer has spooled more than the limit.
 *
 * <p>A read that fails is translated here, where the container's exception enters our code, into
 * the error the client is answered: the server's body rate's own {@link ErrorCode#BODY_TOO_SLOW}
 * (carried as the cause), {@link ErrorCode#BODY_TOO_SLOW} when nothing more arrived within the
 * connector's upload time-out, and {@link ErrorCode#BAD_REQUEST} naming how much arrived when the
 * body broke off (the client closed the connection) or could not be read (broken chunked framing).
 */
final class LimitedInput extends FilterInputStream {
    private final long limit;
    private final long declared;
    private long count;

    /** {@code declared}: the request's Content-Length, or -1 when it has none. */
    LimitedInput(InputStream in, long limit, long declared) {
        super(in);
        this.limit = limit;
        this.declared = declared;
    }

    /** The body of {@code req}, refused with 413 at once when its Content-Length is over {@code limit}, else when reading passes it. */
    static LimitedInput of(jakarta.servlet.http.HttpServletRequest req, long limit) throws IOException {
        long declared = req.getContentLengthLong();
        if (declared > limit) throw ErrorCode.BODY_TOO_LARGE.error(declared, limit);
        return new LimitedInput(req.getInputStream(), limit, declared);
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        int n;
        try {
            // Ask for one byte past the limit at most, so an exact-limit body is not refused.
            n = super.read(b, off, (int) Math.min(len, limit + 1 - count));
        } catch (IOException e) {
            throw failed(e);
        }
        if (n > 0) count += n;
        if (count > limit) {
            throw ErrorMessage.BODY_OVER_LIMIT.error(limit);
        }
        return n;
    }

    private ArnoException failed(IOException e) {
        ArnoException known = ArnoException.find(e);
        if (known != null) return known;
        String arrived = count + (declared >= 0 ? " of its " + declared : "") + " bytes";
        Throwable root = e;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return ErrorMessage.BODY_STALLED.error(e, arrived);
            }
            if (t instanceof EOFException) {
                return ErrorMessage.BODY_BROKE_OFF.error(e, arrived);
            }
            root = t;
        }
        return ErrorMessage.BODY_FAILED_AFTER.error(e, arrived,
                root.getMessage() != null ? root.getMessage() : "the connection failed");
    }

    @Override
    public long skip(long n) {
        throw new UnsupportedOperationException("a request body is read, not skipped");
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
