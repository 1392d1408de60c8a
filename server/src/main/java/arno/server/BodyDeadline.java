package arno.server;

import arno.pipeline.BodyRate;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorXml;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Holds the servlets mounted beside the sites (the store API, the batch service), which read
 * their bodies with blocking reads on Tomcat's threads, to the same {@link BodyRate} as pages:
 * their request's input stream counts what arrives and, at each read, fails with
 * {@link ErrorCode#BODY_TOO_SLOW} once the body is behind the least rate or past the time limit;
 * the answer is then 408 (an {@code err:error} document, as those APIs answer), with the
 * connection closed, whatever the servlet made of the failed read.
 *
 * <p>The rate is counted from the servlet's first asking for the body, not from the request's
 * start: what a servlet does before (the store checks the password first) is not the client's
 * delay. A read that waits for bytes that never come cannot be checked here; the connector's
 * {@code connectionUploadTimeout} (set to the body time limit by {@link ArnoServer}) ends it. So a
 * trickling client holds a Tomcat thread for at most about the body time limit plus one read's
 * time-out, never for ever.
 */
final class BodyDeadline extends HttpFilter {
    private static final System.Logger LOG = System.getLogger("arno");
    private final transient BodyRate rate;
    /** The servlet that reads its bodies itself, without blocking (the pages'): passed through. */
    private final String exempt;

    BodyDeadline(BodyRate rate, String exempt) {
        this.rate = rate;
        this.exempt = exempt;
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        boolean hasBody = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        if (!hasBody || exempt.equals(request.getHttpServletMapping().getServletName())) {
            chain.doFilter(request, response);
            return;
        }
        Timed timed = new Timed(request, rate);
        try {
            chain.doFilter(timed, response);
        } catch (IOException | RuntimeException e) {
            if (timed.tooSlow == null) throw e;
        }
        if (timed.tooSlow != null && !response.isCommitted()) {
            LOG.log(System.Logger.Level.INFO, "refused " + request.getMethod() + " " + request.getRequestURI() + " from "
                    + request.getRemoteAddr() + ": " + timed.tooSlow.getMessage());
            response.reset();
            response.setStatus(timed.tooSlow.status());
            response.setHeader("Connection", "close");
            response.setContentType("application/xml;charset=UTF-8");
            byte[] body = ErrorXml.toBytes(timed.tooSlow, null, true);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }

    /** The request with its body stream timed. */
    private static final class Timed extends HttpServletRequestWrapper {
        private final BodyRate rate;
        /**
         * When the servlet first asked for the body: the time it took before (checking a password,
         * a fifth of a second, longer while logins queue) is not the client's, and the bytes that
         * arrived meanwhile count from here.
         */
        private long start;
        private ServletInputStream in;
        private BufferedReader reader;
        volatile ArnoException tooSlow;

        Timed(HttpServletRequest request, BodyRate rate) {
            super(request);
            this.rate = rate;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (in == null) {
                in = new Stream(super.getInputStream());
                start = System.nanoTime();
            }
            return in;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            if (reader == null) {
                String encoding = getCharacterEncoding();
                Charset charset = encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
                reader = new BufferedReader(new InputStreamReader(getInputStream(), charset));
            }
            return reader;
        }

        private final class Stream extends ServletInputStream {
            private final ServletInputStream inner;
            private long received;

            Stream(ServletInputStream inner) {
                this.inner = inner;
            }

            private int counted(int n) throws IOException {
                if (n > 0) received += n;
                if (n >= 0) {
                    ArnoException slow = rate.tooSlow(received, System.nanoTime() - start);
                    if (slow != null) {
                        tooSlow = slow;
                        // The cause lets a servlet that answers read failures itself (the store's) answer this one.
                        throw new IOException(slow.getMessage(), slow);
                    }
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                int b = inner.read();
                counted(b < 0 ? -1 : 1);
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return counted(inner.read(b, off, len));
            }

            @Override
            public boolean isFinished() {
                return inner.isFinished();
            }

            @Override
            public boolean isReady() {
                return inner.isReady();
            }

            @Override
            public void setReadListener(ReadListener listener) {
                inner.setReadListener(listener);
            }
        }
    }
}
