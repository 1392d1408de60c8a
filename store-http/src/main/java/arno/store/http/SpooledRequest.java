package arno.store.http;

import arno.store.atom.Body;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * A write request whose body has been read to its end ({@link Body}: in memory up to
 * {@link #MEMORY}, else in an owner-only temporary file) before the request takes a write slot,
 * so that a client sending its body slowly holds only its own connection, never a slot other
 * writers wait for. Its input stream reads the spooled body; {@link #body} hands it to the service
 * as it is, without a second copy.
 *
 * <p>The body is read within the limit ({@link LimitedInput}: 413 by Content-Length before
 * anything is read, else as soon as it passes) and at the server's body rate (the server's filter
 * times the stream underneath).
 */
final class SpooledRequest extends HttpServletRequestWrapper {
    /**
     * 64 KiB: what a body may hold in memory while it waits for a slot. Entries and model
     * documents are a few KB; larger variants and media wait on disk, since every Tomcat thread
     * may hold one while the slots are taken.
     */
    static final int MEMORY = 64 << 10;

    private final Body body;
    private ServletInputStream in;

    private SpooledRequest(HttpServletRequest request, Body body) {
        super(request);
        this.body = body;
    }

    /** Reads the body of {@code req} to its end, within {@code limit} bytes, into {@code folder} beyond {@link #MEMORY}. */
    static SpooledRequest read(HttpServletRequest req, long limit, Path folder) throws IOException {
        return new SpooledRequest(req, Body.spool(LimitedInput.of(req, limit), limit, folder, MEMORY));
    }

    /** The spooled body of {@code req}, which the servlet spooled before routing it. */
    static Body body(HttpServletRequest req) {
        if (req instanceof SpooledRequest s) return s.body;
        throw new IllegalStateException("the body of " + req.getMethod() + " " + req.getRequestURI() + " was not spooled");
    }

    /** The whole body as bytes (an entry, a model document). */
    static byte[] bytes(HttpServletRequest req) throws IOException {
        try (InputStream in = body(req).open()) {
            return in.readAllBytes();
        }
    }

    /** Deletes what was spooled to disk. */
    void release() {
        body.close();
    }

    @Override
    public ServletInputStream getInputStream() {
        if (in == null) in = new Stream(body.open());
        return in;
    }

    private static final class Stream extends ServletInputStream {
        private final InputStream in;
        private boolean finished;

        Stream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            finished = b < 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            finished = n < 0;
            return n;
        }

        @Override
        public boolean isFinished() {
            return finished;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
            throw new IllegalStateException("a spooled body is read with blocking reads");
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
