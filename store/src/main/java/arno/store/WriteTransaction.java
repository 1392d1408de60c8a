package arno.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import javax.xml.transform.Source;
import javax.xml.transform.stream.StreamSource;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * The store's one write transaction: puts and deletes several documents, then commits them all
 * at once, or none (abort, or close without commit). A failed put (malformed XML, say) removes
 * what it had written and leaves the transaction usable; the caller decides whether to commit
 * the rest or abort.
 *
 * <p>Besides documents it keeps the <b>reverse link index</b> ({@link #setReferences}): which
 * documents refer to which, so that deleting or moving a resource finds every link into it with a
 * prefix seek instead of a scan. A put does not touch a document's references (the writer that
 * knows the links sets them again); a delete clears them.
 *
 * <p>At commit it records the commit time ({@link #time()}) and prunes the change feed of changes
 * older than {@link StoreOptions#changeRetention()}, at most max(1000, 2 × this commit's changes)
 * records per commit: pruning keeps pace with writing and never makes one commit slow.
 *
 * <p>A write transaction belongs to the thread that opened it and must be ended by it.
 */
public final class WriteTransaction implements AutoCloseable {

    /** Change records pruned per commit at the least. */
    static final int PRUNE_MIN = 1000;

    private final Store store;
    private final Engine engine;
    private final Txn<DirectBuffer> txn;
    private final Namebase.Pending names;
    private final Keys keys = new Keys();
    /** Seeks of removeEntries, clearReferences and prune (which never nest), apart from {@link #keys}. */
    private final Keys seek = new Keys();
    /**
     * The value of a reference (a URI, at most {@link Store#MAX_URI_BYTES} bytes) or of a change
     * record (10 bytes, a media type, a URI), reused for every put instead of a direct buffer each.
     */
    private final UnsafeBuffer scratch = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(1024));
    private final UnsafeBuffer scratchView = new UnsafeBuffer(0, 0);
    private final long version;
    private final Instant time;
    private long nextDoc;
    private long feedStart;
    private int changes;
    private boolean dirty;
    /** A mark was set ({@link #setMark}): commit even when no document changed, without a new version. */
    private boolean marked;
    private boolean done;
    private RuntimeException broken;
    private Snapshot view;
    private Indexer indexer;

    WriteTransaction(Store store, Txn<DirectBuffer> txn, long atVersion, Instant at) {
        this.store = store;
        this.engine = store.engine;
        this.txn = txn;
        this.names = store.names.pending(txn);
        long next = engine.getLong(txn, keys, "version") + 1;
        if (atVersion > 0 && atVersion < next) {
            txn.abort(); // the store's write() releases its lock as the exception passes
            throw new IllegalArgumentException("store " + engine.dir + " is at version " + (next - 1)
                    + ": a transaction cannot commit as version " + atVersion);
        }
        this.version = atVersion > 0 ? atVersion : next;
        this.nextDoc = engine.getLong(txn, keys, "nextDoc");
        this.feedStart = engine.getLong(txn, keys, "feedStart");
        long last = Long.MIN_VALUE;
        try (Cursor<DirectBuffer> c = engine.commits.openCursor(txn)) {
            if (c.last()) {
                last = c.val().getLong(0, Keys.BE);
            }
        }
        // commit times never go backwards, whatever the clock does
        this.time = Instant.ofEpochMilli(Math.max(at != null ? at.toEpochMilli() : store.options().clock().millis(), last));
    }

    /** The version this transaction commits as, if it changes anything. */
    public long version() {
        return version;
    }

    /**
     * The commit time this transaction records for its version (taken when it began, in
     * milliseconds, never before the previous commit's): what {@link DocumentInfo#modified()} and
     * the change feed report for what it writes, so an entry's {@code atom:updated} can say the same.
     */
    public Instant time() {
        return time;
    }

    /**
     * Stores the document read from {@code source} under {@code uri} as {@code application/xml},
     * replacing any document there. See {@link #put(String, Source, String)}.
     */
    public DocumentInfo put(String uri, Source source) {
        return put(uri, source, DocHeader.XML);
    }

    /**
     * Stores the document read from {@code source} under {@code uri} with its media type (an XML
     * one: {@code image/svg+xml}, {@code application/atom+xml}), replacing any document there.
     * XML text (a StreamSource, or a SAXSource with an InputSource) is parsed by the store's
     * {@link arno.xml.XmlPolicy} whatever parser the source names; a tree (NodeInfo, DOMSource)
     * is copied. Only bytes given and files named are read; nothing is fetched. The document's
     * references ({@link #setReferences}) are kept.
     *
     * @throws StoreException MALFORMED_XML (with file, line and column) or REFUSED_XML (with the
     *                        policy's reason); nothing of this document is kept, and the
     *                        transaction stays usable
     */
    public DocumentInfo put(String uri, Source source, String mediaType) {
        checkActive();
        Store.checkUri(uri);
        Store.checkMediaType(mediaType, uri);
        written();
        long docId = nextDoc++;
        DocumentWriter w = new DocumentWriter(store, txn, names, docId, uri, version, mediaType);
        String what = source.getSystemId() != null ? source.getSystemId() : Store.SCHEME + uri;
        long xml;
        DocHeader h;
        DocumentCheck check = store.check(uri);
        try {
            if (check != null) {
                byte[] sent = bytesOf(source);
                if (sent != null) {
                    // Checked as sent, so that the lines and columns in a refusal are the writer's.
                    check.check(sent, what, store.options().xmlPolicy());
                    source = new StreamSource(new ByteArrayInputStream(sent), source.getSystemId());
                    check = null;
                }
            }
            xml = XmlInput.send(source, w, store.ownConfiguration(), store.options().xmlPolicy(), what);
            w.xmlBytes(xml);
            if (!w.finished()) {
                StoreException e = new StoreException(ErrorMessage.INCOMPLETE_DOCUMENT, what);
                e.at(Where.at(what));
                throw e;
            }
            h = w.header();
            if (xml >= 0) {
                // the header was written before the byte count was known
                h = h.withXmlBytes(xml);
                engine.docs.put(txn, keys.doc(docId, Keys.HEADER), h.encode());
            }
            if (uri.equals(IndexConfig.URI)) {
                indexer().configuration(docId);
            }
            if (check != null) {
                indexer().check(check, docId, what);
            }
        } catch (RuntimeException e) {
            throw failed(e, docId, what);
        }
        link(uri, docId, mediaType, what);
        return info(h);
    }

    /** The bytes of a source that is a stream of bytes (read to its end), else null. */
    private static byte[] bytesOf(Source source) {
        if (!(source instanceof StreamSource ss) || ss.getInputStream() == null || ss.getReader() != null) return null;
        try {
            return ss.getInputStream().readAllBytes();
        } catch (IOException e) {
            throw new StoreException(ErrorMessage.BYTES_UNREADABLE, e, source.getSystemId(), e.getMessage());
        }
    }

    /** Parses {@code xml} (by the store's XML policy) and stores it under {@code uri}. */
    public DocumentInfo put(String uri, byte[] xml) {
        return put(uri, new StreamSource(new ByteArrayInputStream(xml), Store.SCHEME + uri));
    }

    /**
     * Stores {@code bytes} (read to their end, not closed) under {@code uri} as a binary document
     * of {@code mediaType}, replacing any document there. They stream into 1 MiB values; only one
     * chunk is in memory at a time. The document's references are kept.
     *
     * @throws StoreException IO when the stream fails; nothing of this document is kept, and the
     *                        transaction stays usable
     */
    public DocumentInfo putBinary(String uri, String mediaType, InputStream bytes) {
        checkActive();
        Store.checkUri(uri);
        Store.checkMediaType(mediaType, uri);
        written();
        long docId = nextDoc++;
        String what = Store.SCHEME + uri;
        DocHeader h;
        try {
            byte[] buf = new byte[Format.CHUNK_SIZE];
            long length = 0;
            int chunks = 0;
            while (true) {
                int n = bytes.readNBytes(buf, 0, buf.length);
                if (n == 0) {
                    break;
                }
                MutableDirectBuffer v = (MutableDirectBuffer) engine.docs.reserve(txn, keys.chunk(docId, chunks), n);
                v.putBytes(0, buf, 0, n);
                chunks++;
                length += n;
                if (n < buf.length) {
                    break;
                }
            }
            h = new DocHeader(docId, uri, version, length, chunks, -1, 0, 0, DocHeader.BINARY, mediaType);
            engine.docs.put(txn, keys.doc(docId, Keys.HEADER), h.encode());
            if (uri.equals(IndexConfig.URI)) {
                indexer().configuration(docId);
            }
            DocumentCheck check = store.check(uri);
            if (check != null) {
                check.check(null, what, store.options().xmlPolicy());
            }
        } catch (IOException e) {
            StoreException x = new StoreException(ErrorMessage.BYTES_UNREADABLE, e, what, e.getMessage());
            x.at(Where.at(what));
            throw failed(x, docId, what);
        } catch (RuntimeException e) {
            throw failed(e, docId, what);
        }
        link(uri, docId, mediaType, what);
        return info(h);
    }

    /** Deletes the document at {@code uri}, and its references; false if there was none. */
    public boolean delete(String uri) {
        checkActive();
        Store.checkUri(uri);
        written();
        try {
            long old = docIdOf(uri);
            if (old < 0) {
                return false;
            }
            String mediaType = mediaTypeOf(old, uri);
            ValueWalk.Contribution before = indexer().contribution(old);
            removeEntries(old);
            engine.paths.delete(txn, keys.utf8(uri));
            clearReferences(uri);
            recordChange(Change.Kind.DELETE, old, uri, mediaType);
            indexer().replaced(uri, before, -1);
            return true;
        } catch (LmdbException e) {
            throw StoreFailures.of(e, Store.SCHEME + uri);
        }
    }

    /**
     * Deletes every document whose URI starts with {@code prefix} (a plain prefix: "/a/b/" is the
     * folder, "/a/b" would also take "/a/bc.xml"), with their references. Returns their URIs in
     * byte order.
     */
    public List<String> deleteTree(String prefix) {
        checkActive();
        if (prefix == null || !prefix.startsWith("/")) {
            StoreException e = new StoreException(ErrorMessage.DELETE_PREFIX, prefix);
            e.at(Where.at(Store.SCHEME + prefix));
            throw e;
        }
        List<String> uris = view().uris(prefix);
        for (String u : uris) {
            delete(u);
        }
        return uris;
    }

    /**
     * Replaces what {@code sourceUri} refers to by {@code targetUris} (the reverse link index:
     * {@link Snapshot#referrers} answers who refers to a URI or a subtree). The source must be
     * stored (unless the targets are empty); targets need not be. A later put of the source keeps
     * them; its delete clears them.
     *
     * @throws StoreException NOT_FOUND when the source is not stored
     */
    public void setReferences(String sourceUri, Collection<String> targetUris) {
        checkActive();
        Store.checkUri(sourceUri);
        TreeSet<String> targets = new TreeSet<>(Snapshot.BYTE_ORDER);
        for (String t : targetUris) {
            targets.add(Store.checkUri(t));
        }
        try {
            if (!targets.isEmpty() && docIdOf(sourceUri) < 0) {
                StoreException e = new StoreException(ErrorMessage.REFERENCES_NO_SOURCE, Store.SCHEME + sourceUri);
                e.at(Where.at(Store.SCHEME + sourceUri));
                throw e;
            }
            if (new ArrayList<>(targets).equals(Snapshot.references(engine, txn, keys, sourceUri))) {
                return;
            }
            written();
            clearReferences(sourceUri);
            byte[] s = sourceUri.getBytes(StandardCharsets.UTF_8);
            for (String t : targets) {
                engine.refs.put(txn, keys.pair(t, sourceUri), scratchValue(s));
                engine.refsOut.put(txn, keys.pair(sourceUri, t), scratchValue(t.getBytes(StandardCharsets.UTF_8)));
            }
            dirty = true;
        } catch (LmdbException e) {
            throw StoreFailures.of(e, Store.SCHEME + sourceUri);
        }
    }

    /**
     * Sets the mark {@code name} to {@code value}: a named number kept with the documents, read
     * back by {@link Snapshot#mark}. It commits with this transaction, so it always agrees with
     * what the transaction wrote: a follower applying another store's log keeps the position it
     * has applied in the same commit as what it applied, and a copy of the store carries it. A
     * transaction that sets a mark and changes no document commits without a new version (the
     * change feed has nothing to say about it).
     *
     * @param name a few printable ASCII characters (at most {@value #MAX_MARK_NAME})
     */
    public void setMark(String name, long value) {
        checkActive();
        try {
            engine.putLong(txn, keys, markKey(name), value);
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + engine.dir);
        }
        marked = true;
    }

    /** The longest mark name. */
    public static final int MAX_MARK_NAME = 100;

    /** The meta key of mark {@code name}: apart from the engine's own entries, whatever the name. */
    static String markKey(String name) {
        boolean ok = name != null && !name.isEmpty() && name.length() <= MAX_MARK_NAME;
        for (int i = 0; ok && i < name.length(); i++) {
            ok = name.charAt(i) > 0x20 && name.charAt(i) < 0x7F;
        }
        if (!ok) {
            throw new StoreException(ErrorMessage.MARK_NAME_BAD, name, MAX_MARK_NAME);
        }
        return "mark:" + name;
    }

    /** Whether a document is stored at {@code uri}, as this transaction sees it. */
    public boolean exists(String uri) {
        checkActive();
        return docIdOf(Store.checkUri(uri)) >= 0;
    }

    /**
     * Reads inside this transaction, seeing its own writes: info, exists, document, binary,
     * children, uris, referrers, references, changes. Always the same view; closing it does nothing
     * (it ends with the transaction). What it returns (trees and their nodes, {@link Binary}
     * streams) is valid only until this transaction's next write: copy what you need first.
     */
    public Snapshot view() {
        checkActive();
        if (view == null) {
            view = new Snapshot(store, txn, this);
        }
        return view;
    }

    /**
     * Makes every change durable and visible to new snapshots at once. Returns the store version
     * after the commit (unchanged if the transaction changed nothing).
     */
    public long commit() {
        checkActive();
        done = true;
        endView();
        try {
            if (!dirty) {
                if (marked) {
                    // names a failed put allocated go with it, published, as in any commit
                    names.commitAndPublish();
                } else {
                    txn.abort();
                }
                return store.version();
            }
            prune();
            keys.value().putLong(0, time.toEpochMilli(), Keys.BE);
            engine.commits.put(txn, keys.version(version), keys.value(8));
            engine.putLong(txn, keys, "version", version);
            engine.putLong(txn, keys, "nextDoc", nextDoc);
            engine.putLong(txn, keys, "feedStart", feedStart);
            names.commitAndPublish();
            store.committed(version);
            return version;
        } catch (LmdbException e) {
            txn.close();
            throw StoreFailures.of(e, "commit to store " + engine.dir);
        } finally {
            store.writeFinished();
        }
    }

    /** Discards every change. */
    public void abort() {
        if (done) {
            return;
        }
        done = true;
        endView();
        try {
            txn.abort();
        } finally {
            store.writeFinished();
        }
    }

    /** Aborts unless committed. */
    @Override
    public void close() {
        abort();
    }

    /** The cross-document indexes of this transaction (see {@link Indexer}). */
    Indexer indexer() {
        if (indexer == null) {
            indexer = new Indexer(this, store, txn);
        }
        return indexer;
    }

    Namebase.Pending pendingNames() {
        return names;
    }

    private void endView() {
        if (view != null) {
            view.ended();
        }
    }

    /** Before each write: what the view returned so far may be stale. */
    private void written() {
        if (view != null) {
            view.written();
        }
    }

    private void checkActive() {
        if (done) {
            throw new StoreException(ErrorMessage.TRANSACTION_ENDED, engine.dir);
        }
        if (broken != null) {
            throw new StoreException(ErrorMessage.TRANSACTION_BROKEN, broken, engine.dir, broken.getMessage());
        }
    }

    /** A put failed: removes what it wrote; returns the failure to throw. */
    private RuntimeException failed(RuntimeException e, long docId, String what) {
        RuntimeException failure = e instanceof LmdbException le ? StoreFailures.of(le, what) : e;
        try {
            removeEntries(docId);
        } catch (RuntimeException cleanup) {
            // LMDB refuses further work in this transaction (e.g. the map is full): only abort is left
            broken = failure;
            failure.addSuppressed(cleanup);
        }
        return failure;
    }

    /** Points {@code uri} at the newly written {@code docId}, removing what it named before. */
    private void link(String uri, long docId, String mediaType, String what) {
        try {
            long old = docIdOf(uri);
            ValueWalk.Contribution before = old >= 0 ? indexer().contribution(old) : null;
            if (old >= 0) {
                removeEntries(old);
            }
            UnsafeBuffer v = keys.value();
            v.putLong(0, docId, Keys.BE);
            v.putLong(8, version, Keys.BE);
            engine.paths.put(txn, keys.utf8(uri), keys.value(16));
            recordChange(Change.Kind.PUT, docId, uri, mediaType);
            indexer().replaced(uri, before, docId);
        } catch (LmdbException e) {
            throw StoreFailures.of(e, what);
        }
    }

    private DocumentInfo info(DocHeader h) {
        return new DocumentInfo(h.uri(), h.version(), h.length(), h.xmlBytes(), h.nodes(), h.mediaType(), h.binary(),
                time);
    }

    private long docIdOf(String uri) {
        DirectBuffer v = engine.paths.get(txn, keys.utf8(uri));
        return v == null ? -1 : v.getLong(0, Keys.BE);
    }

    private String mediaTypeOf(long docId, String uri) {
        DirectBuffer h = engine.docs.get(txn, keys.doc(docId, Keys.HEADER));
        if (h == null) {
            throw new StoreException(ErrorMessage.NO_HEADER_AT, Store.SCHEME + uri, docId);
        }
        return DocHeader.decode(docId, h).mediaType();
    }

    private void recordChange(Change.Kind kind, long docId, String uri, String mediaType) {
        byte[] u = uri.getBytes(StandardCharsets.UTF_8);
        byte[] m = mediaType.getBytes(StandardCharsets.US_ASCII);
        byte[] value = new byte[10 + m.length + u.length];
        value[0] = (byte) kind.ordinal();
        for (int i = 0; i < 8; i++) {
            value[1 + i] = (byte) (docId >>> (56 - 8 * i));
        }
        value[9] = (byte) m.length;
        System.arraycopy(m, 0, value, 10, m.length);
        System.arraycopy(u, 0, value, 10 + m.length, u.length);
        engine.changes.put(txn, keys.version(version, ++changes), scratchValue(value));
        dirty = true;
    }

    private DirectBuffer scratchValue(byte[] bytes) {
        if (bytes.length > scratch.capacity()) {
            return Keys.direct(bytes);
        }
        scratch.putBytes(0, bytes);
        scratchView.wrap(scratch, 0, bytes.length);
        return scratchView;
    }

    /** Deletes both directions of every reference from {@code source}. */
    private void clearReferences(String source) {
        byte[] prefix = Keys.pairPrefix(source);
        Keys k = seek;
        try (Cursor<DirectBuffer> c = engine.refsOut.openCursor(txn)) {
            boolean found = c.get(k.bytes(prefix), GetOp.MDB_SET_RANGE);
            while (found && Keys.startsWith(c.key(), prefix)) {
                String target = Keys.string(c.val(), 0, c.val().capacity());
                engine.refs.delete(txn, keys.pair(target, source));
                c.delete();
                dirty = true;
                found = c.get(k.bytes(prefix), GetOp.MDB_SET_RANGE);
            }
        }
    }

    /**
     * Deletes the change records of versions committed before now − retention, oldest first, at
     * most max({@link #PRUNE_MIN}, 2 × this commit's changes). {@code feedStart} moves past every
     * version of which anything was deleted (a half-pruned version is gone for readers at once;
     * the rest of it goes at the next commits). Commit times are all kept (see
     * {@link Snapshot#committedAt}).
     */
    private void prune() {
        Duration retention = store.options().changeRetention();
        if (retention.isZero()) {
            return;
        }
        long cutoff = time.toEpochMilli() - retention.toMillis();
        int budget = Math.max(PRUNE_MIN, 2 * changes);
        Keys k = seek;
        try (Cursor<DirectBuffer> c = engine.changes.openCursor(txn)) {
            long checked = -1;
            while (budget-- > 0 && c.first()) {
                long v = c.key().getLong(0, Keys.BE);
                if (v >= version) {
                    break;
                }
                if (v != checked) {
                    DirectBuffer t = engine.commits.get(txn, k.version(v));
                    if (t != null && t.getLong(0, Keys.BE) >= cutoff) {
                        break;
                    }
                    checked = v;
                }
                c.delete();
                feedStart = Math.max(feedStart, v + 1);
            }
        }
    }

    /** Deletes every docs entry of {@code docId} (header, chunks, side tables, ids). */
    private void removeEntries(long docId) {
        Keys k = seek;
        try (Cursor<DirectBuffer> c = engine.docs.openCursor(txn)) {
            boolean found = c.get(k.doc(docId, Keys.HEADER), GetOp.MDB_SET_RANGE);
            while (found && c.key().capacity() >= 8 && c.key().getLong(0, Keys.BE) == docId) {
                c.delete();
                found = c.get(k.doc(docId, Keys.HEADER), GetOp.MDB_SET_RANGE);
            }
        }
    }
}
