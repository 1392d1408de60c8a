package arno.pipeline;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The servlet response of a page that may be cached: holds status, headers and body back until
 * the pipeline has finished, so that the page cache can decide, add its validators (which depend
 * on everything the pipeline read) and keep the bytes. Anything that rules caching out on the way
 * (a cookie, a body larger than the route's max-size, characters through the writer, an error
 * sent by the container) passes what was held to the real response at once and everything after
 * it straight through: such a response streams as it would without a cache.
 *
 * <p>Contract towards {@link ResponseWriter}: nothing is committed while held, so {@link #reset}
 * always works then.
 */
final class Capture extends HttpServletResponseWrapper {
    private final long limit;
    private int status = 200;
    private String contentType;
    private final List<String[]> headers = new ArrayList<>();
    private ByteArrayOutputStream body = new ByteArrayOutputStream(8192);
    private ServletOutputStream stream;
    /** Why the response went through uncached, or null while it is held. */
    private String through;

    Capture(HttpServletResponse response, long limit) {
        super(response);
        this.limit = limit;
    }

    /** Why the response was passed through (so not cacheable), or null when it is held whole. */
    String passedThrough() {
        return through;
    }

    int status() {
        return status;
    }

    String contentType() {
        return contentType;
    }

    List<String[]> headers() {
        return headers;
    }

    byte[] body() {
        return body.toByteArray();
    }

    /**
     * Sends what is held to the real response and passes everything after it through. Does
     * nothing the second time.
     */
    void release(String why) throws IOException {
        if (through != null) return;
        through = why;
        HttpServletResponse r = (HttpServletResponse) getResponse();
        r.setStatus(status);
        if (contentType != null) r.setContentType(contentType);
        for (String[] h : headers) r.addHeader(h[0], h[1]);
        byte[] held = body.toByteArray();
        body = null;
        if (held.length > 0) r.getOutputStream().write(held);
    }

    private void releaseUnchecked(String why) {
        try {
            release(why);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void setStatus(int sc) {
        if (through != null) super.setStatus(sc);
        else status = sc;
    }

    @Override
    public int getStatus() {
        return through != null ? super.getStatus() : status;
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        release("an error was sent");
        super.sendError(sc, msg);
    }

    @Override
    public void sendError(int sc) throws IOException {
        release("an error was sent");
        super.sendError(sc);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
        release("a redirect was sent");
        super.sendRedirect(location);
    }

    @Override
    public void setHeader(String name, String value) {
        if (through != null) {
            super.setHeader(name, value);
            return;
        }
        headers.removeIf(h -> h[0].equalsIgnoreCase(name));
        if (value != null) headers.add(new String[] {name, value});
    }

    @Override
    public void addHeader(String name, String value) {
        if (through != null) super.addHeader(name, value);
        else if (value != null) headers.add(new String[] {name, value});
    }

    @Override
    public void setIntHeader(String name, int value) {
        setHeader(name, Integer.toString(value));
    }

    @Override
    public void addIntHeader(String name, int value) {
        addHeader(name, Integer.toString(value));
    }

    @Override
    public void setDateHeader(String name, long date) {
        setHeader(name, Page.httpDate(date));
    }

    @Override
    public void addDateHeader(String name, long date) {
        addHeader(name, Page.httpDate(date));
    }

    @Override
    public boolean containsHeader(String name) {
        if (through != null) return super.containsHeader(name);
        return headers.stream().anyMatch(h -> h[0].equalsIgnoreCase(name));
    }

    @Override
    public String getHeader(String name) {
        if (through != null) return super.getHeader(name);
        for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) return h[1];
        return null;
    }

    @Override
    public Collection<String> getHeaders(String name) {
        if (through != null) return super.getHeaders(name);
        return headers.stream().filter(h -> h[0].equalsIgnoreCase(name)).map(h -> h[1]).toList();
    }

    @Override
    public Collection<String> getHeaderNames() {
        if (through != null) return super.getHeaderNames();
        return headers.stream().map(h -> h[0]).distinct().toList();
    }

    @Override
    public void setContentType(String type) {
        if (through != null) super.setContentType(type);
        else contentType = type;
    }

    @Override
    public String getContentType() {
        return through != null ? super.getContentType() : contentType;
    }

    @Override
    public void setCharacterEncoding(String charset) {
        releaseUnchecked("the character encoding was set apart");
        super.setCharacterEncoding(charset);
    }

    @Override
    public void setContentLength(int len) {
        if (through != null) super.setContentLength(len);
    }

    @Override
    public void setContentLengthLong(long len) {
        if (through != null) super.setContentLengthLong(len);
    }

    @Override
    public void addCookie(Cookie cookie) {
        releaseUnchecked("it sets a cookie");
        super.addCookie(cookie);
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        release("it was written as characters");
        return super.getWriter();
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (through != null) return super.getOutputStream();
        if (stream == null) stream = new Held();
        return stream;
    }

    @Override
    public boolean isCommitted() {
        return through != null && super.isCommitted();
    }

    @Override
    public void reset() {
        if (through != null) {
            super.reset();
            return;
        }
        status = 200;
        contentType = null;
        headers.clear();
        body.reset();
    }

    @Override
    public void resetBuffer() {
        if (through != null) super.resetBuffer();
        else body.reset();
    }

    @Override
    public void setBufferSize(int size) {
        if (through != null) super.setBufferSize(size);
    }

    @Override
    public void flushBuffer() throws IOException {
        if (through != null) super.flushBuffer();
    }

    /** The body's stream: into the held bytes until the limit, then through. */
    private final class Held extends ServletOutputStream {
        @Override
        public void write(int b) throws IOException {
            if (through == null && body.size() + 1 > limit) release("it is larger than the route's max-size");
            if (through != null) Capture.super.getOutputStream().write(b);
            else body.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (through == null && body.size() + (long) len > limit) release("it is larger than the route's max-size");
            if (through != null) Capture.super.getOutputStream().write(b, off, len);
            else body.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (through != null) Capture.super.getOutputStream().flush();
        }

        @Override
        public void close() throws IOException {
            if (through != null) Capture.super.getOutputStream().close();
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            throw new UnsupportedOperationException("pages are written blocking");
        }
    }
}
