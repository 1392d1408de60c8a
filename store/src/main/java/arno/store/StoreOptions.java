package arno.store;

import java.time.Clock;
import java.time.Duration;

import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;

/**
 * How a store is opened. Immutable; every setting has its default here and is checked when set,
 * so a bad value fails at once with the name of the setting.
 *
 * <pre>{@code
 * Store.open(dir, StoreOptions.defaults().mapSize(64L << 30))
 * }</pre>
 */
public final class StoreOptions {

    /** 16 GiB: the most the store may grow to before it must be reopened with a larger map. */
    public static final long DEFAULT_MAP_SIZE = 16L << 30;
    /** Concurrent read snapshots across the process (LMDB reader slots). */
    public static final int DEFAULT_MAX_READERS = 1024;

    /** How long the change feed keeps a change: a week, so a follower may be offline over a weekend. */
    public static final Duration DEFAULT_CHANGE_RETENTION = Duration.ofDays(7);

    private static final StoreOptions DEFAULTS = new StoreOptions(DEFAULT_MAP_SIZE, DEFAULT_MAX_READERS, true, false,
            XmlPolicy.DEFAULT, DEFAULT_CHANGE_RETENTION, Clock.systemUTC(), Index.DEFAULT);

    /**
     * The structural index's thresholds and the attribute columns' budget (see the package-private
     * settings below): tuning that tests lower to reach every path with small documents, kept
     * together so that the public settings above need not carry four more arguments each.
     */
    private record Index(int minDocumentBytes, int minRangeBytes, int spillBytes, long columnBudgetBytes) {
        static final Index DEFAULT = new Index(2048, 2048, 1 << 20, 64L << 20);
    }

    private final long mapSize;
    private final int maxReaders;
    private final boolean writeMap;
    private final boolean noSync;
    private final XmlPolicy xmlPolicy;
    private final Duration changeRetention;
    private final Clock clock;
    private final Index index;

    private StoreOptions(long mapSize, int maxReaders, boolean writeMap, boolean noSync, XmlPolicy xmlPolicy,
                         Duration changeRetention, Clock clock, Index index) {
        this.mapSize = mapSize;
        this.maxReaders = maxReaders;
        this.writeMap = writeMap;
        this.noSync = noSync;
        this.xmlPolicy = xmlPolicy;
        this.changeRetention = changeRetention;
        this.clock = clock;
        this.index = index;
    }

    public static StoreOptions defaults() {
        return DEFAULTS;
    }

    /**
     * The LMDB map size in bytes: the largest the data file may grow to. It is address space, not
     * memory; the file only takes the disk it uses (it is sparse). Rounded up to 1 MiB.
     */
    public StoreOptions mapSize(long bytes) {
        if (bytes < (1L << 20)) {
            throw ErrorMessage.MAP_SIZE_SMALL.error(bytes);
        }
        return new StoreOptions((bytes + (1L << 20) - 1) & ~((1L << 20) - 1), maxReaders, writeMap, noSync, xmlPolicy,
                changeRetention, clock, index);
    }

    /** The most read snapshots open at the same time in this process. */
    public StoreOptions maxReaders(int readers) {
        if (readers < 1) {
            throw ErrorMessage.READERS_TOO_FEW.error(readers);
        }
        return new StoreOptions(mapSize, readers, writeMap, noSync, xmlPolicy, changeRetention, clock, index);
    }

    /**
     * Whether LMDB writes dirty pages straight into the memory map (MDB_WRITEMAP, the default).
     * With it, a transaction that writes a document larger than memory costs page cache, not
     * process memory; without it LMDB keeps every dirty page of the transaction in malloc'd memory.
     */
    public StoreOptions writeMap(boolean on) {
        return new StoreOptions(mapSize, maxReaders, on, noSync, xmlPolicy, changeRetention, clock, index);
    }

    /**
     * Skip the fsync at commit (MDB_NOSYNC); a clean close flushes. A crash of the process loses
     * nothing (the pages are in the operating system's cache); a crash of the machine may lose the
     * last transactions and, with the memory map written directly ({@link #writeMap}), damage the
     * store. Only for what can be redone: bulk loads, and a cluster node's copy, which is rebuilt
     * from the cluster's database when its machine stopped while it was open.
     */
    public StoreOptions noSync(boolean on) {
        return new StoreOptions(mapSize, maxReaders, writeMap, on, xmlPolicy, changeRetention, clock, index);
    }

    /**
     * The policy every XML text stored is parsed with (default {@link XmlPolicy#DEFAULT}): the
     * server passes the one it was configured with, so a store load and a request body agree.
     */
    public StoreOptions xmlPolicy(XmlPolicy policy) {
        if (policy == null) {
            throw ErrorMessage.NO_XML_POLICY.error();
        }
        return new StoreOptions(mapSize, maxReaders, writeMap, noSync, policy, changeRetention, clock, index);
    }

    /**
     * How long the change feed keeps a change (default {@link #DEFAULT_CHANGE_RETENTION});
     * {@link Duration#ZERO} keeps every change for ever. Older changes are pruned a bounded number
     * per commit, so a follower that asks for changes after a pruned version is told to
     * resynchronise ({@link arno.xml.ErrorCode#GONE}).
     */
    public StoreOptions changeRetention(Duration retention) {
        if (retention == null || retention.isNegative()) {
            throw ErrorMessage.CHANGE_RETENTION.error(retention);
        }
        return new StoreOptions(mapSize, maxReaders, writeMap, noSync, xmlPolicy, retention, clock, index);
    }

    /**
     * The clock commit times are read from (tests inject one; a cluster node rebuilding its copy
     * stops it, so that its local commits come before the log's; commit times never go backwards anyway).
     */
    public StoreOptions clock(Clock c) {
        return new StoreOptions(mapSize, maxReaders, writeMap, noSync, xmlPolicy, changeRetention, c, index);
    }

    /**
     * The record bytes from which a document gets a structural index ({@link NameIndex}; default
     * 2 KiB): a smaller one is scanned, as a range under {@link #indexMinRangeBytes} is anyway.
     * Whether a document has an index is part of what was written, so this applies when the store
     * is created: the store records it in its metadata and keeps it for ever, whatever options
     * open it later ({@link Store#indexMinDocumentBytes}). Tests lower it to index everything.
     */
    StoreOptions indexMinDocumentBytes(int bytes) {
        if (bytes < 0) {
            throw ErrorMessage.INDEX_MIN_DOCUMENT.error(bytes);
        }
        return with(new Index(bytes, index.minRangeBytes, index.spillBytes, index.columnBudgetBytes));
    }

    /**
     * Ranges shorter than this are scanned even under an element name test (default 2 KiB):
     * decoding a few dozen records costs less than a B+tree seek. Only reading depends on it.
     */
    StoreOptions indexMinRangeBytes(int bytes) {
        if (bytes < 0) {
            throw ErrorMessage.INDEX_MIN_RANGE.error(bytes);
        }
        return with(new Index(index.minDocumentBytes, bytes, index.spillBytes, index.columnBudgetBytes));
    }

    /**
     * While a document loads, its index's open runs are all written out when together they exceed
     * this (default 1 MiB): the writer's memory bound. Where runs are cut changes no position read.
     */
    StoreOptions indexSpillBytes(int bytes) {
        if (bytes < 1) {
            throw ErrorMessage.INDEX_SPILL.error(bytes);
        }
        return with(new Index(index.minDocumentBytes, index.minRangeBytes, bytes, index.columnBudgetBytes));
    }

    /**
     * Bytes of attribute columns kept in memory per store (default 64 MiB, see
     * {@link AttributeColumns}): 16 million slots of short repeated values.
     */
    StoreOptions columnBudgetBytes(long bytes) {
        if (bytes < 0) {
            throw ErrorMessage.COLUMN_BUDGET.error(bytes);
        }
        return with(new Index(index.minDocumentBytes, index.minRangeBytes, index.spillBytes, bytes));
    }

    private StoreOptions with(Index i) {
        return new StoreOptions(mapSize, maxReaders, writeMap, noSync, xmlPolicy, changeRetention, clock, i);
    }

    int indexMinDocumentBytes() {
        return index.minDocumentBytes;
    }

    int indexMinRangeBytes() {
        return index.minRangeBytes;
    }

    int indexSpillBytes() {
        return index.spillBytes;
    }

    long columnBudgetBytes() {
        return index.columnBudgetBytes;
    }

    public Duration changeRetention() {
        return changeRetention;
    }

    Clock clock() {
        return clock;
    }

    public long mapSize() {
        return mapSize;
    }

    public int maxReaders() {
        return maxReaders;
    }

    public boolean writeMap() {
        return writeMap;
    }

    public boolean noSync() {
        return noSync;
    }

    public XmlPolicy xmlPolicy() {
        return xmlPolicy;
    }

    @Override
    public String toString() {
        return "StoreOptions[mapSize=" + mapSize + ", maxReaders=" + maxReaders + ", writeMap=" + writeMap
                + ", noSync=" + noSync + ", xmlLimits=" + xmlPolicy.limits() + ", changeRetention=" + changeRetention
                + (index.equals(Index.DEFAULT) ? "" : ", " + index) + "]";
    }
}
