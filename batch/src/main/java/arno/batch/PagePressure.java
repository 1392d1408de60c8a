package arno.batch;

/**
 * Whether page requests are waiting for the server's pipeline workers, asked by batch workers
 * before each transformation and at its guard's checkpoints, so that page work comes first
 * (see {@link BatchOptions#minShare()}). The batch module knows nothing of the pipeline: the
 * server gives the service one of these (its workers' queue length and busy count).
 *
 * <p>MUST be cheap and thread-safe: it is asked from every batch worker, up to once per 256
 * template or function calls of a running transformation. MUST NOT block.
 */
@FunctionalInterface
public interface PagePressure {
    /** Never busy: batches run at full speed (a service without pages, and the default). */
    PagePressure NONE = () -> false;

    /** True while page requests wait for a worker or every worker runs one. */
    boolean busy();
}
