package arno.store;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import javax.xml.transform.Source;
import javax.xml.transform.stream.StreamSource;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

import arno.xml.ErrorCode;
import arno.xml.Where;

/**
 * The store's one write transaction: puts and deletes several documents, then commits them all
 * at once, or none (abort, or close without commit). A failed put (malformed XML, say) removes
 * what it had written and leaves the transaction usable; the caller decides whether to commit
 * the rest or abort.
 *
 * <p>A write transaction belongs to the thread that opened it and must be ended by it.
 */
public final class WriteTransaction implements AutoCloseable {

    private final Store store;
    private final Engine engine;
    private final Txn<DirectBuffer> txn;
    private final Namebase.Pending names;
    private final Keys keys = new Keys();
    private final long version;
    private long nextDoc;
    private int changes;
    private boolean done;
    private RuntimeException broken;

    WriteTransaction(Store store, Txn<DirectBuffer> txn) {
        this.store = store;
        this.engine = store.engine;
        this.txn = txn;
        this.names = store.names.pending(txn);
        this.version = engine.getLong(txn, keys, "version") + 1;
        this.nextDoc = engine.getLong(txn, keys, "nextDoc");
    }

    /** The version this transaction commits as, if it changes anything. */
    public long version() {
        return version;
    }

    /**
     * Stores the document read from {@code source} under {@code uri}, replacing any document there.
     * XML text (a StreamSource, or a SAXSource with an InputSource) is parsed by the store's
     * {@link arno.xml.XmlPolicy} whatever parser the source names; a tree (NodeInfo, DOMSource)
     * is copied. Only bytes given and files named are read; nothing is fetched.
     *
     * @throws StoreException MALFORMED_XML (with file, line and column) or REFUSED_XML (with the
     *                        policy's reason); nothing of this document is kept, and the
     *                        transaction stays usable
     */
    public DocumentInfo put(String uri, Source source) {
        checkActive();
        Store.checkUri(uri);
        long docId = nextDoc++;
        DocumentWriter w = new DocumentWriter(engine, txn, names, docId, uri, version);
        String what = source.getSystemId() != null ? source.getSystemId() : Store.SCHEME + uri;
        long xml;
        try {
            xml = XmlInput.send(source, w, store.ownConfiguration(), store.options().xmlPolicy(), what);
            w.xmlBytes(xml);
            if (!w.finished()) {
                StoreException e = new StoreException(ErrorCode.MALFORMED_XML, what
                        + " produced no complete document; nothing was stored");
                e.at(Where.at(what));
                throw e;
            }
            if (xml >= 0) {
                // the header was written before the byte count was known
                DocHeader h = w.header();
                DocHeader fixed = new DocHeader(h.docId(), h.uri(), h.version(), h.length(), h.chunks(), xml,
                        h.nodes(), h.nameCodes(), h.flags());
                engine.docs.put(txn, keys.doc(docId, Keys.HEADER), fixed.encode());
            }
        } catch (RuntimeException e) {
            RuntimeException failure = e instanceof LmdbException le ? Engine.translate(le, what) : e;
            try {
                removeEntries(docId);
            } catch (RuntimeException cleanup) {
                // LMDB refuses further work in this transaction (e.g. the map is full): only abort is left
                broken = failure;
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
        try {
            long old = docIdOf(uri);
            if (old >= 0) {
                removeEntries(old);
            }
            UnsafeBuffer v = keys.value();
            v.putLong(0, docId, Keys.BE);
            v.putLong(8, version, Keys.BE);
            engine.paths.put(txn, keys.utf8(uri), keys.value(16));
            recordChange(Change.Kind.PUT, docId, uri);
        } catch (LmdbException e) {
            throw Engine.translate(e, what);
        }
        DocHeader h = w.header();
        return new DocumentInfo(uri, version, h.length(), xml, h.nodes());
    }

    /** Parses {@code xml} (by the store's XML policy) and stores it under {@code uri}. */
    public DocumentInfo put(String uri, byte[] xml) {
        return put(uri, new StreamSource(new ByteArrayInputStream(xml), Store.SCHEME + uri));
    }

    /** Deletes the document at {@code uri}; false if there was none. */
    public boolean delete(String uri) {
        checkActive();
        Store.checkUri(uri);
        try {
            long old = docIdOf(uri);
            if (old < 0) {
                return false;
            }
            removeEntries(old);
            engine.paths.delete(txn, keys.utf8(uri));
            recordChange(Change.Kind.DELETE, old, uri);
            return true;
        } catch (LmdbException e) {
            throw Engine.translate(e, Store.SCHEME + uri);
        }
    }

    /** Whether a document is stored at {@code uri}, as this transaction sees it. */
    public boolean exists(String uri) {
        checkActive();
        return docIdOf(Store.checkUri(uri)) >= 0;
    }

    /**
     * Makes every change durable and visible to new snapshots at once. Returns the store version
     * after the commit (unchanged if the transaction changed nothing).
     */
    public long commit() {
        checkActive();
        done = true;
        try {
            if (changes == 0) {
                txn.abort();
                return store.version();
            }
            engine.putLong(txn, keys, "version", version);
            engine.putLong(txn, keys, "nextDoc", nextDoc);
            names.commitAndPublish();
            store.committed(version);
            return version;
        } catch (LmdbException e) {
            txn.close();
            throw Engine.translate(e, "commit to store " + engine.dir);
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

    private void checkActive() {
        if (done) {
            throw new StoreException(ErrorCode.CLOSED, "write transaction on " + engine.dir
                    + " is already committed or aborted");
        }
        if (broken != null) {
            throw new StoreException(ErrorCode.CLOSED, "write transaction on " + engine.dir
                    + " failed and can only be aborted: " + broken.getMessage(), broken);
        }
    }

    private long docIdOf(String uri) {
        DirectBuffer v = engine.paths.get(txn, keys.utf8(uri));
        return v == null ? -1 : v.getLong(0, Keys.BE);
    }

    private void recordChange(Change.Kind kind, long docId, String uri) {
        byte[] u = uri.getBytes(StandardCharsets.UTF_8);
        byte[] value = new byte[9 + u.length];
        value[0] = (byte) kind.ordinal();
        for (int i = 0; i < 8; i++) {
            value[1 + i] = (byte) (docId >>> (56 - 8 * i));
        }
        System.arraycopy(u, 0, value, 9, u.length);
        engine.changes.put(txn, keys.version(version, changes++), Keys.direct(value));
    }

    /** Deletes every docs entry of {@code docId} (header, chunks, side tables, ids). */
    private void removeEntries(long docId) {
        Keys k = new Keys();
        try (Cursor<DirectBuffer> c = engine.docs.openCursor(txn)) {
            boolean found = c.get(k.doc(docId, Keys.HEADER), GetOp.MDB_SET_RANGE);
            while (found && c.key().capacity() >= 8 && c.key().getLong(0, Keys.BE) == docId) {
                c.delete();
                found = c.get(k.doc(docId, Keys.HEADER), GetOp.MDB_SET_RANGE);
            }
        }
    }
}
