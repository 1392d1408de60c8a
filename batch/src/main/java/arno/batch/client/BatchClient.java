package arno.batch.client;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.ErrorXml;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The client of the batch service's HTTP API (batch/README.md), as a small library: submit a
 * batch file, wait for a job with progress, read its status and report, list and cancel jobs.
 * The command {@code ./arno batch ...} is built on it.
 *
 * <p>Every call needs an account (HTTP Basic, {@code name:password}). An answer other than the
 * expected one is thrown as {@link Refused}, which carries the server's {@code err:error} read
 * back into an {@link ArnoException} (code, message, place, reasons) and, for a batch that was
 * accepted and failed at once (422), the job that holds its report. A server that cannot be
 * reached is an {@link IOException}. Instances are immutable and thread-safe.
 */
public final class BatchClient {
    /** The server when none is named. */
    public static final URI DEFAULT_SERVER = URI.create("http://127.0.0.1:8080");

    private static final Duration POLL = Duration.ofMillis(300);

    private final URI server;
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * @param server      the Arno server, e.g. {@code http://127.0.0.1:8080}
     * @param credentials {@code name:password} of a batch account, or null (then every call but the
     *                    schema is refused with 401)
     */
    public BatchClient(URI server, String credentials) {
        String s = server.toString();
        this.server = URI.create(s.endsWith("/") ? s : s + "/");
        this.authorization = credentials == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    public URI server() {
        return server;
    }

    /** What the service answered instead of what was asked: its {@code err:error}, read back. */
    public static final class Refused extends ArnoException {
        private final int httpStatus;
        private final URI job;

        Refused(ErrorCode code, String message, int httpStatus, URI job) {
            super(code, message, null);
            this.httpStatus = httpStatus;
            this.job = job;
        }

        /** The HTTP status of the answer. */
        public int httpStatus() {
            return httpStatus;
        }

        /** For a batch that was accepted and failed at once: the job whose report has the reasons; else null. */
        public URI job() {
            return job;
        }
    }

    /**
     * A job's status document ({@code <job>} of {@code urn:arno:batch}) as attribute maps.
     *
     * @param job      the attributes of {@code job}: id, status, name, kind, stylesheet, submitted, ...
     * @param progress the attributes of {@code progress}: total, done, succeeded, failed, not-run, rate, ...
     * @param failure  why the whole job failed, or null
     */
    public record Status(Map<String, String> job, Map<String, String> progress, String failure) {
        public String id() {
            return job.get("id");
        }

        /** queued, running, completed, failed or cancelled. */
        public String state() {
            return job.get("status");
        }

        public boolean finished() {
            return List.of("completed", "failed", "cancelled").contains(state());
        }

        /** Finished, and every input succeeded. */
        public boolean succeeded() {
            return "completed".equals(state()) && "0".equals(progress.getOrDefault("failed", "0"));
        }

        /** "completed: 3 succeeded, 0 failed, 0 not run of 3". */
        public String summary() {
            return state() + ": " + progress.get("succeeded") + " succeeded, " + progress.get("failed")
                    + " failed, " + progress.get("not-run") + " not run of " + progress.get("total");
        }

        /** A progress bar: {@code [#####.....]  50.0% 1/2 failed 0  2.0/s  ETA 0:01  running}. */
        public String bar() {
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
            s.append("  ").append(state()).append("   ");
            return s.toString();
        }
    }

    /** The URL of a job named by its id or its URL (relative URLs resolve against the server). */
    public URI job(String idOrUrl) {
        if (idOrUrl.startsWith("http://") || idOrUrl.startsWith("https://") || idOrUrl.startsWith("/")) {
            return server.resolve(idOrUrl);
        }
        return server.resolve("batch/jobs/" + idOrUrl);
    }

    /**
     * Submits a batch file; its own URI goes as {@code Content-Location}, so its relative paths
     * mean what they mean next to it. Returns the job's URL.
     *
     * @throws Refused when the batch is refused, or accepted and failed at once ({@link Refused#job()})
     */
    public URI submit(Path file) throws IOException, InterruptedException {
        Path absolute = file.toAbsolutePath().normalize();
        HttpRequest request = request(server.resolve("batch/jobs"))
                .header("Content-Type", "application/xml")
                .header("Content-Location", absolute.toUri().toString())
                .POST(HttpRequest.BodyPublishers.ofByteArray(Files.readAllBytes(absolute))).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) throw refused(response.statusCode(), response.body(), request.uri(), location(response));
        URI job = location(response);
        if (job == null) throw new IOException(request.uri() + " accepted the batch without naming the job (no Location)");
        return job;
    }

    private URI location(HttpResponse<?> response) {
        return response.headers().firstValue("Location").map(server::resolve).orElse(null);
    }

    /** The job's status and progress. */
    public Status status(URI job) throws IOException, InterruptedException {
        return parseOne(getString(job));
    }

    /** Polls the job until it has finished, giving each status to {@code progress}; returns the last. */
    public Status await(URI job, Consumer<Status> progress) throws IOException, InterruptedException {
        while (true) {
            Status s = status(job);
            progress.accept(s);
            if (s.finished()) return s;
            Thread.sleep(POLL.toMillis());
        }
    }

    /**
     * The job's report as a stream the caller closes: XML, or with {@code html} the page for
     * people; with {@code failedOnly} the failed transformations only.
     */
    public InputStream report(URI job, boolean html, boolean failedOnly) throws IOException, InterruptedException {
        URI url = URI.create(job + "/report?format=" + (html ? "html" : "xml") + (failedOnly ? "&only=failed" : ""));
        HttpResponse<InputStream> response = http.send(request(url).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            String body;
            try (InputStream in = response.body()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            throw refused(response.statusCode(), body, url, null);
        }
        return response.body();
    }

    /** Every job, newest first. */
    public List<Status> list() throws IOException, InterruptedException {
        return parseStatuses(getString(server.resolve("batch/jobs")));
    }

    /** Cancels a job; returns its status after the request (cancelled, or still running while inputs finish). */
    public Status cancel(URI job) throws IOException, InterruptedException {
        HttpRequest request = request(job).DELETE().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) throw refused(response.statusCode(), response.body(), job, null);
        return parseOne(response.body());
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).header("Accept", "application/xml");
        if (authorization != null) b.header("Authorization", authorization);
        return b;
    }

    private String getString(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw refused(response.statusCode(), response.body(), uri, null);
        return response.body();
    }

    /**
     * The server's {@code err:error} (schema {@code arno/schema/error.xsd}) back as an exception:
     * code, message, {@code err:location}, each {@code err:detail}, and the job a 422 names.
     * An answer that is no error document (a proxy's page) becomes one naming the status.
     */
    static Refused refused(int status, String body, URI what, URI location) {
        try {
            XMLStreamReader r = arno.xml.XmlPolicy.streamOwn(new StringReader(body));
            while (r.hasNext() && r.next() != XMLStreamConstants.START_ELEMENT) {
                // up to the root
            }
            if (r.isStartElement() && ErrorXml.NS.equals(r.getNamespaceURI()) && "error".equals(r.getLocalName())) {
                return readError(r, status, location);
            }
        } catch (XMLStreamException e) {
            // not XML: said below
        }
        String text = body.strip();
        ErrorMessage said = status == 401 ? ErrorMessage.ANSWERED_UNAUTHORIZED_SAYING
                : status == 404 ? ErrorMessage.ANSWERED_NOT_FOUND_SAYING : ErrorMessage.ANSWERED_HTTP_SAYING;
        ErrorMessage bare = status == 401 ? ErrorMessage.ANSWERED_UNAUTHORIZED
                : status == 404 ? ErrorMessage.ANSWERED_NOT_FOUND : ErrorMessage.ANSWERED_HTTP;
        String message = text.isEmpty() ? bare.format(what, status)
                : said.format(what, status, text.length() > 300 ? text.substring(0, 300) + "…" : text);
        return new Refused(said.code(), message, status, location);
    }

    private static Refused readError(XMLStreamReader r, int status, URI location) throws XMLStreamException {
        URI[] job = {location};
        ArnoException e = ErrorXml.read(r, other -> {
            // A refused job's answer links the job that holds its report.
            String href = "job".equals(other.getLocalName()) ? other.getAttributeValue(null, "href") : null;
            if (href != null && job[0] == null) job[0] = URI.create(href);
        });
        Refused refused = new Refused(e.code(), e.getMessage(), status, job[0]);
        refused.at(e.where()).processorCode(e.processorCode()).details(e.details());
        return refused;
    }

    /** The service's documents are its own, but parsed as anything from the network: no DTD, no entities. */

    private static Status parseOne(String xml) throws IOException {
        List<Status> all = parseStatuses(xml);
        if (all.isEmpty()) throw new IOException("the answer holds no job: " + xml);
        return all.get(0);
    }

    private static List<Status> parseStatuses(String xml) throws IOException {
        List<Status> list = new ArrayList<>();
        try {
            XMLStreamReader r = arno.xml.XmlPolicy.streamOwn(new StringReader(xml));
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
