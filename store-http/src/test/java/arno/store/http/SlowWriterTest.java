package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Http;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow writers must not block every store write (issue 21, 3.7): with every write slot's worth of
 * clients trickling a body over raw sockets, a small write from another client is answered at
 * once, because a body is read to its end before its request takes a slot. Real Tomcat, real
 * store; the trickles would go on for minutes.
 */
class SlowWriterTest {
    @TempDir Path tmp;

    @Test void tricklingBodiesDoNotHoldTheWriteSlots() throws Exception {
        try (StoreServer server = new StoreServer(tmp)) {
            assertThat(server.write("POST", "/", WriteApiTest.ENTRY, WriteApiTest.entry("journals", "Journals", ""), "Slug", "journals")
                    .statusCode()).isEqualTo(201);
            String type = "application/atom+xml;type=entry";
            String entry = WriteApiTest.entry("journal", "Slow", "");
            AtomicBoolean stop = new AtomicBoolean();
            List<Socket> trickles = new ArrayList<>();
            List<Thread> writers = new ArrayList<>();
            try {
                // One more than there are slots: each holds one while it trickles, if slots are taken first.
                for (int i = 0; i <= StoreServlet.WRITE_SLOTS; i++) {
                    Socket s = new Socket("127.0.0.1", server.port);
                    trickles.add(s);
                    OutputStream out = s.getOutputStream();
                    out.write(("POST /store/journals/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                            + Http.basic(StoreServer.EDITOR) + "\r\nContent-Type: " + type + "\r\nSlug: slow" + i
                            + "\r\nContent-Length: " + (entry.length() + 100_000) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    Thread w = new Thread(() -> {
                        try {
                            // A byte every 50 ms: the whole body would take more than an hour.
                            while (!stop.get()) {
                                out.write(' ');
                                out.flush();
                                Thread.sleep(50);
                            }
                        } catch (IOException | InterruptedException e) {
                            // closed at the end of the test
                        }
                    });
                    w.setDaemon(true);
                    w.start();
                    writers.add(w);
                }
                Thread.sleep(500); // the trickling requests have been authenticated and are reading their bodies

                long start = System.nanoTime();
                HttpResponse<String> quick = server.send(server.request("/journals/", StoreServer.EDITOR)
                        .timeout(Duration.ofSeconds(10)).header("Content-Type", type).header("Slug", "quick")
                        .POST(HttpRequest.BodyPublishers.ofString(WriteApiTest.entry("journal", "Quick", ""))).build());
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertThat(quick.statusCode()).as(quick.body()).isEqualTo(201);
                // An account's first check costs a PBKDF2 hash (a fifth of a second on one core); nothing waits on the trickles.
                assertThat(millis).as("a small write while others trickle").isLessThan(5_000);
                assertThat(server.get("/journals/quick.atom").statusCode()).isEqualTo(200);
            } finally {
                stop.set(true);
                for (Socket s : trickles) s.close();
                for (Thread w : writers) w.join(5_000);
            }
        }
    }
}
