package arno.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.Txn;

import net.sf.saxon.Configuration;

import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * Keeps the cross-document indexes (the path summary, {@link PathTable}, and the value indexes,
 * {@link ValueKeys}) exact inside one write transaction: every put and delete hands it the old
 * document's contribution, read before the old records are deleted, and it removes that and adds
 * the new document's ({@link ValueWalk}). A put of {@link IndexConfig#URI} also reconfigures.
 *
 * <h2>The catalogue</h2>
 * <pre>
 * indexes  name (UTF-8)  → id(4) canonical definition (UTF-8, see IndexDefinition#canonical)
 * </pre>
 * The catalogue is what the entries mean, and always agrees with the configuration document:
 * storing a new configuration compares each definition with the catalogue's; an index whose
 * definition is unchanged keeps its id and entries, one removed or changed has its entries deleted
 * (one range delete on its id), one new or changed gets a fresh id and is built over every stored
 * document in the same transaction, reporting to the {@link BuildProgress} given.
 */
final class Indexer {

    /** Told of each document while an index is built over a populated store. */
    interface BuildProgress {
        void document(long done, long total, String uri);
    }

    private final WriteTransaction owner;
    private final Store store;
    private final Engine engine;
    private final Txn<DirectBuffer> txn;
    private final Configuration config;
    private final Keys keys = new Keys();
    private PathTable paths;
    private ValueWalk walk;
    BuildProgress progress;

    Indexer(WriteTransaction owner, Store store, Txn<DirectBuffer> txn) {
        this.owner = owner;
        this.store = store;
        this.engine = store.engine;
        this.txn = txn;
        this.config = store.ownConfiguration();
    }

    private ValueWalk walk() {
        if (walk == null) {
            if (paths == null) {
                paths = new PathTable(engine, txn);
            }
            walk = new ValueWalk(paths, active(engine, txn), config.getConversionRules());
        }
        return walk;
    }

    /** The catalogue's indexes, by id order. */
    static List<ValueWalk.Active> active(Engine engine, Txn<DirectBuffer> txn) {
        List<ValueWalk.Active> out = new ArrayList<>();
        try (Cursor<DirectBuffer> c = engine.indexes.openCursor(txn)) {
            boolean more = c.first();
            while (more) {
                String name = Keys.string(c.key(), 0, c.key().capacity());
                DirectBuffer v = c.val();
                out.add(new ValueWalk.Active(v.getInt(0, Keys.BE),
                        IndexDefinition.fromCanonical(name, Keys.string(v, 4, v.capacity() - 4))));
                more = c.next();
            }
        }
        out.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return out;
    }

    /** The catalogue entry of {@code name}, or null. */
    static ValueWalk.Active active(Engine engine, Txn<DirectBuffer> txn, Keys keys, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        if (n.length == 0 || n.length > Keys.MAX_KEY) {
            return null;
        }
        DirectBuffer v = engine.indexes.get(txn, keys.bytes(n));
        return v == null ? null : new ValueWalk.Active(v.getInt(0, Keys.BE),
                IndexDefinition.fromCanonical(name, Keys.string(v, 4, v.capacity() - 4)));
    }

    /** What the stored document {@code docId} contributes now; null for a binary document. */
    ValueWalk.Contribution contribution(long docId) {
        StoredTree t = owner.view().tree(docId, config);
        return t == null ? null : walk().walk(t);
    }

    /**
     * Checks a document about to be stored at {@link IndexConfig#URI}: it must be a valid index
     * configuration (BAD_CONFIGURATION or INVALID_XML otherwise, and the put fails).
     */
    IndexConfig configuration(long docId) {
        staged = null;
        StoredTree t = owner.view().tree(docId, config);
        if (t == null) {
            throw ErrorMessage.INDEX_CONFIG_BINARY.error(Store.SCHEME + IndexConfig.URI).at(Where.at(Store.SCHEME + IndexConfig.URI));
        }
        String xml;
        try {
            xml = net.sf.saxon.query.QueryResult.serialize(t.getRootNode());
        } catch (net.sf.saxon.trans.XPathException e) {
            throw ErrorMessage.INDEX_CONFIG_UNREADABLE.error(e, Store.SCHEME + IndexConfig.URI, e.getMessage());
        }
        byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
        IndexConfig.validate(bytes, Store.SCHEME + IndexConfig.URI, store.options().xmlPolicy());
        staged = IndexConfig.read(t.getRootNode(), Store.SCHEME + IndexConfig.URI);
        return staged;
    }

    /** Runs {@code check} on the document {@code docId} just written, as stored (serialized again). */
    void check(DocumentCheck check, long docId, String what) {
        StoredTree t = owner.view().tree(docId, config);
        byte[] xml = null;
        if (t != null) {
            try {
                xml = net.sf.saxon.query.QueryResult.serialize(t.getRootNode()).getBytes(StandardCharsets.UTF_8);
            } catch (net.sf.saxon.trans.XPathException e) {
                throw ErrorMessage.INDEX_CONFIG_UNREADABLE.error(e, what, e.getMessage());
            }
        }
        check.check(xml, what, store.options().xmlPolicy());
    }

    /** The configuration checked by the put in progress, applied when it links the document. */
    private IndexConfig staged;

    /**
     * The document at {@code uri} was replaced by {@code docId} (-1: deleted); {@code before} is
     * the old one's contribution (null if there was none, or it was binary).
     */
    void replaced(String uri, ValueWalk.Contribution before, long docId) {
        ValueWalk.Contribution after = docId < 0 ? null : contribution(docId);
        apply(before, after);
        if (uri.equals(IndexConfig.URI)) {
            IndexConfig target = docId < 0 || staged == null ? IndexConfig.EMPTY : staged;
            staged = null;
            reconfigure(target);
        }
    }

    private void apply(ValueWalk.Contribution before, ValueWalk.Contribution after) {
        Map<Integer, long[]> delta = new HashMap<>();
        if (before != null) {
            for (Map.Entry<Integer, Long> e : before.paths().entrySet()) {
                long[] d = delta.computeIfAbsent(e.getKey(), k -> new long[2]);
                d[0] -= e.getValue();
                d[1] -= 1;
            }
            for (ValueKeys.Entry e : before.entries()) {
                engine.values.delete(txn, keys.bytes(e.key()));
            }
        }
        if (after != null) {
            for (Map.Entry<Integer, Long> e : after.paths().entrySet()) {
                long[] d = delta.computeIfAbsent(e.getKey(), k -> new long[2]);
                d[0] += e.getValue();
                d[1] += 1;
            }
            putEntries(after.entries());
        }
        for (Map.Entry<Integer, long[]> e : delta.entrySet()) {
            if (e.getValue()[0] != 0 || e.getValue()[1] != 0) {
                paths.add(e.getKey(), e.getValue()[0], e.getValue()[1]);
            }
        }
    }

    private void putEntries(List<ValueKeys.Entry> entries) {
        for (ValueKeys.Entry e : entries) {
            engine.values.put(txn, keys.bytes(e.key()), Keys.direct(e.value()));
        }
    }

    /** Makes the catalogue and the entries those of {@code target} (see the class comment). */
    private void reconfigure(IndexConfig target) {
        Map<String, ValueWalk.Active> current = new LinkedHashMap<>();
        int maxId = 0;
        for (ValueWalk.Active a : active(engine, txn)) {
            current.put(a.definition().name(), a);
            maxId = Math.max(maxId, a.id());
        }
        Set<String> keep = new HashSet<>();
        for (IndexDefinition d : target.indexes()) {
            ValueWalk.Active a = current.get(d.name());
            if (a != null && a.definition().canonical().equals(d.canonical())) {
                keep.add(d.name());
            }
        }
        for (ValueWalk.Active a : current.values()) {
            if (!keep.contains(a.definition().name())) {
                drop(a.id());
                engine.indexes.delete(txn, keys.utf8(a.definition().name()));
            }
        }
        List<ValueWalk.Active> build = new ArrayList<>();
        for (IndexDefinition d : target.indexes()) {
            if (keep.contains(d.name())) {
                continue;
            }
            ValueWalk.Active a = new ValueWalk.Active(++maxId, d);
            byte[] canonical = d.canonical().getBytes(StandardCharsets.UTF_8);
            UnsafeBuffer v = new UnsafeBuffer(ByteBuffer.allocateDirect(4 + canonical.length));
            v.putInt(0, a.id(), Keys.BE);
            v.putBytes(4, canonical);
            engine.indexes.put(txn, keys.utf8(d.name()), v);
            build.add(a);
        }
        walk = null; // the active set changed
        if (!build.isEmpty()) {
            build(build);
        }
    }

    /** Deletes every entry of index {@code id}. */
    private void drop(int id) {
        byte[] prefix = {(byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id};
        Keys k = new Keys();
        try (Cursor<DirectBuffer> c = engine.values.openCursor(txn)) {
            boolean found = c.get(k.bytes(prefix), GetOp.MDB_SET_RANGE);
            while (found && Keys.startsWith(c.key(), prefix)) {
                c.delete();
                found = c.get(k.bytes(prefix), GetOp.MDB_SET_RANGE);
            }
        }
    }

    /** Builds {@code indexes} over every stored XML document. */
    private void build(List<ValueWalk.Active> indexes) {
        if (paths == null) {
            paths = new PathTable(engine, txn);
        }
        ValueWalk only = new ValueWalk(paths, indexes, config.getConversionRules());
        long total = engine.paths.stat(txn).entries;
        long done = 0;
        try (Cursor<DirectBuffer> c = engine.paths.openCursor(txn)) {
            boolean more = c.first();
            while (more) {
                String uri = Keys.string(c.key(), 0, c.key().capacity());
                long docId = c.val().getLong(0, Keys.BE);
                StoredTree t = owner.view().tree(docId, config);
                if (t != null) {
                    putEntries(only.walk(t).entries());
                }
                done++;
                if (progress != null) {
                    progress.document(done, total, uri);
                }
                // the cursor stays valid: only other databases were written
                more = c.next();
            }
        }
    }
}
