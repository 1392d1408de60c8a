package arno.batch;

import arno.testkit.Http;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 written by hand over a socket, for what Java's HttpClient will not send: a Host header
 * of the test's choosing.
 */
final class Raw {
    private Raw() {}

    /** POSTs an XML body to /batch/jobs with the given Host; returns the whole answer as text. */
    static String post(int port, String host, String body, String credentials) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST /batch/jobs HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/xml\r\n"
                + "Authorization: " + Http.basic(credentials)
                + "\r\nContent-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            return Http.readToEnd(socket.getInputStream());
        }
    }

    /** The value of a header in a raw answer, or null. */
    static String header(String answer, String name) {
        for (String line : answer.split("\r\n")) {
            if (line.isEmpty()) break;
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) return line.substring(colon + 1).strip();
        }
        return null;
    }
}
