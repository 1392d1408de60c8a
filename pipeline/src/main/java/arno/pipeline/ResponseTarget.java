package arno.pipeline;

import net.sf.saxon.s9api.Destination;

/**
 * Where an {@link Exchange} sends its {@code rsp:response}: the HTTP response (the servlet
 * adapter's response writer), a tree (tests, {@link Exchange#respond()}), or any other
 * {@link Destination}.
 *
 * <p>Contract: {@link #open} MAY be called twice for one exchange: a second time, after
 * {@link #reset()} returned true, for the error page that replaces a failed response. An
 * implementation MUST discard everything the first destination received when {@link #reset()}
 * returns true, and MUST return false when it cannot (bytes already on the wire).
 */
public interface ResponseTarget {
    /**
     * A destination for one whole {@code rsp:response} document. {@code defaultStatus} is the
     * status when the document names none (200 for a page, the error's status for an error page).
     */
    Destination open(int defaultStatus);

    /** Discards what was sent so far, for an error page; false when that is no longer possible. */
    boolean reset();
}
