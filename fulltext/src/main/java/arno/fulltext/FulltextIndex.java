package arno.fulltext;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreException;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import net.sf.saxon.s9api.Processor;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The full-text index of one store, in its own folder beside it: one Lucene document per indexed
 * entry, keyed by the entry's path, as {@link FulltextConfig} (the store's {@value FulltextConfig#URI})
 * says. One follower thread keeps it current from the store's change feed, in commit order, as the
 * page caches follow it: each round reads one snapshot, the changes up to its version, and
 * re-indexes each entry they touched (an entry, or one of its variants) from that snapshot. The
 * last store version applied is in the commit's user data ({@value #VERSION}), so a restart goes on
 * from there; an index that is missing, damaged, of another format or configuration, or older than
 * the feed keeps is built again from the store while the server serves, and searches meanwhile
 * answer {@code search-unavailable}. Readers are near-real-time ({@link SearcherManager} on the
 * writer): a round's changes are searchable when the round ends.
 *
 * <p>Threads: {@link #search} and {@link #status} from any thread; the writer belongs to the follower.
 */
public final class FulltextIndex implements Searchable, AutoCloseable {

    /** The index layout and the meaning of its fields; another number rebuilds. */
    static final String FORMAT = "1";
    static final String VERSION = "arno.store-version";
    static final String CONFIG = "arno.config";
    static final String FORMAT_KEY = "arno.format";
    private static final System.Logger LOG = System.getLogger(FulltextIndex.class.getName());
    private static final int FEED_PAGE = 1000;
    private static final int LIST_PAGE = 1000;

    /**
     * @param poll        how long the follower waits when the feed has nothing new
     * @param commitEvery how often applied changes are made durable (searchable they are at once)
     * @param timeout     a search's time limit
     * @param searches    how many searches run at once (default: one per core); more wait
     * @param searchWait  how long a search waits for one of them to end before it is refused
     *                    ({@code search-busy}, 503 with Retry-After)
     */
    public record Options(Duration poll, Duration commitEvery, Duration timeout, int searches, Duration searchWait) {
        /**
         * Searches are CPU-bound (the index is in the OS's page cache): more at once than cores only
         * makes each slower. A burst of expensive queries then takes that many threads (the store
         * API's searches run on the container's threads, which are many), the searches beyond wait
         * briefly and are told to come back, and the rest of the server keeps its threads.
         */
        static final int SEARCHES = Math.max(1, Runtime.getRuntime().availableProcessors());
        /** Longer than a typical search (milliseconds), short beside a page's time limit. */
        static final Duration SEARCH_WAIT = Duration.ofMillis(100);

        public Options {
            if (searches < 1) throw new IllegalArgumentException("searches must be at least 1, not " + searches);
        }

        public Options(Duration poll, Duration commitEvery, Duration timeout) {
            this(poll, commitEvery, timeout, SEARCHES, SEARCH_WAIT);
        }

        public static Options defaults() {
            return new Options(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(2));
        }
    }

    public enum State { STARTING, BUILDING, READY, UNCONFIGURED, FAILED }

    /**
     * What the index is doing: {@code done} of {@code total} store documents examined while
     * building; {@code version} the store version whose changes it has applied; {@code builds} how
     * many times it was built from the whole store since it was opened.
     */
    public record Status(State state, long done, long total, long version, String problem, int builds) {}

    private final Store store;
    private final Path folder;
    private final Options options;
    private final Processor processor;
    private final Thread follower;
    private volatile boolean closed;
    private volatile Status status = new Status(State.STARTING, 0, 0, -1, null, 0);
    /** The configuration the index holds and the searches read; null until the first build or resume. */
    private volatile Indexed current;
    private Directory directory;
    private IndexWriter writer;
    /** Read by searching threads: volatile, and null while the writer is closed after a failure. */
    private volatile SearcherManager searchers;
    private long lastCommit;
    private long appliedSinceCommit;
    private int builds;
    /** The searches that may run at once ({@link Options#searches}). */
    private final java.util.concurrent.Semaphore searching;

    /** A configuration in force and what reads it. */
    record Indexed(FulltextConfig config, org.apache.lucene.analysis.Analyzer analyzer, EntryDocuments documents) {}

    private FulltextIndex(Store store, Path folder, Options options) {
        this.store = store;
        this.folder = folder;
        this.options = options;
        this.searching = new java.util.concurrent.Semaphore(options.searches());
        this.processor = new Processor(false);
        store.options().xmlPolicy().install(processor.getUnderlyingConfiguration());
        this.follower = new Thread(this::follow, "arno-fulltext");
        follower.setDaemon(true);
    }

    /**
     * Opens the index of {@code store} in {@code folder} (created if missing) and starts following
     * the store. Returns at once; {@link #status()} tells when searches can be answered.
     */
    public static FulltextIndex open(Store store, Path folder, Options options) {
        FulltextIndex index = new FulltextIndex(store, folder, options);
        store.attach(FulltextIndex.class, index);
        index.follower.start();
        return index;
    }

    public Status status() {
        return status;
    }

    /** The folder the index lives in. */
    public Path folder() {
        return folder;
    }

    /**
     * Waits until the index has applied store version {@code version} (and is ready), at most
     * {@code wait}; returns whether it has.
     */
    public boolean awaitVersion(long version, Duration wait) throws InterruptedException {
        long end = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < end) {
            Status s = status;
            if (s.state == State.READY && s.version >= version) return true;
            Thread.sleep(10);
        }
        return false;
    }

    /**
     * Runs {@code request}; search-unavailable while the index is not ready, bad-query for a query it
     * refuses, search-busy when {@link Options#searches} run already and none ends within
     * {@link Options#searchWait}.
     */
    @Override
    public Results search(SearchRequest request) {
        try {
            if (!searching.tryAcquire(options.searchWait().toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                throw ErrorMessage.SEARCH_SLOTS_FULL.error(options.searches(), options.searchWait().toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ErrorMessage.SEARCH_SLOTS_FULL.error(options.searches(), options.searchWait().toMillis());
        }
        try {
            return searchNow(request);
        } finally {
            searching.release();
        }
    }

    /** The bound on searches at once, for tests that fill it. */
    java.util.concurrent.Semaphore searching() {
        return searching;
    }

    private Results searchNow(SearchRequest request) {
        Status s = status;
        Indexed in = current;
        if (s.state != State.READY || in == null) throw unavailable(s);
        SearcherManager m = searchers;
        if (m == null) throw unavailable(status);
        IndexSearcher searcher;
        try {
            searcher = m.acquire();
        } catch (IOException | org.apache.lucene.store.AlreadyClosedException e) {
            throw ErrorMessage.SEARCH_INDEX_FAILED.error(e, folder, e.getMessage());
        }
        try {
            return new Search(in, (FacetSearcher) searcher, options.timeout(), s.version).run(request);
        } finally {
            try {
                m.release(searcher);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "full-text index: releasing a searcher failed: " + e);
            }
        }
    }

    private ArnoException unavailable(Status s) {
        return switch (s.state) {
            case UNCONFIGURED -> ErrorCode.SEARCH_UNAVAILABLE.error("the store has no full-text configuration ("
                    + FulltextConfig.URI + ")");
            case FAILED -> ErrorMessage.SEARCH_INDEX_FAILED.error(folder, s.problem);
            default -> ErrorMessage.SEARCH_INDEX_BUILDING.error(folder, s.done, s.total);
        };
    }

    // ----- The follower -----

    private void follow() {
        long applied = -1;
        boolean warned = false;
        while (!closed) {
            boolean more = false;
            try {
                if (writer == null) applied = openIndex();
                more = round(applied);
                applied = status.version;
                warned = false;
            } catch (RuntimeException | IOException e) {
                if (closed) break;
                if (!warned) LOG.log(System.Logger.Level.WARNING, "full-text index " + folder + ": " + e, e);
                warned = true;
                status = new Status(State.FAILED, 0, 0, applied, String.valueOf(e.getMessage()), builds);
                closeWriter();
                more = false;
            }
            if (more) continue;
            try {
                Thread.sleep(options.poll().toMillis());
            } catch (InterruptedException e) {
                break;
            }
        }
        try {
            if (writer != null && writer.isOpen() && status.state == State.READY) commit(status.version);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "full-text index " + folder + ": the last commit failed: " + e);
        }
        closeWriter();
    }

    /**
     * Opens the writer on the folder: the store version its last commit applied, or -1 when the
     * index must be built (none, damaged, another format). A damaged index is deleted.
     */
    private long openIndex() throws IOException {
        // Owner-only, as the store is: the index holds the text it indexes.
        if (!Files.isDirectory(folder)) arno.xml.OwnerOnly.folder(folder);
        long version = -1;
        String configHash = null;
        directory = new OwnerOnlyDirectory(FSDirectory.open(folder));
        try {
            if (DirectoryReader.indexExists(directory)) {
                Map<String, String> data = SegmentInfos.readLatestCommit(directory).getUserData();
                if (FORMAT.equals(data.get(FORMAT_KEY)) && data.get(VERSION) != null) {
                    version = Long.parseLong(data.get(VERSION));
                    configHash = data.get(CONFIG);
                }
                // Reading every segment's header and checksum footer is what opening a reader does: a
                // damaged file fails here rather than in a search.
                try (DirectoryReader r = DirectoryReader.open(directory)) {
                    r.numDocs();
                }
            }
            writer = new IndexWriter(directory, writerConfig());
        } catch (IOException | RuntimeException damaged) {
            LOG.log(System.Logger.Level.WARNING, "full-text index " + folder + " cannot be read (" + damaged
                    + "); building it again from the store");
            directory.close();
            deleteContents(folder);
            directory = new OwnerOnlyDirectory(FSDirectory.open(folder));
            writer = new IndexWriter(directory, writerConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE));
            version = -1;
            configHash = null;
        }
        searchers = new SearcherManager(writer, new SearcherFactory() {
            @Override
            public IndexSearcher newSearcher(org.apache.lucene.index.IndexReader reader, org.apache.lucene.index.IndexReader previous) {
                return new FacetSearcher(reader);
            }
        });
        lastCommit = System.nanoTime();
        resumedConfig = configHash;
        return version;
    }

    /** The configuration hash the opened index was built with (null: none or unknown). */
    private String resumedConfig;

    private IndexWriterConfig writerConfig() {
        // The writer outlives configurations: it analyses with the one being indexed.
        IndexWriterConfig c = new IndexWriterConfig(new org.apache.lucene.analysis.DelegatingAnalyzerWrapper(
                org.apache.lucene.analysis.Analyzer.PER_FIELD_REUSE_STRATEGY) {
            @Override
            protected org.apache.lucene.analysis.Analyzer getWrappedAnalyzer(String fieldName) {
                return indexing;
            }
        });
        // Stored text is most of the index: compressed harder, as it is read only for ten hits' snippets.
        c.setCodec(new Lucene912Codec(Lucene912Codec.Mode.BEST_COMPRESSION));
        c.setRAMBufferSizeMB(32);
        return c;
    }

    /**
     * One round: returns whether there may be more to do at once. {@code applied} is the store
     * version whose changes are all in the index (-1: none, build it); the follower's cursor
     * ({@link #cursorVersion}, {@link #cursorSeq}) may be inside a later commit when one commit
     * changed more than a page of documents.
     */
    private boolean round(long applied) throws IOException {
        try (Snapshot s = store.read()) {
            Indexed in = current;
            List<Change> changes = List.of();
            boolean gone = false;
            if (applied >= 0) {
                if (cursorVersion < applied) {
                    cursorVersion = applied;
                    cursorSeq = 0;
                }
                try {
                    changes = s.changesSince(cursorVersion, cursorSeq, FEED_PAGE);
                } catch (StoreException e) {
                    if (e.code() != ErrorCode.GONE) throw e;
                    gone = true;
                }
            }
            boolean configTouched = in == null || gone || applied < 0;
            for (Change c : changes) if (c.uri().equals(FulltextConfig.URI)) configTouched = true;
            if (configTouched) {
                FulltextConfig config;
                try {
                    config = readConfig(s);
                } catch (ArnoException bad) {
                    if (in == null) throw bad;
                    // A bad configuration put later: the index keeps the one it has (and says why, once).
                    LOG.log(System.Logger.Level.WARNING, bad.getMessage());
                    config = in.config;
                }
                if (config == null) {
                    if (in != null || applied < 0 || writer.getDocStats().numDocs > 0) {
                        writer.deleteAll();
                        current = null;
                        commit(s.version());
                        searchers.maybeRefreshBlocking();
                    }
                    cursorVersion = s.version();
                    cursorSeq = 0;
                    status = new Status(State.UNCONFIGURED, 0, 0, s.version(), null, builds);
                    return false;
                }
                String known = in != null ? in.config.hash() : resumedConfig;
                if (gone || applied < 0 || !config.hash().equals(known)) {
                    rebuild(s, config);
                    cursorVersion = s.version();
                    cursorSeq = 0;
                    return false;
                }
                if (in == null) {
                    current = indexed(config);
                    indexing = current.analyzer();
                }
            }
            long through;
            if (changes.size() < FEED_PAGE) {
                through = s.version();
                cursorVersion = through;
                cursorSeq = 0;
            } else {
                Change last = changes.get(changes.size() - 1);
                cursorVersion = last.version();
                cursorSeq = last.seq() + 1;
                // That commit may have more changes: it counts as applied once all of them are.
                through = last.version() - 1;
            }
            if (!changes.isEmpty()) {
                apply(s, changes);
                searchers.maybeRefreshBlocking();
            }
            status = new Status(State.READY, 0, 0, Math.max(applied, through), null, builds);
            maybeCommit(status.version);
            return changes.size() == FEED_PAGE;
        }
    }

    /** Where the follower reads the feed next: after this version's changes up to {@link #cursorSeq}. */
    private long cursorVersion = -1;
    private int cursorSeq;

    /** The analyzer of the configuration being indexed (the follower sets it before it adds documents). */
    private volatile org.apache.lucene.analysis.Analyzer indexing = Analyzers.keyword();

    private Indexed indexed(FulltextConfig config) {
        return new Indexed(config, Analyzers.of(config), new EntryDocuments(config, processor, Store.SCHEME + FulltextConfig.URI));
    }

    /** The store's configuration, or null when it has none; a bad one fails the round (FAILED, with why). */
    private FulltextConfig readConfig(Snapshot s) {
        if (!s.exists(FulltextConfig.URI)) return null;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        s.export(FulltextConfig.URI, out);
        FulltextConfig c = FulltextConfig.parse(out.toByteArray(), Store.SCHEME + FulltextConfig.URI, store.options().xmlPolicy());
        indexed(c); // compiles the XPaths: a bad one is said now
        return c;
    }

    /** Re-indexes the entries the changes touched, each once, as {@code s} has it. */
    private void apply(Snapshot s, List<Change> changes) throws IOException {
        EntryDocuments docs = current.documents();
        Set<String> paths = new LinkedHashSet<>();
        for (Change c : changes) {
            String p = EntryDocuments.resourceOf(c.uri());
            if (p != null) paths.add(p);
        }
        for (String p : paths) {
            Document d = docs.build(s, p);
            Term key = new Term(EntryDocuments.PATH, p);
            if (d == null) writer.deleteDocuments(key);
            else writer.updateDocument(key, d);
            appliedSinceCommit++;
        }
    }

    /** Indexes every entry of {@code s} under {@code config}, with progress; then commits and is READY. */
    private void rebuild(Snapshot s, FulltextConfig config) throws IOException {
        Indexed in = indexed(config);
        current = null;
        indexing = in.analyzer();
        long total = s.count("/");
        status = new Status(State.BUILDING, 0, total, -1, null, builds);
        LOG.log(System.Logger.Level.INFO, "full-text index " + folder + ": building from store version " + s.version()
                + " (" + total + " documents to examine)");
        writer.deleteAll();
        long done = 0;
        long indexed = 0;
        long started = System.nanoTime();
        long shown = started;
        String after = null;
        while (!closed) {
            List<String> uris = s.uris("/", after, LIST_PAGE);
            if (uris.isEmpty()) break;
            for (String u : uris) {
                done++;
                if (!u.endsWith("." + arno.store.atom.Atom.ENTRY_EXTENSION)) continue;
                String p = EntryDocuments.resourceOf(u);
                if (p == null) continue;
                Document d = in.documents().build(s, p);
                if (d != null) {
                    writer.addDocument(d);
                    indexed++;
                }
            }
            after = uris.get(uris.size() - 1);
            status = new Status(State.BUILDING, done, total, -1, null, builds);
            long now = System.nanoTime();
            if (now - shown > 5_000_000_000L) {
                shown = now;
                LOG.log(System.Logger.Level.INFO, String.format("full-text index: %,d of %,d documents examined (%d%%), %,d entries indexed",
                        done, total, total == 0 ? 100 : done * 100 / total, indexed));
            }
        }
        if (closed) return;
        current = in;
        builds++;
        commit(s.version());
        searchers.maybeRefreshBlocking();
        status = new Status(State.READY, done, total, s.version(), null, builds);
        LOG.log(System.Logger.Level.INFO, String.format("full-text index %s: %,d entries indexed in %d ms", folder, indexed,
                (System.nanoTime() - started) / 1_000_000));
    }

    private void maybeCommit(long version) throws IOException {
        if (appliedSinceCommit > 0 && System.nanoTime() - lastCommit >= options.commitEvery().toNanos()) commit(version);
    }

    private void commit(long version) throws IOException {
        Indexed in = current;
        writer.setLiveCommitData(Map.of(VERSION, Long.toString(version), FORMAT_KEY, FORMAT,
                CONFIG, in == null ? "" : in.config.hash()).entrySet());
        writer.commit();
        lastCommit = System.nanoTime();
        appliedSinceCommit = 0;
    }

    private void closeWriter() {
        try {
            if (searchers != null) searchers.close();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the searchers: " + e);
        }
        try {
            if (writer != null) writer.rollback(); // what was committed stays; the rest is applied again on the next start
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the writer: " + e);
        }
        try {
            if (directory != null) directory.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the folder: " + e);
        }
        searchers = null;
        writer = null;
        directory = null;
        current = null;
    }

    private static void deleteContents(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) if (!p.equals(folder)) Files.delete(p);
        }
    }

    /** Stops the follower (committing what it applied) and closes the index. */
    @Override
    public void close() {
        store.detach(FulltextIndex.class, this);
        closed = true;
        follower.interrupt();
        try {
            follower.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A searcher with its reader's facet state, built once per reader (it is costly, and readers are shared). */
    static final class FacetSearcher extends IndexSearcher {
        private volatile org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState facets;
        private volatile boolean noFacets;

        FacetSearcher(org.apache.lucene.index.IndexReader reader) {
            super(reader);
        }

        /** The facet state, or null when no entry has a facet value. */
        org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState facets(org.apache.lucene.facet.FacetsConfig config) {
            if (noFacets) return null;
            var f = facets;
            if (f == null) {
                synchronized (this) {
                    f = facets;
                    if (f == null && !noFacets) {
                        try {
                            f = new org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState(getIndexReader(), config);
                            facets = f;
                        } catch (IllegalArgumentException none) {
                            noFacets = true;
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                }
            }
            return f;
        }
    }
}
