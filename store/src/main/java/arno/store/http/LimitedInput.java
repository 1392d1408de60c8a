package arno.store.http;

import arno.xml.ErrorCode;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A request body that refuses to go past the limit: reading byte {@code limit + 1} throws
 * {@link ErrorCode#BODY_TOO_LARGE}, so a body without Content-Length (chunked) is stopped as soon
 * as it is too large, before the writer has spooled more than the limit. A body that stops coming
 * (the client went away) is an {@link UncheckedIOException}, which the servlet answers 400.
 */
final class LimitedInput extends FilterInputStream {
    private final long limit;
    private long count;

    LimitedInput(InputStream in, long limit) {
        super(in);
        this.limit = limit;
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
            throw new UncheckedIOException(e);
        }
        if (n > 0) count += n;
        if (count > limit) {
            throw ErrorCode.BODY_TOO_LARGE.error("more than " + limit, limit);
        }
        return n;
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
