package arno.server.ops;

import arno.xml.Accounts;
import arno.xml.ErrorCode;
import jakarta.servlet.FilterChain;
import arno.xml.ErrorMessage;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * In production, a write API (the store's writes, batch submissions and cancellations) stays
 * closed while no account has the write role: every method but GET, HEAD and OPTIONS is refused
 * (403 {@code forbidden}) with what an administrator must run. It opens by itself as soon as the
 * accounts file has such an account (the file is re-read when it changes), without a restart.
 * Reads are the API's business, as before. A filter in front of the API's own
 * {@link arno.http.AuthFilter} ({@link Operations#gateWrites}), so that it speaks first.
 *
 * <p>Why refuse rather than let the API answer 401: without any account a client can only ever
 * be told its password is wrong, and the person running the server is never told why writing
 * does not work. The check is one look at the accounts file's attributes per write.
 */
final class WriteGate extends HttpFilter {
    private static final long serialVersionUID = 1L;
    private final transient Accounts accounts;
    private final String what;

    WriteGate(Accounts accounts, String what) {
        this.accounts = accounts;
        this.what = what;
    }

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        String m = req.getMethod();
        if (!m.equals("GET") && !m.equals("HEAD") && !m.equals("OPTIONS") && !accounts.anyWith(Accounts.Role.WRITE)) {
            resp.setHeader("Cache-Control", "no-store");
            MetricsServlet.refuse(resp, ErrorMessage.WRITING_CLOSED.error(what, Operations.ADD_WRITER));
            return;
        }
        chain.doFilter(req, resp);
    }
}
