/**
 * The pipeline: compiled sites, and one HTTP request (or one {@code req:request} document) run
 * through them into an {@code rsp:response}. The public API, after Saxon's s9api:
 * <ul>
 * <li>{@link arno.pipeline.PipelineConfig}: where sites, packages and content are; limits.</li>
 * <li>{@link arno.pipeline.Sites}: compiled once, immutable, thread-safe (like {@code XsltExecutable}).</li>
 * <li>{@link arno.pipeline.Exchange}: one request's run, cheap, single-use (like {@code Xslt30Transformer});
 * answers into a {@link arno.pipeline.ResponseTarget} or as a tree.</li>
 * <li>{@link arno.pipeline.HttpRequest}: a request without servlets.</li>
 * <li>{@link arno.pipeline.SiteRegistry}: the current {@code Sites}, reloaded on change in development.</li>
 * <li>{@link arno.pipeline.ArnoServlet}: the thin adapter to a servlet container (workers, queue).</li>
 * <li>{@link arno.pipeline.SaxStage} and {@link arno.pipeline.RequestScope}: for Java stages.</li>
 * <li>{@link arno.pipeline.ChangeFeed} and {@link arno.pipeline.PageCacheStats}: the page caches'
 * store feed and figures (through {@code SiteRegistry}).</li>
 * </ul>
 * Inside, by job: {@code Router} (host, prefix, route), {@code RequestReader} (req:request events),
 * {@code Pipeline} and {@code Stage} (the chain), {@code ResponseWriter} and {@code HtmlWriter}
 * (rsp:response to HTTP), {@code Resources} (every read: {@link arno.xml.Access} plus
 * {@code content:} and {@code store:} and the request-scoped cache), {@code ErrorResponses},
 * {@code DebugRoutes}, {@code IndexPage}, {@code Packages}, {@code SiteLoader}, {@code Compiler}; the page
 * caches: {@code PageCaches} (per server: lookup, store, change-feed follower), {@code PageCache} (per
 * site: a two-tier cache and its checks), {@code Page}, {@code Capture}, {@code Reads} and
 * {@code RecordingView} (what a request read), {@code CachePolicy} (site.xml's cache elements).
 *
 * <p>Page cache threads: a lookup and its check run on the container's thread (the check's store
 * view is opened and closed there); a miss's pipeline and its store on a worker; one follower
 * thread per server reads the change feed and evicts; a small pool stats files for due checks.
 *
 * <p>Errors are {@link arno.xml.ArnoException}s of the one catalogue {@link arno.xml.ErrorCode},
 * with {@link arno.xml.Where} naming route and stage; error pages receive them as
 * {@code err:error} ({@link arno.xml.ErrorXml}).
 *
 * <p>Thread rules: {@code Sites}, {@code PipelineConfig}, compiled stages and {@code SaxStage}
 * instances are shared by all requests; an {@code Exchange}, its {@code RequestScope} and the
 * readers and writers it makes belong to the one thread that runs it (the scope must be closed on
 * that thread: it holds the store view, an LMDB read transaction). Saxon's callbacks reach the
 * scope through the resolvers each stage's run is given, never through a thread-local.
 */
package arno.pipeline;
