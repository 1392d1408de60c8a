package arno.store;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import net.sf.saxon.om.NamespaceUri;

/**
 * Attribute columns: the values of one attribute on the elements of one name in one document
 * version, in the order of that name's list in the structural index ({@link NameIndex}), so that
 * a {@code //x[@y = 'z']} scan tests each candidate in an array instead of reading its record.
 * It is the stored tree's counterpart of what TinyTree has in memory (dense attribute arrays,
 * and the per-name element lists Saxon builds on first use and keeps): without it, each candidate
 * is a record in a different cache line of the mapped file, and reading it was 60% of such a scan.
 *
 * <p>The same cache keeps, per (document version, element name), the name's positions as an array
 * (an entry with no attribute name): a scan then reads candidates from it instead of decoding the
 * index's varints, as TinyTree iterates its per-name node list (see {@link Slice#positions}).
 *
 * <h2>When a column is built</h2>
 * Building reads every record of the list once, as one scan does. So a column is built only when
 * the scans without it have already read more records for that (document, element, attribute) than
 * the list holds (the ski-rental rule: at most about twice the cost of never building): a scan run
 * once never pays for a column, the second builds it as it starts. Until then each ask is counted
 * and answered from the record.
 *
 * <h2>Sharing and bounds</h2>
 * A committed document version never changes and its document id is never used again, so
 * columns are kept per store (one instance on the {@link Store}), keyed by (document id, version, record length, element name code,
 * attribute URI and local name), and shared by every snapshot and Configuration that reads that
 * version; a replaced document has a new id, and its old columns age out. Documents that the
 * reading write transaction has not committed yet (their version is above the store's) get no
 * column: an aborted transaction's ids and version are used again. The cache is bounded by
 * {@link #budgetBytes}, least recently used first out; a column is estimated at 4 bytes a slot
 * (a compressed reference) plus each distinct value once (values are shared within a column:
 * {@code linktype="nav"} is one String for 90,000 slots), and a column over a quarter of the budget
 * is never built (its list is scanned as before).
 *
 * <p>Threads: the map is synchronized (it is touched once per iterator and attribute name, not per
 * node); a built column is an immutable array published through it.
 */
final class AttributeColumns {

    /** Estimated bytes of one map entry and its key, and of a pending (counting) entry. */
    static final int ENTRY_BYTES = 160;

    /**
     * Bytes of columns kept ({@link StoreOptions#columnBudgetBytes}): 64 MiB by default holds 16
     * million slots of short repeated values, a column for every common attribute of a few large
     * documents.
     */
    final long budgetBytes;

    private final LinkedHashMap<Key, Column> map = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;

    /** The cache of one store: made with it ({@link Store#columns}), shared by its snapshots. */
    AttributeColumns(long budgetBytes) {
        this.budgetBytes = budgetBytes;
    }

    record Key(long docId, long version, long length, int code, NamespaceUri uri, String local) {
    }

    /** A column, or (values null) the count of asks answered from records while none is built. */
    static final class Column {
        volatile String[] values;
        /** For the entry of a name's positions (attribute name null): the list as an array. */
        volatile int[] positions;
        /** Records read for it without a column; racy (a lost count only delays the build). */
        long asked;
        /** A column too large for the budget, or being built by another thread: never (re)start one. */
        volatile boolean refused;
        long bytes = ENTRY_BYTES;
    }

    /** The entry of {@code key}, made (as pending) when absent. */
    synchronized Column get(Key key) {
        Column c = map.get(key);
        if (c == null) {
            c = new Column();
            map.put(key, c);
            bytes += c.bytes;
            trim(null);
        }
        return c;
    }

    /** Records a built column's size, evicting others as needed. */
    private synchronized void built(Key key, Column c, long size) {
        if (map.get(key) != c) {
            return;
        }
        bytes += size - c.bytes;
        c.bytes = size;
        trim(c);
    }

    private void trim(Column keep) {
        Iterator<Map.Entry<Key, Column>> it = map.entrySet().iterator();
        while (bytes > budgetBytes && it.hasNext()) {
            Map.Entry<Key, Column> e = it.next();
            if (e.getValue() == keep) {
                continue;
            }
            bytes -= e.getValue().bytes;
            it.remove();
        }
    }

    /** The bytes the cache holds by its estimate (for tests). */
    synchronized long bytes() {
        return bytes;
    }

    /** How many entries (built or pending) the cache holds (for tests). */
    synchronized int size() {
        return map.size();
    }

    /** Whether the positions of an element code are kept as an array for the tree's document, for tests. */
    synchronized boolean hasPositions(StoredTree t, int code) {
        Column c = map.get(key(t, code, null, null));
        return c != null && c.positions != null;
    }

    /** Whether a column is built for (the tree's document, element code, attribute), for tests. */
    synchronized boolean has(StoredTree t, int code, NamespaceUri uri, String local) {
        Column c = map.get(key(t, code, uri, local));
        return c != null && c.values != null;
    }

    static Key key(StoredTree t, int code, NamespaceUri uri, String local) {
        DocHeader h = t.header;
        return new Key(h.docId(), h.version(), h.length(), code, uri, local);
    }

    /**
     * The elements of one name code that one {@link Axes.Indexed} iteration gives, starting at
     * {@code from}: its lazy nodes hold this slice and their index in it, and ask it for columns.
     * Not thread-safe in its memo of the last attribute asked; nodes are used by one query.
     */
    static final class Slice {
        private final StoredTree tree;
        private final int code;
        private final long from;
        private final boolean shared;
        /** The index in the whole list of this slice's first element, -1 until needed. */
        private int offset = -1;
        private NamespaceUri lastUri;
        private String lastLocal;
        private Column last;
        /** The built column of {@link #last}, once seen: read without the volatile field. */
        private String[] lastValues;
        private long count = -1;
        /** The entry of this name's positions, once asked. */
        private Column positionsEntry;

        Slice(StoredTree tree, int code, long from) {
            this.tree = tree;
            this.code = code;
            this.from = from;
            Store store = tree.snapshot.store();
            this.shared = tree.header.version() <= store.version();
        }

        /**
         * The column of the attribute for this name, or null when there is none (yet): the caller
         * then reads the record, and the ask is counted towards building one.
         */
        String[] column(NamespaceUri uri, String local) {
            String[] v = lastValues;
            if (v != null && uri == lastUri && local == lastLocal) {
                // the scan's every candidate after the first: plain fields of this iteration's slice
                return v;
            }
            return lookUp(uri, local);
        }

        private String[] lookUp(NamespaceUri uri, String local) {
            if (!shared) {
                return null;
            }
            Column c = last;
            if (c == null || uri != lastUri || local != lastLocal) {
                c = entry(uri, local);
                last = c;
                lastUri = uri;
                lastLocal = local;
                lastValues = null;
            }
            String[] v = c.values;
            if (v != null) {
                lastValues = v;
                return v;
            }
            if (c.refused) {
                return null;
            }
            if (++c.asked <= elementCount()) {
                return null;
            }
            v = build(c, uri, local);
            lastValues = v;
            return v;
        }

        /** The cache's entry for this name and an attribute (null: the name's positions), through the tree's refs. */
        private Column entry(NamespaceUri uri, String local) {
            StoredTree.ColumnRef[] refs = tree.columnRefs;
            int slot = (code * 31 + System.identityHashCode(local)) & (refs.length - 1);
            StoredTree.ColumnRef ref = refs[slot];
            if (ref != null && ref.code() == code && ref.uri() == uri && ref.local() == local) {
                return ref.column();
            }
            Column c = tree.columns().get(key(tree, code, uri, local));
            refs[slot] = new StoredTree.ColumnRef(code, uri, local, c);
            return c;
        }

        /**
         * The positions of every element of this name, in document order, as an array, or null
         * when there is none (yet): the caller then reads the structural index and reports how
         * many positions it read ({@link #readPositions}), towards building one by the rule of a
         * column: once iterations without it have read as many positions as the list holds (the
         * second whole-document scan builds it). It spares a scan the index's varints and run checks per candidate (TinyTree
         * keeps such lists of nodes once asked). 4 bytes a position; documents over 2 GiB get none.
         */
        int[] positions() {
            if (!shared || tree.header.length() > Integer.MAX_VALUE) {
                return null;
            }
            Column c = positionsEntry;
            if (c == null) {
                c = entry(null, null);
                positionsEntry = c;
            }
            int[] v = c.positions;
            if (v != null || c.refused || c.asked < elementCount()) {
                return v;
            }
            return buildPositions(c);
        }

        /** Counts positions read from the index without an array (see {@link #positions}). */
        void readPositions(long n) {
            Column c = positionsEntry;
            if (c != null) {
                c.asked += n;
            }
        }

        /** Sets where this slice starts in the whole list, when its caller knows. */
        void offset(int o) {
            offset = o;
        }

        private long elementCount() {
            long n = count;
            if (n < 0) {
                n = tree.elementCount(code);
                count = n;
            }
            return n;
        }

        private int[] buildPositions(Column c) {
            long n = elementCount();
            long size = 16 + 4 * n + ENTRY_BYTES;
            if (n > Integer.MAX_VALUE / 2 || size > tree.columns().budgetBytes / 4) {
                c.refused = true;
                return null;
            }
            synchronized (c) {
                if (c.positions != null || c.refused) {
                    return c.positions;
                }
                int[] all = new int[(int) n];
                NameIndex.Positions list = new NameIndex.Positions(tree, NameIndex.ELEMENTS, code, 0);
                for (int i = 0; i < all.length; i++) {
                    long p = list.next();
                    if (p < 0) {
                        throw tree.corrupt(-1, "the name index of '" + tree.names[code].getDisplayName()
                                + "' lists fewer elements than it counts");
                    }
                    all[i] = (int) p;
                }
                c.positions = all;
                tree.columns().built(key(tree, code, null, null), c, size);
                return all;
            }
        }

        /** Where this slice starts in the whole list. */
        int offset() {
            int o = offset;
            if (o < 0) {
                long n = from <= tree.root.first() ? 0
                        : new NameIndex.Positions(tree, NameIndex.ELEMENTS, code, 0).count(from);
                o = (int) n;
                offset = o;
            }
            return o;
        }

        private String[] build(Column c, NamespaceUri uri, String local) {
            long count = tree.elementCount(code);
            long estimate = 16 + 4 * count;
            AttributeColumns cache = tree.columns();
            if (count > Integer.MAX_VALUE / 2 || estimate > cache.budgetBytes / 4) {
                c.refused = true;
                return null;
            }
            synchronized (c) {
                if (c.values != null || c.refused) {
                    return c.values;
                }
                c.refused = true;
                String[] values = new String[(int) count];
                long size = estimate + ENTRY_BYTES;
                int fp = tree.getConfiguration().getNamePool().getFingerprint(uri, local);
                if (fp != -1) {
                    Map<String, String> distinct = new HashMap<>();
                    NameIndex.Positions list = new NameIndex.Positions(tree, NameIndex.ELEMENTS, code, 0);
                    Rec r = new Rec(tree);
                    AttrEntry e = new AttrEntry();
                    for (int i = 0; i < values.length; i++) {
                        long p = list.next();
                        if (p < 0) {
                            throw tree.corrupt(-1, "the name index of '" + tree.names[code].getDisplayName()
                                    + "' lists fewer elements than it counts");
                        }
                        r.read(p);
                        if (r.kind != Format.ELEMENT || r.code != code) {
                            throw tree.corrupt(p, "the name index lists a record that is not an element named "
                                    + tree.names[code].getDisplayName());
                        }
                        for (long a = r.attrs(); a < r.first; a = e.next) {
                            e.read(tree, a);
                            if (tree.fingerprints[e.code] == fp) {
                                String v = tree.attributeValue(e.value, e.length, (e.flags & Format.A_ASCII) != 0);
                                String known = distinct.putIfAbsent(v, v);
                                if (known == null) {
                                    // a String: 24 + an array of 16 + n bytes (2n beyond Latin-1), rounded up to 8
                                    size += 40 + ((2L * v.length() + 7) & ~7);
                                } else {
                                    v = known;
                                }
                                values[i] = v;
                                break;
                            }
                        }
                    }
                }
                if (size > cache.budgetBytes / 4) {
                    return null;
                }
                c.values = values;
                c.refused = false;
                cache.built(key(tree, code, uri, local), c, size);
                return values;
            }
        }
    }
}
