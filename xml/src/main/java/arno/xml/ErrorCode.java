package arno.xml;

import java.util.Arrays;
import java.util.List;

/**
 * The one catalogue of everything that can go wrong in Arno: pages, the store, batch jobs,
 * configuration and the command line. Each code has the HTTP status it becomes at an HTTP edge,
 * the stable name that appears in {@code err:error/@code} (and that clients and tests match on),
 * and a message template. Exceptions from Saxon, the XML parser, LMDB, the servlet container and
 * the JDK are translated into an {@link ArnoException} with one of these where they enter our code.
 *
 * <p>A name is stable once released; a message may improve. On the command line every code but
 * {@link #USAGE} exits with 1; {@link #USAGE} exits with 2.
 *
 * <p><b>Sentences live here, values at the call site.</b> A code's template is the sentence it
 * says, with a {@code %s} (or {@code %d}) for each value: {@code throw NO_SITE.error(host, path)}.
 * Most codes say several different things (not-found: no entry, no account, no index...); each of
 * those sentences is an {@link ErrorMessage} constant that names this code, as BaseX's
 * {@code QueryError} pairs a code with its description: {@code throw ErrorMessage.NO_ACCOUNT.error(name, file)}.
 * Clients and tests see only the code's stable name and status, so a sentence can be added,
 * split or reworded without changing them; {@link #messages()} lists a code's sentences (the
 * error reference is generated from both). A second enum rather than more codes because the codes
 * are the stable, client-visible vocabulary and the sentences are not.
 *
 * <p>The number of values is checked: each template's values are counted when the enum loads
 * ({@link #arity()}); a call with another number fails an assertion, so any test that reaches it
 * fails (surefire runs with {@code -ea}), while production still makes the message rather than
 * lose the error; and {@code ErrorCatalogueTest} formats every template with dummy values.
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
    BAD_PARAMETER(400, "bad-parameter", "the parameter %s has a value that cannot be used: %s"),
    /** A URI that cannot be used: syntax, unsupported scheme. */
    UNSUPPORTED_URI(400, "unsupported-uri", "%s %s is not a URI that can be used here: %s"),
    /** A file path that leaves the folders it is confined to. */
    OUTSIDE_ROOTS(403, "outside-roots", "%s %s is outside the allowed folders %s"),
    /** An outbound fetch the fetch policy refuses: scheme, host, or a private address. */
    URI_REFUSED(403, "uri-refused", "%s %s is refused: %s"),
    /** No credentials, or wrong ones. */
    UNAUTHORIZED(401, "unauthorized", "%s needs an account (HTTP Basic)"),
    /** Logins refused for a while after repeated failures (per account and per address); the answer carries {@code Retry-After}. */
    TOO_MANY_ATTEMPTS(429, "too-many-attempts", "too many failed logins from this address; try again in %s s"),
    /** Credentials without the role the operation needs. */
    FORBIDDEN(403, "forbidden", "the account %s lacks the %s role that %s needs"),
    /** Nothing at that path. */
    NOT_FOUND(404, "not-found", "there is no %s %s"),
    /** No site answers for the host and path. */
    NO_SITE(404, "no-site", "No site answers for host '%s' and path '%s'"),
    /** A site has no route for the path. */
    NO_ROUTE(404, "no-route", "No route of site '%s' matches %s"),
    /** The method is not accepted there; the answer carries {@code Allow}. */
    METHOD_NOT_ALLOWED(405, "method-not-allowed", "%s does not accept %s (allowed: %s)"),
    /** The resource is in a state that does not allow the operation. */
    CONFLICT(409, "conflict", "%s conflicts with what is there: %s"),
    /** What was asked for existed once and is gone for good: the change feed was pruned past the version asked for. */
    GONE(410, "gone", "the changes after version %s are no longer in the change feed of store %s: it keeps the changes"
            + " from version %s on (older ones are pruned after %s); a follower must resynchronise from a full copy of"
            + " the store and then follow from its version"),
    /** A conditional request's validator no longer matches. */
    PRECONDITION_FAILED(412, "precondition-failed", "%s is not at the version the request names: %s"),
    /**
     * A body that arrives slower than the configured least rate, or not within its time limit;
     * the connection is closed.
     */
    BODY_TOO_SLOW(408, "body-too-slow", "the request body arrives too slowly: %d bytes in %s, below the least rate of %d bytes/s"
            + " that applies after %s"),
    /** A body over the configured limit. */
    BODY_TOO_LARGE(413, "body-too-large", "Request body of %s bytes exceeds the limit of %d bytes"),
    /** A body of a media type that is not accepted there. */
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported-media-type", "%s is not accepted here as %s"),
    /** A Range that lies wholly outside the resource; the answer carries {@code Content-Range: bytes *}{@code /LENGTH}. */
    RANGE_NOT_SATISFIABLE(416, "range-not-satisfiable", "bytes %s to %s are not inside %s, which has %s bytes"),
    /** Well-formed and valid, but a rule of the model forbids it. */
    UNPROCESSABLE(422, "unprocessable", "%s breaks a rule of the model: %s"),
    /** A conditional header is required (If-Match on a write). */
    PRECONDITION_REQUIRED(428, "precondition-required", "%s needs If-Match with its ETag"),

    // ---- Pages
    /** A site's stylesheet or query does not compile. */
    COMPILE_ERROR(500, "compile-error", "Stylesheet or query does not compile: %s"),
    /** A stage failed while it ran. */
    STAGE_ERROR(500, "stage-error", "Stage %d (%s) of route '%s' failed: %s"),
    /** A route ran past its time limit. */
    TIMEOUT(503, "timeout", "Route '%s' exceeded its time limit of %d ms (stage %d, %s)"),
    /** A query or report ran past its time limit ({@code ./arno query --timeout}); the message says what it had done. */
    QUERY_TIMEOUT(503, "query-timeout", "the query ran past its time limit of %s and was stopped: %,d documents examined,"
            + " %,d characters of results written; raise --timeout or narrow the query (a store:search on indexed values"
            + " reads fewer documents)"),
    /** A console query stopped because the server's heap was nearly full after a collection (or ran out). */
    QUERY_MEMORY(503, "query-memory", "the query was stopped to keep the server's memory: after a garbage collection the"
            + " heap held %,d MB, over the console's limit of %.0f%% of %,d MB; narrow the query (fewer items to sort, group"
            + " or keep; a store:search on indexed values)"),
    /** A full-text search query cannot be read or is too large; the message names the position. */
    BAD_QUERY(400, "bad-query", "the search query cannot be read at position %s: %s"),
    /** The full-text index is being built or rebuilt: searches wait for it, pages keep working. */
    SEARCH_UNAVAILABLE(503, "search-unavailable", "full-text search is not available: %s"),
    /** As many full-text searches run as the index allows at once and none ended in time; the answer carries {@code Retry-After}. */
    SEARCH_BUSY(503, "search-busy", "full-text search is busy: %s; try again after the Retry-After seconds"),
    /** Every worker is busy and the queue is full; the answer carries {@code Retry-After}. */
    BUSY(503, "busy", "the server is busy (%s); try again after the Retry-After seconds"),
    /** The service is stopping and takes no new work. */
    SHUTTING_DOWN(503, "shutting-down", "%s is stopping and takes no new work"),

    // ---- Batch jobs
    /** The stylesheet or schema a batch names cannot be read. */
    STYLESHEET_NOT_FOUND(422, "stylesheet-not-found", "%s %s cannot be found"),
    /** The stylesheet or Schematron schema of a batch does not compile; the reasons are details. */
    STYLESHEET_ERROR(422, "stylesheet-error", "%s %s does not compile: 1 error; first: %s"),
    /** A required stylesheet parameter has no value. */
    MISSING_PARAMETER(422, "missing-parameter", "the stylesheet %s requires parameter %s, which the batch does not set"),
    /** One input cannot be read or fetched. */
    INPUT_UNREADABLE(500, "input-unreadable", "%s %s cannot be read: %s"),
    /** One transformation failed. */
    TRANSFORMATION_ERROR(500, "transformation-error", "the transformation failed: %s"),
    /** One transformation ran past its time limit and was stopped. */
    TRANSFORMATION_TIMEOUT(500, "transformation-timeout", "the transformation of %s ran past its time limit of %s and was"
            + " stopped; if it is not looping, give the batch a longer time-limit (<batch time-limit=\"PT30M\">) or the"
            + " service one (batch/@time-limit in the configuration)"),
    /** One output cannot be written. */
    OUTPUT_FAILED(500, "output-failed", "%s %s cannot be written: %s"),

    // ---- The store
    /** Another process (or this one) holds the store. */
    STORE_LOCKED(503, "store-locked", "store %s is in use by another process, probably a running './arno serve' or a"
            + " Tomcat serving Arno's WAR; stop it (or undeploy the WAR) first, write through its store API (/store/), or"
            + " give another --data folder"),
    /** There is no store where one was expected (a check or export never creates one). */
    NO_STORE(404, "no-store", "no store in %s; load content with './arno store load PATH --data %s'"),
    /** The folder holds a store of an incompatible format, or data that is not a store. */
    STORE_FORMAT(500, "store-format", "store %s has format version %s; this Arno reads format version %s. Export its"
            + " documents with the Arno that wrote them and load them into a new store, or give another --data directory"),
    /** The store's map is full: its map size must be raised. */
    STORE_FULL(507, "store-full", "%s: the store is full (its map size is reached); open it with a larger map size"
            + " (the configuration file's <store map-size=\"…\"/>, or --map-size for the store commands)"),
    /** A stored document or entry is inconsistent; {@code ./arno store check} lists them. */
    STORE_CORRUPT(500, "store-corrupt", "%s is inconsistent: %s; run 'arno store check'"),
    /** A transaction, snapshot or store used after it was closed. */
    CLOSED(500, "closed", "%s is closed"),
    /**
     * In cluster mode, the database (PostgreSQL) cannot be reached or cannot commit a write: nothing
     * of it was stored, unless the message says the commit's outcome is unknown.
     */
    DATABASE_UNAVAILABLE(503, "database-unavailable", "the cluster's database cannot take the write now (%s); nothing of it was stored"),

    // ---- Configuration and the command line
    /** Wrong command-line usage: exit status 2. */
    USAGE(400, "usage", "wrong usage: %s"),
    /** A setting (file, flag or default) that cannot be used: exit status 1 before anything starts. */
    BAD_CONFIGURATION(500, "bad-configuration", "the setting %s cannot be used: %s"),
    /** A site.xml or shared package that cannot be loaded. */
    SITE_ERROR(500, "site-error", "site %s cannot be loaded: %s"),
    /** The port cannot be listened on. */
    PORT_UNAVAILABLE(500, "port-unavailable", "cannot listen on %s:%s: the port is in use or not allowed (ports below 1024"
            + " need privileges); choose another with --port, or stop what listens there"),

    // ---- Anything else
    /** Reading or writing a file or the network failed. */
    IO(500, "io", "cannot read %s: %s"),
    /** A bug: the log has the stack trace under the error id. */
    INTERNAL(500, "internal", "unexpected failure: %s");

    private final int status;
    private final String code;
    private final String template;
    private final int arity;

    ErrorCode(int status, String code, String template) {
        this.status = status;
        this.code = code;
        this.template = template;
        this.arity = Templates.arity(template);
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

    /** The sentence this code says, with a {@code %s} (or {@code %d}) for each value a call site passes. */
    public String template() {
        return template;
    }

    /** How many values {@link #template()} takes. */
    public int arity() {
        return arity;
    }

    /** The further sentences this code says, each an {@link ErrorMessage} naming it; often none. */
    public List<ErrorMessage> messages() {
        return Arrays.stream(ErrorMessage.values()).filter(m -> m.code() == this).toList();
    }

    /** The message with {@code args} put into the template. */
    public String format(Object... args) {
        return Templates.format(this, template, arity, args);
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

    /**
     * What an answer that must not show internals (production, a server error) says for this
     * code: a sentence a client can act on where the state is an operational one that names no
     * internals (the cluster's database out of reach: retry later), else the status's phrase.
     */
    public String publicText() {
        return switch (this) {
            case DATABASE_UNAVAILABLE -> "the cluster's database cannot take writes now, so nothing of this one was stored;"
                    + " reads go on; try the write again in a few seconds";
            default -> statusText(status);
        };
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
