/**
 * Arno's standard filters: Java pipeline stages ({@link arno.pipeline.SaxStage}) that sites declare in
 * site.xml with {@code <filter java="arno.filters.NAME"/>}. Each amends req:request by appending
 * {@code msg:attribute} elements, streaming, and has case files under src/test/resources/cases
 * (the pipeline's case format, run by the pipeline's runner).
 * <ul>
 * <li>{@link arno.filters.ContentPeek}: the resource a request names (site parameter content-base + the
 * route variables), where it is (store, file, none) and how to expand it (content-expand[.ROUTE]).</li>
 * <li>{@link arno.filters.ContentFetch}: that entry, expanded (with-ancestors, with-descendants), from the
 * request's own view of the store or from the content files laid out the same way.</li>
 * </ul>
 * Thread rules: one instance serves every request at once; per-request state lives in the handler
 * {@code open} returns.
 */
package arno.filters;
