package arno.server.ops;

import arno.batch.BatchService;
import arno.pipeline.ContextCacheStats;
import arno.pipeline.PageCacheStats;
import arno.pipeline.RequestObserver;
import arno.pipeline.SiteRegistry;
import arno.server.ArnoServer;
import arno.store.Store;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The server's figures in one Micrometer registry, written in Prometheus' text format by
 * {@link #scrape}. The families (Prometheus names):
 *
 * <ul>
 * <li>{@code arno_requests_seconds} (histogram: {@code _bucket}, {@code _count}, {@code _sum};
 *     and {@code arno_requests_seconds_max}) by {@code site}, {@code route}, {@code status}
 *     ({@link RequestTimers});
 * <li>{@code arno_workers}, {@code arno_workers_busy}, {@code arno_workers_queue}: the page
 *     workers, those building a page, the requests waiting for one;
 * <li>{@code arno_cache_hits_total}, {@code _misses_total}, {@code _evictions_total},
 *     {@code _invalidations_total}, {@code arno_cache_entries}, {@code arno_cache_size_bytes},
 *     {@code arno_cache_arc_p} by {@code site} and {@code tier} (pages-memory, pages-disk,
 *     fragments, sources; a figure that does not apply to a tier is left out), as
 *     {@code ./arno cache stats} shows them; {@code arno_cache_cap_bytes} by {@code site} (tier
 *     pages-memory): the most a site's pages may take in memory;
 * <li>{@code arno_page_cache_budget_bytes}, {@code arno_page_cache_budget_used_bytes},
 *     {@code arno_page_cache_budget_entries}: the one memory budget every site's pages share (when
 *     there is one), and what they take of it together;
 * <li>{@code arno_store_size_bytes}, {@code arno_store_version}, {@code arno_store_snapshots_open}
 *     (when the server holds the store);
 * <li>{@code arno_batch_queue}, {@code arno_batch_jobs} by {@code state};
 * <li>Micrometer's JVM and process binders: {@code jvm_memory_*}, {@code jvm_gc_*},
 *     {@code jvm_threads_*}, {@code jvm_classes_*}, {@code process_cpu_usage},
 *     {@code system_cpu_count}, {@code process_uptime_seconds}, ...; and
 *     {@code arno_jvm_heap_after_gc_bytes}, the heap in use after the last collection of any kind
 *     ({@link HeapAfterGc}: Micrometer's live-data figure waits for an old-generation collection).
 * </ul>
 *
 * <p>The cache and batch figures are computed by their owners as a whole (one pass each); the
 * gauges and function counters read the copy {@link #refresh} took just before the scrape, so a
 * scrape costs one pass, not one per series. Sites that appear later (a development reload) get
 * their series at the next scrape.
 */
public final class Metrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RequestTimers requests = new RequestTimers(registry);
    private final SiteRegistry sites;
    private final BatchService batch;
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final HeapAfterGc heapAfterGc;
    private final Set<String> pageSites = new HashSet<>();
    private final Set<String> contextSites = new HashSet<>();
    private volatile Map<String, PageCacheStats> pages = Map.of();
    private volatile Map<String, ContextCacheStats> contexts = Map.of();
    private volatile arno.pipeline.PageCacheBudget budget;
    private volatile BatchService.Figures batchFigures;

    /** {@code store} and {@code batch} may be null (the server runs without them). */
    public Metrics(ArnoServer server, Store store, BatchService batch) {
        this.sites = server.sites();
        this.batch = batch;
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        heapAfterGc = new HeapAfterGc(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);

        gauge("arno.workers", server, ArnoServer::workers, "Page workers (pages built at once)", null);
        gauge("arno.workers.busy", server, ArnoServer::running, "Page workers building a page now", null);
        gauge("arno.workers.queue", server, ArnoServer::waiting, "Requests waiting for a page worker", null);

        if (store != null) {
            gauge("arno.store.size", store, s -> s.isOpen() ? s.diskBytes() : Double.NaN, "Bytes of the store's data file in use", "bytes");
            gauge("arno.store.version", store, Store::version, "The store's version (its last commit)", null);
            gauge("arno.store.snapshots.open", store, Store::openSnapshots, "Read snapshots of the store open now", null);
        }
        if (batch != null) {
            batchFigures = batch.figures();
            gauge("arno.batch.queue", this, m -> m.batchFigures.waiting(), "Batch jobs waiting to start", null);
            for (String state : batchFigures.jobs().keySet()) {
                Gauge.builder("arno.batch.jobs", this, m -> m.batchFigures.jobs().getOrDefault(state, 0))
                        .description("Batch jobs the service knows, by state").tag("state", state).strongReference(true)
                        .register(registry);
            }
        }
        budget = sites.cacheBudget();
        if (budget != null) {
            gauge("arno.page.cache.budget", this, m -> m.budget.budget(), "The memory every site's cached pages share", "bytes");
            gauge("arno.page.cache.budget.used", this, m -> m.budget.bytes(), "Bytes of every site's cached pages in memory", "bytes");
            gauge("arno.page.cache.budget.entries", this, m -> m.budget.entries(), "Every site's cached pages in memory", null);
        }
        refresh();
    }

    /** What the pipeline calls for each finished request. */
    public RequestObserver observer() {
        return requests;
    }

    /** Writes every family in {@code contentType} (Prometheus text 0.0.4, or OpenMetrics). */
    void scrape(OutputStream out, String contentType) throws IOException {
        refresh();
        registry.scrape(out, contentType);
    }

    /** Takes the figures the next scrape reads, and registers the series of sites not seen before. */
    synchronized void refresh() {
        pages = sites.cacheStats();
        contexts = sites.contextStats();
        arno.pipeline.PageCacheBudget b = sites.cacheBudget();
        if (b != null) budget = b;
        if (batch != null) batchFigures = batch.figures();
        for (String site : pages.keySet()) {
            if (pageSites.add(site)) pageSeries(site);
        }
        for (String site : contexts.keySet()) {
            if (contextSites.add(site)) contextSeries(site);
        }
    }

    /** A site whose routes cache pages: its two tiers; the memory tier carries the lookups' misses and the change feed's invalidations. */
    private void pageSeries(String site) {
        tier(site, "pages-memory", m -> page(m, site).memory().hits(), m -> page(m, site).misses(),
                m -> page(m, site).memory().evictions(), m -> page(m, site).invalidations(),
                m -> page(m, site).memory().entries(), m -> page(m, site).memory().bytes(), m -> page(m, site).memory().arcTarget());
        Gauge.builder("arno.cache.cap", this, m -> page(m, site).memoryCap())
                .description("The most bytes of pages the site keeps in memory (its memory, within the shared budget)")
                .baseUnit("bytes").tags("site", site, "tier", "pages-memory").strongReference(true).register(registry);
        tier(site, "pages-disk", m -> page(m, site).disk().hits(), null, m -> page(m, site).disk().evictions(), null,
                m -> page(m, site).disk().entries(), m -> page(m, site).disk().bytes(), m -> page(m, site).disk().arcTarget());
    }

    /** Every site with caches on: its fragments and external sources. */
    private void contextSeries(String site) {
        tier(site, "fragments", m -> context(m, site).fragments().hits(), m -> context(m, site).fragments().misses(),
                m -> context(m, site).fragments().evictions(), m -> context(m, site).fragments().invalidations(),
                m -> context(m, site).fragments().entries(), m -> context(m, site).fragments().bytes(),
                m -> context(m, site).fragments().arcTarget());
        tier(site, "sources", m -> context(m, site).sources().hits(), m -> context(m, site).sources().misses(),
                m -> context(m, site).sources().evictions(), null, m -> context(m, site).sources().entries(),
                m -> context(m, site).sources().bytes(), m -> context(m, site).sources().arcTarget());
    }

    private void tier(String site, String tier, ToDoubleFunction<Metrics> hits, ToDoubleFunction<Metrics> misses,
            ToDoubleFunction<Metrics> evictions, ToDoubleFunction<Metrics> invalidations, ToDoubleFunction<Metrics> entries,
            ToDoubleFunction<Metrics> bytes, ToDoubleFunction<Metrics> arcP) {
        counter("arno.cache.hits", site, tier, hits, "Cache lookups answered from this tier");
        if (misses != null) counter("arno.cache.misses", site, tier, misses, "Cache lookups that found no valid entry");
        counter("arno.cache.evictions", site, tier, evictions, "Entries the tier dropped for room");
        if (invalidations != null) {
            counter("arno.cache.invalidations", site, tier, invalidations, "Entries dropped because what they were built from changed");
        }
        Gauge.builder("arno.cache.entries", this, entries).description("Entries held now").tags("site", site, "tier", tier)
                .strongReference(true).register(registry);
        Gauge.builder("arno.cache.size", this, bytes).description("Bytes held now").baseUnit("bytes").tags("site", site, "tier", tier)
                .strongReference(true).register(registry);
        Gauge.builder("arno.cache.arc.p", this, arcP).description("ARC's target size for entries seen once (the paper's p)")
                .tags("site", site, "tier", tier).strongReference(true).register(registry);
    }

    private void counter(String name, String site, String tier, ToDoubleFunction<Metrics> f, String description) {
        FunctionCounter.builder(name, this, f).description(description).tags("site", site, "tier", tier).register(registry);
    }

    private static final PageCacheStats.Tier NO_TIER = new PageCacheStats.Tier(0, 0, 0, 0, 0, 0);
    private static final PageCacheStats NO_PAGES = new PageCacheStats("", 0, 0, 0, 0, 0, NO_TIER, NO_TIER, null);
    private static final ContextCacheStats.Part NO_PART = new ContextCacheStats.Part(0, 0, 0, 0, 0, 0, 0, 0);
    private static final ContextCacheStats NO_CONTEXT = new ContextCacheStats("", NO_PART, NO_PART, 0, 0, 0, 0);

    private static PageCacheStats page(Metrics m, String site) {
        return m.pages.getOrDefault(site, NO_PAGES);
    }

    private static ContextCacheStats context(Metrics m, String site) {
        return m.contexts.getOrDefault(site, NO_CONTEXT);
    }

    private <T> void gauge(String name, T owner, ToDoubleFunction<T> f, String description, String unit) {
        Gauge.Builder<T> b = Gauge.builder(name, owner, o -> {
            try {
                return f.applyAsDouble(o);
            } catch (RuntimeException e) {
                return Double.NaN; // closing under a scrape
            }
        }).description(description).strongReference(true);
        if (unit != null) b.baseUnit(unit);
        b.register(registry);
    }

    /** Unhooks the GC listeners and closes the registry. */
    @Override
    public void close() {
        gc.close();
        heapAfterGc.close();
        registry.close();
    }
}
