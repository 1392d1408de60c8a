package arno.batch;

/**
 * The one catalogue of what can go wrong in the batch service, each with the
 * HTTP status it becomes at the servlet edge and the code that appears in
 * {@code err:error/@code} and in the report. Saxon, SAX and I/O exceptions are
 * translated into these where they enter our code (see {@link BatchException}).
 */
enum Problem {
    // Submitting a batch.
    MALFORMED_BATCH(400, "malformed-batch"),
    INVALID_BATCH(400, "invalid-batch"),
    OUTSIDE_ROOTS(400, "outside-roots"),
    UNSUPPORTED_URI(400, "unsupported-uri"),
    BAD_PARAMETER(400, "bad-parameter"),
    BATCH_TOO_LARGE(413, "batch-too-large"),
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported-media-type"),
    UNAUTHORIZED(401, "unauthorized"),
    QUEUE_FULL(503, "queue-full"),
    SHUTTING_DOWN(503, "shutting-down"),

    // The stylesheet: a job that meets these fails at once.
    STYLESHEET_NOT_FOUND(422, "stylesheet-not-found"),
    STYLESHEET_ERROR(422, "stylesheet-error"),
    MISSING_PARAMETER(422, "missing-parameter"),

    // One input: reported in the job's report, the other inputs go on.
    INPUT_UNREADABLE(500, "input-unreadable"),
    INPUT_MALFORMED(500, "input-malformed"),
    TRANSFORMATION_ERROR(500, "transformation-error"),
    OUTPUT_FAILED(500, "output-failed"),

    // Reading jobs.
    NO_SUCH_JOB(404, "no-such-job"),
    NOT_FOUND(404, "not-found"),
    METHOD_NOT_ALLOWED(405, "method-not-allowed"),
    ALREADY_FINISHED(409, "already-finished"),
    INTERNAL(500, "internal");

    final int status;
    final String code;

    Problem(int status, String code) {
        this.status = status;
        this.code = code;
    }
}
