package arno.pipeline;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An HTTP request as the pipeline needs it, without a servlet: what the request reader turns into
 * {@code req:request} and the response writer consults (method, conditional headers). The servlet
 * adapter gives a view of the container's request (nothing copied); tests and other front ends
 * make a value with {@link #builder(String, String)}.
 *
 * <p>Contract: {@link #path()} and {@link #query()} are as the client sent them, still
 * percent-encoded (the pipeline decodes them and answers a bad encoding with 400);
 * {@link #body()} MAY be called once; header names compare without case.
 */
public interface HttpRequest {
    String method();

    /** "http" or "https". */
    String scheme();

    /** The host the client named (Host header or absolute URI), without the port. */
    String host();

    /** The port the client named, or the scheme's default. */
    int port();

    /** "HTTP/1.1" and so on. */
    String protocol();

    /** The web application's path, "" at the root or e.g. "/arno"; never decoded. */
    String contextPath();

    /** The path inside the web application, starting with '/', percent-encoded as received. */
    String path();

    /** The query string as received, or null. */
    String query();

    /** Each header name once, as received. */
    List<String> headerNames();

    /** Every value of a header, in order; empty when absent. */
    List<String> headers(String name);

    /** The first value of a header, or null. */
    default String header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? null : values.get(0);
    }

    String remoteAddress();

    /** The address and port of the server the request came in on ("127.0.0.1:8080"). */
    String localAuthority();

    /** The declared body length, or -1 when none was declared (chunked, or no body). */
    long contentLength();

    /** The body's bytes. */
    InputStream body() throws java.io.IOException;

    /** A request for {@code target} ("/journal-a/v1/i1?x=1") with {@code method}, from 127.0.0.1 to localhost:80. */
    static Builder builder(String method, String target) {
        return new Builder(method, target);
    }

    /** Builds the servlet-free value. */
    final class Builder {
        private final String method;
        private String scheme = "http";
        private String host = "localhost";
        private int port = 80;
        private String contextPath = "";
        private final String path;
        private final String query;
        private final List<String[]> headers = new ArrayList<>();
        private String remote = "127.0.0.1";
        private byte[] body;

        private Builder(String method, String target) {
            this.method = method;
            int q = target.indexOf('?');
            this.path = q < 0 ? target : target.substring(0, q);
            this.query = q < 0 ? null : target.substring(q + 1);
        }

        public Builder host(String name, int port) {
            this.host = name;
            this.port = port;
            return this;
        }

        public Builder scheme(String scheme) {
            this.scheme = scheme;
            return this;
        }

        public Builder contextPath(String path) {
            this.contextPath = path;
            return this;
        }

        public Builder header(String name, String value) {
            headers.add(new String[] {name, value});
            return this;
        }

        public Builder remoteAddress(String address) {
            this.remote = address;
            return this;
        }

        /** A body of {@code contentType} (also set as the Content-Type header). */
        public Builder body(String contentType, byte[] bytes) {
            header("Content-Type", contentType);
            this.body = bytes.clone();
            return this;
        }

        public Builder body(String contentType, String text) {
            return body(contentType, text.getBytes(StandardCharsets.UTF_8));
        }

        public HttpRequest build() {
            List<String[]> all = new ArrayList<>(headers);
            if (body != null) all.add(new String[] {"Content-Length", Integer.toString(body.length)});
            return new Value(method, scheme, host, port, contextPath, path, query, List.copyOf(all), remote,
                    body == null ? new byte[0] : body);
        }
    }

    /** The value {@link Builder} makes. */
    record Value(String method, String scheme, String host, int port, String contextPath, String path, String query,
                 List<String[]> headerList, String remoteAddress, byte[] bytes) implements HttpRequest {
        @Override
        public String protocol() {
            return "HTTP/1.1";
        }

        @Override
        public List<String> headerNames() {
            List<String> names = new ArrayList<>();
            for (String[] h : headerList) {
                if (names.stream().noneMatch(n -> n.equalsIgnoreCase(h[0]))) names.add(h[0]);
            }
            return names;
        }

        @Override
        public List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (String[] h : headerList) if (h[0].toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) values.add(h[1]);
            return values;
        }

        @Override
        public String localAuthority() {
            return "127.0.0.1:" + port;
        }

        @Override
        public long contentLength() {
            String length = header("Content-Length");
            return length == null ? -1 : Long.parseLong(length);
        }

        @Override
        public InputStream body() {
            return new ByteArrayInputStream(bytes);
        }
    }
}
