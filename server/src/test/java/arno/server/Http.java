package arno.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** The server tests' one way to send a request and to read a raw socket's answer. */
public final class Http {
    private Http() {}

    /** Sends {@code request}, the answer as a string; failures unchecked, an interrupt kept. */
    public static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What a raw socket's stream holds up to its end; a reset after the answer ends it too. */
    public static String readToEnd(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) bytes.write(buffer, 0, n);
        } catch (java.net.SocketException e) {
            // reset after the answer: what arrived is what counts
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
