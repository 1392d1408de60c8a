package arno.store;

import arno.xml.ErrorMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.Txn;


/**
 * The path summary (a DataGuide, Goldman and Widom 1997): every distinct element path in the store
 * with the number of its occurrences and of the documents it occurs in, kept exact in the same
 * transaction as every put and delete.
 *
 * <pre>
 * pathNames    parent(4) uri \0 local       → id(4)     (a key over 511 bytes ends in a SHA-256 prefix, as {@link Keys#pair})
 * pathSummary  id(4)                        → parent(4) occurrences(8) documents(8) prefix \0 uri \0 local
 * </pre>
 *
 * A path is its parent path's id (0 for the document node) and an expanded name, so each id is a
 * node of the summary tree and a path of any depth costs one small entry. Ids are never reused; a
 * path whose counts fall to 0 keeps its row (it is not listed) so that its id stays stable. The
 * prefix is the one the path was first seen with, for display only.
 */
final class PathTable implements ValueWalk.Paths {

    private final Engine engine;
    private final Txn<DirectBuffer> txn;
    private final Keys keys = new Keys();
    private final Map<String, Integer> ids = new HashMap<>();
    private int next = -1;

    PathTable(Engine engine, Txn<DirectBuffer> txn) {
        this.engine = engine;
        this.txn = txn;
    }

    @Override
    public int id(int parent, String prefix, String uri, String local) {
        String memo = parent + "\0" + uri + "\0" + local;
        Integer known = ids.get(memo);
        if (known != null) {
            return known;
        }
        DirectBuffer key = nameKey(parent, uri, local);
        DirectBuffer v = engine.pathNames.get(txn, key);
        int id;
        if (v != null) {
            id = v.getInt(0, Keys.BE);
        } else {
            id = nextId();
            UnsafeBuffer val = new UnsafeBuffer(ByteBuffer.allocateDirect(4));
            val.putInt(0, id, Keys.BE);
            engine.pathNames.put(txn, nameKey(parent, uri, local), val);
            byte[] name = (prefix + '\0' + uri + '\0' + local).getBytes(StandardCharsets.UTF_8);
            UnsafeBuffer row = new UnsafeBuffer(ByteBuffer.allocateDirect(20 + name.length));
            row.putInt(0, parent, Keys.BE);
            row.putLong(4, 0, Keys.BE);
            row.putLong(12, 0, Keys.BE);
            row.putBytes(20, name);
            engine.pathSummary.put(txn, keys.code(id), row);
        }
        ids.put(memo, id);
        return id;
    }

    private int nextId() {
        if (next < 0) {
            next = 1;
            try (Cursor<DirectBuffer> c = engine.pathSummary.openCursor(txn)) {
                if (c.last()) {
                    next = c.key().getInt(0, Keys.BE) + 1;
                }
            }
        }
        return next++;
    }

    private DirectBuffer nameKey(int parent, String uri, String local) {
        byte[] n = (uri + '\0' + local).getBytes(StandardCharsets.UTF_8);
        if (4 + n.length > Keys.MAX_KEY) {
            byte[] cut = java.util.Arrays.copyOf(n, Keys.MAX_KEY - 4);
            try {
                byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(n);
                System.arraycopy(h, 0, cut, cut.length - 8, 8);
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            n = cut;
        }
        byte[] k = new byte[4 + n.length];
        k[0] = (byte) (parent >>> 24);
        k[1] = (byte) (parent >>> 16);
        k[2] = (byte) (parent >>> 8);
        k[3] = (byte) parent;
        System.arraycopy(n, 0, k, 4, n.length);
        return keys.bytes(k);
    }

    /** Adds to a path's counts. */
    void add(int id, long occurrences, long documents) {
        DirectBuffer v = engine.pathSummary.get(txn, keys.code(id));
        if (v == null) {
            throw new StoreException(ErrorMessage.PATH_NO_SUMMARY, engine.dir, id);
        }
        UnsafeBuffer row = new UnsafeBuffer(ByteBuffer.allocateDirect(v.capacity()));
        row.putBytes(0, v, 0, v.capacity());
        row.putLong(4, row.getLong(4, Keys.BE) + occurrences, Keys.BE);
        row.putLong(12, row.getLong(12, Keys.BE) + documents, Keys.BE);
        engine.pathSummary.put(txn, keys.code(id), row);
    }

    /** One row of the summary as stored. */
    record Row(int id, int parent, long occurrences, long documents, IndexDefinition.Name name) {
    }

    static Map<Integer, Row> rows(Engine engine, Txn<DirectBuffer> txn) {
        Map<Integer, Row> rows = new HashMap<>();
        try (Cursor<DirectBuffer> c = engine.pathSummary.openCursor(txn)) {
            boolean more = c.first();
            while (more) {
                DirectBuffer v = c.val();
                int id = c.key().getInt(0, Keys.BE);
                String[] n = Keys.string(v, 20, v.capacity() - 20).split("\0", -1);
                rows.put(id, new Row(id, v.getInt(0, Keys.BE), v.getLong(4, Keys.BE), v.getLong(12, Keys.BE),
                        new IndexDefinition.Name(n[0], n[1], n[2])));
                more = c.next();
            }
        }
        return rows;
    }

    /** Every path with occurrences, in the order of their expanded paths. */
    static List<PathCount> summary(Engine engine, Txn<DirectBuffer> txn) {
        Map<Integer, Row> rows = rows(engine, txn);
        List<PathCount> out = new ArrayList<>();
        for (Row r : rows.values()) {
            if (r.occurrences() == 0 && r.documents() == 0) {
                continue;
            }
            StringBuilder shown = new StringBuilder();
            StringBuilder expanded = new StringBuilder();
            path(rows, r, shown, expanded, 0);
            out.add(new PathCount(shown.toString(), expanded.toString(), r.occurrences(), r.documents()));
        }
        out.sort(Comparator.comparing(PathCount::expandedPath));
        return out;
    }

    static void path(Map<Integer, Row> rows, Row r, StringBuilder shown, StringBuilder expanded, int unused) {
        List<Row> chain = new ArrayList<>();
        for (Row at = r; ; ) {
            chain.add(at);
            if (at.parent() == 0) {
                break;
            }
            Row p = rows.get(at.parent());
            if (p == null || chain.size() > rows.size()) {
                throw new StoreException(ErrorMessage.PATH_PARENT_MISSING, at.id(), at.parent());
            }
            at = p;
        }
        for (int i = chain.size() - 1; i >= 0; i--) {
            shown.append('/').append(chain.get(i).name().display());
            expanded.append('/').append(chain.get(i).name().eqName());
        }
    }
}
