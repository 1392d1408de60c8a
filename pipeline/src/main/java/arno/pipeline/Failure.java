package arno.pipeline;

/**
 * The catalogue of everything that can go wrong with a request, with its HTTP
 * status and message template. Saxon, parser and servlet exceptions are
 * translated into one of these where they enter Arno, so every error a user
 * sees says what went wrong and where in one consistent form.
 */
public enum Failure {
    NO_SITE(404, "No site answers for host '%s' and path '%s'"),
    NO_ROUTE(404, "No route of site '%s' matches %s"),
    METHOD_NOT_ALLOWED(405, "Route '%s' does not accept %s (allowed: %s)"),
    MALFORMED_BODY(400, "Malformed XML body at line %d, column %d: %s"),
    HOSTILE_BODY(400, "Refused XML body at line %d, column %d: %s"),
    BODY_TOO_LARGE(413, "Request body of %s bytes exceeds the limit of %d bytes"),
    COMPILE_ERROR(500, "Stylesheet or query does not compile: %s"),
    STAGE_ERROR(500, "Stage %d (%s) of route '%s' failed: %s"),
    TIMEOUT(503, "Route '%s' exceeded its time limit of %d ms (stage %d, %s)");

    final int status;
    private final String template;

    Failure(int status, String template) {
        this.status = status;
        this.template = template;
    }

    public int status() {
        return status;
    }

    String format(Object... args) {
        return String.format(template, args);
    }
}
