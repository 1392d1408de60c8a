package arno.store.atom;

import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.nio.file.Path;
import java.util.List;


/**
 * How the Atom service runs. Immutable; every setting has its default here and is checked when
 * set, so a bad value fails at once with the name of the setting.
 *
 * <pre>{@code
 * AtomStore.open(store, AtomOptions.defaults().maxBodyBytes(16L << 20))
 * }</pre>
 */
public final class AtomOptions {

    /** 64 MiB: the largest variant or media resource a client may send. */
    public static final long DEFAULT_MAX_BODY_BYTES = 64L << 20;
    /** 1 MiB: the largest Atom entry (entries are parsed in memory). */
    public static final int DEFAULT_MAX_ENTRY_BYTES = 1 << 20;
    /**
     * 256: operations applied in one LMDB write transaction at most. Bounded so a long queue is
     * committed in steps (each commit makes its writes visible and completes its callers).
     */
    public static final int DEFAULT_GROUP_COMMIT_MAX = 256;
    /** Children per page of a feed, and the most a client may ask for. */
    public static final int DEFAULT_PAGE_SIZE = 100;
    public static final int DEFAULT_MAX_PAGE_SIZE = 1000;

    private static final AtomOptions DEFAULTS = new AtomOptions(DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ENTRY_BYTES,
            DEFAULT_GROUP_COMMIT_MAX, DEFAULT_PAGE_SIZE, DEFAULT_MAX_PAGE_SIZE, "", null, List.of());

    private final long maxBodyBytes;
    private final int maxEntryBytes;
    private final int groupCommitMax;
    private final int pageSize;
    private final int maxPageSize;
    private final String hrefPrefix;
    private final Path spoolFolder;
    private final List<String> hosts;

    private AtomOptions(long maxBodyBytes, int maxEntryBytes, int groupCommitMax, int pageSize, int maxPageSize,
            String hrefPrefix, Path spoolFolder, List<String> hosts) {
        this.maxBodyBytes = maxBodyBytes;
        this.maxEntryBytes = maxEntryBytes;
        this.groupCommitMax = groupCommitMax;
        this.pageSize = pageSize;
        this.maxPageSize = maxPageSize;
        this.hrefPrefix = hrefPrefix;
        this.spoolFolder = spoolFolder;
        this.hosts = hosts;
    }

    public static AtomOptions defaults() {
        return DEFAULTS;
    }

    /** The largest variant or media body accepted; larger ones fail with BODY_TOO_LARGE (413). */
    public AtomOptions maxBodyBytes(long bytes) {
        if (bytes < 1) throw ErrorMessage.STORE_BODY_LIMIT.error(bytes);
        return new AtomOptions(bytes, maxEntryBytes, groupCommitMax, pageSize, maxPageSize, hrefPrefix, spoolFolder, hosts);
    }

    /** The largest Atom entry accepted (at most 16 MiB: entries are held in memory). */
    public AtomOptions maxEntryBytes(int bytes) {
        if (bytes < 1024 || bytes > (16 << 20)) {
            throw ErrorMessage.STORE_ENTRY_LIMIT.error(bytes);
        }
        return new AtomOptions(maxBodyBytes, bytes, groupCommitMax, pageSize, maxPageSize, hrefPrefix, spoolFolder, hosts);
    }

    /** The most operations committed in one transaction (1 = no group commit). */
    public AtomOptions groupCommitMax(int operations) {
        if (operations < 1) {
            throw ErrorMessage.STORE_GROUP_COMMIT.error(operations);
        }
        return new AtomOptions(maxBodyBytes, maxEntryBytes, operations, pageSize, maxPageSize, hrefPrefix, spoolFolder, hosts);
    }

    /** Feed paging: the page size when a client asks for none, and the largest it may ask for. */
    public AtomOptions pageSize(int standard, int max) {
        if (standard < 1 || max < standard) {
            throw ErrorMessage.STORE_PAGE_SIZES.error(standard, max);
        }
        return new AtomOptions(maxBodyBytes, maxEntryBytes, groupCommitMax, standard, max, hrefPrefix, spoolFolder, hosts);
    }

    /**
     * The path the HTTP API is mounted at ({@code /store}), which the hrefs of typed links in
     * posted entries may carry because clients send back what the API showed them: it is cut off,
     * so {@code /store/journals/ja.atom} is stored as {@code /journals/ja.atom}. Default: none.
     */
    public AtomOptions hrefPrefix(String prefix) {
        String p = prefix == null ? "" : prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        if (!p.isEmpty() && !p.startsWith("/")) {
            throw ErrorMessage.STORE_HREF_PREFIX.error(prefix);
        }
        return new AtomOptions(maxBodyBytes, maxEntryBytes, groupCommitMax, pageSize, maxPageSize, p, spoolFolder, hosts);
    }

    /** Where bodies over 1 MiB are spooled before they are written (default: the system's temp folder). */
    public AtomOptions spoolFolder(Path folder) {
        return new AtomOptions(maxBodyBytes, maxEntryBytes, groupCommitMax, pageSize, maxPageSize, hrefPrefix, folder, hosts);
    }

    /**
     * The host names the server answers as ({@code ./arno serve --host}): a {@code Location} is an
     * absolute URL when the request's {@code Host} is one of them, else a path ({@link arno.xml.Hosts}).
     * An entry {@code name} allows any port, {@code name:port} that port. Default: none.
     */
    public AtomOptions hosts(List<String> names) {
        List<String> h = List.copyOf(names);
        for (String n : h) {
            if (n.isBlank() || n.contains("/") || n.contains(" ")) {
                throw ErrorMessage.STORE_HOST.error(n);
            }
        }
        return new AtomOptions(maxBodyBytes, maxEntryBytes, groupCommitMax, pageSize, maxPageSize, hrefPrefix, spoolFolder, h);
    }

    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    public int maxEntryBytes() {
        return maxEntryBytes;
    }

    public int groupCommitMax() {
        return groupCommitMax;
    }

    public int pageSize() {
        return pageSize;
    }

    public int maxPageSize() {
        return maxPageSize;
    }

    public String hrefPrefix() {
        return hrefPrefix;
    }

    public List<String> hosts() {
        return hosts;
    }

    public Path spoolFolder() {
        return spoolFolder != null ? spoolFolder : Path.of(System.getProperty("java.io.tmpdir"));
    }

    @Override
    public String toString() {
        return "AtomOptions[maxBodyBytes=" + maxBodyBytes + ", maxEntryBytes=" + maxEntryBytes + ", groupCommitMax="
                + groupCommitMax + ", pageSize=" + pageSize + "/" + maxPageSize + ", hrefPrefix=" + hrefPrefix + ", hosts=" + hosts + "]";
    }
}
