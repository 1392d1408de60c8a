package arno.batch;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Reads and writes what batches name over HTTP: inputs and stylesheets by GET,
 * outputs by PUT (which is how the store's AtomPub API takes a resource).
 * Files are handled by the callers; this class is the only place that talks to
 * the network, so timeouts and status handling live in one place.
 */
final class Fetcher {
    private final HttpClient client;
    private final Duration timeout;

    Fetcher(Duration timeout) {
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
    }

    /** The body of a successful GET, as a stream the caller closes. */
    InputStream get(URI uri, String what) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Accept", "application/xml, text/xml, */*;q=0.5").GET().build();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() / 100 != 2) {
                response.body().close();
                throw new BatchException(Problem.INPUT_UNREADABLE,
                        what + " " + uri + " answered HTTP " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new BatchException(Problem.INPUT_UNREADABLE, what + " " + uri + " cannot be fetched: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BatchException(Problem.INPUT_UNREADABLE, what + " " + uri + ": interrupted", e);
        }
    }

    byte[] getBytes(URI uri, String what) {
        try (InputStream in = get(uri, what)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new BatchException(Problem.INPUT_UNREADABLE, what + " " + uri + " cannot be read: " + e, e);
        }
    }

    /** PUTs the file's bytes to {@code uri}; any status but 2xx is an error naming it. */
    void put(URI uri, Path body, String mediaType) {
        try {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
                    .header("Content-Type", mediaType)
                    .PUT(HttpRequest.BodyPublishers.ofFile(body)).build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new BatchException(Problem.OUTPUT_FAILED, "output " + uri + " refused the PUT: HTTP "
                        + response.statusCode() + abbreviate(response.body()));
            }
        } catch (IOException e) {
            throw new BatchException(Problem.OUTPUT_FAILED, "output " + uri + " cannot be written: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BatchException(Problem.OUTPUT_FAILED, "output " + uri + ": interrupted", e);
        }
    }

    private static String abbreviate(String body) {
        if (body == null || body.isBlank()) return "";
        String b = body.strip();
        return ": " + (b.length() > 300 ? b.substring(0, 300) + "…" : b);
    }

    static byte[] readFile(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new BatchException(Problem.STYLESHEET_NOT_FOUND, what + " " + file + " does not exist");
        } catch (IOException e) {
            throw new BatchException(Problem.STYLESHEET_NOT_FOUND, what + " " + file + " cannot be read: " + e);
        }
    }
}
