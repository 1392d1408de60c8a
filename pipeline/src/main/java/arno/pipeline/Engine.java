package arno.pipeline;

import arno.xml.Access;
import arno.xml.StoreFunctions;
import arno.xml.DocumentStore;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.sf.saxon.Configuration;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathExecutable;

/**
 * What every compilation of a server's sites shares and keeps across development reloads: the
 * Saxon processor (so stored trees and compiled stages share one name pool), the resources with
 * their source cache, the XML policy, request ids, the recent errors. Immutable apart from the id
 * counter and the recent errors.
 */
final class Engine {
    final PipelineConfig config;
    final Processor processor;
    final Resources resources;
    final XmlPolicy policy;
    /** The compiled expression {@code xml-to-json(.)}, for JSON bodies. */
    final XPathExecutable xmlToJson;
    final ErrorResponses errors;
    /** The store behind {@code store:} URIs and the page caches' checks, or null. */
    final DocumentStore store;
    /** The sites' page caches; they outlive development reloads. */
    final PageCaches caches;
    /** The last failures the sites answered, for the admin console. */
    final RecentErrors recentErrors = new RecentErrors(RecentErrors.CAPACITY);
    private final String idPrefix = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    private final AtomicLong requests = new AtomicLong();

    Engine(PipelineConfig config, DocumentStore store, arno.cache.Ticker clock) {
        this.config = config;
        this.store = store;
        Configuration c = new Configuration();
        // Run-time warnings go to our log. Saxon's default makes a reporter per transformation,
        // and with it a PrintWriter and its 16 KB buffer: a tenth of an HTML page in garbage.
        // A stage's run gets its request's reporter (RequestScope.warnings); this one is for the rest.
        c.setErrorReporterFactory(ignored -> e -> RequestScope.warning(null, e));
        this.processor = new Processor(c);
        this.policy = new XmlPolicy(config.xmlLimits());
        // Documents: the content folder. Code: the sites and the package folders (and Arno's jars).
        List<Path> code = new ArrayList<>();
        code.add(config.sites());
        for (Path p : config.packageFolders()) if (Files.isDirectory(p)) code.add(p);
        FileRoots documents = Files.isDirectory(config.content()) ? FileRoots.of(List.of(config.content())) : FileRoots.none();
        Outbound outbound = new Outbound(config.outbound());
        Access access = new Access(documents, FileRoots.of(code), outbound, policy);
        this.resources = new Resources(c, access, config.content(), config.sourceCache(), store);
        resources.install();
        // store:lookup and store:range, reading the request's view (so a cached page records them), and
        // cache:fragment: ours, and the only functions registered (reflexive Java calls are off, see Access).
        java.util.function.Function<net.sf.saxon.expr.XPathContext, DocumentStore.View> views = context -> {
            RequestScope scope = Resources.scope(context);
            return scope == null || store == null ? null : scope.view(store);
        };
        StoreFunctions.register(c, views);
        CacheFunctions.register(c);
        // Functions of modules the pipeline does not know (store:ft-search), found on the class path;
        // they read the request's view too, so that a page records what it searched.
        for (arno.xml.FunctionLibrary l : java.util.ServiceLoader.load(arno.xml.FunctionLibrary.class, Engine.class.getClassLoader())) {
            l.register(c, store, views);
        }
        this.caches = new PageCaches(config.cacheFolder(), clock, config.pageCaches(), config.pageCacheMemory(), c, outbound, policy);
        try {
            this.xmlToJson = processor.newXPathCompiler().compile("xml-to-json(.)");
        } catch (SaxonApiException e) {
            throw new IllegalStateException(e);
        }
        this.errors = new ErrorResponses(this);
    }

    /** A new request id: this run's prefix and a sequence number, both base 36. */
    String nextId() {
        return idPrefix + "-" + Long.toString(requests.incrementAndGet(), 36);
    }
}
