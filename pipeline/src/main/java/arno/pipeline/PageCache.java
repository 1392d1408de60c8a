package arno.pipeline;

import arno.cache.Dependencies;
import arno.cache.Stats;
import arno.cache.Ticker;
import arno.cache.TwoTierCache;
import arno.cache.Validator;
import arno.xml.DocumentStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One site's response cache: a {@link TwoTierCache} of {@link Page}s (ARC in memory bounded in
 * bytes, files under DATA/cache/SITE bounded in bytes, checksummed, surviving restarts), each
 * with the {@link Reads} its pipeline made, plus the code it was built with and its expiry.
 *
 * <h2>Validity</h2>
 * A page is served only when a check made after its request started finds every dependency
 * current ({@link Check}), so a request that starts after a store commit never gets a page
 * built from the version before: the check reads the store as it is now.
 * <ul>
 * <li>Store: one read view per check. When its version is the one the page's request saw
 * (dependency {@value Reads#STORE_VIEW}), nothing stored changed: O(1) in total. Otherwise one
 * lookup per stored document (the version that last wrote it) and one listing per listing.</li>
 * <li>Files: their time and size, looked at no more than once per the site's {@code revalidate}
 * interval (a per-site table of what each file was last seen as), the stats that are due run
 * in parallel on the validation executor.</li>
 * <li>Code ({@code "code"}, the fingerprint of every package and site file the sites were
 * compiled from) and expiry ({@code "expires"}, the ttl): compared at once.</li>
 * </ul>
 * The store's change feed evicts dependent pages as well ({@link #invalidate}), so the memory
 * they hold is freed and a stale page does not wait for its next lookup.
 */
final class PageCache implements AutoCloseable {
    static final String CODE = "code";
    static final String EXPIRES = "expires";

    final String site;
    final CachePolicy.Site policy;
    private final TwoTierCache<String, Page> pages;
    private final Stats.Counting stats = Stats.counting();
    private final FileStates files;
    private final Ticker clock;

    /**
     * A cache for {@code site} with disk files in {@code folder} (null for memory only). {@code clock}
     * counts nanoseconds since the epoch (a ttl outlives the process), {@code validation} runs the
     * file checks that are due.
     */
    PageCache(String site, CachePolicy.Site policy, Path folder, Executor validation, Ticker clock) throws IOException {
        this.site = site;
        this.policy = policy;
        this.clock = clock;
        this.files = new FileStates(policy.revalidate().toNanos(), clock);
        // Entry counts bound ARC's lists (and its ghost lists) in keys; the bytes are the real bound.
        int memoryEntries = (int) Math.max(64, Math.min(1 << 20, policy.memory() / 4096));
        TwoTierCache.Builder<String, Page> b = TwoTierCache.<String, Page>builder(memoryEntries)
                .memoryWeight(policy.memory(), Page::weight)
                .validationExecutor(validation)
                .stats(stats);
        if (folder != null && policy.disk() > 0) {
            b.disk(folder, policy.disk(), arno.cache.Codec.utf8(), Page.CODEC)
                    .diskEntries((int) Math.max(64, Math.min(1 << 22, policy.disk() / 4096)));
        }
        this.pages = b.build();
    }

    /** The valid page for {@code key}, or null (absent, or stale and so dropped). */
    Page get(String key, String code, DocumentStore store) {
        try (Check check = new Check(code, store)) {
            return pages.get(key, check);
        }
    }

    void put(String key, Page page, Dependencies dependencies) {
        for (Dependencies.Dependency d : dependencies) {
            if (d.kind().equals(Reads.FILE) || d.kind().equals(Reads.DIRECTORY)) files.seen(d.uri(), d.version());
        }
        pages.put(key, page, dependencies);
    }

    /** Drops the pages that recorded {@code current}'s source at another version. */
    int invalidate(Dependencies.Dependency current) {
        return pages.invalidate(current);
    }

    /** Nanoseconds since the epoch. */
    long now() {
        return clock.read();
    }

    PageCacheStats stats() {
        return new PageCacheStats(site, stats.count(Stats.Event.MISS), stats.count(Stats.Event.STALE),
                stats.count(Stats.Event.INVALIDATION), stats.count(Stats.Event.CORRUPT), stats.count(Stats.Event.IO_ERROR),
                new PageCacheStats.Tier(stats.count(Stats.Event.HIT), stats.count(Stats.Event.EVICTION), 0,
                        pages.memoryEntries(), pages.memoryWeight(), pages.memoryTarget()),
                new PageCacheStats.Tier(stats.count(Stats.Event.DISK_HIT), stats.count(Stats.Event.DISK_EVICTION),
                        stats.count(Stats.Event.DISK_WRITE), pages.diskEntries(), pages.diskWeight(), pages.diskTarget()));
    }

    /** Writes what is only in memory to disk, so the next start is warm, and releases the folder. */
    @Override
    public void close() throws IOException {
        pages.close();
    }

    /**
     * One lookup's check of a page's dependencies (see the class comment). The store view is
     * opened at most once, on the calling thread, and closed with the check: an LMDB read
     * transaction belongs to its thread, so store dependencies are all answered in {@link #screen}.
     */
    private final class Check implements Validator, AutoCloseable {
        private final String code;
        private final DocumentStore store;
        private DocumentStore.View view;

        Check(String code, DocumentStore store) {
            this.code = code;
            this.store = store;
        }

        @Override
        public Dependencies screen(Dependencies dependencies) {
            List<Dependencies.Dependency> due = null;
            String seen = null;
            boolean stored = false;
            for (Dependencies.Dependency d : dependencies) {
                switch (d.kind()) {
                    case CODE -> {
                        if (!d.version().equals(code)) return null;
                    }
                    case EXPIRES -> {
                        if (clock.read() / 1_000_000 >= Long.parseLong(d.version())) return null;
                    }
                    case Reads.STORE_VIEW -> seen = d.version();
                    case Reads.STORE, Reads.STORE_URIS, Reads.STORE_CHILDREN, Reads.STORE_ANY -> stored = true;
                    case Reads.FILE, Reads.DIRECTORY -> {
                        String known = files.known(d.uri());
                        if (known == null) {
                            if (due == null) due = new ArrayList<>();
                            due.add(d);
                        } else if (!known.equals(d.version())) {
                            return null;
                        }
                    }
                    case Reads.URI -> {
                        // Unversioned (see Reads): trusted for the route's ttl.
                    }
                    default -> {
                        return null; // a kind this version does not know: rebuild rather than guess
                    }
                }
            }
            if (seen != null || stored) {
                if (store == null) return null;
                view = store.read();
                if (seen == null || !seen.equals(Long.toString(view.version()))) {
                    for (Dependencies.Dependency d : dependencies) {
                        if (!storeCurrent(d)) return null;
                    }
                }
            }
            return due == null ? Dependencies.none() : Dependencies.of(due);
        }

        private boolean storeCurrent(Dependencies.Dependency d) {
            String prefix = d.uri().equals(Reads.EVERYTHING) ? "" : d.uri();
            return switch (d.kind()) {
                case Reads.STORE -> Reads.versionOf(view.documentVersion(d.uri())).equals(d.version());
                case Reads.STORE_URIS -> Reads.hash(view.uris(prefix)).equals(d.version());
                case Reads.STORE_CHILDREN -> Reads.hash(view.children(prefix)).equals(d.version());
                case Reads.STORE_ANY -> d.version().equals(Long.toString(view.version()));
                default -> true;
            };
        }

        /** Files whose last look is older than the interval: looked at now, possibly in parallel. */
        @Override
        public boolean isCurrent(Dependencies.Dependency d) {
            return files.look(d.uri()).equals(d.version());
        }

        @Override
        public void close() {
            if (view != null) view.close();
        }
    }

    /**
     * What each file a page read was last seen as, and when: a file is looked at (one stat) at
     * most once per interval however many pages and hits depend on it. With a zero interval every
     * check looks. Holds one small record per distinct file read by the site's cached pages.
     */
    static final class FileStates {
        private record State(String version, long seenAt) {}

        private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();
        private final long intervalNanos;
        private final Ticker ticker;

        FileStates(long intervalNanos, Ticker ticker) {
            this.intervalNanos = intervalNanos;
            this.ticker = ticker;
        }

        /** The file's version if it was looked at less than the interval ago, else null. */
        String known(String path) {
            if (intervalNanos <= 0) return null;
            State s = states.get(path);
            return s != null && ticker.read() - s.seenAt < intervalNanos ? s.version : null;
        }

        /**
         * What a request just saw a file as (when nothing more recent is known): the page it built
         * starts its interval now, rather than looking again at its first hit.
         */
        void seen(String path, String version) {
            if (intervalNanos > 0) states.putIfAbsent(path, new State(version, ticker.read()));
        }

        /** Looks at the file now. */
        String look(String path) {
            String version = Reads.fileVersion(Path.of(path));
            if (intervalNanos > 0) states.put(path, new State(version, ticker.read()));
            return version;
        }
    }
}
