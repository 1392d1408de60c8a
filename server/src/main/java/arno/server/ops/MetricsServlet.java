package arno.server.ops;

import arno.http.AuthFilter;
import arno.http.Endpoint;
import arno.http.HeaderValues;
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
 * request); anyone else needs an account with the admin role (HTTP Basic, checked by the
 * {@link AuthFilter} the store and batch APIs stand behind too: throttled, off the request thread).
 */
final class MetricsServlet extends HttpServlet {
    private final transient Metrics metrics;

    private MetricsServlet(Metrics metrics) {
        this.metrics = metrics;
    }

    /**
     * The servlet behind its {@link AuthFilter}: open to {@code allowed} addresses (and to other
     * methods than GET and HEAD, which the servlet answers 405), else the admin role.
     */
    static Endpoint endpoint(Metrics metrics, Addresses allowed, Accounts accounts) {
        AuthFilter filter = AuthFilter.builder(accounts, "arno-metrics", (req, resp, e) -> {
                    resp.setHeader("Cache-Control", "no-store");
                    refuse(resp, e);
                })
                .open(AuthFilter.methods("GET", "HEAD").negate())
                .open(req -> allowed.admits(req.getRemoteAddr()))
                .require(AuthFilter.any(), Accounts.Role.ADMIN, ErrorMessage.METRICS_WHO, Operations.METRICS)
                .forbidden(ErrorMessage.METRICS_NEEDS_ADMIN)
                .build();
        return Endpoint.of(new MetricsServlet(metrics), filter);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setHeader("Cache-Control", "no-store");
        if (!req.getMethod().equals("GET") && !req.getMethod().equals("HEAD")) {
            resp.setHeader("Allow", "GET, HEAD");
            refuse(resp, ErrorCode.METHOD_NOT_ALLOWED.error(Operations.METRICS, req.getMethod(), "GET, HEAD"));
            return;
        }
        if (!AuthFilter.admitted(req)) {
            refuse(resp, ErrorMessage.MOUNTED_WITHOUT_FILTER.error(Operations.METRICS, "MetricsServlet.endpoint()"));
            return;
        }
        String type = HeaderValues.names(HeaderValues.of(req, "Accept"), "application/openmetrics-text")
                ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                : "text/plain; version=0.0.4; charset=utf-8";
        resp.setContentType(type);
        if (req.getMethod().equals("HEAD")) return;
        try (OutputStream o = resp.getOutputStream()) {
            metrics.scrape(o, type);
        }
    }

    /** Answers {@code e} as an {@code err:error} with its status. */
    static void refuse(HttpServletResponse resp, ArnoException e) throws IOException {
        refuse(resp, e, false);
    }

    /** As {@link #refuse(HttpServletResponse, ArnoException)}; {@code internals} shows a 5xx's message too. */
    static void refuse(HttpServletResponse resp, ArnoException e, boolean internals) throws IOException {
        resp.setStatus(e.code().status());
        resp.setContentType("application/xml; charset=UTF-8");
        try (OutputStream o = resp.getOutputStream()) {
            o.write(ErrorXml.toBytes(e, null, internals));
        }
    }
}
