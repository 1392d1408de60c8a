package arno.pipeline;

import arno.cache.Dependencies;
import arno.cache.Ticker;
import arno.http.HeaderValues;
import arno.xml.ArnoException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's page caches, one {@link PageCache} per site whose routes cache, kept across
 * development reloads (a reload changes the code fingerprint, which every page records, so the
 * pages built by the old code are never served). What the servlet calls:
 * <ol>
 * <li>{@link #lookup} on the container's thread: routes the request, makes its key (site, route,
 * path, the route's chosen query parameters and headers, and the values of the request parts the
 * route's pages have been seen to read: {@link RequestParts}) and returns a valid page, which the
 * servlet writes without a worker or a pipeline;</li>
 * <li>on a miss, the pipeline runs on a worker into a {@link Capture} with a {@link Reads}
 * recorder, and {@link #store} keeps the page if it may be kept and answers the request.</li>
 * </ol>
 * The key holds every part of the request the page read from req:request, whether or not the
 * site listed it under {@code vary}, so a page built from one request's Host, X-Forwarded-Host
 * or Accept-Language is never served to a request with another; a page that read a credential or
 * a cookie the request carried is not kept at all.
 * One follower thread per server ({@link #follow}) reads the store's change feed every
 * {@value #POLL_MILLIS} ms and evicts the pages that depend on what changed.
 */
final class PageCaches implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("arno");
    /** How often the follower asks the change feed for news. The store has no commit hook; 100 ms is cheap. */
    static final long POLL_MILLIS = 100;
    /** Changes read per poll at most; a bigger backlog is read in several rounds without sleeping. */
    static final int FEED_PAGE = 1000;
    /** Threads that stat files for checks that are due; bounded, as the checks are small. */
    static final int VALIDATION_THREADS = 2;

    private final Path folder;
    private final Ticker clock;
    /** Off: no site gets a cache, whatever its site.xml says, so every page is built afresh. */
    private final boolean enabled;
    private final ConcurrentHashMap<String, PageCache> bySite = new ConcurrentHashMap<>();
    /** Every site's context caches (external sources, fragments, its table of files), when enabled. */
    private final ConcurrentHashMap<String, ContextCache> contexts = new ConcurrentHashMap<>();
    /**
     * The one memory budget of every site's pages, or null (caches off, or each site its own tier):
     * a site's {@code memory} is its cap within it, so no number of sites can exhaust the heap.
     */
    private final arno.cache.SharedMemory memory;
    private final ExecutorService validation;
    private final net.sf.saxon.Configuration config;
    private final arno.xml.Outbound outbound;
    private final arno.xml.XmlPolicy policy;
    private volatile Thread follower;
    private volatile boolean closed;

    /**
     * Caches whose disk tiers are folders under {@code folder} (null: memory only), timed by
     * {@code clock} (nanoseconds since the epoch); none at all unless {@code enabled}. Every site's
     * pages in memory share {@code memoryBudget} bytes (0: each site keeps its own {@code memory}).
     * External sources are fetched through {@code outbound}, parsed by {@code policy} into trees of {@code config}.
     */
    PageCaches(Path folder, Ticker clock, boolean enabled, long memoryBudget, net.sf.saxon.Configuration config,
               arno.xml.Outbound outbound, arno.xml.XmlPolicy policy) {
        this.memory = enabled && memoryBudget > 0
                ? arno.cache.SharedMemory.of(memoryBudget, PageCache.memoryEntries(memoryBudget)) : null;
        this.folder = folder;
        this.clock = clock;
        this.enabled = enabled;
        this.config = config;
        this.outbound = outbound;
        this.policy = policy;
        AtomicInteger n = new AtomicInteger();
        this.validation = Executors.newFixedThreadPool(VALIDATION_THREADS, r -> {
            Thread t = new Thread(r, "arno-cache-check-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Wall-clock time as nanoseconds since the epoch: a page's ttl must outlive the process. */
    static Ticker wallClock() {
        return () -> System.currentTimeMillis() * 1_000_000L;
    }

    /**
     * Opens the caches of the sites whose routes cache, keeping the ones open whose bounds did not
     * change (a development reload), so their pages and folder locks stay; a site whose bounds
     * changed gets a fresh cache.
     */
    synchronized void configure(List<Site> sites) {
        if (closed || !enabled) return;
        for (Site s : sites) {
            ContextCache context = contexts.get(s.name());
            PageCache old = bySite.get(s.name());
            if (context != null && context.policy.equals(s.cache) && (old != null) == s.caches()) continue;
            if (old != null) {
                bySite.remove(s.name());
                closeQuietly(old);
            }
            if (context == null || !context.policy.equals(s.cache)) {
                if (context != null) context.close();
                context = new ContextCache(s.name(), s.cache, config, outbound, policy, validation, clock);
                contexts.put(s.name(), context);
            }
            if (!s.caches()) continue;
            Path disk = folder == null ? null : folder.resolve(s.name());
            // A disk tier that cannot be opened leaves the site's pages in memory, with a warning (see PageCache).
            bySite.put(s.name(), new PageCache(s.name(), s.cache, disk, memory, validation, clock, context));
        }
    }

    /** {@code site}'s context caches, or null when the caches are off. */
    ContextCache context(String site) {
        return contexts.get(site);
    }

    /**
     * A request's place in the cache: where its page is kept, where the request was routed (the
     * site, its path in it, the route and the variables: on a miss the {@link Exchange} runs this
     * route, without routing again), its key without the request parts ({@code base}) and with
     * those the route has learned ({@code key}), and the page when there is a valid one.
     */
    record Lookup(PageCache cache, Router.Match match, String base, String key, Page page) {
        Route route() {
            return match.route();
        }
    }

    /**
     * Where {@code request}'s page is cached and, if there is a valid one, the page; null when
     * its route does not cache (or the request is not a GET or HEAD, or cannot be routed).
     */
    Lookup lookup(Sites sites, HttpRequest request) {
        String method = request.method();
        if (!method.equals("GET") && !method.equals("HEAD")) return null;
        if (bySite.isEmpty()) return null;
        String path;
        try {
            path = Router.decode(request.path());
        } catch (ArnoException e) {
            return null;
        }
        Router.Match m = Router.route(sites.sites, request.host(), path);
        if (m == null || m.route() == null || m.route().cache == null) return null;
        if (sites.engine.config.development() && m.sitePath().startsWith("/_debug/")) return null;
        PageCache cache = bySite.get(m.site().name());
        if (cache == null) return null;
        String base = key(m.site().name(), m.route(), m.sitePath(), request);
        if (base == null) return null;
        String key = withParts(base, cache.learned(m.route().name(), sites.code).get(), m.route(), request);
        if (key == null) return null;
        return new Lookup(cache, m, base, key, cache.get(key, sites.code, sites.engine.store));
    }

    /**
     * The key without request parts: site, route, path inside the site, the route's chosen query
     * parameters and headers with all their values, in order, each string written with its length
     * first so that no value can pass for another ({@code p=a%26q%3Db} is not {@code p=a&q=b}).
     * Null when the query is not well encoded (the pipeline answers 400).
     */
    static String key(String site, Route route, String sitePath, HttpRequest request) {
        StringBuilder k = new StringBuilder(96).append(site).append('\n').append(route.name()).append('\n')
                .append(sitePath).append('\n');
        CachePolicy.Route policy = route.cache;
        if (!policy.params().isEmpty() && request.query() != null) {
            Map<String, List<String>> values;
            try {
                values = RequestReader.parameters(request.query());
            } catch (ArnoException e) {
                return null;
            }
            for (String name : policy.params()) {
                List<String> v = values.get(name);
                if (v == null) continue;
                RequestParts.appendString(k, name);
                RequestParts.appendStrings(k, v);
            }
        }
        k.append('\n');
        for (String header : policy.vary()) {
            RequestParts.appendString(k, header.toLowerCase(Locale.ROOT));
            RequestParts.appendStrings(k, request.headers(header));
        }
        return k.toString();
    }

    /** {@code base} with the values of {@code parts} in {@code request}; null when they cannot be read (a bad query). */
    static String withParts(String base, java.util.Set<String> parts, Route route, HttpRequest request) {
        if (parts.isEmpty()) return base;
        StringBuilder k = new StringBuilder(base.length() + 64 * parts.size()).append(base).append('\n');
        return RequestParts.appendKey(k, parts, request, route.cache) ? k.toString() : null;
    }

    /**
     * After a miss: keeps the captured page when it may be kept (a GET answered 200 without an
     * error, no cookie, not larger than max-size, not marked uncacheable by a stage or by
     * {@code Cache-Control: no-store} or {@code private}, no credential or cookie of the request
     * read), with its validators, under a key with the values of the request parts it read, and
     * answers {@code request} with it; otherwise sends the captured response as it is.
     */
    void store(Lookup lookup, Sites sites, HttpRequest request, Exchange exchange, Reads reads, Capture capture,
               HttpServletResponse response) throws IOException {
        Route route = lookup.route();
        java.util.Set<String> read = reads.requestParts();
        String refusal = capture.passedThrough();
        if (refusal == null) refusal = refusal(request, exchange, reads, capture);
        if (refusal == null) {
            refusal = RequestParts.refusal(read, request, route.cache);
            // One user's page: no cache downstream may keep it either.
            if (refusal != null && !has(capture.headers(), "Cache-Control")) capture.headers().add(new String[] {"Cache-Control", "private"});
        }
        if (refusal != null) {
            capture.release(refusal);
            return;
        }
        // The page is kept under the parts the route has learned, this page's among them.
        String key = withParts(lookup.base(), lookup.cache().learned(route.name(), sites.code).add(read), route, request);
        if (key == null) {
            capture.release("its query string is not well encoded");
            return;
        }
        List<Dependencies.Dependency> deps = reads.dependencies();
        deps.add(new Dependencies.Dependency(PageCache.CODE, lookup.cache().site, sites.code));
        long now = lookup.cache().now() / 1_000_000;
        if (route.cache.ttl() != null) {
            deps.add(new Dependencies.Dependency(PageCache.EXPIRES, "ttl", Long.toString(now + route.cache.ttl().toMillis())));
        }
        Dependencies dependencies = Dependencies.of(deps);
        byte[] body = capture.body();
        String contentType = capture.contentType();
        byte[] gzip = Page.gzip(contentType, body);
        List<String[]> headers = new ArrayList<>();
        List<String> vary = new ArrayList<>();
        for (String[] h : capture.headers()) {
            if (h[0].equalsIgnoreCase("Vary")) vary.add(h[1]);
            else headers.add(h);
        }
        if (!has(headers, "ETag")) headers.add(new String[] {"ETag", etag(key, dependencies)});
        if (!has(headers, "Last-Modified")) headers.add(new String[] {"Last-Modified", Page.httpDate(now / 1000 * 1000)});
        if (!has(headers, "Cache-Control")) {
            String control = route.cache.cacheControl();
            headers.add(new String[] {"Cache-Control", RequestParts.hidden(read, route.cache) ? "private, " + control : control});
        }
        for (String v : route.cache.vary()) vary.add(v);
        RequestParts.vary(read, vary);
        if (gzip != null) vary.add("Accept-Encoding");
        if (!vary.isEmpty()) headers.add(new String[] {"Vary", String.join(", ", vary)});
        String keys = surrogateKeys(deps);
        if (keys != null) headers.add(new String[] {SURROGATE_KEY, keys});
        Page page = new Page(capture.status(), contentType, headers, body, gzip);
        try {
            lookup.cache().put(key, page, dependencies);
        } catch (IllegalStateException e) {
            // The cache closed meanwhile (a development reload changed its bounds, or shutdown): answer uncached.
        }
        page.write(request, response);
    }

    /** The header naming what in the store a cached page was built from. */
    static final String SURROGATE_KEY = "Surrogate-Key";
    /** Beyond this the keys become folders, then "*": proxies limit a header's length (Varnish: 8 KB). */
    static final int SURROGATE_KEY_LIMIT = 4096;

    /**
     * For caches downstream (a proxy or CDN that purges by surrogate key, as Varnish's xkey and
     * Fastly do), in the spirit of Cache-Channel: the store paths a page read, the folders it
     * listed ({@code /a/b/}) and {@code *} when it depends on any commit (a value-index lookup).
     * A follower of {@code /store/changes} purges, for each changed path, the path itself, each
     * of its ancestor folders and {@code *}: never less than this cache evicts. Null when the
     * page read nothing from the store (content files are not in the feed).
     */
    static String surrogateKeys(List<Dependencies.Dependency> deps) {
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        for (Dependencies.Dependency d : deps) {
            switch (d.kind()) {
                case Reads.STORE -> keys.add(d.uri().replace(" ", "%20"));
                case Reads.STORE_URIS, Reads.STORE_CHILDREN -> keys.add(d.uri().equals(Reads.EVERYTHING) ? "*"
                        : d.uri().substring(0, d.uri().lastIndexOf('/') + 1).replace(" ", "%20"));
                case Reads.STORE_ANY -> keys.add("*");
                default -> { }
            }
        }
        if (keys.isEmpty()) return null;
        if (keys.contains("*") || keys.contains("/")) return keys.contains("*") ? "*" : "/";
        String all = String.join(" ", keys);
        if (all.length() <= SURROGATE_KEY_LIMIT) return all;
        java.util.Set<String> folders = new java.util.TreeSet<>();
        for (String k : keys) folders.add(k.substring(0, k.lastIndexOf('/') + 1));
        String coarse = String.join(" ", folders);
        return coarse.length() <= SURROGATE_KEY_LIMIT ? coarse : "*";
    }

    private static String refusal(HttpRequest request, Exchange exchange, Reads reads, Capture capture) {
        if (!request.method().equals("GET")) return "only GET responses are kept";
        if (exchange.error() != null) return "the page failed";
        if (capture.status() != 200) return "status " + capture.status();
        if (reads.uncacheable() != null) return reads.uncacheable();
        for (String[] h : capture.headers()) {
            if (h[0].equalsIgnoreCase("Cache-Control")) {
                for (HeaderValues.Element d : HeaderValues.parse(h[1])) {
                    if (d.is("no-store") || d.is("private")) return "Cache-Control: " + h[1];
                }
            }
        }
        return null;
    }

    private static boolean has(List<String[]> headers, String name) {
        for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) return true;
        return false;
    }

    /**
     * A strong ETag from the key and every dependency at its version: the same page from the same
     * sources has the same tag on every server and after a restart; any change gives a new one.
     */
    static String etag(String key, Dependencies dependencies) {
        List<String> parts = new ArrayList<>(1 + 3 * dependencies.size());
        parts.add(key);
        for (Dependencies.Dependency d : dependencies) {
            if (d.kind().equals(PageCache.EXPIRES) || d.kind().equals(Reads.STORE_VIEW)) continue;
            parts.add(d.kind());
            parts.add(d.uri());
            parts.add(d.version());
        }
        return '"' + Reads.hash(parts) + '"';
    }

    // ----- Invalidation from the store's change feed. -----

    /**
     * Starts the follower thread on {@code feed}, from its current version. Pages already cached
     * need no replay of older changes: every lookup checks against the current store anyway.
     */
    synchronized void follow(ChangeFeed feed) {
        if (follower != null) throw new IllegalStateException("the page caches already follow a change feed");
        Thread t = new Thread(() -> followLoop(feed), "arno-cache-follower");
        t.setDaemon(true);
        follower = t;
        t.start();
    }

    private void followLoop(ChangeFeed feed) {
        long version = -1;
        int seq = 0;
        boolean warned = false;
        while (!closed) {
            try {
                if (version < 0) {
                    version = feed.version();
                    seq = 0;
                }
                List<ChangeFeed.Change> changes = feed.since(version, seq, FEED_PAGE);
                for (ChangeFeed.Change c : changes) {
                    invalidate(c.path(), c.version(), c.deleted());
                    version = c.version();
                    seq = c.seq() + 1;
                }
                warned = false;
                if (changes.size() == FEED_PAGE) continue;
            } catch (RuntimeException e) {
                // Pruned or unreadable: start again from now; the lookups' own checks keep pages correct.
                if (!warned) LOG.log(System.Logger.Level.WARNING, "page caches: reading the change feed failed (" + e.getMessage()
                        + "); following it again from the current version");
                warned = true;
                version = -1;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Evicts, in every site, the pages that read {@code path} at another version than {@code
     * version} (or that read it at all, when deleted), those that listed a folder or prefix
     * it is under (a new or deleted document changes the listing), and those valid only until the
     * next commit ({@value Reads#STORE_ANY}: lookups, full-text searches). An update of an existing
     * document evicts the listings too (the feed does not tell creation from update): more than
     * needed, never less.
     */
    void invalidate(String path, long version, boolean deleted) {
        if (closed) return;
        List<Dependencies.Dependency> changed = new ArrayList<>();
        changed.add(new Dependencies.Dependency(Reads.STORE, path, deleted ? "" : Long.toString(version)));
        // No listing's hash is "!": every entry that recorded one of these listings goes.
        changed.add(new Dependencies.Dependency(Reads.STORE_URIS, Reads.EVERYTHING, "!"));
        // Nor is any store version: pages of a value-index lookup or a full-text search go at any commit.
        changed.add(new Dependencies.Dependency(Reads.STORE_ANY, "/", "!"));
        for (int i = 1; i <= path.length(); i++) {
            changed.add(new Dependencies.Dependency(Reads.STORE_URIS, path.substring(0, i), "!"));
            if (path.charAt(i - 1) == '/') {
                changed.add(new Dependencies.Dependency(Reads.STORE_CHILDREN, path.substring(0, i), "!"));
            }
        }
        // What was built from a view that already saw this change stays: the feed is read late.
        java.util.function.Predicate<Dependencies> newer = built -> {
            for (Dependencies.Dependency d : built) {
                if (d.kind().equals(Reads.STORE_VIEW)) return Long.parseLong(d.version()) >= version;
            }
            return false;
        };
        for (PageCache cache : bySite.values()) {
            for (Dependencies.Dependency d : changed) cache.invalidate(d, newer);
        }
        for (ContextCache context : contexts.values()) {
            for (Dependencies.Dependency d : changed) context.invalidate(d, newer);
        }
    }

    Map<String, PageCacheStats> stats() {
        Map<String, PageCacheStats> out = new LinkedHashMap<>();
        bySite.values().stream().sorted((a, b) -> a.site.compareTo(b.site)).forEach(c -> out.put(c.site, c.stats()));
        return out;
    }

    /** The memory budget shared by every site's pages in figures, or null when there is none. */
    PageCacheBudget budget() {
        return memory == null ? null : new PageCacheBudget(memory.budget(), memory.weight(), memory.entries(), memory.target());
    }

    Map<String, ContextCacheStats> contextStats() {
        Map<String, ContextCacheStats> out = new LinkedHashMap<>();
        contexts.values().stream().sorted((a, b) -> a.site.compareTo(b.site)).forEach(c -> out.put(c.site, c.stats()));
        return out;
    }

    /**
     * Drops every cached page, fragment and external source of {@code site} (null: of every
     * site); returns how many entries went, by site. An unknown site gives an empty map.
     */
    Map<String, Integer> clear(String site) {
        Map<String, Integer> out = new java.util.TreeMap<>();
        for (ContextCache c : contexts.values()) {
            if (site != null && !site.equals(c.site)) continue;
            PageCache pages = bySite.get(c.site);
            out.put(c.site, c.clear() + (pages == null ? 0 : pages.clear()));
        }
        return out;
    }

    /** Stops the follower and closes every cache (memory written to disk for a warm start). */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        Thread t = follower;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (PageCache c : bySite.values()) closeQuietly(c);
        bySite.clear();
        for (ContextCache c : contexts.values()) c.close();
        contexts.clear();
        validation.shutdown();
        try {
            validation.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(PageCache c) {
        try {
            c.close();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the page cache of site '" + c.site + "' failed: " + e);
        }
    }
}
