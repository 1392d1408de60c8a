package arno.pipeline;

import arno.cache.Codec;
import arno.http.Conditional;
import arno.http.HeaderValues;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * A cached response: status, headers (the validators and Cache-Control among them), the body's
 * bytes and, for text, the same bytes gzipped once when the page was stored. Immutable; written
 * to any number of clients at once by {@link #write}, which answers conditional requests (304),
 * HEAD, and clients that accept gzip.
 */
final class Page {
    /** Bodies smaller than this are not worth compressing. */
    static final int GZIP_MINIMUM = 256;
    private static final int MAGIC = 0x41504731; // "APG1"

    final int status;
    /** As the pipeline set it ("text/html; charset=UTF-8"), or null. */
    final String contentType;
    /** Name and value pairs, in order; ETag, Last-Modified and Cache-Control among them. */
    final List<String[]> headers;
    final byte[] body;
    /** The body gzipped, or null when it is not text or too small. */
    final byte[] gzip;
    /** The ETag header's value, quoted, or null. */
    final String etag;
    /** Last-Modified in whole seconds since the epoch, as milliseconds; -1 for none. */
    final long lastModified;

    Page(int status, String contentType, List<String[]> headers, byte[] body, byte[] gzip) {
        this.status = status;
        this.contentType = contentType;
        this.headers = List.copyOf(headers);
        this.body = body;
        this.gzip = gzip;
        this.etag = header("ETag");
        this.lastModified = httpDate(header("Last-Modified"));
    }

    /** The value of a header, or null. */
    String header(String name) {
        for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) return h[1];
        return null;
    }

    /** Bytes held: what the memory tier is bounded by. */
    long weight() {
        long w = 128 + body.length + (gzip == null ? 0 : gzip.length) + (contentType == null ? 0 : 2L * contentType.length());
        for (String[] h : headers) w += 48 + 2L * (h[0].length() + h[1].length());
        return w;
    }

    /** Whether a response of {@code contentType} is text, so worth compressing. */
    static boolean isText(String contentType) {
        if (contentType == null) return false;
        String t = contentType.toLowerCase(Locale.ROOT);
        return t.startsWith("text/") || t.contains("xml") || t.contains("json") || t.contains("javascript");
    }

    /** The gzip form of {@code body} when {@code contentType} is text and it is worth it, else null. */
    static byte[] gzip(String contentType, byte[] body) {
        if (!isText(contentType) || body.length < GZIP_MINIMUM) return null;
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
        try (GZIPOutputStream z = new GZIPOutputStream(out, 8192)) {
            z.write(body);
        } catch (IOException e) {
            throw new IllegalStateException("in-memory gzip failed", e);
        }
        byte[] zipped = out.toByteArray();
        return zipped.length < body.length ? zipped : null;
    }

    /**
     * Writes the page as the answer to {@code request} (a GET or HEAD): 304 or 412 when its
     * conditions say so ({@link Conditional}: every If-None-Match line, the gzip form's tag, dates);
     * the gzip form with Content-Encoding (and its strong ETag suffixed) when the request accepts
     * gzip; no body for HEAD.
     */
    void write(HttpRequest request, HttpServletResponse response) throws IOException {
        int answer = conditional(request);
        response.setStatus(answer);
        for (String[] h : headers) response.addHeader(h[0], h[1]);
        if (answer != status) return;
        if (contentType != null) response.setContentType(contentType);
        byte[] bytes = body;
        if (gzip != null && HeaderValues.acceptsGzip(request.headers("Accept-Encoding"))) {
            response.setHeader("Content-Encoding", "gzip");
            if (etag != null && !etag.startsWith("W/")) response.setHeader("ETag", Conditional.gzipTag(etag));
            bytes = gzip;
        }
        response.setContentLength(bytes.length);
        if (!request.method().equals("HEAD")) response.getOutputStream().write(bytes);
    }

    /** The status to answer {@code request} with: 304 or 412 when its conditions say so, for a page answered 200. */
    int conditional(HttpRequest request) {
        if (status != 200) return status;
        return switch (Conditional.evaluate(request.method(), request::headers, etag, lastModified)) {
            case NOT_MODIFIED -> 304;
            case FAILED -> 412;
            case PROCEED -> status;
        };
    }

    /** An HTTP date (IMF-fixdate) for {@code millis}. */
    static String httpDate(long millis) {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC));
    }

    /** Milliseconds of an HTTP date, or -1 when absent or unreadable (then treated as absent, RFC 9110). */
    static long httpDate(String text) {
        if (text == null) return -1;
        try {
            return ZonedDateTime.parse(text.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            return -1;
        }
    }

    /**
     * Pages as bytes for the disk tier: magic, status, content type, headers, body, gzip form.
     * The disk tier checksums the whole; a page that does not decode is dropped there.
     */
    static final Codec<Page> CODEC = new Codec<>() {
        @Override
        public byte[] encode(Page p) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(p.body.length + (p.gzip == null ? 0 : p.gzip.length) + 512);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeShort(p.status);
            out.writeBoolean(p.contentType != null);
            if (p.contentType != null) out.writeUTF(p.contentType);
            out.writeInt(p.headers.size());
            for (String[] h : p.headers) {
                out.writeUTF(h[0]);
                out.writeUTF(h[1]);
            }
            out.writeInt(p.body.length);
            out.write(p.body);
            out.writeInt(p.gzip == null ? -1 : p.gzip.length);
            if (p.gzip != null) out.write(p.gzip);
            out.flush();
            return bytes.toByteArray();
        }

        @Override
        public Page decode(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != MAGIC) throw new IOException("not a cached page");
            int status = in.readShort();
            String contentType = in.readBoolean() ? in.readUTF() : null;
            int n = in.readInt();
            if (n < 0 || n > 10_000) throw new IOException("header count " + n);
            List<String[]> headers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) headers.add(new String[] {in.readUTF(), in.readUTF()});
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            int g = in.readInt();
            byte[] gzip = null;
            if (g >= 0) {
                gzip = new byte[g];
                in.readFully(gzip);
            }
            if (in.read() != -1) throw new IOException("bytes after the page");
            return new Page(status, contentType, headers, body, gzip);
        }
    };
}
