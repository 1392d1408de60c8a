package arno.pipeline;

/**
 * A site or a shared package that cannot be loaded: the message names the
 * file, the line and the wrong thing. Thrown at start-up, never at a request.
 */
public final class SiteException extends RuntimeException {
    public SiteException(String message) {
        super(message);
    }

    public SiteException(String message, Throwable cause) {
        super(message, cause);
    }
}
