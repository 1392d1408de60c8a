package arno.store;

import java.io.OutputStream;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
import arno.xml.Where;

/**
 * A read snapshot: one consistent version of the whole store, for as long as it is open (an LMDB
 * read transaction). Documents opened from it are navigated in place; the same URI and
 * Configuration give the same tree every time, so {@code doc()} is stable across a whole request.
 *
 * <p>It is the store's {@link DocumentStore.View}: the pipeline opens one per request through
 * {@link DocumentStore#read()} and knows nothing else of the store.
 *
 * <p>Threads: methods are thread-safe (LMDB calls are serialized on the snapshot). Nodes of its
 * documents must not be used after {@link #close()}.
 */
public final class Snapshot implements DocumentStore.View {

    private final Store store;
    private final Txn<DirectBuffer> txn;
    private final Keys keys = new Keys();
    private final long version;
    private final Map<Configuration, Map<String, StoredTree>> trees = new HashMap<>();
    private volatile boolean closed;
    /** The same, read without a barrier on the trees' hot paths (see StoredTree.checkOpen). */
    boolean closedPlain;

    Snapshot(Store store, Txn<DirectBuffer> txn) {
        this.store = store;
        this.txn = txn;
        long v;
        try {
            v = store.engine.getLong(txn, keys, "version");
        } catch (RuntimeException e) {
            txn.close();
            store.snapshotClosed();
            throw e;
        }
        this.version = v;
    }

    /** The store version this snapshot sees. */
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

    /** What is stored at {@code uri}, or null if nothing is. */
    public synchronized DocumentInfo info(String uri) {
        DocHeader h = header(uri);
        return h == null ? null : new DocumentInfo(h.uri(), h.version(), h.length(), h.xmlBytes(), h.nodes());
    }

    /**
     * The document at {@code uri} as a Saxon tree for {@code config}, navigated in place.
     *
     * @throws StoreException NOT_FOUND if no document is stored there
     */
    @Override
    public synchronized TreeInfo document(String uri, Configuration config) {
        checkOpen();
        Map<String, StoredTree> byUri = trees.computeIfAbsent(config, c -> new HashMap<>());
        StoredTree t = byUri.get(uri);
        if (t == null) {
            DocHeader h = header(uri);
            if (h == null) {
                StoreException e = new StoreException(ErrorCode.NOT_FOUND, "no document " + Store.SCHEME + uri
                        + " in store " + store.directory() + " (version " + version + ")");
                e.at(Where.at(Store.SCHEME + uri));
                throw e;
            }
            t = new StoredTree(this, h, config, store.names.mapping(config).covering(h.nameCodes()));
            byUri.put(uri, t);
        }
        return t;
    }

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
            throw Engine.translate(e, "store " + store.directory());
        }
        return out;
    }

    /** Changes committed after version {@code since} and up to this snapshot, oldest first. */
    public synchronized List<Change> changesSince(long since) {
        checkOpen();
        List<Change> out = new ArrayList<>();
        if (since >= version) {
            return out;
        }
        try (Cursor<DirectBuffer> c = store.engine.changes.openCursor(txn)) {
            boolean found = c.get(keys.version(since + 1, 0), GetOp.MDB_SET_RANGE);
            while (found) {
                long v = c.key().getLong(0, Keys.BE);
                DirectBuffer val = c.val();
                Change.Kind kind = Change.Kind.values()[val.getByte(0)];
                out.add(new Change(v, Keys.string(val, 9, val.capacity() - 9), kind));
                found = c.next();
            }
        } catch (LmdbException e) {
            throw Engine.translate(e, "store " + store.directory());
        }
        return out;
    }

    /** Writes the document at {@code uri} as XML (UTF-8), equal in infoset to what was stored. */
    public void export(String uri, OutputStream out) {
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
            StoreException x = new StoreException(ErrorCode.IO, "cannot export " + Store.SCHEME + uri + ": "
                    + e.getMessage(), e);
            x.at(Where.at(Store.SCHEME + uri));
            throw x;
        }
    }

    /** Ends the snapshot; its documents' nodes become invalid. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            closedPlain = true;
            trees.clear();
            txn.close();
        }
        store.snapshotClosed();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new StoreException(ErrorCode.CLOSED, "read snapshot (version " + version
                    + ") of store " + store.directory() + " is closed; its documents can no longer be read");
        }
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
                throw new StoreException(ErrorCode.STORE_CORRUPT, Store.SCHEME + uri + ": document " + docId
                        + " has no header");
            }
            return DocHeader.decode(docId, h);
        } catch (LmdbException e) {
            throw Engine.translate(e, Store.SCHEME + uri);
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
            throw new StoreException(ErrorCode.STORE_CORRUPT, "document " + docId + ": chunk " + index
                    + " is missing");
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

    /** For the checker: raw access inside this snapshot. */
    Txn<DirectBuffer> txn() {
        return txn;
    }
}
