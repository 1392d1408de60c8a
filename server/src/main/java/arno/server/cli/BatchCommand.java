package arno.server.cli;

import arno.batch.client.BatchClient;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno batch ...}: the client of a running server's batch service, over
 * {@link BatchClient}. Results go to standard output, progress and errors to standard error.
 *
 * <p>Exit statuses (batch/README.md): 0 done and nothing failed; 1 the batch or request was
 * refused, or (with {@code --wait}) a transformation failed, or the job failed or was cancelled;
 * 2 wrong command line; 3 the server cannot be reached or answered with a server error.
 */
@Command(name = "batch", mixinStandardHelpOptions = true,
        description = "The batch client: submit batches to a running server, follow them, read their reports.",
        subcommands = {BatchCommand.Submit.class, BatchCommand.Status.class, BatchCommand.Report.class,
                BatchCommand.ListJobs.class, BatchCommand.Cancel.class},
        footer = {"", "Example:", "  ./arno batch submit batch/examples/articles.batch.xml --wait --user arno:PASSWORD",
                "", "Exit status: 0 done, nothing failed; 1 refused or failed; 2 wrong usage; 3 server unreachable."})
public final class BatchCommand implements Runnable {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int UNREACHABLE = 3;

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a batch command is needed: submit, status, report, list or cancel");
    }

    /** The server and the account, shared by every subcommand. */
    static final class Connection {
        @Option(names = "--server", paramLabel = "URL", defaultValue = "${env:ARNO_SERVER:-http://127.0.0.1:8080}",
                description = "the Arno server (default: $ARNO_SERVER, else ${DEFAULT-VALUE})")
        URI server;

        @Option(names = "--user", paramLabel = "NAME:PASSWORD",
                description = "a batch account (default: $ARNO_BATCH_USER)")
        String user;

        BatchClient client() {
            String credentials = user != null ? user : System.getenv("ARNO_BATCH_USER");
            if (server.getScheme() == null || !server.getScheme().startsWith("http")) {
                throw ErrorMessage.SERVER_NOT_URL.error(server);
            }
            return new BatchClient(server, credentials);
        }
    }

    /** What every subcommand does around its work: the client, and one way to end in an exit status. */
    abstract static class Base implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Connection connection;

        abstract int work(BatchClient client, PrintWriter out, PrintWriter err) throws IOException, InterruptedException;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            BatchClient client = connection.client();
            try {
                return work(client, out, err);
            } catch (BatchClient.Refused r) {
                printRefusal(r, err);
                return r.httpStatus() >= 500 && r.code() != ErrorCode.BUSY && r.code() != ErrorCode.SHUTTING_DOWN
                        ? UNREACHABLE : FAILED;
            } catch (IOException e) {
                err.println("arno batch: cannot reach the batch service at " + client.server() + " ("
                        + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName())
                        + "); is the server running, and is --server right?");
                return UNREACHABLE;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println("arno batch: interrupted");
                return UNREACHABLE;
            } finally {
                out.flush();
                err.flush();
            }
        }

        /** The server's error in a few lines: message and code, where, each reason, the job that holds the report. */
        static void printRefusal(BatchClient.Refused r, PrintWriter err) {
            err.println("error: " + r.getMessage() + " [" + r.code().code() + "]");
            String at = r.where().toString();
            if (!at.isEmpty()) err.println("  at " + at);
            for (ArnoException.Detail d : r.details()) {
                if (!d.warning()) err.println("  " + d);
            }
            if (r.code() == ErrorCode.UNAUTHORIZED) err.println("  give an account with --user NAME:PASSWORD or $ARNO_BATCH_USER");
            if (r.job() != null) err.println("job " + r.job() + " holds the report: " + r.job() + "/report");
        }
    }

    @Command(name = "submit", mixinStandardHelpOptions = true,
            description = "Submit a batch file; print the job's URL. With --wait, show progress until it ends.",
            footer = {"", "Example:", "  ./arno batch submit checks.batch.xml --wait --server http://127.0.0.1:8080"})
    static final class Submit extends Base {
        @Parameters(paramLabel = "FILE", description = "the batch document; its relative paths resolve next to it")
        Path file;

        @Option(names = "--wait", description = "wait until the job ends, drawing a progress bar; exit 1 if anything failed")
        boolean wait;

        @Override
        int work(BatchClient client, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
            if (!Files.isRegularFile(file)) throw ErrorMessage.NO_SUCH_FILE.error(file.toAbsolutePath().normalize());
            URI job = client.submit(file);
            out.println(job);
            out.flush();
            if (!wait) return OK;
            BatchClient.Status done = client.await(job, s -> {
                err.print("\r" + s.bar());
                err.flush();
            });
            err.println();
            if (done.failure() != null) err.println("job failed: " + done.failure());
            out.println(done.summary());
            return done.succeeded() ? OK : FAILED;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show a job's status and progress.",
            footer = {"", "Example:", "  ./arno batch status 20250301-101500-k3x9"})
    static final class Status extends Base {
        @Parameters(paramLabel = "JOB", description = "a job id or URL")
        String job;

        @Override
        int work(BatchClient client, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
            URI url = client.job(job);
            BatchClient.Status s = client.status(url);
            var j = s.job();
            var p = s.progress();
            out.println("job       " + j.get("id") + (j.containsKey("name") ? "  " + j.get("name") : ""));
            out.println("status    " + j.get("status"));
            out.println("stylesheet " + j.get("stylesheet") + " (" + j.get("kind") + ")");
            out.println("progress  " + p.get("done") + " of " + p.get("total") + " done (" + p.get("percent") + "%), "
                    + p.get("succeeded") + " succeeded, " + p.get("failed") + " failed, " + p.get("not-run") + " not run, "
                    + p.get("running") + " running");
            if (p.containsKey("eta-seconds")) out.println("rate      " + p.get("rate") + "/s, about " + p.get("eta-seconds") + " s left");
            for (String t : new String[] {"submitted", "started", "finished", "cancelled"}) {
                if (j.containsKey(t)) out.println(String.format(Locale.ROOT, "%-9s %s", t, j.get(t)));
            }
            if (s.failure() != null) out.println("failure   " + s.failure());
            out.println("report    " + url + "/report");
            return OK;
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true, description = "Print a job's report (XML, or HTML for people).",
            footer = {"", "Example:", "  ./arno batch report 20250301-101500-k3x9 --html --failed > failures.html"})
    static final class Report extends Base {
        @Parameters(paramLabel = "JOB", description = "a job id or URL")
        String job;

        @Option(names = "--html", description = "the report as a page for people")
        boolean html;

        @Option(names = "--failed", description = "only the failed transformations")
        boolean failed;

        @Override
        int work(BatchClient client, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
            try (InputStream in = client.report(client.job(job), html, failed)) {
                new InputStreamReader(in, StandardCharsets.UTF_8).transferTo(out);
            }
            return OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the jobs, newest first.",
            footer = {"", "Example:", "  ./arno batch list --server http://127.0.0.1:8080"})
    static final class ListJobs extends Base {
        @Override
        int work(BatchClient client, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
            for (BatchClient.Status s : client.list()) {
                out.println(String.format(Locale.ROOT, "%-22s %-10s %6s/%-6s failed %-5s %s", s.id(), s.state(),
                        s.progress().get("done"), s.progress().get("total"), s.progress().get("failed"),
                        s.job().getOrDefault("name", "")));
            }
            return OK;
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = "Cancel a job: a waiting job ends at once, a running one stops the transformations under way.",
            footer = {"", "Example:", "  ./arno batch cancel 20250301-101500-k3x9"})
    static final class Cancel extends Base {
        @Parameters(paramLabel = "JOB", description = "a job id or URL")
        String job;

        @Override
        int work(BatchClient client, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
            URI url = client.job(job);
            out.println("cancelled " + url + " (" + client.cancel(url).state() + ")");
            return OK;
        }
    }
}
