package arno.pipeline;

import arno.cache.Dependencies;
import arno.cache.SharedMemory;
import arno.cache.Stats;
import arno.cache.Ticker;
import arno.cache.TwoTierCache;
import arno.xml.DocumentStore;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
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
 * interval (a per-site table of what each file was last seen as, {@link FileStates}), the stats
 * that are due run in parallel on the validation executor.</li>
 * <li>External URIs: through the site's {@link Sources}, asked again (a conditional GET) at most
 * once per their interval, in parallel on the validation executor.</li>
 * <li>Code ({@code "code"}, the fingerprint of every package and site file the sites were
 * compiled from) and expiry ({@code "expires"}, the ttl): compared at once.</li>
 * </ul>
 * The store's change feed evicts dependent pages as well ({@link #invalidate}), so the memory
 * they hold is freed and a stale page does not wait for its next lookup. The checks themselves
 * are {@link Check}.
 *
 * <h2>Bad states</h2>
 * A disk tier that cannot be opened (unwritable, not a folder, locked) or written (full, gone)
 * leaves the cache in memory only, with one warning in the log and the reason in the
 * statistics. A damaged file is deleted and its page rebuilt; a crash mid-write leaves a
 * temporary file that is never read and is deleted at the next start (see {@code EntryFile}).
 */
final class PageCache implements AutoCloseable {
    static final String CODE = Check.CODE;
    static final String EXPIRES = Check.EXPIRES;
    private static final System.Logger LOG = System.getLogger("arno");

    final String site;
    final CachePolicy.Site policy;
    /** The budget the site's pages in memory share with the other sites', or null. */
    private final SharedMemory memory;
    private final TwoTierCache<String, Page> pages;
    private final Stats.Counting stats = Stats.counting();
    /** The site's context caches: its tables of files and external sources are the pages' too. */
    final ContextCache context;
    private final Ticker clock;
    /** Why the disk tier could not be opened, or null. */
    private final String diskRefused;
    /** What each route's pages read of the HTTP request ({@link RequestParts}), by route name. */
    private final java.util.concurrent.ConcurrentHashMap<String, RequestParts.Learned> learned = new java.util.concurrent.ConcurrentHashMap<>();
    /** Where {@link #learned} is kept across restarts (beside the disk tier's files), or null. */
    private final Path learnedFile;

    /**
     * A cache for {@code site} with disk files in {@code folder} (null for memory only). {@code clock}
     * counts nanoseconds since the epoch (a ttl outlives the process), {@code validation} runs the
     * file checks that are due. The pages in memory are kept in {@code memory}, shared with the other
     * sites, with the site's {@code memory} as its cap (null: in an ARC of the site's own, of that size).
     */
    PageCache(String site, CachePolicy.Site policy, Path folder, SharedMemory memory, Executor validation, Ticker clock,
              ContextCache context) {
        this.site = site;
        this.memory = memory;
        this.policy = policy;
        this.clock = clock;
        this.context = context;
        TwoTierCache<String, Page> built;
        String refused = null;
        try {
            built = build(policy, folder, validation);
        } catch (IOException e) {
            // Unwritable, not a folder, locked by another server: the site's pages are cached in memory only.
            refused = e.toString();
            LOG.log(System.Logger.Level.WARNING, "the page cache of site '" + site + "' cannot use its disk tier " + folder
                    + " (" + e.getMessage() + "); it keeps pages in memory only. Make the folder writable (or stop the"
                    + " other server using it), then restart");
            try {
                built = build(policy, null, validation);
            } catch (IOException cannot) {
                throw new IllegalStateException("a memory-only cache opens no file", cannot);
            }
        }
        this.pages = built;
        this.diskRefused = refused;
        this.learnedFile = refused == null && folder != null && policy.disk() > 0 ? folder.resolve(LEARNED_FILE) : null;
        readLearned();
    }

    /**
     * The file beside the disk tier's entries that keeps what the routes' pages read of the
     * request, so that after a restart the lookups key on it again and find the pages on disk.
     */
    static final String LEARNED_FILE = "request-parts";

    /** What the pages of {@code route} built by {@code code} have read of the request; empty for new code. */
    RequestParts.Learned learned(String route, String code) {
        RequestParts.Learned l = learned.get(route);
        if (l != null && l.code.equals(code)) return l;
        return learned.compute(route, (r, old) -> old != null && old.code.equals(code) ? old : new RequestParts.Learned(code, Set.of()));
    }

    private void readLearned() {
        if (learnedFile == null || !Files.isRegularFile(learnedFile)) return;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(learnedFile)))) {
            for (int routes = in.readInt(); routes > 0; routes--) {
                String route = in.readUTF();
                String code = in.readUTF();
                Set<String> parts = new java.util.TreeSet<>();
                for (int n = in.readInt(); n > 0; n--) parts.add(in.readUTF());
                learned.put(route, new RequestParts.Learned(code, parts));
            }
        } catch (IOException | RuntimeException e) {
            // Only the warm start suffers: the routes learn again, and their pages are built again.
            learned.clear();
            LOG.log(System.Logger.Level.WARNING, "the page cache of site '" + site + "' cannot read " + learnedFile + " (" + e
                    + "); its pages that read the request are built again");
        }
    }

    private void writeLearned() {
        if (learnedFile == null) return;
        Path temp = learnedFile.resolveSibling(LEARNED_FILE + ".new");
        try {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(arno.xml.OwnerOnly.newOutputStream(temp)))) {
                out.writeInt(learned.size());
                for (java.util.Map.Entry<String, RequestParts.Learned> e : learned.entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeUTF(e.getValue().code);
                    Set<String> parts = e.getValue().get();
                    out.writeInt(parts.size());
                    for (String p : parts) out.writeUTF(p);
                }
            }
            Files.move(temp, learnedFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "the page cache of site '" + site + "' cannot write " + learnedFile + " (" + e
                    + "); after a restart its pages that read the request are built again");
        }
    }

    /** Entry counts bound ARC's lists (and its ghost lists) in keys; the bytes are the real bound. */
    static int memoryEntries(long bytes) {
        return (int) Math.max(64, Math.min(1 << 20, bytes / 4096));
    }

    /** The most bytes of pages the site keeps in memory: its {@code memory}, within the shared budget if there is one. */
    long memoryCap() {
        return memory == null ? policy.memory() : Math.min(policy.memory(), memory.budget());
    }

    private TwoTierCache<String, Page> build(CachePolicy.Site policy, Path folder, Executor validation) throws IOException {
        TwoTierCache.Builder<String, Page> b = TwoTierCache.<String, Page>builder(memoryEntries(policy.memory()))
                .memoryWeight(memoryCap(), Page::weight)
                .validationExecutor(validation)
                .stats(stats);
        if (memory != null) b.sharedMemory(memory);
        if (folder != null && policy.disk() > 0) {
            b.disk(folder, policy.disk(), arno.cache.Codec.utf8(), Page.CODEC)
                    .diskEntries((int) Math.max(64, Math.min(1 << 22, policy.disk() / 4096)));
        }
        return b.build();
    }

    /** The valid page for {@code key}, or null (absent, or stale and so dropped). */
    Page get(String key, String code, DocumentStore store) {
        try (Check check = new Check(code, store == null ? null : store::read, true, context.files, context.sources, clock)) {
            return pages.get(key, check);
        }
    }

    void put(String key, Page page, Dependencies dependencies) {
        context.seen(dependencies);
        pages.put(key, page, dependencies);
    }

    /** Drops every page (./arno cache clear); returns how many there were. */
    int clear() {
        return pages.clear();
    }

    /** Why the disk tier is not used (it could not be opened, or a write failed), or null. */
    String diskFailure() {
        return diskRefused != null ? diskRefused : pages.diskFailure();
    }

    /** Drops the pages that recorded {@code current}'s source at another version. */
    int invalidate(Dependencies.Dependency current, java.util.function.Predicate<Dependencies> spare) {
        return pages.invalidate(current, spare);
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
                        stats.count(Stats.Event.DISK_WRITE), pages.diskEntries(), pages.diskWeight(), pages.diskTarget()),
                diskFailure(), memoryCap());
    }

    /** Writes what is only in memory to disk, so the next start is warm, and releases the folder. */
    @Override
    public void close() throws IOException {
        writeLearned();
        pages.close();
    }
}
