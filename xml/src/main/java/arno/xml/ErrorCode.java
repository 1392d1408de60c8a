package arno.xml;

/**
 * The one catalogue of everything that can go wrong in Arno: pages, the store, batch jobs,
 * configuration and the command line. Each code has the HTTP status it becomes at an HTTP edge,
 * the stable name that appears in {@code err:error/@code} (and that clients and tests match on),
 * and a message template. Exceptions from Saxon, the XML parser, LMDB, the servlet container and
 * the JDK are translated into an {@link ArnoException} with one of these where they enter our code.
 *
 * <p>A name is stable once released; a message may improve. On the command line every code but
 * {@link #USAGE} exits with 1; {@link #USAGE} exits with 2.
 */
public enum ErrorCode {
    // ---- Any request
    /** The request line, a header or the URL cannot be understood (a bad percent-encoding, say). */
    BAD_REQUEST(400, "bad-request", "Malformed request: %s"),
    /** An XML body, batch document, stored document or input is not well-formed. */
    MALFORMED_XML(400, "malformed-xml", "%s is not well-formed XML: %s"),
    /** XML refused by the security policy: an external entity or DTD, an entity bomb, a limit. */
    REFUSED_XML(400, "refused-xml", "%s was refused: %s"),
    /** Well-formed XML that its schema or vocabulary does not allow. */
    INVALID_XML(400, "invalid-xml", "%s is not valid: %s"),
    /** A parameter (query, form, batch or command-line) has a wrong value. */
    BAD_PARAMETER(400, "bad-parameter", "%s"),
    /** A URI that cannot be used: syntax, unsupported scheme. */
    UNSUPPORTED_URI(400, "unsupported-uri", "%s"),
    /** A file path that leaves the folders it is confined to. */
    OUTSIDE_ROOTS(403, "outside-roots", "%s is outside the allowed folders%s"),
    /** An outbound fetch the fetch policy refuses: scheme, host, or a private address. */
    URI_REFUSED(403, "uri-refused", "%s is refused: %s"),
    /** No credentials, or wrong ones. */
    UNAUTHORIZED(401, "unauthorized", "%s"),
    /** Logins refused for a while after repeated failures (per account and per address); the answer carries {@code Retry-After}. */
    TOO_MANY_ATTEMPTS(429, "too-many-attempts", "%s"),
    /** Credentials without the role the operation needs. */
    FORBIDDEN(403, "forbidden", "%s"),
    /** Nothing at that path. */
    NOT_FOUND(404, "not-found", "%s"),
    /** No site answers for the host and path. */
    NO_SITE(404, "no-site", "No site answers for host '%s' and path '%s'"),
    /** A site has no route for the path. */
    NO_ROUTE(404, "no-route", "No route of site '%s' matches %s"),
    /** The method is not accepted there; the answer carries {@code Allow}. */
    METHOD_NOT_ALLOWED(405, "method-not-allowed", "%s does not accept %s (allowed: %s)"),
    /** The resource is in a state that does not allow the operation. */
    CONFLICT(409, "conflict", "%s"),
    /** What was asked for existed once and is gone for good: the change feed was pruned past the version asked for. */
    GONE(410, "gone", "%s"),
    /** A conditional request's validator no longer matches. */
    PRECONDITION_FAILED(412, "precondition-failed", "%s"),
    /**
     * A body that arrives slower than the configured least rate, or not within its time limit;
     * the connection is closed.
     */
    BODY_TOO_SLOW(408, "body-too-slow", "%s"),
    /** A body over the configured limit. */
    BODY_TOO_LARGE(413, "body-too-large", "Request body of %s bytes exceeds the limit of %d bytes"),
    /** A body of a media type that is not accepted there. */
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported-media-type", "%s"),
    /** A Range that lies wholly outside the resource; the answer carries {@code Content-Range: bytes *}{@code /LENGTH}. */
    RANGE_NOT_SATISFIABLE(416, "range-not-satisfiable", "%s"),
    /** Well-formed and valid, but a rule of the model forbids it. */
    UNPROCESSABLE(422, "unprocessable", "%s"),
    /** A conditional header is required (If-Match on a write). */
    PRECONDITION_REQUIRED(428, "precondition-required", "%s"),

    // ---- Pages
    /** A site's stylesheet or query does not compile. */
    COMPILE_ERROR(500, "compile-error", "Stylesheet or query does not compile: %s"),
    /** A stage failed while it ran. */
    STAGE_ERROR(500, "stage-error", "Stage %d (%s) of route '%s' failed: %s"),
    /** A route ran past its time limit. */
    TIMEOUT(503, "timeout", "Route '%s' exceeded its time limit of %d ms (stage %d, %s)"),
    /** A query or report ran past its time limit ({@code ./arno query --timeout}); the message says what it had done. */
    QUERY_TIMEOUT(503, "query-timeout", "%s"),
    /** A console query stopped because the server's heap was nearly full after a collection (or ran out). */
    QUERY_MEMORY(503, "query-memory", "%s"),
    /** Every worker is busy and the queue is full; the answer carries {@code Retry-After}. */
    BUSY(503, "busy", "%s"),
    /** The service is stopping and takes no new work. */
    SHUTTING_DOWN(503, "shutting-down", "%s"),

    // ---- Batch jobs
    /** The stylesheet or schema a batch names cannot be read. */
    STYLESHEET_NOT_FOUND(422, "stylesheet-not-found", "%s"),
    /** The stylesheet or Schematron schema of a batch does not compile; the reasons are details. */
    STYLESHEET_ERROR(422, "stylesheet-error", "%s"),
    /** A required stylesheet parameter has no value. */
    MISSING_PARAMETER(422, "missing-parameter", "%s"),
    /** One input cannot be read or fetched. */
    INPUT_UNREADABLE(500, "input-unreadable", "%s"),
    /** One transformation failed. */
    TRANSFORMATION_ERROR(500, "transformation-error", "%s"),
    /** One transformation ran past its time limit and was stopped. */
    TRANSFORMATION_TIMEOUT(500, "transformation-timeout", "%s"),
    /** One output cannot be written. */
    OUTPUT_FAILED(500, "output-failed", "%s"),

    // ---- The store
    /** Another process (or this one) holds the store. */
    STORE_LOCKED(503, "store-locked", "%s"),
    /** There is no store where one was expected (a check or export never creates one). */
    NO_STORE(404, "no-store", "%s"),
    /** The folder holds a store of an incompatible format, or data that is not a store. */
    STORE_FORMAT(500, "store-format", "%s"),
    /** The store's map is full: its map size must be raised. */
    STORE_FULL(507, "store-full", "%s"),
    /** A stored document or entry is inconsistent; {@code ./arno store check} lists them. */
    STORE_CORRUPT(500, "store-corrupt", "%s"),
    /** A transaction, snapshot or store used after it was closed. */
    CLOSED(500, "closed", "%s"),
    /**
     * In cluster mode, the database (PostgreSQL) cannot be reached or cannot commit a write: nothing
     * of it was stored, unless the message says the commit's outcome is unknown.
     */
    DATABASE_UNAVAILABLE(503, "database-unavailable", "%s"),

    // ---- Configuration and the command line
    /** Wrong command-line usage: exit status 2. */
    USAGE(400, "usage", "%s"),
    /** A setting (file, flag or default) that cannot be used: exit status 1 before anything starts. */
    BAD_CONFIGURATION(500, "bad-configuration", "%s"),
    /** A site.xml or shared package that cannot be loaded. */
    SITE_ERROR(500, "site-error", "%s"),
    /** The port cannot be listened on. */
    PORT_UNAVAILABLE(500, "port-unavailable", "%s"),

    // ---- Anything else
    /** Reading or writing a file or the network failed. */
    IO(500, "io", "%s"),
    /** A bug: the log has the stack trace under the error id. */
    INTERNAL(500, "internal", "%s");

    private final int status;
    private final String code;
    private final String template;

    ErrorCode(int status, String code, String template) {
        this.status = status;
        this.code = code;
        this.template = template;
    }

    /** The HTTP status this error becomes at an HTTP edge. */
    public int status() {
        return status;
    }

    /** The stable name used in {@code err:error/@code}. */
    public String code() {
        return code;
    }

    /** The command-line exit status: 2 for usage errors, 1 for everything else. */
    public int exitStatus() {
        return this == USAGE ? 2 : 1;
    }

    /** The message with {@code args} put into the template. */
    public String format(Object... args) {
        return String.format(template, args);
    }

    /** A new exception of this code whose message is the template filled with {@code args}. */
    public ArnoException error(Object... args) {
        return new ArnoException(this, null, args);
    }

    /** As {@link #error(Object...)}, caused by {@code cause}. */
    public ArnoException error(Throwable cause, Object... args) {
        return new ArnoException(this, cause, args);
    }

    /** The code whose {@link #code()} is {@code name}, or null. */
    public static ErrorCode byName(String name) {
        for (ErrorCode c : values()) if (c.code.equals(name)) return c;
        return null;
    }

    /** A short, safe phrase for the status, for production pages that must not show internals. */
    public static String statusText(int status) {
        return switch (status) {
            case 400 -> "Bad request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not found";
            case 405 -> "Method not allowed";
            case 408 -> "Request timeout";
            case 409 -> "Conflict";
            case 412 -> "Precondition failed";
            case 413 -> "Request body too large";
            case 415 -> "Unsupported media type";
            case 422 -> "Unprocessable content";
            case 428 -> "Precondition required";
            case 503 -> "Service unavailable";
            case 507 -> "Insufficient storage";
            default -> "Internal error";
        };
    }
}
