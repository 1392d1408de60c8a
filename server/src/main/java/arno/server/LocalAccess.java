package arno.server;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.ErrorXml;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import arno.xml.IpAddress;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * The one gate of the commands' servlets under {@code /_arno/local/} ({@link LocalLoad},
 * {@link LocalCache}): an allowed method, a connection from this machine, and this run's token
 * from the data folder's {@link RunFile} (compared in constant time). Whoever can read that
 * owner-only file owns the data folder, so the token is the credential; see {@link RunFile}.
 */
final class LocalAccess {
    private final byte[] token;

    LocalAccess(String token) {
        this.token = token.getBytes(StandardCharsets.US_ASCII);
    }

    /** True when the request may go on; otherwise the refusal has been answered. */
    boolean admit(HttpServletRequest req, HttpServletResponse resp, Set<String> methods) throws IOException {
        if (!methods.contains(req.getMethod())) {
            String allowed = String.join(", ", methods.stream().sorted().toList());
            resp.setHeader("Allow", allowed);
            refuse(resp, ErrorCode.METHOD_NOT_ALLOWED.error(req.getRequestURI(), req.getMethod(), allowed));
            return false;
        }
        if (!sameMachine(req)) {
            refuse(resp, ErrorMessage.LOCAL_ONLY.error(req.getRequestURI()));
            return false;
        }
        String auth = req.getHeader("Authorization");
        byte[] given = auth != null && auth.startsWith("Bearer ")
                ? auth.substring(7).strip().getBytes(StandardCharsets.US_ASCII) : new byte[0];
        if (!MessageDigest.isEqual(given, token)) {
            resp.setHeader("WWW-Authenticate", "Bearer realm=\"arno-local\"");
            refuse(resp, ErrorMessage.NEEDS_RUN_TOKEN.error(req.getRequestURI(), RunFile.NAME));
            return false;
        }
        return true;
    }

    /** Answers {@code e} as an {@code err:error} with its status. */
    static void refuse(HttpServletResponse resp, ArnoException e) throws IOException {
        resp.setStatus(e.code().status());
        resp.setContentType("application/xml; charset=UTF-8");
        try (OutputStream o = resp.getOutputStream()) {
            o.write(ErrorXml.toBytes(e, null, false));
        }
    }

    /**
     * The commands' side: the server's refusal ({@code err:error}, or any other answer with
     * {@code status}) as this side's error, naming the server and what it refused. Its code is kept
     * when it says something to the user (no such thing, no or a wrong token); else {@code io}.
     */
    static ArnoException refused(RunFile run, String what, int status, String body) {
        String reason = "HTTP " + status;
        ErrorMessage message = ErrorMessage.SERVER_REFUSED;
        try {
            javax.xml.stream.XMLStreamReader r = arno.xml.XmlPolicy.streamOwn(new java.io.StringReader(body));
            while (r.hasNext() && r.next() != javax.xml.stream.XMLStreamConstants.START_ELEMENT) {
                // up to the root
            }
            if (r.isStartElement() && ErrorXml.NS.equals(r.getNamespaceURI()) && "error".equals(r.getLocalName())) {
                ArnoException e = ErrorXml.read(r, null);
                reason = e.getMessage();
                message = switch (e.code()) {
                    case NOT_FOUND -> ErrorMessage.SERVER_FOUND_NOTHING;
                    case UNAUTHORIZED -> ErrorMessage.SERVER_UNAUTHORIZED;
                    case FORBIDDEN -> ErrorMessage.SERVER_FORBIDDEN;
                    default -> ErrorMessage.SERVER_REFUSED;
                };
            }
        } catch (javax.xml.stream.XMLStreamException notAnError) {
            // said as the status
        }
        return message.error(run.url(), what, reason);
    }

    /**
     * The connection comes from this machine: loopback, or one of its own addresses calling itself.
     * Address literals only: a name (a trusted proxy's {@code X-Forwarded-For: localhost}) is not one.
     */
    private static boolean sameMachine(HttpServletRequest req) {
        InetAddress remote = IpAddress.parse(req.getRemoteAddr());
        return remote != null && (remote.isLoopbackAddress() || remote.equals(IpAddress.parse(req.getLocalAddr())));
    }
}
