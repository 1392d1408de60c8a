package arno.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

import net.sf.saxon.Configuration;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;

import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * A read snapshot: one consistent version of the whole store, for as long as it is open (an LMDB
 * read transaction). Documents opened from it are navigated in place; the same URI and
 * Configuration give the same tree every time, so {@code doc()} is stable across a whole request.
 *
 * <p>It is the store's {@link DocumentStore.View}: the pipeline opens one per request through
 * {@link DocumentStore#read()} and knows nothing else of the store.
 *
 * <p>The same class is the view of a write transaction ({@link WriteTransaction#view()}): it reads
 * inside that transaction and sees its writes. Such a view ends with its transaction, not with
 * {@link #close()} (which does nothing there), and what it returned (trees, nodes, {@link Binary}
 * streams) is valid only until the transaction's next write: a write may reuse the pages they read.
 *
 * <p>Threads: methods are thread-safe (LMDB calls are serialized on the snapshot). Nodes of its
 * documents must not be used after {@link #close()}.
 */
public final class Snapshot implements DocumentStore.View {

    /** Orders URIs as the B+trees do: by their UTF-8 bytes. */
    static final Comparator<String> BYTE_ORDER = (a, b) -> java.util.Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    private final Store store;
    private final Txn<DirectBuffer> txn;
    private final Keys keys = new Keys();
    private final long version;
    /** The write transaction this is the view of, or null for a read snapshot. */
    private final WriteTransaction owner;
    /**
     * The trees read, so that a path gives the same tree (and node identity) as long as anyone holds
     * one of its nodes. Weakly: a report over a million documents in one snapshot must not keep them
     * all; a tree nobody holds any more is collected and its entry purged at the next read.
     */
    private final Map<Configuration, Map<String, TreeRef>> trees = new HashMap<>();
    private final java.lang.ref.ReferenceQueue<StoredTree> dropped = new java.lang.ref.ReferenceQueue<>();
    private volatile boolean closed;
    /** The same, read without a barrier on the trees' hot paths (see StoredTree.checkOpen). */
    boolean closedPlain;
    /** Bumped at each write of the owning transaction: what was read before is stale. */
    private int generation;

    Snapshot(Store store, Txn<DirectBuffer> txn) {
        this.store = store;
        this.txn = txn;
        this.owner = null;
        long v;
        try {
            v = store.engine.getLong(txn, keys, "version");
        } catch (RuntimeException e) {
            txn.close(); // not kept: whatever failed may have left it unusable
            store.snapshotClosed();
            throw e;
        }
        this.version = v;
    }

    /** The view of a write transaction. */
    Snapshot(Store store, Txn<DirectBuffer> txn, WriteTransaction owner) {
        this.store = store;
        this.txn = txn;
        this.owner = owner;
        this.version = owner.version();
    }

    /**
     * The store version this snapshot sees. For the view of a write transaction it is the version
     * that transaction commits as: not an identity to cache by, since an aborted transaction's
     * version is used again by the next one.
     */
    @Override
    public long version() {
        return version;
    }

    /** Whether a document is stored at {@code uri}; UNSUPPORTED_URI if it is not a store URI. */
    @Override
    public synchronized boolean exists(String uri) {
        checkOpen();
        return store.engine.paths.get(txn, keys.utf8(Store.checkUri(uri))) != null;
    }

    /**
     * The version that wrote the document at {@code uri} ({@link DocumentInfo#version()}), or -1 if
     * nothing is stored there: one B+tree lookup, without reading the document's header
     * ({@link #info} does) or its commit time. A version below {@link #version()} was committed, so
     * (uri, version) names one document for good; on the view of a write transaction,
     * {@link #version()} itself means "written here".
     */
    @Override
    public synchronized long documentVersion(String uri) {
        checkOpen();
        try {
            DirectBuffer p = store.engine.paths.get(txn, keys.utf8(Store.checkUri(uri)));
            return p == null ? -1 : p.getLong(8, Keys.BE);
        } catch (LmdbException e) {
            throw StoreFailures.of(e, Store.SCHEME + uri);
        }
    }

    /** What is stored at {@code uri}, or null if nothing is. */
    public synchronized DocumentInfo info(String uri) {
        DocHeader h = header(uri);
        return h == null ? null : info(h);
    }

    DocumentInfo info(DocHeader h) {
        return new DocumentInfo(h.uri(), h.version(), h.length(), h.xmlBytes(), h.nodes(), h.mediaType(), h.binary(),
                committedAt(h.version()));
    }

    /** The binary document at {@code uri}, or null if none is stored there (or what is stored is XML). */
    public synchronized Binary binary(String uri) {
        DocHeader h = header(uri);
        return h == null || !h.binary() ? null : new Binary(this, h, committedAt(h.version()));
    }

    /** {@link #binary}, as the pipeline reaches it ({@code rsp:body src="store:…"}). */
    @Override
    public Binary bytes(String path) {
        return binary(path);
    }

    /**
     * The commit time of {@code version}, or null when there was no such commit. Commit times are
     * kept for every version (16 bytes each), however old: a document's Last-Modified needs its own.
     */
    public synchronized Instant committedAt(long version) {
        checkOpen();
        if (owner != null && version == this.version) {
            return owner.time();
        }
        try {
            DirectBuffer v = store.engine.commits.get(txn, keys.version(version));
            return v == null ? null : Instant.ofEpochMilli(v.getLong(0, Keys.BE));
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
    }

    /**
     * The document at {@code uri} as a Saxon tree for {@code config}, navigated in place.
     *
     * @throws StoreException NOT_FOUND if no document is stored there
     */
    @Override
    public synchronized TreeInfo document(String uri, Configuration config) {
        TreeInfo t = documentIfStored(uri, config);
        if (t == null) {
            StoreException e = new StoreException(ErrorMessage.NO_DOCUMENT, Store.SCHEME + uri, store.directory(), version);
            e.at(Where.at(Store.SCHEME + uri));
            throw e;
        }
        return t;
    }

    /** {@link #document}, or null when nothing is stored at {@code uri}: one lookup where exists-then-read takes two. */
    @Override
    public synchronized TreeInfo documentIfStored(String uri, Configuration config) {
        checkOpen();
        purge();
        Map<String, TreeRef> byUri = trees.computeIfAbsent(config, c -> new HashMap<>());
        TreeRef ref = byUri.get(uri);
        StoredTree t = ref == null ? null : ref.get();
        if (t == null) {
            DocHeader h = header(uri);
            if (h == null) return null;
            if (h.binary()) {
                StoreException e = new StoreException(ErrorMessage.BINARY_NOT_XML, Store.SCHEME + uri, h.mediaType());
                e.at(Where.at(Store.SCHEME + uri));
                throw e;
            }
            Namebase.Mapping mapping = store.names.mapping(config);
            t = new StoredTree(this, h, config, owner == null ? mapping.covering(h.nameCodes())
                    : mapping.covering(h.nameCodes(), owner.pendingNames()));
            byUri.put(uri, new TreeRef(t, uri, byUri, dropped));
        }
        return t;
    }

    /**
     * For {@link arno.xml.StoreFunctions#register}: the snapshot whose {@link #resolver} the running
     * query uses (as {@code ./arno query} installs it), or null.
     */
    public static final java.util.function.Function<net.sf.saxon.expr.XPathContext, DocumentStore.View> FROM_RESOLVER =
            context -> {
                ResourceResolver r = context.getController() == null ? null : context.getController().getResourceResolver();
                return r instanceof StoreResolver s ? s.snapshot() : null;
            };

    /**
     * A Saxon resource resolver for {@code store:} URIs, bound to this snapshot and Configuration.
     * Install it on a transformer or query evaluator; it returns null for other schemes so that
     * resolution falls through to the next resolver.
     */
    public ResourceResolver resolver(Configuration config) {
        return new StoreResolver(this, config);
    }

    /** URIs of the stored documents that start with {@code prefix}, in byte order. */
    @Override
    public synchronized List<String> uris(String prefix) {
        checkOpen();
        List<String> out = new ArrayList<>();
        try (Cursor<DirectBuffer> c = store.engine.paths.openCursor(txn)) {
            boolean found = prefix.isEmpty() ? c.first() : c.get(keys.utf8(prefix), GetOp.MDB_SET_RANGE);
            while (found) {
                DirectBuffer k = c.key();
                String u = Keys.string(k, 0, k.capacity());
                if (!u.startsWith(prefix)) {
                    break;
                }
                out.add(u);
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return out;
    }

    /**
     * The direct children of {@code folder} ("/a/b/", or "/" for the top): documents by their name
     * ("c.atom"), sub-folders by their name and a slash ("c/"), in byte order, the first
     * {@code limit} after the name {@code after} (exclusive; null to start at the first).
     *
     * <p>The paths B+tree is the hierarchy index: on meeting "folder/c/…" the cursor seeks to
     * "folder/c0" ({@code '0'} is the byte after {@code '/'}), jumping over everything inside c/,
     * so a listing costs O(children · log n) however much lies deeper.
     */
    public synchronized List<String> children(String folder, String after, int limit) {
        checkOpen();
        checkFolder(folder);
        if (limit < 1) {
            throw new StoreException(ErrorMessage.LISTING_LIMIT, Store.SCHEME + folder, limit);
        }
        List<String> out = new ArrayList<>();
        String seek;
        if (after == null || after.isEmpty()) {
            seek = folder;
        } else if (after.endsWith("/")) {
            seek = folder + after.substring(0, after.length() - 1) + '0';
        } else {
            seek = folder + after + '\0';
        }
        byte[] prefix = folder.getBytes(StandardCharsets.UTF_8);
        try (Cursor<DirectBuffer> c = store.engine.paths.openCursor(txn)) {
            boolean found = seekAtOrAfter(c, seek);
            while (found && out.size() < limit) {
                DirectBuffer k = c.key();
                if (!Keys.startsWith(k, prefix)) {
                    break;
                }
                int slash = -1;
                for (int i = prefix.length; i < k.capacity(); i++) {
                    if (k.getByte(i) == '/') {
                        slash = i;
                        break;
                    }
                }
                if (slash < 0) {
                    out.add(Keys.string(k, prefix.length, k.capacity() - prefix.length));
                    found = c.next();
                } else {
                    String name = Keys.string(k, prefix.length, slash - prefix.length);
                    out.add(name + '/');
                    found = seekAtOrAfter(c, folder + name + '0');
                }
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return out;
    }

    /** Every direct child of {@code folder} (see {@link #children(String, String, int)}). */
    @Override
    public List<String> children(String folder) {
        return children(folder, null, Integer.MAX_VALUE);
    }

    private boolean seekAtOrAfter(Cursor<DirectBuffer> c, String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        if (b.length > Keys.MAX_KEY) {
            // longer than any stored URI: the first URI after it is the first after its 511-byte prefix's range
            return seekPast(c, java.util.Arrays.copyOf(b, Keys.MAX_KEY));
        }
        return c.get(keys.bytes(b), GetOp.MDB_SET_RANGE);
    }

    /** Positions after every key that starts with {@code prefix}. */
    private boolean seekPast(Cursor<DirectBuffer> c, byte[] prefix) {
        boolean found = c.get(keys.bytes(prefix), GetOp.MDB_SET_RANGE);
        while (found && Keys.startsWith(c.key(), prefix)) {
            found = c.next();
        }
        return found;
    }

    static void checkFolder(String folder) {
        if (folder == null || !folder.endsWith("/") || !folder.startsWith("/")) {
            StoreException e = new StoreException(ErrorMessage.STORE_FOLDER_SHAPE, folder);
            e.at(Where.at(Store.SCHEME + folder));
            throw e;
        }
        if (folder.length() > 1) {
            Store.checkUri(folder.substring(0, folder.length() - 1));
        }
    }

    /**
     * The documents that refer to a document whose URI starts with {@code targetPrefix} (as set by
     * {@link WriteTransaction#setReferences}), distinct, in byte order. A prefix "/journals/ja/"
     * finds every reference into that subtree.
     */
    public synchronized List<String> referrers(String targetPrefix) {
        checkOpen();
        TreeSet<String> out = new TreeSet<>(BYTE_ORDER);
        byte[] prefix = targetPrefix.getBytes(StandardCharsets.UTF_8);
        if (prefix.length > Keys.MAX_KEY) {
            return List.of();
        }
        try (Cursor<DirectBuffer> c = store.engine.refs.openCursor(txn)) {
            boolean found = prefix.length == 0 ? c.first() : c.get(keys.bytes(prefix), GetOp.MDB_SET_RANGE);
            while (found && Keys.startsWith(c.key(), prefix)) {
                out.add(Keys.string(c.val(), 0, c.val().capacity()));
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return List.copyOf(out);
    }

    /** The documents {@code sourceUri} refers to (as set by {@link WriteTransaction#setReferences}), in byte order. */
    public synchronized List<String> references(String sourceUri) {
        checkOpen();
        Store.checkUri(sourceUri);
        return references(store.engine, txn, keys, sourceUri);
    }

    static List<String> references(Engine engine, Txn<DirectBuffer> txn, Keys keys, String source) {
        TreeSet<String> out = new TreeSet<>(BYTE_ORDER);
        byte[] prefix = Keys.pairPrefix(source);
        try (Cursor<DirectBuffer> c = engine.refsOut.openCursor(txn)) {
            boolean found = c.get(keys.bytes(prefix), GetOp.MDB_SET_RANGE);
            while (found && Keys.startsWith(c.key(), prefix)) {
                out.add(Keys.string(c.val(), 0, c.val().capacity()));
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, Store.SCHEME + source);
        }
        return List.copyOf(out);
    }

    /** Every change after version {@code since} up to this snapshot, oldest first. */
    public List<Change> changesSince(long since) {
        return changesSince(since, 0, Integer.MAX_VALUE);
    }

    /**
     * At most {@code limit} changes, oldest first: those of the versions after {@code since}, and
     * with {@code seq} ≥ 1 also those of version {@code since} from its {@code seq}-th change on (to
     * continue a page that ended inside a commit: pass the last change's version and seq + 1).
     *
     * @throws StoreException GONE when changes this asks for were pruned (older than the retention):
     *                        the follower must resynchronise from a full copy
     */
    public synchronized List<Change> changesSince(long since, int seq, int limit) {
        checkOpen();
        if (since < 0 || seq < 0 || limit < 1) {
            throw new StoreException(ErrorMessage.CHANGES_RANGE, since, seq, limit);
        }
        long feedStart = oldestChangeIn();
        long first = seq > 0 ? since : since + 1;
        if (first >= 1 && first < feedStart) {
            StoreException e = new StoreException(ErrorCode.GONE, null, since, store.directory(), feedStart,
                    store.options().changeRetention());
            e.at(Where.at("store " + store.directory()));
            throw e;
        }
        List<Change> out = new ArrayList<>();
        if (first > version) {
            return out;
        }
        try (Cursor<DirectBuffer> c = store.engine.changes.openCursor(txn)) {
            boolean found = c.get(keys.version(first, seq > 0 ? seq : 0), GetOp.MDB_SET_RANGE);
            long timeOf = -1;
            Instant time = null;
            while (found && out.size() < limit) {
                long v = c.key().getLong(0, Keys.BE);
                int s = c.key().getInt(8, Keys.BE);
                DirectBuffer val = c.val();
                Change.Kind kind = Change.Kind.values()[val.getByte(0)];
                int mlen = val.getByte(9) & 0xFF;
                String mediaType = Keys.string(val, 10, mlen);
                String uri = Keys.string(val, 10 + mlen, val.capacity() - 10 - mlen);
                if (v != timeOf) {
                    time = committedAtIn(v);
                    timeOf = v;
                }
                out.add(new Change(v, s, kind, uri, mediaType, time));
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return out;
    }

    /**
     * The mark {@code name} as the last commit this snapshot sees set it ({@link WriteTransaction#setMark}),
     * or empty when none ever did. On the view of a write transaction, that transaction's own value.
     */
    public synchronized java.util.OptionalLong mark(String name) {
        checkOpen();
        try {
            DirectBuffer v = store.engine.meta.get(txn, keys.utf8(WriteTransaction.markKey(name)));
            if (v == null) {
                return java.util.OptionalLong.empty();
            }
            if (v.capacity() != 8) {
                throw new StoreException(ErrorMessage.MARK_MALFORMED, store.directory(), name);
            }
            return java.util.OptionalLong.of(v.getLong(0, Keys.BE));
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
    }

    /** The first version whose changes are all still in the feed (older ones were pruned). */
    public synchronized long oldestChange() {
        checkOpen();
        return oldestChangeIn();
    }

    private long oldestChangeIn() {
        return store.engine.getLong(txn, keys, "feedStart");
    }

    private Instant committedAtIn(long v) {
        if (owner != null && v == version) {
            return owner.time();
        }
        DirectBuffer t = store.engine.commits.get(txn, keys.version(v));
        return t == null ? null : Instant.ofEpochMilli(t.getLong(0, Keys.BE));
    }

    /**
     * Writes the document at {@code uri}: an XML document as XML (UTF-8), equal in infoset to what
     * was stored; a binary document as its bytes.
     */
    public void export(String uri, OutputStream out) {
        Binary b = binary(uri);
        if (b != null) {
            try (InputStream in = b.open()) {
                in.transferTo(out);
            } catch (IOException e) {
                StoreException x = new StoreException(ErrorMessage.EXPORT_FAILED, e, Store.SCHEME + uri, e.getMessage());
                x.at(Where.at(Store.SCHEME + uri));
                throw x;
            }
            return;
        }
        Serializer s = new Processor(store.ownConfiguration()).newSerializer(out);
        s.setOutputProperty(Serializer.Property.ENCODING, "UTF-8");
        s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "no");
        export(uri, s);
    }

    /**
     * Writes the document at {@code uri} as XML characters to {@code out}, without an XML
     * declaration: the writer, not the document, decides the encoding of the bytes.
     */
    public void export(String uri, Writer out) {
        Binary b = binary(uri);
        if (b != null) {
            StoreException e = new StoreException(ErrorMessage.BINARY_NOT_TEXT, Store.SCHEME + uri, b.mediaType(), b.length(), uri);
            e.at(Where.at(Store.SCHEME + uri));
            throw e;
        }
        Serializer s = new Processor(store.ownConfiguration()).newSerializer(out);
        s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
        export(uri, s);
    }

    private void export(String uri, Serializer s) {
        TreeInfo tree = document(uri, store.ownConfiguration());
        s.setOutputProperty(Serializer.Property.METHOD, "xml");
        s.setOutputProperty(Serializer.Property.INDENT, "no");
        try {
            s.serializeNode(new XdmNode(tree.getRootNode()));
        } catch (SaxonApiException e) {
            StoreException x = new StoreException(ErrorMessage.EXPORT_FAILED, e, Store.SCHEME + uri, e.getMessage());
            x.at(Where.at(Store.SCHEME + uri));
            throw x;
        }
    }

    /**
     * Ends the snapshot; its documents' nodes become invalid. On the view of a write transaction it
     * does nothing: the view ends with its transaction.
     */
    @Override
    public void close() {
        if (owner != null) {
            return;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            closedPlain = true;
            trees.clear();
            store.endRead(txn);
        }
        store.snapshotClosed();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw (owner == null ? new StoreException(ErrorMessage.SNAPSHOT_CLOSED, version, store.directory())
                    : new StoreException(ErrorMessage.VIEW_ENDED, version, store.directory()));
        }
    }

    int generation() {
        return generation;
    }

    /** The owning transaction writes: forget the trees read so far (their pages may change). */
    synchronized void written() {
        generation++;
        trees.clear();
    }

    /** The owning transaction has ended. */
    synchronized void ended() {
        closed = true;
        closedPlain = true;
        trees.clear();
    }

    Store store() {
        return store;
    }

    private DocHeader header(String uri) {
        checkOpen();
        Store.checkUri(uri);
        try {
            DirectBuffer p = store.engine.paths.get(txn, keys.utf8(uri));
            if (p == null) {
                return null;
            }
            long docId = p.getLong(0, Keys.BE);
            DirectBuffer h = store.engine.docs.get(txn, keys.doc(docId, Keys.HEADER));
            if (h == null) {
                throw new StoreException(ErrorMessage.NO_HEADER_AT, Store.SCHEME + uri, docId);
            }
            return DocHeader.decode(docId, h);
        } catch (LmdbException e) {
            throw StoreFailures.of(e, Store.SCHEME + uri);
        }
    }

    /** A view of a docs entry, valid while the snapshot is open; null if absent. */
    synchronized UnsafeBuffer entry(long docId, byte kind) {
        checkOpen();
        DirectBuffer v = store.engine.docs.get(txn, keys.doc(docId, kind));
        return v == null ? null : new UnsafeBuffer(v.addressOffset(), v.capacity());
    }

    synchronized UnsafeBuffer chunk(long docId, int index) {
        checkOpen();
        DirectBuffer v = store.engine.docs.get(txn, keys.chunk(docId, index));
        if (v == null) {
            throw new StoreException(ErrorMessage.CHUNK_MISSING, docId, index);
        }
        return new UnsafeBuffer(v.addressOffset(), v.capacity());
    }

    /** Position of the element with this id, or -1; null when the id is too long to be indexed. */
    synchronized Long id(long docId, String id) {
        checkOpen();
        DirectBuffer key = keys.id(docId, id);
        if (key == null) {
            return null;
        }
        DirectBuffer v = store.engine.docs.get(txn, key);
        return v == null ? -1L : v.getLong(0, Keys.BE);
    }

    /** The value index configuration this snapshot sees (empty when the store has none). */
    public synchronized IndexConfig indexes() {
        checkOpen();
        List<IndexDefinition> out = new ArrayList<>();
        try {
            for (ValueWalk.Active a : Indexer.active(store.engine, txn)) {
                out.add(a.definition());
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return new IndexConfig(out);
    }

    /**
     * The elements that value index {@code index} holds under {@code value} (compared as the
     * index's type, after its normalisation), each once, in storage order. One B+tree seek.
     *
     * @throws StoreException BAD_PARAMETER when there is no such index, it is correlated (give its
     *                        key: {@link #lookup(String, String, String)}), or the value is not of its type
     */
    public List<IndexHit> lookup(String index, String value) {
        return ValueLookup.find(this, index, null, value, value);
    }

    /** The elements of a correlated index whose key is {@code key} and value is {@code value}. */
    public List<IndexHit> lookup(String index, String key, String value) {
        return ValueLookup.find(this, index, key, value, value);
    }

    /**
     * The elements of value index {@code index} with a value in [low, high] (inclusive; null for an
     * open end), each once, in value order: a number index by number, a date index by date, a
     * string index by code point.
     */
    public List<IndexHit> range(String index, String low, String high) {
        return ValueLookup.find(this, index, null, low, high);
    }

    /** {@link #range(String, String, String)} within the key {@code key} of a correlated index. */
    public List<IndexHit> range(String index, String key, String low, String high) {
        return ValueLookup.find(this, index, key, low, high);
    }

    /** The element a lookup found, for {@code config}; valid while this snapshot is open. */
    public net.sf.saxon.om.NodeInfo node(IndexHit hit, Configuration config) {
        StoredTree t = (StoredTree) document(hit.uri(), config);
        return t.nodeAt(hit.position());
    }

    /** For the pipeline ({@link DocumentStore.View#lookup}): the elements, as nodes of {@code config}. */
    @Override
    public List<net.sf.saxon.om.NodeInfo> lookup(String index, String key, String low, String high, Configuration config) {
        List<net.sf.saxon.om.NodeInfo> out = new ArrayList<>();
        for (IndexHit h : ValueLookup.find(this, index, key, low, high)) {
            out.add(node(h, config));
        }
        return out;
    }

    /**
     * Plans a structured search ({@link Search}): the XML documents whose path starts with
     * {@code under} ("/journals/") for which the XPath condition {@code condition}, with the document
     * node as context item, is true, exactly {@code collection('store:' || $under)[CONDITION]}.
     * {@code namespaces} binds the prefixes the condition uses ("" for the default element namespace).
     * The plan is made here (indexes read, candidates found); run it with {@link Search#iterator}.
     *
     * @throws arno.xml.ArnoException BAD_PARAMETER, with the line and column in the condition, for
     *                                syntax outside the search subset ({@link SearchParser})
     */
    public Search planSearch(String under, String condition, Map<String, String> namespaces, Configuration config) {
        return Search.prepare(this, under, condition, namespaces, config);
    }

    /** The documents {@link #planSearch} finds, as document nodes of {@code config}, found as the iterator is read. */
    @Override
    public java.util.Iterator<net.sf.saxon.om.NodeInfo> search(String under, String condition,
            Map<String, String> namespaces, Configuration config) {
        return planSearch(under, condition, namespaces, config).iterator(null);
    }

    /** The plan of {@link #planSearch} as a {@code store:plan} element of {@code config} (nothing is verified). */
    @Override
    public net.sf.saxon.om.NodeInfo explain(String under, String condition, Map<String, String> namespaces,
            Configuration config) {
        String xml = planSearch(under, condition, namespaces, config).planXml();
        try {
            XdmNode doc = new Processor(config).newDocumentBuilder().build(
                    new javax.xml.transform.stream.StreamSource(new java.io.StringReader(xml)));
            return doc.getUnderlyingNode().iterateAxis(net.sf.saxon.om.AxisInfo.CHILD,
                    net.sf.saxon.pattern.NodeKindTest.ELEMENT).next();
        } catch (SaxonApiException e) {
            throw new StoreException(ErrorMessage.PLAN_NOT_XML, e, e.getMessage());
        }
    }

    /**
     * At most {@code limit} URIs that start with {@code prefix}, in byte order, after {@code after}
     * (exclusive; null for the first): a scan reads the paths B+tree a page at a time.
     */
    public synchronized List<String> uris(String prefix, String after, int limit) {
        checkOpen();
        List<String> out = new ArrayList<>();
        try (Cursor<DirectBuffer> c = store.engine.paths.openCursor(txn)) {
            String from = after == null ? prefix : after + '\0';
            boolean found = from.isEmpty() ? c.first() : c.get(keys.utf8(from), GetOp.MDB_SET_RANGE);
            while (found && out.size() < limit) {
                DirectBuffer k = c.key();
                String u = Keys.string(k, 0, k.capacity());
                if (!u.startsWith(prefix)) {
                    break;
                }
                if (after == null || !u.equals(after)) {
                    out.add(u);
                }
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return out;
    }

    /** How many documents' URIs start with {@code prefix} (one walk of their keys, nothing decoded). */
    public synchronized long count(String prefix) {
        checkOpen();
        long n = 0;
        byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
        try (Cursor<DirectBuffer> c = store.engine.paths.openCursor(txn)) {
            boolean found = p.length == 0 ? c.first() : c.get(keys.bytes(p), GetOp.MDB_SET_RANGE);
            while (found && Keys.startsWith(c.key(), p)) {
                n++;
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
        return n;
    }

    /**
     * The tree of the document at {@code uri} for {@code config}, not kept in this snapshot's cache
     * (a scan of a million documents must not hold them all); null when nothing or a binary is stored there.
     */
    synchronized StoredTree uncached(String uri, Configuration config) {
        Map<String, TreeRef> byUri = trees.get(config);
        TreeRef ref = byUri == null ? null : byUri.get(uri);
        StoredTree known = ref == null ? null : ref.get();
        if (known != null) {
            return known;
        }
        DocHeader h = header(uri);
        if (h == null || h.binary()) {
            return null;
        }
        Namebase.Mapping mapping = store.names.mapping(config);
        return new StoredTree(this, h, config, owner == null ? mapping.covering(h.nameCodes())
                : mapping.covering(h.nameCodes(), owner.pendingNames()));
    }

    /** Drops the entries of trees that were collected. */
    private void purge() {
        for (java.lang.ref.Reference<? extends StoredTree> r; (r = dropped.poll()) != null; ) {
            TreeRef t = (TreeRef) r;
            t.owner.remove(t.uri, t);
        }
    }

    /** How many trees this snapshot knows now (for tests: the cache must not grow with a report). */
    synchronized int treesKnown() {
        purge();
        int n = 0;
        for (Map<String, TreeRef> m : trees.values()) n += m.size();
        return n;
    }

    /** A tree read, held weakly, with where its entry is for purging it. */
    private static final class TreeRef extends java.lang.ref.WeakReference<StoredTree> {
        final String uri;
        final Map<String, TreeRef> owner;

        TreeRef(StoredTree t, String uri, Map<String, TreeRef> owner, java.lang.ref.ReferenceQueue<StoredTree> q) {
            super(t, q);
            this.uri = uri;
            this.owner = owner;
        }
    }

    /** The path summary: every distinct element path of the stored XML documents with its counts. */
    public synchronized List<PathCount> paths() {
        checkOpen();
        try {
            return PathTable.summary(store.engine, txn);
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + store.directory());
        }
    }

    /**
     * The tree of document {@code docId} for the store's own walks (indexing, checking): not
     * cached, so a write transaction's next write cannot leave it in the cache; null for a binary document.
     */
    synchronized StoredTree tree(long docId, Configuration config) {
        checkOpen();
        DirectBuffer b = store.engine.docs.get(txn, keys.doc(docId, Keys.HEADER));
        if (b == null) {
            throw new StoreException(ErrorMessage.NO_HEADER, docId);
        }
        DocHeader h = DocHeader.decode(docId, b);
        if (h.binary()) {
            return null;
        }
        Namebase.Mapping mapping = store.names.mapping(config);
        return new StoredTree(this, h, config, owner == null ? mapping.covering(h.nameCodes())
                : mapping.covering(h.nameCodes(), owner.pendingNames()));
    }

    /** For the checker: raw access inside this snapshot. */
    Txn<DirectBuffer> txn() {
        return txn;
    }
}
