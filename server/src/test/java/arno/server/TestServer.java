package arno.server;

import arno.server.config.Config;
import arno.testkit.Http;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.commons.io.FileUtils;

/**
 * A real Arno on embedded Tomcat, on an ephemeral loopback port, serving a
 * private copy of a test root (so tests may edit its files), with a real
 * HTTP client.
 */
final class TestServer implements AutoCloseable {
    final Path root;
    final ArnoServer server;
    final HttpClient client = Http.client();

    private TestServer(Path root, ArnoServer server) {
        this.root = root;
        this.server = server;
    }

    /**
     * Copies src/test/resources/{name} and serves it as an installation: shared packages in
     * stylesheets/packages/ (the templates' from the class path), sites in sites/, content in content/.
     */
    static TestServer start(String name, boolean development, long bodyLimit) throws IOException {
        return start(copy(name), development, bodyLimit);
    }

    /** A private copy of src/test/resources/{name}, to edit before or while serving it. */
    static Path copy(String name) throws IOException {
        Path root = Files.createTempDirectory("arno-test");
        FileUtils.copyDirectory(Path.of("src/test/resources", name).toFile(), root.toFile());
        return root;
    }

    static TestServer start(Path root, boolean development, long bodyLimit) throws IOException {
        return start(root, development, bodyLimit, null);
    }

    static TestServer start(Path root, boolean development, long bodyLimit, arno.store.Store store) throws IOException {
        Config defaults = Config.defaults(root);
        return start(root, development, bodyLimit, store, defaults.workers(), defaults.queue());
    }

    static TestServer start(Path root, boolean development, long bodyLimit, arno.store.Store store, int workers, int queue) {
        return new TestServer(root, ArnoServer.start(config(root, development, bodyLimit, workers, queue),
                store));
    }

    /** As {@link #start(Path, boolean, long, arno.store.Store, int, int)}, bound but not serving: mount, then {@code server.serve()}. */
    static TestServer bind(Path root, boolean development, long bodyLimit, arno.store.Store store, int workers, int queue) {
        return new TestServer(root, ArnoServer.bind(config(root, development, bodyLimit, workers, queue), store));
    }

    /** The configuration of an installation at {@code root} whose data folder is root itself (content in root/content). */
    static Config config(Path root, boolean development, long bodyLimit, int workers, int queue) {
        Config.Builder b = Config.defaults(root).toBuilder();
        b.data = root;
        b.production = !development;
        b.port = 0;
        b.bodyLimit = bodyLimit;
        b.workers = workers;
        b.queue = queue;
        return b.build();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) b.headers(headers);
        return send(b.GET().build());
    }

    HttpResponse<String> send(HttpRequest request) {
        return Http.send(client, request);
    }

    @Override
    public void close() {
        server.close();
        FileUtils.deleteQuietly(root.toFile());
    }
}
