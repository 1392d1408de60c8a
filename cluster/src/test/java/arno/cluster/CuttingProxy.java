package arno.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback TCP proxy in front of a PostgreSQL server that can cut a connection at its next
 * COMMIT, either before the COMMIT reaches the server or after the server has it but before its
 * answer reaches the client: the two ways a network fails a writer at the worst moment. The
 * connection is really cut (both sockets closed), so the server process sees its client go.
 */
final class CuttingProxy implements AutoCloseable {

    /** Where the next COMMIT's connection is cut. */
    enum Cut {
        /** The COMMIT never reaches the server: the transaction aborts. */
        BEFORE_COMMIT,
        /** The server gets the COMMIT; its answer never reaches the client. */
        AFTER_COMMIT
    }

    private final int target;
    private final ServerSocket listening;
    private final AtomicReference<Cut> armed = new AtomicReference<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile int cuts;
    /** After the next cut, new connections are closed at once: the database out of reach. */
    private volatile boolean refuseAfterCut;
    private volatile boolean refusing;

    CuttingProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "cutting-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listening.getLocalPort();
    }

    /** Cuts the connection that sends the next COMMIT, as {@code cut} says. */
    void arm(Cut cut) {
        armed.set(cut);
    }

    /**
     * Cuts the connection that sends the next COMMIT, as {@code cut} says, and with it every other
     * one, and from then on closes every new connection as it comes, until {@link #reachable}: the
     * database gone with the COMMIT.
     */
    void armAndGo(Cut cut) {
        refuseAfterCut = true;
        armed.set(cut);
    }

    /** New connections reach the server again. */
    void reachable() {
        refuseAfterCut = false;
        refusing = false;
    }

    /** How many connections were cut. */
    int cuts() {
        return cuts;
    }

    private void accept() {
        while (!listening.isClosed()) {
            try {
                Socket client = listening.accept();
                if (refusing) {
                    close(client);
                    continue;
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 2000);
                sockets.add(client);
                sockets.add(server);
                java.util.concurrent.atomic.AtomicBoolean answerLost = new java.util.concurrent.atomic.AtomicBoolean();
                pump(client, server, true, answerLost);
                pump(server, client, false, answerLost);
            } catch (IOException closed) {
                // the proxy closed, or the server is down: the client sees its connection fail
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient, java.util.concurrent.atomic.AtomicBoolean answerLost) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (fromClient && isCommit(buffer, n)) {
                        Cut cut = armed.getAndSet(null);
                        if (cut == Cut.BEFORE_COMMIT) {
                            cut(from, to);
                            return;
                        }
                        if (cut == Cut.AFTER_COMMIT) {
                            answerLost.set(true);
                            out.write(buffer, 0, n);
                            out.flush();
                            // long enough for the server to commit, while its answer is dropped
                            Thread.sleep(300);
                            cut(from, to);
                            return;
                        }
                    }
                    if (!fromClient && answerLost.get()) continue;
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException closed) {
                // one side went: the other pump ends with it
            } finally {
                close(from);
                close(to);
            }
        }, "cutting-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** A chunk holding the statement COMMIT (a query string ends with a zero byte; "READ COMMITTED" is not it). */
    private static boolean isCommit(byte[] buffer, int n) {
        return new String(buffer, 0, n, StandardCharsets.ISO_8859_1).contains("\0COMMIT\0");
    }

    private void cut(Socket a, Socket b) {
        cuts++;
        close(a);
        close(b);
        if (refuseAfterCut) {
            refusing = true;
            // the database gone: every connection the pool holds goes with it
            for (Socket s : sockets) close(s);
        }
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        listening.close();
        for (Socket s : sockets) close(s);
    }
}
