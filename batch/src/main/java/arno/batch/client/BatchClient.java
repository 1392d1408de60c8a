package arno.batch.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The command-line client of the batch service ({@code ./arno batch ...}).
 *
 * <pre>
 * arno batch submit FILE [--server URL] [--user NAME:PASSWORD] [--wait]
 * arno batch status JOB  [--server URL]
 * arno batch report JOB  [--server URL] [--html] [--failed]
 * arno batch cancel JOB  [--server URL] [--user NAME:PASSWORD]
 * arno batch list        [--server URL]
 * </pre>
 *
 * JOB is a job id or its URL. The server defaults to {@code $ARNO_SERVER},
 * else http://localhost:8080; credentials to {@code $ARNO_BATCH_USER}
 * ({@code name:password}). The batch file's own URI is sent as
 * Content-Location, so its relative paths mean what they mean next to it.
 *
 * <p>Exit codes: 0 done and nothing failed; 1 the batch was refused, or (with
 * --wait) a transformation failed, or the job failed or was cancelled;
 * 2 the command line is wrong; 3 the server cannot be reached or answered
 * something unexpected. Progress goes to {@code err}, results to {@code out}.
 */
public final class BatchClient {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final int UNREACHABLE = 3;

    private static final String USAGE_TEXT = """
            usage: arno batch submit FILE [--server URL] [--user NAME:PASSWORD] [--wait]
                   arno batch status JOB  [--server URL]
                   arno batch report JOB  [--server URL] [--html] [--failed]
                   arno batch cancel JOB  [--server URL] [--user NAME:PASSWORD]
                   arno batch list        [--server URL]
            JOB is a job id or URL; the server defaults to $ARNO_SERVER or http://localhost:8080,
            the account to $ARNO_BATCH_USER (name:password).""";

    private final PrintStream out;
    private final PrintStream err;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<String, String> environment;
    private static final long POLL_MILLIS = 300;

    private BatchClient(PrintStream out, PrintStream err, Map<String, String> environment) {
        this.out = out;
        this.err = err;
        this.environment = environment;
    }

    /** Runs {@code args} (args[0] is "batch") and returns the exit code. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return new BatchClient(out, err, System.getenv()).execute(args);
    }

    /** Command-line options, refused early when unknown or incomplete. */
    private static final class Options {
        String command;
        final List<String> operands = new ArrayList<>();
        String server;
        String user;
        boolean wait;
        boolean html;
        boolean failedOnly;
    }

    private static final class Usage extends Exception {
        Usage(String message) {
            super(message);
        }
    }

    private int execute(List<String> args) {
        Options o;
        try {
            o = parse(args);
        } catch (Usage e) {
            err.println("arno batch: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        try {
            return switch (o.command) {
                case "submit" -> submit(o);
                case "status" -> status(o);
                case "report" -> report(o);
                case "cancel" -> cancel(o);
                case "list" -> list(o);
                default -> throw new IllegalStateException(o.command);
            };
        } catch (ConnectException e) {
            err.println("arno batch: cannot reach the batch service at " + server(o) + " (" + e.getMessage() + ")");
            return UNREACHABLE;
        } catch (IOException e) {
            err.println("arno batch: " + e.getMessage());
            return UNREACHABLE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("arno batch: interrupted");
            return UNREACHABLE;
        }
    }

    private Options parse(List<String> args) throws Usage {
        if (args.isEmpty() || !args.get(0).equals("batch")) throw new Usage("expected 'batch' first");
        if (args.size() < 2) throw new Usage("missing command");
        Options o = new Options();
        o.command = args.get(1);
        if (!List.of("submit", "status", "report", "cancel", "list").contains(o.command)) {
            throw new Usage("unknown command '" + o.command + "'");
        }
        for (int i = 2; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--server" -> o.server = value(args, ++i, a);
                case "--user" -> o.user = value(args, ++i, a);
                case "--wait" -> o.wait = true;
                case "--html" -> o.html = true;
                case "--failed" -> o.failedOnly = true;
                default -> {
                    if (a.startsWith("--")) throw new Usage("unknown option " + a);
                    o.operands.add(a);
                }
            }
        }
        int expected = o.command.equals("list") ? 0 : 1;
        if (o.operands.size() != expected) {
            throw new Usage(o.command + " takes " + (expected == 0 ? "no operand" : "one operand")
                    + (o.operands.isEmpty() ? "" : ", not " + o.operands));
        }
        if (o.wait && !o.command.equals("submit")) throw new Usage("--wait goes with submit");
        if ((o.html || o.failedOnly) && !o.command.equals("report")) throw new Usage("--html and --failed go with report");
        return o;
    }

    private static String value(List<String> args, int i, String option) throws Usage {
        if (i >= args.size()) throw new Usage(option + " needs a value");
        return args.get(i);
    }

    private String server(Options o) {
        String s = o.server != null ? o.server : environment.getOrDefault("ARNO_SERVER", "http://localhost:8080");
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    private String jobUrl(Options o, String job) {
        return job.startsWith("http://") || job.startsWith("https://") ? job : server(o) + "/batch/jobs/" + job;
    }

    private String authorization(Options o) {
        String user = o.user != null ? o.user : environment.get("ARNO_BATCH_USER");
        if (user == null) return null;
        return "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8));
    }

    // ---- Commands ------------------------------------------------------------------------------

    private int submit(Options o) throws IOException, InterruptedException {
        Path file = Path.of(o.operands.get(0)).toAbsolutePath().normalize();
        byte[] batch;
        try {
            batch = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            err.println("arno batch: no such file " + file);
            return USAGE;
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server(o) + "/batch/jobs"))
                .header("Content-Type", "application/xml")
                .header("Content-Location", file.toUri().toString())
                .POST(HttpRequest.BodyPublishers.ofByteArray(batch));
        String auth = authorization(o);
        if (auth != null) request.header("Authorization", auth);
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            printError(response, file.toString());
            return response.statusCode() >= 500 && response.statusCode() != 503 ? UNREACHABLE : FAILED;
        }
        String job = response.headers().firstValue("Location").orElseThrow(() -> new IOException("202 without Location"));
        out.println(job);
        if (!o.wait) return OK;
        return await(job);
    }

    /** Polls the job, drawing a progress bar, until it finishes; the exit code says whether anything failed. */
    private int await(String job) throws IOException, InterruptedException {
        while (true) {
            Status s = fetchStatus(job);
            Map<String, String> progress = s.progress;
            err.print("\r" + bar(s.job, progress));
            err.flush();
            String status = s.job.get("status");
            if (status.equals("completed") || status.equals("failed") || status.equals("cancelled")) {
                err.println();
                if (s.failure != null) err.println("job failed: " + s.failure);
                out.println(status + ": " + progress.get("succeeded") + " succeeded, " + progress.get("failed")
                        + " failed, " + progress.get("not-run") + " not run of " + progress.get("total"));
                return status.equals("completed") && "0".equals(progress.get("failed")) ? OK : FAILED;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    static String bar(Map<String, String> job, Map<String, String> progress) {
        long total = Long.parseLong(progress.getOrDefault("total", "0"));
        long done = Long.parseLong(progress.getOrDefault("done", "0"));
        int width = 30;
        int filled = total == 0 ? width : (int) (width * done / total);
        StringBuilder s = new StringBuilder("[");
        s.append("#".repeat(filled)).append(".".repeat(width - filled)).append("] ");
        s.append(String.format(Locale.ROOT, "%5.1f%% %d/%d", total == 0 ? 100.0 : 100.0 * done / total, done, total));
        s.append(" failed ").append(progress.getOrDefault("failed", "0"));
        String rate = progress.get("rate");
        if (rate != null && !rate.equals("0.0")) s.append("  ").append(rate).append("/s");
        String eta = progress.get("eta-seconds");
        if (eta != null) {
            long seconds = Math.round(Double.parseDouble(eta));
            s.append(String.format(Locale.ROOT, "  ETA %d:%02d", seconds / 60, seconds % 60));
        }
        s.append("  ").append(job.get("status")).append("   ");
        return s.toString();
    }

    private int status(Options o) throws IOException, InterruptedException {
        String job = jobUrl(o, o.operands.get(0));
        HttpResponse<String> response = get(job, "application/xml");
        if (response.statusCode() != 200) {
            printError(response, job);
            return response.statusCode() == 404 ? FAILED : UNREACHABLE;
        }
        Status s = Status.parse(response.body());
        Map<String, String> j = s.job;
        Map<String, String> p = s.progress;
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
        if (s.failure != null) out.println("failure   " + s.failure);
        out.println("report    " + job + "/report");
        return OK;
    }

    private int report(Options o) throws IOException, InterruptedException {
        String url = jobUrl(o, o.operands.get(0)) + "/report?format=" + (o.html ? "html" : "xml")
                + (o.failedOnly ? "&only=failed" : "");
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).GET().build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
            printError(response.statusCode(), body, url);
            return response.statusCode() == 404 ? FAILED : UNREACHABLE;
        }
        try (InputStream in = response.body()) {
            in.transferTo(out);
        }
        out.flush();
        return OK;
    }

    private int cancel(Options o) throws IOException, InterruptedException {
        String job = jobUrl(o, o.operands.get(0));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(job)).DELETE();
        String auth = authorization(o);
        if (auth != null) request.header("Authorization", auth);
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            printError(response, job);
            return FAILED;
        }
        out.println("cancelled " + job + " (" + Status.parse(response.body()).job.get("status") + ")");
        return OK;
    }

    private int list(Options o) throws IOException, InterruptedException {
        HttpResponse<String> response = get(server(o) + "/batch/jobs", "application/xml");
        if (response.statusCode() != 200) {
            printError(response, server(o));
            return UNREACHABLE;
        }
        for (Status s : Status.parseAll(response.body())) {
            out.println(String.format(Locale.ROOT, "%-22s %-10s %6s/%-6s failed %-5s %s", s.job.get("id"),
                    s.job.get("status"), s.progress.get("done"), s.progress.get("total"), s.progress.get("failed"),
                    s.job.getOrDefault("name", "")));
        }
        return OK;
    }

    private HttpResponse<String> get(String url, String accept) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Accept", accept).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private Status fetchStatus(String job) throws IOException, InterruptedException {
        HttpResponse<String> response = get(job, "application/xml");
        if (response.statusCode() != 200) {
            throw new IOException(job + " answered HTTP " + response.statusCode());
        }
        return Status.parse(response.body());
    }

    private void printError(HttpResponse<String> response, String what) {
        printError(response.statusCode(), response.body(), what);
    }

    /** Prints an err:error document as "error: message", its place, and its further messages. */
    private void printError(int status, String body, String what) {
        Map<String, String> error = new HashMap<>();
        List<String> details = new ArrayList<>();
        try {
            XMLStreamReader r = factory().createXMLStreamReader(new StringReader(body));
            while (r.hasNext()) {
                if (r.next() != XMLStreamConstants.START_ELEMENT) continue;
                switch (r.getLocalName()) {
                    case "error" -> error.put("code", r.getAttributeValue(null, "code"));
                    case "message" -> error.put("message", r.getElementText());
                    case "location" -> error.put("where", place(r));
                    case "detail" -> {
                        String place = place(r);
                        details.add(r.getElementText() + (place.isEmpty() ? "" : " (" + place + ")"));
                    }
                    default -> { }
                }
            }
        } catch (XMLStreamException e) {
            error.put("message", "HTTP " + status + ": " + (body.length() > 500 ? body.substring(0, 500) : body));
        }
        err.println("error: " + error.getOrDefault("message", "HTTP " + status + " from " + what)
                + (error.containsKey("code") ? " [" + error.get("code") + "]" : ""));
        if (error.containsKey("where") && !error.get("where").isEmpty()) err.println("  at " + error.get("where"));
        for (String d : details) err.println("  " + d);
    }

    private static String place(XMLStreamReader r) {
        String systemId = r.getAttributeValue(null, "system-id");
        String line = r.getAttributeValue(null, "line");
        String column = r.getAttributeValue(null, "column");
        StringBuilder s = new StringBuilder();
        if (systemId != null) s.append(systemId);
        if (line != null) s.append(s.length() > 0 ? ", " : "").append("line ").append(line);
        if (column != null) s.append(", column ").append(column);
        return s.toString();
    }

    static XMLInputFactory factory() {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        return f;
    }

    /** A job's status document, as attribute maps. */
    private record Status(Map<String, String> job, Map<String, String> progress, String failure) {
        static Status parse(String xml) throws IOException {
            List<Status> all = parseAll(xml);
            if (all.isEmpty()) throw new IOException("the answer holds no job: " + xml);
            return all.get(0);
        }

        static List<Status> parseAll(String xml) throws IOException {
            List<Status> list = new ArrayList<>();
            try {
                XMLStreamReader r = factory().createXMLStreamReader(new StringReader(xml));
                Map<String, String> job = null;
                Map<String, String> progress = null;
                String failure = null;
                while (r.hasNext()) {
                    int event = r.next();
                    if (event == XMLStreamConstants.START_ELEMENT) {
                        switch (r.getLocalName()) {
                            case "job" -> {
                                job = attributes(r);
                                progress = new HashMap<>();
                                failure = null;
                            }
                            case "progress" -> progress = attributes(r);
                            case "failure" -> failure = r.getElementText();
                            default -> { }
                        }
                    } else if (event == XMLStreamConstants.END_ELEMENT && r.getLocalName().equals("job")) {
                        list.add(new Status(job, progress, failure));
                    }
                }
            } catch (XMLStreamException e) {
                throw new IOException("the answer is not a job status document: " + e.getMessage(), e);
            }
            return list;
        }

        private static Map<String, String> attributes(XMLStreamReader r) {
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < r.getAttributeCount(); i++) m.put(r.getAttributeLocalName(i), r.getAttributeValue(i));
            return m;
        }
    }
}
