package arno.pipeline;

/**
 * Told of every request {@link ArnoServlet} has finished answering: the server's metrics implement
 * it (the pipeline knows nothing of how they are kept). Called on the thread that finished the
 * request (a worker, or the container's thread for a page cache hit or a refusal), once per
 * request, after the response is written and before it is completed.
 *
 * <p>MUST be cheap and MUST NOT throw or block: it runs on every request. MUST NOT keep the
 * strings beyond the call other than as keys (they are the sites' and routes' own names, a
 * bounded set, never the request's path).
 */
@FunctionalInterface
public interface RequestObserver {
    /** For a request that no site or no route answered. */
    String NONE = "-";

    /** Observes nothing. */
    RequestObserver IGNORE = (site, route, status, nanos) -> { };

    /**
     * @param site   the site's name, or {@link #NONE}
     * @param route  the route's name, or {@link #NONE} (no route matched, the index page, a refusal)
     * @param status the HTTP status sent
     * @param nanos  from the servlet's first look at the request to the end of its response,
     *               waiting for a worker included
     */
    void done(String site, String route, int status, long nanos);
}
