package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import arno.testkit.Http;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ./arno serve} in this JVM, on a free port, serving until {@link #stop()}, its standard
 * error kept: a node of the cluster's server tests ({@code serve --port 0} and the arguments given).
 */
final class ServingNode {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static final Pattern ACCOUNT = Pattern.compile("account for this (?:cluster|data folder): (\\S+:\\S+) ");

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CompletableFuture<Integer> status;

    /** Serves with {@code serve --port 0} followed by {@code arguments}. */
    ServingNode(String... arguments) {
        List<String> args = new ArrayList<>(List.of("serve", "--port", "0"));
        args.addAll(List.of(arguments));
        status = CompletableFuture.supplyAsync(() -> Main.run(args.toArray(String[]::new),
                new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true, StandardCharsets.UTF_8),
                Cli.serving(p -> {
                    port.complete(p);
                    try {
                        stop.await(5, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })));
        status.whenComplete((s, e) -> port.completeExceptionally(new AssertionError("serve ended with " + s + ": " + err())));
    }

    /** The port, once serving. */
    int port() throws Exception {
        return port.get(3, TimeUnit.MINUTES);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /**
     * The development account this node printed, {@code name:password}: the cluster's (printed by
     * the node that created it) or the data folder's.
     */
    String account() {
        Matcher m = ACCOUNT.matcher(err());
        assertThat(m.find()).as(err()).isTrue();
        return m.group(1);
    }

    /**
     * The cluster's development account, from whichever of {@code nodes} created it and printed
     * its password (nodes started together race to it).
     */
    static String account(java.util.Collection<ServingNode> nodes) {
        StringBuilder all = new StringBuilder();
        for (ServingNode n : nodes) {
            Matcher m = ACCOUNT.matcher(n.err());
            if (m.find()) return m.group(1);
            all.append(n.err());
        }
        throw new AssertionError("no node printed the development account:\n" + all);
    }

    /** Stops serving; serve's exit status. */
    int stop() throws Exception {
        stop.countDown();
        return status.get(1, TimeUnit.MINUTES);
    }

    HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)));
    }

    HttpResponse<String> get(String path, String header, String value) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).header(header, value));
    }

    URI uri(String path) throws Exception {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return Http.send(CLIENT, request.build());
    }
}
