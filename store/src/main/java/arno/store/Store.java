package arno.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.agrona.DirectBuffer;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

import net.sf.saxon.Configuration;

import arno.xml.DocumentStore;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * An embedded, persistent XML store: documents stored once in a compact binary form and
 * navigated in place by Saxon, never re-parsed.
 *
 * <h2>Design</h2>
 * The store is an LMDB environment (one memory-mapped file, B+trees, MVCC). A document is a byte
 * stream of records (see {@link Format}) cut into 1 MiB values; a Saxon {@code NodeInfo} is a
 * position in that stream, read straight from the mapped pages. Writers get ACID transactions
 * ({@link #write()}): one at a time, put and delete several documents, all or nothing. Readers
 * get snapshots ({@link #read()}): one consistent version of the whole store for as long as they
 * are held, never blocked by the writer and never blocking it (a long-held snapshot does keep the
 * pages it sees from being reused, so requests hold one only for their duration).
 *
 * <p>Every commit that changes something gets the next version number and a commit time; each
 * document records the version that wrote it, and the change feed ({@link #changesSince(long)})
 * lists every put and delete after a given version, for caches to invalidate what depends on them
 * and followers to replicate, for {@link StoreOptions#changeRetention()}.
 *
 * <p>A document is XML, stored as a navigable tree, or bytes (a <i>binary document</i>, a PDF or
 * an image, {@link WriteTransaction#putBinary}); either has a media type. Paths are a hierarchy
 * ({@link Snapshot#children}); documents may record what they refer to
 * ({@link WriteTransaction#setReferences}), so that who refers to something is one seek
 * ({@link Snapshot#referrers}).
 *
 * <h2>Threads</h2>
 * A {@code Store} is thread-safe. A {@link WriteTransaction} belongs to the thread that opened it.
 * A {@link Snapshot} may move between threads and may be shared, but its nodes are valid only
 * until it is closed.
 */
public final class Store implements DocumentStore, AutoCloseable {

    /** The scheme under which stored documents are reachable from XSLT and XQuery. */
    public static final String SCHEME = DocumentStore.SCHEME;
    static final int MAX_URI_BYTES = 400;

    final Engine engine;
    final Namebase names;
    /**
     * The record bytes from which a document of this store has a structural index: the value the
     * store was created with, read from its metadata, never the options it is opened with now.
     * Recorded per store rather than per document (a header flag) because it is one number for
     * every document, written once; a flag would have needed a new header layout, and so a new
     * format version that refuses every existing store, for nothing a store-wide entry cannot say.
     * A store created before the entry existed was written with the only value there was then
     * ({@link #UNRECORDED_INDEX_MIN_DOCUMENT_BYTES}), and reads as such.
     */
    final int indexMinDocumentBytes;
    /** The threshold every store was written with before stores recorded theirs: fixed, whatever the default becomes. */
    static final int UNRECORDED_INDEX_MIN_DOCUMENT_BYTES = 2048;
    /** Ranges shorter than this are scanned even under a name test ({@link StoreOptions#indexMinRangeBytes}). */
    final int indexMinRangeBytes;
    /** The attribute columns and position arrays shared by every snapshot of this store. */
    final AttributeColumns columns;
    private final StoreOptions options;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final AtomicInteger openSnapshots = new AtomicInteger();
    /**
     * Read transactions whose snapshots closed, reset (LMDB's mdb_txn_reset: no version pinned,
     * the reader slot kept) for the next snapshot to renew. Beginning a transaction took 16 µs of
     * CPU a page under load (lmdbjava masks its flags with a stream, allocates its key and value
     * buffers and LMDB takes the reader table's lock); a renewal is one native call. A few are
     * kept, about as many as snapshots are open at once on a busy server; each holds a reader slot.
     */
    private final java.util.concurrent.ArrayBlockingQueue<Txn<DirectBuffer>> idleReads =
            new java.util.concurrent.ArrayBlockingQueue<>(IDLE_READS);
    static final int IDLE_READS = 8;
    private volatile long version;
    private volatile boolean closed;
    private volatile Configuration ownConfig;
    /** The checks of configuration documents other modules read, by path ({@link DocumentCheck}). */
    private final java.util.Map<String, DocumentCheck> checks;

    private Store(Engine engine, StoreOptions options) {
        this.engine = engine;
        this.options = options;
        java.util.Map<String, DocumentCheck> c = new java.util.HashMap<>();
        for (DocumentCheck d : java.util.ServiceLoader.load(DocumentCheck.class, DocumentCheck.class.getClassLoader())) {
            c.put(d.uri(), d);
        }
        this.checks = java.util.Map.copyOf(c);
        this.names = Namebase.load(engine);
        this.indexMinRangeBytes = options.indexMinRangeBytes();
        this.columns = new AttributeColumns(options.columnBudgetBytes());
        try (Txn<DirectBuffer> txn = engine.env.txnRead()) {
            Keys k = new Keys();
            this.version = engine.getLong(txn, k, "version");
            this.indexMinDocumentBytes = recordedIndexMinDocumentBytes(txn, k);
        }
    }

    private int recordedIndexMinDocumentBytes(Txn<DirectBuffer> txn, Keys k) {
        DirectBuffer v = engine.meta.get(txn, k.utf8(Engine.INDEX_MIN_DOCUMENT_BYTES));
        if (v == null) {
            return UNRECORDED_INDEX_MIN_DOCUMENT_BYTES;
        }
        long bytes = v.capacity() == 8 ? v.getLong(0, Keys.BE) : -1;
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new StoreException(ErrorMessage.META_ENTRY_MALFORMED, engine.dir, Engine.INDEX_MIN_DOCUMENT_BYTES);
        }
        return (int) bytes;
    }

    /** The check of the document at {@code uri}, or null when no module checks it. */
    DocumentCheck check(String uri) {
        return checks.get(uri);
    }

    /** Whether a document of {@code recordBytes} record bytes has a structural index in this store. */
    boolean hasNameIndex(long recordBytes) {
        return recordBytes >= indexMinDocumentBytes;
    }

    /**
     * Opens the store in {@code dir}, creating the folder and an empty store when there is none
     * (for loading and serving). Fails with STORE_LOCKED if another process holds it, STORE_FORMAT
     * if the folder holds something else.
     */
    public static Store open(Path dir, StoreOptions options) {
        return open(dir, options, true);
    }

    public static Store open(Path dir) {
        return open(dir, StoreOptions.defaults());
    }

    /**
     * Opens the store in {@code dir} only if there is one: fails with NO_STORE, creating no file
     * and no folder, when there is none (for checking, exporting and querying, which must never
     * leave an empty store behind a mistyped folder).
     */
    public static Store openExisting(Path dir, StoreOptions options) {
        return open(dir, options, false);
    }

    private static Store open(Path dir, StoreOptions options, boolean create) {
        Engine engine = Engine.open(dir, options, create);
        try {
            return new Store(engine, options);
        } catch (RuntimeException e) {
            engine.close();
            throw e instanceof LmdbException le ? StoreFailures.of(le, "store " + dir) : e;
        }
    }

    /** Parts that live beside the store and follow it (its full-text index), by type: see {@link #attach}. */
    private final java.util.concurrent.ConcurrentHashMap<Class<?>, Object> attached = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Attaches {@code part} of {@code type} to this store, for code that is handed only the store
     * (a site's extension function finds the store's full-text index so); replaces one attached before.
     */
    public <T> void attach(Class<T> type, T part) {
        attached.put(type, part);
    }

    /** Detaches {@code part}, if it is still the one attached for {@code type}. */
    public <T> void detach(Class<T> type, T part) {
        attached.remove(type, part);
    }

    /** The part of {@code type} attached to this store, or null. */
    public <T> T attached(Class<T> type) {
        return type.cast(attached.get(type));
    }

    /** The options the store was opened with. */
    public StoreOptions options() {
        return options;
    }

    public Path directory() {
        return engine.dir;
    }

    /** The version of the last commit (0 for an empty store). */
    public long version() {
        return version;
    }

    /**
     * Begins the write transaction; waits while another thread has one. Use with
     * try-with-resources: closing without {@link WriteTransaction#commit()} aborts.
     */
    public WriteTransaction write() {
        return begin(0, null);
    }

    /**
     * As {@link #write()}, for a follower that copies another store's history (a cluster node
     * applying the log): the transaction commits, if it changes anything, as {@code version}
     * (greater than the store's version: versions may skip numbers, never go back) at
     * {@code time} (or the previous commit's time, if that is later), so that every copy gives a
     * document the same version (ETag) and time (Last-Modified).
     *
     * @throws IllegalArgumentException when {@code version} is not above the store's version
     */
    public WriteTransaction write(long version, java.time.Instant time) {
        if (version < 1 || time == null) throw new IllegalArgumentException("a version from 1 and a time, not " + version + ", " + time);
        return begin(version, time);
    }

    /** Begins a write transaction, at the next version and the clock's time when {@code atVersion} is 0. */
    private WriteTransaction begin(long atVersion, java.time.Instant time) {
        checkOpen();
        if (writeLock.isHeldByCurrentThread()) {
            throw new IllegalStateException("this thread already has an open write transaction on " + engine.dir
                    + "; commit or abort it first");
        }
        writeLock.lock();
        try {
            checkOpen();
            return new WriteTransaction(this, engine.env.txnWrite(), atVersion, time);
        } catch (LmdbException e) {
            writeLock.unlock();
            throw StoreFailures.of(e, "store " + engine.dir);
        } catch (RuntimeException e) {
            writeLock.unlock();
            throw e;
        }
    }

    /** Opens a read snapshot of the current version. Close it when done (try-with-resources). */
    @Override
    public Snapshot read() {
        checkOpen();
        Txn<DirectBuffer> txn = idleReads.poll();
        if (txn != null) {
            try {
                txn.renew();
            } catch (LmdbException e) {
                // not expected (its reader slot is its own); lmdbjava cannot free a transaction
                // left reset, so it is dropped and the read begins a fresh one
                txn = null;
            }
        }
        try {
            if (txn == null) {
                txn = engine.env.txnRead();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + engine.dir);
        }
        openSnapshots.incrementAndGet();
        return new Snapshot(this, txn);
    }

    /** Ends a read snapshot's transaction: reset and kept for the next {@link #read()}, or closed. */
    void endRead(Txn<DirectBuffer> txn) {
        if (!closed && idleReads.remainingCapacity() > 0) {
            txn.reset();
            if (idleReads.offer(txn)) {
                return;
            }
            txn.renew(); // lmdbjava frees a transaction only from its ready state
        }
        txn.close();
    }

    /** Changes committed after {@code since}, oldest first (convenience for a one-off snapshot). */
    public List<Change> changesSince(long since) {
        try (Snapshot s = read()) {
            return s.changesSince(since);
        }
    }

    /** One page of the change feed (see {@link Snapshot#changesSince(long, int, int)}). */
    public List<Change> changesSince(long since, int seq, int limit) {
        try (Snapshot s = read()) {
            return s.changesSince(since, seq, limit);
        }
    }

    /**
     * Checks every document and entry: each document decodes and is consistent with its header,
     * its side tables and the namebase; no entry is orphaned. Returns the problems (empty if none).
     */
    public List<String> check() {
        try (Snapshot s = read()) {
            return new Checker(this, s).run();
        }
    }

    /** Read snapshots open now (a long-held one pins old pages): for the metrics. */
    public int openSnapshots() {
        return openSnapshots.get();
    }

    /** Whether the store is open (not yet closed): for the health check. */
    public boolean isOpen() {
        return !closed;
    }

    /** Bytes of the data file in use (LMDB pages up to the last one written). */
    public long diskBytes() {
        checkOpen();
        return engine.usedBytes();
    }

    /**
     * Closes the store. Every snapshot must be closed first: their nodes point into the memory
     * map, which closing unmaps.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        int open = openSnapshots.get();
        if (open > 0) {
            throw new IllegalStateException(open + " read snapshot(s) of store " + engine.dir
                    + " are still open; close them before closing the store");
        }
        if (writeLock.isLocked() || !writeLock.tryLock()) {
            throw new IllegalStateException("a write transaction on store " + engine.dir
                    + " is still open; commit or abort it before closing the store");
        }
        try {
            closed = true;
            for (Txn<DirectBuffer> txn; (txn = idleReads.poll()) != null; ) {
                txn.renew(); // lmdbjava frees a transaction only from its ready state
                txn.close();
            }
            engine.close();
        } finally {
            writeLock.unlock();
        }
    }

    void checkOpen() {
        if (closed) {
            throw new StoreException(ErrorMessage.STORE_CLOSED, engine.dir);
        }
    }

    void committed(long v) {
        version = v;
    }

    void writeFinished() {
        writeLock.unlock();
    }

    void snapshotClosed() {
        openSnapshots.decrementAndGet();
    }

    /** The Configuration the store itself parses and serializes with. */
    Configuration ownConfiguration() {
        Configuration c = ownConfig;
        if (c == null) {
            synchronized (this) {
                c = ownConfig;
                if (c == null) {
                    c = new Configuration();
                    options.xmlPolicy().install(c);
                    // Parse errors are raised as StoreExceptions; Saxon's default reporter would build a
                    // PrintWriter for every document stored (a tenth of the writer's time for small entries).
                    c.setErrorReporterFactory(ignored -> error -> { });
                    ownConfig = c;
                }
            }
        }
        return c;
    }

    /** Media types are {@code type/subtype} with optional parameters, in at most 255 ASCII characters. */
    static String checkMediaType(String mediaType, String uri) {
        String problem = null;
        if (mediaType == null || mediaType.isEmpty()) {
            problem = "is empty";
        } else if (mediaType.length() > 255) {
            problem = "is longer than 255 characters";
        } else {
            for (int i = 0; i < mediaType.length() && problem == null; i++) {
                char c = mediaType.charAt(i);
                if (c < 0x20 || c >= 0x7F) {
                    problem = "has a character that is not printable ASCII at index " + i;
                }
            }
            String type = mediaType.split(";", 2)[0].trim();
            int slash = type.indexOf('/');
            if (problem == null && (slash <= 0 || slash == type.length() - 1 || type.indexOf('/', slash + 1) >= 0
                    || type.contains(" "))) {
                problem = "is not of the form type/subtype";
            }
        }
        if (problem != null) {
            StoreException e = new StoreException(ErrorMessage.BAD_MEDIA_TYPE, mediaType, SCHEME + uri, problem);
            e.at(Where.at(SCHEME + uri));
            throw e;
        }
        return mediaType;
    }

    /**
     * Store URIs are absolute path-like strings: {@code /a/b.xml}. Asked before every lookup (a page
     * makes several), so it walks the string once and allocates nothing when the URI is good; the
     * checks and messages are those of the plain version in {@code StoreUriTest}.
     */
    static String checkUri(String uri) {
        String problem = null;
        if (uri == null || uri.isEmpty()) {
            problem = "is empty";
        } else if (uri.charAt(0) != '/') {
            problem = "does not start with '/'";
        } else if (uri.length() > 1 && uri.endsWith("/")) {
            problem = "ends with '/' (that names a folder, not a document)";
        } else if (uri.length() == 1) {
            problem = "names the root folder, not a document";
        } else if (uri.length() > MAX_URI_BYTES / 3 && utf8Length(uri) > MAX_URI_BYTES) {
            problem = "is longer than " + MAX_URI_BYTES + " bytes";
        } else {
            problem = segmentProblem(uri);
            for (int i = 0; i < uri.length() && problem == null; i++) {
                char c = uri.charAt(i);
                if (c < 0x20 || c == 0x7F) {
                    problem = "has a control character at index " + i;
                } else if (c == '?' || c == '#') {
                    problem = "has a '" + c + "' (no query or fragment in store URIs)";
                } else if (c == '\\') {
                    problem = "has a backslash";
                }
            }
        }
        if (problem != null) {
            StoreException e = new StoreException(ErrorMessage.BAD_STORE_URI, uri, problem);
            e.at(Where.at(SCHEME + uri));
            throw e;
        }
        return uri;
    }

    /** The last empty, "." or ".." segment of {@code uri} (which starts with '/'), described; null if none. */
    private static String segmentProblem(String uri) {
        String problem = null;
        int start = 1;
        while (start <= uri.length()) {
            int end = uri.indexOf('/', start);
            if (end < 0) end = uri.length();
            int n = end - start;
            if (n == 0) {
                problem = "has an empty segment ('//')";
            } else if (n <= 2 && uri.charAt(start) == '.' && (n == 1 || uri.charAt(start + 1) == '.')) {
                problem = "has a '" + uri.substring(start, end) + "' segment";
            }
            start = end + 1;
        }
        return problem;
    }

    /** The length of {@code s} in UTF-8, as {@code getBytes(UTF_8).length} counts it (a lone surrogate is one '?'). */
    private static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
