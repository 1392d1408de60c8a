package arno.batch;

import arno.http.AuthFilter;
import arno.http.HeaderValues;
import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Hosts;
import arno.xml.XmlWriter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP face of the batch service, mounted at {@code /batch/*} behind its
 * {@link #filter()} ({@link BatchService#endpoint()}). Everything but the schema
 * needs an account (HTTP Basic): reports name server paths, parameters and
 * messages. Every error is an {@code err:error} document with the status of its
 * {@link ErrorCode}.
 *
 * <p>URLs in answers ({@code Location}, links in status documents) are
 * relative ({@code /batch/jobs/ID}, as RFC 9110 allows) unless the request's
 * {@code Host} names a host configured in {@link BatchOptions#hosts()}: a
 * header the client chose never reaches an answer otherwise.
 *
 * <pre>
 * POST   /batch/jobs                  submit a batch       202 + Location, 400, 401, 403, 413, 415, 422, 503 + Retry-After
 * GET    /batch/jobs                  all jobs, newest first
 * GET    /batch/jobs/{id}             status and progress
 * DELETE /batch/jobs/{id}             cancel               202, 404, 409
 * GET    /batch/jobs/{id}/report      the report (?format=html for people; also by Accept)
 * GET    /batch/jobs/{id}/svrl/{n}    the SVRL of input n (Schematron jobs)
 * GET    /batch/jobs/{id}/batch       the batch as submitted
 * GET    /batch/schema                the batch document's XSD
 * </pre>
 */
final class BatchServlet extends HttpServlet {
    private static final Pattern JOB = Pattern.compile("/jobs/([A-Za-z0-9-]+)(/report|/batch|/svrl/(\\d+)(?:\\.xml)?)?/?");
    private static final String XML = "application/xml;charset=UTF-8";

    private final transient BatchService service;

    BatchServlet(BatchService service) {
        this.service = service;
    }

    /**
     * The check in front of it: the schema open, reads with the read role, submitting and
     * cancelling with the write role; refusals answered as every error here is.
     */
    AuthFilter filter() {
        return AuthFilter.builder(service.accounts(), "arno-batch", (req, resp, e) -> {
                    resp.setHeader("Cache-Control", "no-store");
                    error(req, resp, e, null);
                })
                .open(AuthFilter.paths("/schema"))
                .require(AuthFilter.methods("GET", "HEAD"), Accounts.Role.READ, ErrorMessage.BATCH_NEEDS_ACCOUNT)
                .require(AuthFilter.any(), Accounts.Role.WRITE, ErrorMessage.BATCH_NEEDS_ACCOUNT)
                .build();
    }

    @Override protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        String method = req.getMethod();
        resp.setHeader("Cache-Control", "no-store");
        try {
            if (!AuthFilter.admitted(req)) {
                // Mounted alone, jobs would be open to anyone: refuse everything instead.
                throw ErrorMessage.MOUNTED_WITHOUT_FILTER.error("the batch service", "BatchService.endpoint()");
            }
            // Checked once by the filter (the password hash is slow on purpose); null for the schema.
            Accounts.Account user = AuthFilter.account(req);
            if (path.equals("/") || path.equals("/jobs") || path.equals("/jobs/")) {
                switch (method) {
                    case "GET", "HEAD" -> list(req, resp);
                    case "POST" -> submit(req, resp, user);
                    default -> notAllowed(req, resp, "GET, HEAD, POST");
                }
            } else if (path.equals("/schema")) {
                if (!method.equals("GET") && !method.equals("HEAD")) {
                    notAllowed(req, resp, "GET, HEAD");
                    return;
                }
                resp.setContentType(XML);
                try (InputStream in = BatchServlet.class.getResourceAsStream("/arno/schema/batch.xsd")) {
                    in.transferTo(resp.getOutputStream());
                }
            } else {
                Matcher m = JOB.matcher(path);
                if (!m.matches()) throw ErrorMessage.NO_BATCH_RESOURCE.error(req.getRequestURI());
                Job job = service.job(m.group(1));
                String sub = m.group(2);
                if (sub == null) {
                    switch (method) {
                        case "GET", "HEAD" -> status(req, resp, job, HttpServletResponse.SC_OK);
                        case "DELETE" -> cancel(req, resp, job);
                        default -> notAllowed(req, resp, "GET, HEAD, DELETE");
                    }
                } else if (!method.equals("GET") && !method.equals("HEAD")) {
                    notAllowed(req, resp, "GET, HEAD");
                } else if (sub.equals("/report")) {
                    report(req, resp, job);
                } else if (sub.equals("/batch")) {
                    file(resp, service.file(job, "batch", null), "batch", Job.BATCH);
                } else {
                    // The pattern admits digits only; the name is the digits as they are (no number to overflow).
                    String n = m.group(3).replaceFirst("^0+(?=.)", "");
                    file(resp, n.length() > 18 ? null : service.file(job, "svrl", n), "SVRL", n + ".xml");
                }
            }
        } catch (BatchService.FailedAtOnce e) {
            String href = jobsUrl(req) + "/" + e.job.id;
            resp.setHeader("Location", href);
            error(req, resp, e.cause, href);
        } catch (ArnoException e) {
            error(req, resp, e, null);
        } catch (java.io.UncheckedIOException e) {
            // Reading the request failed (a client gone mid-upload, broken chunking): nothing was queued.
            if (!resp.isCommitted()) {
                error(req, resp, ErrorMessage.BODY_UNREADABLE.error(e, e.getCause().getMessage()), null);
            }
        }
    }

    private void submit(HttpServletRequest req, HttpServletResponse resp, Accounts.Account user) throws IOException {
        String type = req.getContentType();
        if (type != null) {
            String media = HeaderValues.mediaType(type);
            if (media == null || !media.equals("application/xml") && !media.equals("text/xml") && !media.endsWith("+xml")) {
                throw ErrorMessage.BATCH_TYPE.error(type);
            }
        }
        Job job = service.submit(req.getInputStream(), req.getHeader("Content-Location"), user);
        resp.setHeader("Location", jobsUrl(req) + "/" + job.id);
        status(req, resp, job, HttpServletResponse.SC_ACCEPTED);
    }

    private void cancel(HttpServletRequest req, HttpServletResponse resp, Job job) throws IOException {
        // in cluster mode a job run by another node is read again: the cancel is in the shared record
        status(req, resp, service.cancel(job.id), HttpServletResponse.SC_ACCEPTED);
    }

    private void list(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        XmlWriter x = new XmlWriter(body);
        Views.list(x, service.jobs(), jobsUrl(req));
        x.finish();
        send(resp, HttpServletResponse.SC_OK, body, req.getMethod());
    }

    private void status(HttpServletRequest req, HttpServletResponse resp, Job job, int status) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        XmlWriter x = new XmlWriter(body);
        x.declaration();
        Views.status(x, job, jobsUrl(req) + "/" + job.id, true);
        x.finish();
        send(resp, status, body, req.getMethod());
    }

    private void report(HttpServletRequest req, HttpServletResponse resp, Job job) throws IOException {
        String format = req.getParameter("format");
        if (format == null) {
            format = HeaderValues.names(HeaderValues.of(req, "Accept"), "text/html") ? "html" : "xml";
        }
        if (!format.equals("html") && !format.equals("xml")) {
            throw ErrorMessage.NO_REPORT_FORMAT.error(format);
        }
        ReportWriter.Mark mark = service.reportMark(job);
        java.util.function.Supplier<InputStream> source = () -> {
            try {
                if (mark == null) {
                    return new java.io.ByteArrayInputStream(JobRun.element(x -> x.declaration().start("report")
                            .attr("xmlns", Batch.NS).attr("job", job.id).attr("name", job.name)
                            .attr("kind", job.kind.name().toLowerCase(Locale.ROOT)).attr("stylesheet", job.stylesheet)
                            .attr("inputs", job.total).attr("submitted", job.submitted).end())
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
                return service.report(job, mark);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        if (req.getMethod().equals("HEAD")) {
            resp.setContentType(format.equals("html") ? "text/html;charset=UTF-8" : XML);
            return;
        }
        if (format.equals("html")) {
            resp.setContentType("text/html;charset=UTF-8");
            ReportHtml.render(source, resp.getOutputStream(), "failed".equals(req.getParameter("only")), statusLine(job));
        } else {
            resp.setContentType(XML);
            try (InputStream in = source.get()) {
                in.transferTo(resp.getOutputStream());
            }
        }
    }

    private static String statusLine(Job job) {
        StringBuilder s = new StringBuilder(job.status.lower()).append(": ").append(job.done()).append(" of ")
                .append(job.total).append(" done, ").append(job.failed.get()).append(" failed");
        if (job.notRun.get() > 0) s.append(", ").append(job.notRun.get()).append(" not run");
        if (job.status == Job.Status.RUNNING) {
            double rate = job.rate(System.nanoTime());
            if (rate > 0) {
                s.append(String.format(Locale.ROOT, ", %.1f/s, about %.0f s left", rate, job.remaining() / rate));
            }
        }
        return s.toString();
    }

    private static void file(HttpServletResponse resp, InputStream file, String what, String name) throws IOException {
        if (file == null) throw ErrorMessage.JOB_HAS_NO_FILE.error(what, name);
        resp.setContentType(XML);
        if (file instanceof java.io.FileInputStream f) resp.setContentLengthLong(f.getChannel().size());
        try (InputStream in = file; OutputStream out = resp.getOutputStream()) {
            in.transferTo(out);
        }
    }

    private static void notAllowed(HttpServletRequest req, HttpServletResponse resp, String allow) {
        resp.setHeader("Allow", allow);
        throw ErrorCode.METHOD_NOT_ALLOWED.error(req.getRequestURI(), req.getMethod(), allow);
    }

    private void error(HttpServletRequest req, HttpServletResponse resp, ArnoException e, String jobHref) throws IOException {
        if (resp.isCommitted()) return;
        if ((e.code() == ErrorCode.BUSY || e.code() == ErrorCode.SHUTTING_DOWN) && !resp.containsHeader("Retry-After")) {
            resp.setHeader("Retry-After", Long.toString(service.retryAfterSeconds()));
        }
        // The body of a refused POST may be unread; Tomcat then closes the connection rather than drain it.
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(Views.error(service.engine().processor(), e, jobHref));
        send(resp, e.status(), body, req.getMethod());
    }

    private static void send(HttpServletResponse resp, int status, ByteArrayOutputStream body, String method) throws IOException {
        resp.setStatus(status);
        resp.setContentType(XML);
        resp.setContentLength(body.size());
        if (!"HEAD".equals(method)) body.writeTo(resp.getOutputStream());
    }

    /** The URL of the job list: absolute only when the request's {@code Host} names a configured host ({@link Hosts}). */
    private String jobsUrl(HttpServletRequest req) {
        return Hosts.base(service.options().hosts(), req.getScheme(), req.getServerName(), req.getServerPort())
                + req.getContextPath() + req.getServletPath() + "/jobs";
    }
}
