package arno.batch;

import java.util.List;
import java.util.Locale;

/**
 * The service's own XML documents (namespace {@code urn:arno:batch}): a job's
 * status and progress, the list of jobs, and errors in the shared error
 * vocabulary ({@code urn:arno:error}).
 */
final class Views {
    static final String ERR = "urn:arno:error";

    private Views() {}

    /** {@code <job>}: settings, status, progress and links. {@code href} is the job's absolute URL. */
    static void status(Xml x, Job job, String href, boolean root) {
        long now = System.nanoTime();
        x.start("job");
        if (root) x.attr("xmlns", Batch.NS);
        x.attr("id", job.id).attr("href", href).attr("status", job.status.lower()).attr("name", job.name)
                .attr("kind", job.kind.name().toLowerCase(Locale.ROOT)).attr("stylesheet", job.stylesheet)
                .attr("priority", job.priority).attr("parallelism", job.parallelism).attr("user", job.user)
                .attr("submitted", job.submitted).attr("started", job.started).attr("finished", job.finishedAt)
                .attr("cancelled", job.cancelledAt).newline();
        long done = job.done();
        double rate = job.status == Job.Status.RUNNING ? job.rate(now) : 0;
        long remaining = job.remaining();
        x.start("progress").attr("total", job.total).attr("done", done).attr("succeeded", job.succeeded.get())
                .attr("failed", job.failed.get()).attr("not-run", job.notRun.get())
                .attr("running", job.status == Job.Status.RUNNING ? job.running.get() : 0)
                .attr("remaining", remaining)
                .attr("percent", job.total == 0 ? "100.0" : String.format(Locale.ROOT, "%.1f", 100.0 * done / job.total))
                .attr("rate", String.format(Locale.ROOT, "%.1f", rate))
                .attr("eta-seconds", rate > 0 ? String.format(Locale.ROOT, "%.1f", remaining / rate) : null)
                .end().newline();
        if (job.failure != null) x.element("failure", job.failure).newline();
        link(x, "report", href + "/report");
        link(x, "report-html", href + "/report?format=html");
        link(x, "batch", href + "/batch");
        x.end().newline();
    }

    private static void link(Xml x, String rel, String href) {
        x.start("link").attr("rel", rel).attr("href", href).end().newline();
    }

    static void list(Xml x, List<Job> jobs, String jobsHref) {
        x.declaration().start("jobs").attr("xmlns", Batch.NS).attr("href", jobsHref).attr("count", jobs.size()).newline();
        for (Job job : jobs) status(x, job, jobsHref + "/" + job.id, false);
        x.end().newline();
    }

    /** {@code err:error} with the code, the message, the location and any further messages. */
    static void error(Xml x, BatchException e, String jobHref) {
        x.declaration().start("err:error").attr("xmlns:err", ERR).attr("code", e.problem.code)
                .attr("status", e.problem.status).attr("job", jobHref).newline();
        x.element("err:message", e.getMessage()).newline();
        if (e.systemId != null || e.line > 0) {
            x.start("err:location").attr("system-id", e.systemId).attr("line", e.line > 0 ? e.line : null)
                    .attr("column", e.column > 0 ? e.column : null).end().newline();
        }
        for (BatchException.Detail d : e.details) {
            x.start("err:detail").attr("code", d.code()).attr("system-id", d.systemId())
                    .attr("line", d.line() > 0 ? d.line() : null).attr("column", d.column() > 0 ? d.column() : null)
                    .attr("warning", d.warning() ? "true" : null).text(d.message()).end().newline();
        }
        x.end().newline();
    }
}
