package arno.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** The tests' one way to send a request, to write Basic credentials and to read a raw socket's answer. */
public final class Http {
    private Http() {
    }

    /** A client that follows no redirects (a test looks at them) and gives up connecting after 10 s. */
    public static HttpClient client() {
        return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** Sends {@code request}, the answer as a string; failures unchecked, an interrupt kept. */
    public static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        return send(client, request, HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code request}, the answer's body as {@code body} reads it; failures unchecked, an interrupt kept. */
    public static <T> HttpResponse<T> send(HttpClient client, HttpRequest request, HttpResponse.BodyHandler<T> body) {
        try {
            return client.send(request, body);
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + request.method() + " " + request.uri(), e);
        }
    }

    /** The {@code Authorization} value for {@code name:password}. */
    public static String basic(String credentials) {
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * One answer from a raw socket's stream: its head, and its body by Content-Length (to the end
     * of the stream without one). A server that says {@code Connection: close} may keep the socket
     * open a while to read what the client still sends (Tomcat's upload time-out), so waiting for
     * the end would time the server's linger, not its answer.
     */
    public static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        for (int b; last4 != 0x0D0A0D0A; ) {
            if ((b = in.read()) < 0) return head.toString(StandardCharsets.UTF_8);
            head.write(b);
            last4 = last4 << 8 | b;
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?im)^content-length:\\s*(\\d+)\\s*$").matcher(h);
        if (!m.find()) return h + readToEnd(in);
        byte[] body = in.readNBytes(Integer.parseInt(m.group(1)));
        return h + new String(body, StandardCharsets.UTF_8);
    }

    /** What a raw socket's stream holds up to its end; a reset after the answer ends it too. */
    public static String readToEnd(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                bytes.write(buffer, 0, n);
            }
        } catch (SocketException e) {
            // reset after the answer: what arrived is what counts
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
