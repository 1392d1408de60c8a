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
 * <p>A changed configuration (or a feed that moved past an index that can still be read) is built
 * beside the index, in the sibling folder {@code FOLDER.next}, by a thread of its own, while the
 * index goes on answering searches with the configuration it has (kept in its commit data,
 * {@value #CONFIG_XML}, so that a restart can answer with it too). The new index's one commit, at
 * its end, is what makes it complete; then the follower swaps: it closes the old writer, renames
 * {@code FOLDER} to {@code FOLDER.old} and {@code FOLDER.next} to {@code FOLDER}, opens the new one
 * and publishes it with its configuration in one step ({@link Serving}), and deletes the old. A
 * crash during the build leaves {@code FOLDER} as it was and a {@code .next} without a commit,
 * which the next start deletes before it builds again; a crash between the two renames leaves a
 * complete {@code .next} and no {@code FOLDER}, which the next start renames into place.
 *
 * <p>Threads: {@link #search} and {@link #status} from any thread; the writer belongs to the follower.
 */
public final class FulltextIndex implements Searchable, AutoCloseable {

    /**
     * The index layout and the meaning of its fields; another number rebuilds. 2: the English
     * analyzer's fuller stop list (indexes of 1 hold the words it leaves out).
     */
    static final String FORMAT = "2";
    static final String VERSION = "arno.store-version";
    static final String CONFIG = "arno.config";
    static final String FORMAT_KEY = "arno.format";
    /** The configuration's XML, so the index can answer with it while a newer one is built beside it. */
    static final String CONFIG_XML = "arno.config-xml";
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
     * @param sample      about how many of a query's matches are looked at to count them and their
     *                    facet values once there are many more ({@link MatchCounts}); fewer are counted exactly
     */
    public record Options(Duration poll, Duration commitEvery, Duration timeout, int searches, Duration searchWait,
                          int sample) {
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
            if (sample < 1) throw new IllegalArgumentException("sample must be at least 1, not " + sample);
        }

        public Options(Duration poll, Duration commitEvery, Duration timeout, int searches, Duration searchWait) {
            this(poll, commitEvery, timeout, searches, searchWait, MatchCounts.SAMPLE);
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
     * building (in place, or beside it); {@code version} the store version whose changes it has
     * applied; {@code builds} how many times it was built from the whole store since it was opened;
     * {@code beside} whether a new index (of a changed configuration) is being built beside the one
     * that answers, which until it is done answers with the configuration it had.
     */
    public record Status(State state, long done, long total, long version, String problem, int builds, boolean beside) {
        Status(State state, long done, long total, long version, String problem, int builds) {
            this(state, done, total, version, problem, builds, false);
        }
    }

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
    /**
     * What searches read, the configuration and the searchers of one index together, published in
     * one write so that a swap never pairs one index's searcher with the other's configuration.
     */
    private volatile Serving serving;
    /** A build beside the index in progress (the follower's), or null. */
    private Build build;
    /** The configuration must be compared with the store's in the next round (after a start or a failed build). */
    private boolean recheck;
    private long lastCommit;
    private long appliedSinceCommit;
    private int builds;
    /** What the follower waits on between rounds; {@link #close} wakes it. */
    private final Object wake = new Object();
    /** The searches that may run at once ({@link Options#searches}). */
    private final java.util.concurrent.Semaphore searching;
    /** Lends idle cores to a search that runs alone ({@link SearchHelpers}); null on one core. */
    private final SearchHelpers helpers = SearchHelpers.forThisMachine();

    /** A configuration in force and what reads it; {@code xml} its text, kept in the commit data. */
    record Indexed(FulltextConfig config, org.apache.lucene.analysis.Analyzer analyzer, EntryDocuments documents, String xml) {}

    /** An index that answers searches: its configuration and its searchers. */
    record Serving(Indexed indexed, SearcherManager searchers) {}

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
     * Waits until the index has applied store version {@code version} (and is ready, with no new
     * configuration still being built beside it), at most {@code wait}; returns whether it has.
     */
    public boolean awaitVersion(long version, Duration wait) throws InterruptedException {
        long end = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < end) {
            Status s = status;
            if (s.state == State.READY && s.version >= version && !s.beside) return true;
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
        Serving on = serving;
        if (s.state != State.READY || on == null) throw unavailable(s);
        Indexed in = on.indexed();
        SearcherManager m = on.searchers();
        IndexSearcher searcher;
        try {
            searcher = m.acquire();
        } catch (org.apache.lucene.store.AlreadyClosedException swapped) {
            // The index was swapped for one built beside it since this search read it: the new one answers.
            Serving now = serving;
            if (now == null || now == on) throw ErrorMessage.SEARCH_INDEX_FAILED.error(swapped, folder, swapped.getMessage());
            return search(request);
        } catch (IOException e) {
            throw ErrorMessage.SEARCH_INDEX_FAILED.error(e, folder, e.getMessage());
        }
        try {
            // Only a search that runs alone takes the idle cores: beside others, each has its own.
            SearchHelpers lent = helpers != null && searching.availablePermits() == options.searches() - 1 ? helpers : null;
            return new Search(in, searcher.getIndexReader(), options.timeout(), options.sample(), s.version, lent).run(request);
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
                if (build != null && build.finished()) applied = finish(applied);
                more = round(applied);
                applied = status.version;
                warned = false;
            } catch (RuntimeException | IOException e) {
                if (closed) break;
                if (!warned) LOG.log(System.Logger.Level.WARNING, "full-text index " + folder + ": " + e, e);
                warned = true;
                status = new Status(State.FAILED, 0, 0, applied, String.valueOf(e.getMessage()), builds);
                cancelBuild();
                closeWriter();
                more = false;
            }
            if (more) continue;
            synchronized (wake) {
                try {
                    if (!closed) wake.wait(options.poll().toMillis());
                } catch (InterruptedException e) {
                    break;
                }
            }
        }
        // Closed mid-build: what the build wrote stays, uncommitted, as a crash would leave it; the next start deletes it.
        cancelBuild(false);
        try {
            if (writer != null && writer.isOpen() && status.state == State.READY) commit(status.version);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "full-text index " + folder + ": the last commit failed: " + e);
        }
        closeWriter();
    }

    /** The sibling folder a new index is built in. */
    Path next() {
        return folder.resolveSibling(folder.getFileName() + ".next");
    }

    /** The sibling folder the old index is moved to while the new one takes its place. */
    private Path old() {
        return folder.resolveSibling(folder.getFileName() + ".old");
    }

    /**
     * Opens the writer on the folder: the store version its last commit applied, or -1 when the
     * index must be built (none, damaged, another format). A damaged index is deleted. First
     * finishes what a crash interrupted: a complete build beside a missing index takes its place;
     * an incomplete build and an old index are deleted.
     */
    private long openIndex() throws IOException {
        if (!Files.isDirectory(folder) && Files.isDirectory(next()) && complete(next())) {
            Files.move(next(), folder, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            LOG.log(System.Logger.Level.INFO, "full-text index " + folder + ": the index built beside it takes its place");
        }
        if (Files.isDirectory(next())) deleteTree(next());
        if (Files.isDirectory(old())) deleteTree(old());
        // Owner-only, as the store is: the index holds the text it indexes.
        if (!Files.isDirectory(folder)) arno.xml.OwnerOnly.folder(folder);
        long version = -1;
        String configHash = null;
        String configXml = null;
        directory = new OwnerOnlyDirectory(FSDirectory.open(folder));
        try {
            if (DirectoryReader.indexExists(directory)) {
                Map<String, String> data = SegmentInfos.readLatestCommit(directory).getUserData();
                if (FORMAT.equals(data.get(FORMAT_KEY)) && data.get(VERSION) != null) {
                    version = Long.parseLong(data.get(VERSION));
                    configHash = data.get(CONFIG);
                    configXml = data.get(CONFIG_XML);
                    if (configXml != null && configXml.isEmpty()) configXml = null;
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
            configXml = null;
        }
        searchers = new SearcherManager(writer, null);
        lastCommit = System.nanoTime();
        resumedConfig = configHash;
        resumedXml = version >= 0 ? configXml : null;
        recheck = true;
        return version;
    }

    /** Whether {@code dir} holds a finished build: its one commit, with the store version it is at. */
    private static boolean complete(Path dir) {
        try (Directory d = FSDirectory.open(dir)) {
            return DirectoryReader.indexExists(d) && SegmentInfos.readLatestCommit(d).getUserData().get(VERSION) != null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The configuration hash the opened index was built with (null: none or unknown). */
    private String resumedConfig;
    /** The configuration's XML the opened index was built with (null: none, or an index that did not keep it). */
    private String resumedXml;

    private IndexWriterConfig writerConfig() {
        // The writer outlives configurations: it analyses with the one being indexed.
        return writerConfig(new org.apache.lucene.analysis.DelegatingAnalyzerWrapper(
                org.apache.lucene.analysis.Analyzer.PER_FIELD_REUSE_STRATEGY) {
            @Override
            protected org.apache.lucene.analysis.Analyzer getWrappedAnalyzer(String fieldName) {
                return indexing;
            }
        });
    }

    private static IndexWriterConfig writerConfig(org.apache.lucene.analysis.Analyzer analyzer) {
        IndexWriterConfig c = new IndexWriterConfig(analyzer);
        // Stored text is most of the index: compressed harder, as it is read only for ten hits' snippets.
        c.setCodec(new Lucene912Codec(Lucene912Codec.Mode.BEST_COMPRESSION));
        c.setRAMBufferSizeMB(32);
        return c;
    }

    /** Makes what the follower holds (configuration, searchers) what searches read, in one write. */
    private void publish() {
        Indexed in = current;
        SearcherManager m = searchers;
        serving = in == null || m == null ? null : new Serving(in, m);
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
            boolean configTouched = in == null || gone || applied < 0 || recheck;
            for (Change c : changes) if (c.uri().equals(FulltextConfig.URI)) configTouched = true;
            if (configTouched) {
                recheck = false;
                Indexed config;
                try {
                    config = readConfig(s);
                } catch (ArnoException bad) {
                    if (in == null) throw bad;
                    // A bad configuration put later: the index keeps the one it has (and says why, once).
                    LOG.log(System.Logger.Level.WARNING, bad.getMessage());
                    config = in;
                }
                if (config == null) {
                    cancelBuild();
                    if (in != null || applied < 0 || writer.getDocStats().numDocs > 0) {
                        writer.deleteAll();
                        current = null;
                        publish();
                        commit(s.version());
                        searchers.maybeRefreshBlocking();
                    }
                    cursorVersion = s.version();
                    cursorSeq = 0;
                    status = new Status(State.UNCONFIGURED, 0, 0, s.version(), null, builds);
                    return false;
                }
                String known = in != null ? in.config.hash() : resumedConfig;
                if (in == null && applied >= 0 && !gone && resumedXml != null && !config.config().hash().equals(known)) {
                    // Started on an index of another configuration that kept its own: it answers with that
                    // one while the new one is built beside it.
                    try {
                        in = indexed(FulltextConfig.parse(resumedXml.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                folder + " (its commit data)", store.options().xmlPolicy()), resumedXml);
                        current = in;
                        indexing = in.analyzer();
                        publish();
                    } catch (ArnoException unreadable) {
                        LOG.log(System.Logger.Level.WARNING, "full-text index " + folder + ": its own configuration cannot be read ("
                                + unreadable.getMessage() + "); building it again in place");
                    }
                }
                if (gone || applied < 0 || !config.config().hash().equals(known)) {
                    if (in != null && applied >= 0) {
                        // The index answers with what it has while a new one is built beside it.
                        if (build == null || !build.indexed.config().hash().equals(config.config().hash())) {
                            cancelBuild();
                            build = new Build(config);
                        }
                        if (gone) {
                            // The feed moved past the index: it can apply nothing more, and answers as it is.
                            status = new Status(State.READY, build.done, build.total, applied, null, builds, true);
                            return false;
                        }
                    } else {
                        cancelBuild();
                        rebuild(s, config);
                        cursorVersion = s.version();
                        cursorSeq = 0;
                        return false;
                    }
                } else {
                    cancelBuild(); // changed back while a build was under way
                    if (in == null) {
                        current = config;
                        indexing = current.analyzer();
                        publish();
                    }
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
            Build b = build;
            status = new Status(State.READY, b == null ? 0 : b.done, b == null ? 0 : b.total, Math.max(applied, through), null, builds,
                    b != null);
            maybeCommit(status.version);
            return changes.size() == FEED_PAGE;
        }
    }

    /** Where the follower reads the feed next: after this version's changes up to {@link #cursorSeq}. */
    private long cursorVersion = -1;
    private int cursorSeq;

    /** The analyzer of the configuration being indexed (the follower sets it before it adds documents). */
    private volatile org.apache.lucene.analysis.Analyzer indexing = Analyzers.keyword();

    private Indexed indexed(FulltextConfig config, String xml) {
        return new Indexed(config, Analyzers.of(config), new EntryDocuments(config, processor, Store.SCHEME + FulltextConfig.URI), xml);
    }

    /** The store's configuration, or null when it has none; a bad one fails the round (FAILED, with why). */
    private Indexed readConfig(Snapshot s) {
        if (!s.exists(FulltextConfig.URI)) return null;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        s.export(FulltextConfig.URI, out);
        FulltextConfig c = FulltextConfig.parse(out.toByteArray(), Store.SCHEME + FulltextConfig.URI, store.options().xmlPolicy());
        return indexed(c, out.toString(java.nio.charset.StandardCharsets.UTF_8)); // compiles the XPaths: a bad one is said now
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

    /**
     * Indexes every entry of {@code s} under {@code in} into the index itself (there is none to
     * answer meanwhile: searches are unavailable), with progress; then commits and is READY.
     */
    private void rebuild(Snapshot s, Indexed in) throws IOException {
        current = null;
        publish();
        indexing = in.analyzer();
        writer.deleteAll();
        long[] done = new long[1];
        long indexed = fill(s, in, writer, (d, t) -> {
            done[0] = d;
            status = new Status(State.BUILDING, d, t, -1, null, builds);
        }, () -> closed);
        if (closed) return;
        current = in;
        builds++;
        commit(s.version());
        searchers.maybeRefreshBlocking();
        publish();
        status = new Status(State.READY, done[0], done[0], s.version(), null, builds);
    }

    /** What a build reports as it goes: documents examined of the store's total. */
    private interface Progress {
        void at(long done, long total);
    }

    /**
     * Adds every entry of {@code s} that {@code in} selects to {@code w} (which is empty), with
     * progress in the log every 5 s; stops early when {@code stop} says so. Returns the entries added.
     */
    private long fill(Snapshot s, Indexed in, IndexWriter w, Progress progress, java.util.function.BooleanSupplier stop)
            throws IOException {
        long total = s.count("/");
        progress.at(0, total);
        Path where = w == writer ? folder : next();
        LOG.log(System.Logger.Level.INFO, "full-text index " + where + ": building from store version " + s.version()
                + " (" + total + " documents to examine)");
        long done = 0;
        long indexed = 0;
        long started = System.nanoTime();
        long shown = started;
        String after = null;
        try (Adders adders = new Adders(w, Adders.count(), "arno-fulltext-add")) {
            while (!stop.getAsBoolean()) {
                List<String> uris = s.uris("/", after, LIST_PAGE);
                if (uris.isEmpty()) break;
                for (String u : uris) {
                    done++;
                    if (!u.endsWith("." + arno.store.atom.Atom.ENTRY_EXTENSION)) continue;
                    String p = EntryDocuments.resourceOf(u);
                    if (p == null) continue;
                    Document d = in.documents().build(s, p);
                    if (d != null) {
                        adders.add(d);
                        indexed++;
                    }
                }
                after = uris.get(uris.size() - 1);
                progress.at(done, total);
                long now = System.nanoTime();
                if (now - shown > 5_000_000_000L) {
                    shown = now;
                    LOG.log(System.Logger.Level.INFO, String.format("full-text index %s: %,d of %,d documents examined (%d%%), %,d entries indexed",
                            where, done, total, total == 0 ? 100 : done * 100 / total, indexed));
                }
            }
        }
        if (!stop.getAsBoolean()) {
            LOG.log(System.Logger.Level.INFO, String.format("full-text index %s: %,d entries indexed in %d ms", where, indexed,
                    (System.nanoTime() - started) / 1_000_000));
        }
        return indexed;
    }

    /**
     * A new index built beside the one that answers, in {@link #next()}, from one snapshot, by a
     * thread of its own; complete once its one commit is written (at the snapshot's version).
     */
    private final class Build {
        final Indexed indexed;
        final Thread thread;
        volatile boolean cancelled;
        volatile long done;
        volatile long total;
        /** The store version the finished index is at; -1 until it is complete. */
        volatile long version = -1;
        volatile Throwable failure;

        Build(Indexed indexed) {
            this.indexed = indexed;
            this.thread = new Thread(this::run, "arno-fulltext-build");
            thread.setDaemon(true);
            thread.start();
        }

        boolean finished() {
            return !thread.isAlive();
        }

        private void run() {
            Path dir = next();
            try (Snapshot s = store.read()) {
                if (Files.isDirectory(dir)) deleteTree(dir);
                arno.xml.OwnerOnly.folder(dir);
                try (Directory d = new OwnerOnlyDirectory(FSDirectory.open(dir))) {
                    IndexWriter w = new IndexWriter(d, writerConfig(indexed.analyzer())
                            .setOpenMode(IndexWriterConfig.OpenMode.CREATE).setCommitOnClose(false));
                    try {
                        fill(s, indexed, w, (dn, t) -> {
                            done = dn;
                            total = t;
                        }, () -> cancelled || closed);
                        if (cancelled || closed) return;
                        w.setLiveCommitData(commitData(s.version(), indexed).entrySet());
                        w.commit();
                        version = s.version();
                    } finally {
                        w.rollback(); // after the commit: closes; before it: leaves nothing committed
                    }
                }
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
    }

    /**
     * Swaps in the finished build: the old writer closed, the folders renamed (the old one deleted),
     * the new index opened and published with its configuration. Returns the store version the
     * index is now at. A failed build is logged and tried again in the next round.
     */
    private long finish(long applied) throws IOException {
        Build b = build;
        build = null;
        if (b.failure != null || b.version < 0) {
            if (b.failure != null) {
                LOG.log(System.Logger.Level.WARNING, "full-text index " + next() + ": the build failed (" + b.failure
                        + "); the index answers as it is, and the build starts again", b.failure);
            }
            recheck = true;
            return applied;
        }
        // The old index stops here: what it applied since the build's snapshot the new one applies again.
        SearcherManager oldSearchers = searchers;
        try {
            writer.rollback();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the writer: " + e);
        }
        directory.close();
        writer = null;
        Files.move(folder, old(), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Files.move(next(), folder, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        directory = new OwnerOnlyDirectory(FSDirectory.open(folder));
        writer = new IndexWriter(directory, writerConfig());
        searchers = new SearcherManager(writer, null);
        current = b.indexed;
        indexing = b.indexed.analyzer();
        publish();
        builds++;
        cursorVersion = b.version;
        cursorSeq = 0;
        lastCommit = System.nanoTime();
        // Searches that took the old searchers finish with them; new ones take the new.
        try {
            oldSearchers.close();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the old searchers: " + e);
        }
        deleteTree(old());
        status = new Status(State.READY, b.done, b.total, b.version, null, builds);
        LOG.log(System.Logger.Level.INFO, "full-text index " + folder + ": the index built beside it answers now (store version "
                + b.version + ")");
        return b.version;
    }

    /** Stops a build in progress and deletes what it wrote. */
    private void cancelBuild() {
        cancelBuild(true);
    }

    private void cancelBuild(boolean delete) {
        Build b = build;
        build = null;
        if (b == null) return;
        b.cancelled = true;
        try {
            b.thread.join(30_000);
            if (delete && Files.isDirectory(next())) deleteTree(next());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "deleting the cancelled build: " + e);
        }
    }

    private void maybeCommit(long version) throws IOException {
        if (appliedSinceCommit > 0 && System.nanoTime() - lastCommit >= options.commitEvery().toNanos()) commit(version);
    }

    private static Map<String, String> commitData(long version, Indexed in) {
        return Map.of(VERSION, Long.toString(version), FORMAT_KEY, FORMAT,
                CONFIG, in == null ? "" : in.config.hash(), CONFIG_XML, in == null || in.xml() == null ? "" : in.xml());
    }

    private void commit(long version) throws IOException {
        writer.setLiveCommitData(commitData(version, current).entrySet());
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
        publish();
    }

    private static void deleteTree(Path dir) throws IOException {
        deleteContents(dir);
        Files.deleteIfExists(dir);
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
        // woken, never interrupted: an interrupt inside Lucene's file writes closes their channels
        // (ClosedByInterruptException), and the last commit below would fail the same way
        synchronized (wake) {
            closed = true;
            wake.notifyAll();
        }
        try {
            follower.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (helpers != null) helpers.shutdown();
    }
}
