package arno.store.http;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.testkit.EmbeddedTomcat;
import arno.testkit.Http;
import arno.xml.Accounts;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

/**
 * A real store in a folder, the real service on it, and the API on the test kit's embedded Tomcat
 * on an ephemeral port, as the server mounts it ({@code CONTEXT/store/*}). Accounts: an editor (read,
 * write), a reader (read), a writer without read and an administrator (every role).
 */
final class StoreServer implements AutoCloseable {
    static final String EDITOR = "editor:editor-password";
    static final String READER = "reader:reader-password";
    static final String WRITE_ONLY = "poster:poster-password";
    static final String ADMIN = "admin:admin-password";

    final Store store;
    final AtomStore atoms;
    final Accounts accounts;
    final String context;
    private final EmbeddedTomcat tomcat;
    final int port;
    final HttpClient http = Http.client();

    StoreServer(Path dir, StoreOptions options, StoreServlet.ReadPolicy reads, long maxBody, String context) {
        this(dir, options, reads, maxBody, context, DeleteGuard.DEFAULT, List.of());
    }

    /** {@code hosts}: the host names the server answers as ({@code --host}), for absolute Locations. */
    StoreServer(Path dir, StoreOptions options, StoreServlet.ReadPolicy reads, long maxBody, String context,
                List<String> hosts) {
        this(dir, options, reads, maxBody, context, DeleteGuard.DEFAULT, hosts);
    }

    StoreServer(Path dir, StoreOptions options, StoreServlet.ReadPolicy reads, long maxBody, String context,
                DeleteGuard deletes, List<String> hosts) {
        this.context = context;
        this.store = Store.open(dir.resolve("store"), options);
        this.atoms = AtomStore.open(store, AtomOptions.defaults().hrefPrefix(context + "/store").hosts(hosts));
        this.accounts = new Accounts(dir.resolve("users"));
        if (accounts.isEmpty()) {
            accounts.add("editor", "editor-password", EnumSet.of(Accounts.Role.READ, Accounts.Role.WRITE));
            accounts.add("reader", "reader-password", EnumSet.of(Accounts.Role.READ));
            accounts.add("poster", "poster-password", EnumSet.of(Accounts.Role.WRITE));
            accounts.add("admin", "admin-password", Accounts.ALL_ROLES);
        }
        tomcat = EmbeddedTomcat.builder().context(context)
                .mount(ctx -> new StoreServlet(atoms, accounts, reads, maxBody, deletes).endpoint().mount(ctx, "store", "/store/*"))
                .start();
        port = tomcat.port();
    }

    StoreServer(Path dir) {
        this(dir, DeleteGuard.DEFAULT);
    }

    StoreServer(Path dir, DeleteGuard deletes) {
        this(dir, StoreOptions.defaults().mapSize(256L << 20), StoreServlet.ReadPolicy.PUBLIC, 1 << 20, "", deletes, List.of());
    }

    /** The URL of a path under the mount ({@code /journals.atom} → {@code http://…/store/journals.atom}). */
    URI url(String path) {
        return URI.create(path.startsWith("http") ? path : "http://127.0.0.1:" + port + context + "/store" + path);
    }

    /** A request builder for {@code path}, with credentials unless null. */
    HttpRequest.Builder request(String path, String credentials) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url(path)).timeout(Duration.ofSeconds(30));
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        return b;
    }

    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = request(path, null).GET();
        if (headers.length > 0) b.headers(headers);
        return send(b.build());
    }

    HttpResponse<byte[]> getBytes(String path, String... headers) {
        HttpRequest.Builder b = request(path, null).GET();
        if (headers.length > 0) b.headers(headers);
        return Http.send(http, b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<String> head(String path, String... headers) {
        HttpRequest.Builder b = request(path, null).method("HEAD", HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) b.headers(headers);
        return send(b.build());
    }

    /** A write with the editor's credentials: method, path, content type (null: none), body, more headers. */
    HttpResponse<String> write(String method, String path, String type, String body, String... headers) {
        return write(EDITOR, method, path, type, body == null ? null : body.getBytes(StandardCharsets.UTF_8), headers);
    }

    HttpResponse<String> write(String credentials, String method, String path, String type, byte[] body, String... headers) {
        HttpRequest.Builder b = request(path, credentials)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (type != null) b.header("Content-Type", type);
        if (headers.length > 0) b.headers(headers);
        return send(b.build());
    }

    /** A POST whose body has no Content-Length (chunked). */
    HttpResponse<String> postChunked(String path, String type, InputStream body, String... headers) {
        HttpRequest.Builder b = request(path, EDITOR).POST(HttpRequest.BodyPublishers.ofInputStream(() -> body))
                .header("Content-Type", type);
        if (headers.length > 0) b.headers(headers);
        return send(b.build());
    }

    HttpResponse<String> send(HttpRequest r) {
        return Http.send(http, r);
    }

    @Override
    public void close() {
        tomcat.close();
        atoms.close();
        store.close();
    }
}
