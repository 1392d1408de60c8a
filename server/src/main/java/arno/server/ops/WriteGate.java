package arno.server.ops;

import arno.xml.Accounts;
import arno.xml.ErrorMessage;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * In production, a write API (the store's writes, batch submissions and cancellations) stays
 * closed while no account has the write role: every method but GET, HEAD and OPTIONS is refused
 * (403 {@code forbidden}) with what an administrator must run. It opens by itself as soon as the
 * accounts file has such an account (the file is re-read when it changes), without a restart.
 * Reads are the wrapped servlet's business, as before.
 *
 * <p>Why refuse rather than let the API answer 401: without any account a client can only ever
 * be told its password is wrong, and the person running the server is never told why writing
 * does not work. The check is one look at the accounts file's attributes per write.
 */
final class WriteGate extends HttpServlet {
    private final HttpServlet inner;
    private final transient Accounts accounts;
    private final String what;

    WriteGate(HttpServlet inner, Accounts accounts, String what) {
        this.inner = inner;
        this.accounts = accounts;
        this.what = what;
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        inner.init(config);
    }

    @Override
    public void destroy() {
        inner.destroy();
    }

    @Override
    public void service(ServletRequest request, ServletResponse response) throws ServletException, IOException {
        HttpServletRequest req = (HttpServletRequest) request;
        String m = req.getMethod();
        if (!m.equals("GET") && !m.equals("HEAD") && !m.equals("OPTIONS") && !accounts.anyWith(Accounts.Role.WRITE)) {
            HttpServletResponse resp = (HttpServletResponse) response;
            resp.setHeader("Cache-Control", "no-store");
            MetricsServlet.refuse(resp, ErrorMessage.WRITING_CLOSED.error(what, Operations.ADD_WRITER));
            return;
        }
        inner.service(request, response);
    }
}
