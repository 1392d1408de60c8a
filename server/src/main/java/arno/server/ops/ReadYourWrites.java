package arno.server.ops;

import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;

/**
 * Read-your-writes in a cluster: a request that carries a minimum position of the cluster's log
 * (the header {@value #HEADER}, or the cookie {@value #COOKIE} the store API sets for the client
 * that wrote) waits until this node has applied it, at most the configured wait ({@code <cluster read-your-writes-wait>}, default {@link #WAIT}); then it is answered as
 * usual, or, if the node is still behind, 503 {@code busy} with {@code Retry-After}, so that the
 * client (or a load balancer's retry) tries again here or on another node, and never reads a copy
 * older than its own write. A request without a position is not touched. In front of every part
 * (pages, the store, batch, the console), as one filter.
 */
public final class ReadYourWrites extends HttpFilter {
    private static final long serialVersionUID = 1L;

    /** The request header naming the least position the answer must include. */
    public static final String HEADER = "Arno-Min-Position";

    /** The cookie the store API sets on a write in cluster mode, with the position it committed at. */
    public static final String COOKIE = "arno-position";

    /** The longest a request waits for its node; a commit is applied on a live node within milliseconds. */
    public static final Duration WAIT = Duration.ofSeconds(2);

    /** What the filter asks of the node. */
    public interface Positions {
        /** Whether the node has applied {@code position}, waiting at most {@code timeout}. */
        boolean awaitApplied(long position, Duration timeout) throws InterruptedException;

        /** The position the node has applied. */
        long position();
    }

    private final transient Positions node;
    private final Duration wait;

    public ReadYourWrites(Positions node, Duration wait) {
        this.node = node;
        this.wait = wait;
    }

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        long wanted;
        try {
            wanted = wanted(req);
        } catch (ArnoException e) {
            resp.setHeader("Cache-Control", "no-store");
            answer(resp, e);
            return;
        }
        if (wanted > 0) {
            boolean applied;
            try {
                applied = node.awaitApplied(wanted, wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                applied = false;
            }
            if (!applied) {
                resp.setHeader("Retry-After", "1");
                resp.setHeader("Cache-Control", "no-store");
                answer(resp, ErrorMessage.NODE_BEHIND.error(node.position(), wanted, wait.toMillis()));
                return;
            }
        }
        chain.doFilter(req, resp);
    }

    /**
     * The error with its message even for the 503: it says which positions, nothing internal, and a
     * client or an operator needs it to tell a lagging node from a failing one.
     */
    private static void answer(HttpServletResponse resp, ArnoException e) throws IOException {
        MetricsServlet.refuse(resp, e, true);
    }

    /** The larger of the header's and the cookie's position; 0 for none. */
    static long wanted(HttpServletRequest req) {
        long wanted = parse(HEADER, req.getHeader(HEADER));
        Cookie[] cookies = req.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) {
                // a cookie is the server's own: a malformed one is ignored, not refused
                if (c.getName().equals(COOKIE) && c.getValue().matches("[0-9]{1,18}")) {
                    wanted = Math.max(wanted, Long.parseLong(c.getValue()));
                }
            }
        }
        return wanted;
    }

    private static long parse(String name, String value) {
        if (value == null) return 0;
        String v = value.strip();
        if (!v.matches("[0-9]{1,18}")) throw ErrorMessage.BAD_POSITION.error(name, value);
        return Long.parseLong(v);
    }
}
