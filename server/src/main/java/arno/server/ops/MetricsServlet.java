package arno.server.ops;

import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.ErrorXml;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * {@code GET /_arno/metrics}: {@link Metrics} in Prometheus' text format (OpenMetrics when the
 * scraper asks for it in Accept).
 *
 * <p>Who may read it: Prometheus scrapers seldom carry credentials, and the figures (site and
 * route names, request rates, heap) are not secrets but are nobody else's business either. So it
 * answers, without credentials, this machine (loopback) and the configured addresses (by default
 * the trusted proxies' networks, where an operator's scraper usually sits; a client coming
 * through a trusted proxy is judged by its own address, which RemoteIpValve has put on the
 * request); anyone else needs an account with the admin role (HTTP Basic, checked as the store
 * and batch APIs check theirs: throttled, off the request thread).
 */
final class MetricsServlet extends HttpServlet {
    private final transient Metrics metrics;
    private final transient Addresses allowed;
    private final transient Accounts accounts;

    MetricsServlet(Metrics metrics, Addresses allowed, Accounts accounts) {
        this.metrics = metrics;
        this.allowed = allowed;
        this.accounts = accounts;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setHeader("Cache-Control", "no-store");
        if (!req.getMethod().equals("GET") && !req.getMethod().equals("HEAD")) {
            resp.setHeader("Allow", "GET, HEAD");
            refuse(resp, ErrorCode.METHOD_NOT_ALLOWED.error(Operations.METRICS, req.getMethod(), "GET, HEAD"));
            return;
        }
        if (!allowed.admits(req.getRemoteAddr()) && !admin(req, resp)) return;
        String accept = req.getHeader("Accept");
        String type = accept != null && accept.contains("application/openmetrics-text")
                ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                : "text/plain; version=0.0.4; charset=utf-8";
        resp.setContentType(type);
        if (req.getMethod().equals("HEAD")) return;
        try (OutputStream o = resp.getOutputStream()) {
            metrics.scrape(o, type);
        }
    }

    /** True for an account with the admin role; otherwise the refusal has been answered. */
    private boolean admin(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String header = req.getHeader("Authorization");
        try {
            if (header == null) throw ErrorMessage.METRICS_WHO.error(Operations.METRICS);
            Accounts.Account account = accounts.check(header, req.getRemoteAddr());
            if (account.has(Accounts.Role.ADMIN)) return true;
            refuse(resp, ErrorMessage.METRICS_NEEDS_ADMIN.error(account.name(), Operations.METRICS));
        } catch (Accounts.Refusal e) {
            if (e.retryAfterSeconds() > 0) resp.setHeader("Retry-After", Long.toString(e.retryAfterSeconds()));
            if (e.code() == ErrorCode.UNAUTHORIZED) resp.setHeader("WWW-Authenticate", "Basic realm=\"arno-metrics\", charset=\"UTF-8\"");
            refuse(resp, e);
        } catch (ArnoException e) {
            if (e.code() == ErrorCode.UNAUTHORIZED) resp.setHeader("WWW-Authenticate", "Basic realm=\"arno-metrics\", charset=\"UTF-8\"");
            refuse(resp, e);
        }
        return false;
    }

    /** Answers {@code e} as an {@code err:error} with its status. */
    static void refuse(HttpServletResponse resp, ArnoException e) throws IOException {
        resp.setStatus(e.code().status());
        resp.setContentType("application/xml; charset=UTF-8");
        try (OutputStream o = resp.getOutputStream()) {
            o.write(ErrorXml.toBytes(e, null, false));
        }
    }
}
