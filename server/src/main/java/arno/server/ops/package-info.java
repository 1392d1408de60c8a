/**
 * Operating a running server: {@code GET /_arno/health} ({@link arno.server.ops.Health}), {@code GET
 * /_arno/metrics} in Prometheus text format through Micrometer ({@link arno.server.ops.Metrics}),
 * and the production rule that the write APIs stay closed until an account may write
 * ({@link arno.server.ops.WriteGate}). {@link arno.server.ops.Operations#mount} puts them on a
 * server.
 *
 * <p>Thread rules: the servlets are called on container threads; the request observer on
 * whichever thread finished a request (see {@link arno.pipeline.RequestObserver}); the gauges and
 * function counters read the figures the last scrape refreshed.
 */
package arno.server.ops;
