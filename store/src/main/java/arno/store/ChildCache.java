package arno.store;

import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.tree.iter.AxisIterator;

/**
 * The children of recently revisited elements, as arrays of position, kind and name code, so
 * that a named child step asked again from the same element ({@code $t/buyer/@person} inside a
 * nested-loop join, once per outer item) tests names in an array instead of decoding every
 * sibling's header again, as TinyTree tests its name array. Direct-mapped by element position;
 * an element's first two visits only mark its slot, the third builds the arrays, so a one-pass
 * walk or transform pays a slot write per element and no arrays, and a query asking an element
 * twice ({@code $b/bidder[1]} and {@code $b/bidder[last()]}) walks it twice rather than building an
 * entry it would use once (building reads every child, as a walk does, and allocates; a child
 * step that nodes' memos answer never comes here more than once). Entries are immutable and slots racy
 * (a lost entry is rebuilt), so a tree's readers share the cache without locks.
 */
final class ChildCache {

    private static final int SLOTS = 1024;
    /** Slots for a small document: a page's article, read once, marks few elements (see {@link #ChildCache(long)}). */
    private static final int MIN_SLOTS = 64;
    private final int slots;
    /**
     * Elements with more children than this are walked, not cached: at 13 bytes a child, an
     * entry stays under 220 KB (a join's inner sequence, {@code /site/closed_auctions/closed_auction},
     * is such a wide element asked once per outer item).
     */
    static final int MAX_CHILDREN = 16384;
    private static final long[] NO_POSITIONS = {};

    /** The children of the element at {@code pos}: the first {@code count} of each array (none: too many to cache). */
    record Entry(long pos, long[] positions, byte[] kinds, int[] codes, int count) {
    }

    /**
     * Per slot: the element seen there last, plus one, negated once seen twice (0: none); its
     * entry once seen three times. Made on first use.
     */
    private long[] seen;
    private Entry[] built;

    /**
     * The child iterator of the element (or document) at {@code pos} whose first child is at
     * {@code first}, under a selective test: from the cache when the element was seen before, else
     * null (and the element is remembered), then the caller walks the records.
     */
    AxisIterator children(StoredNode parent, long first, Axes.Test test) {
        StoredTree t = parent.tree;
        long pos = parent.pos;
        long[] s = seen;
        Entry[] b = built;
        if (s == null || b == null) {
            s = new long[slots];
            b = new Entry[slots];
            seen = s;
            built = b;
        }
        int slot = (int) (((pos ^ (pos >>> 13)) * 0x9E3779B1L) >>> 22) & (slots - 1);
        Entry e = b[slot];
        if (e == null || e.pos != pos) {
            long mark = s[slot];
            if (mark == pos + 1) {
                // the second visit: marked again, still walked
                s[slot] = -(pos + 1);
                return null;
            }
            if (mark != -(pos + 1)) {
                s[slot] = pos + 1;
                return null;
            }
            e = build(t, pos, first);
            b[slot] = e;
        }
        if (e.positions == NO_POSITIONS) {
            return null;
        }
        return new Cached(t, e, test, parent);
    }

    /**
     * A cache for a document of {@code length} bytes: a slot per 256 bytes, between
     * {@link #MIN_SLOTS} and {@link #SLOTS}. A tree is opened per request, so its cache is made per
     * request too, and at 1,024 slots that was 12 KB zeroed for each document a page reads, which
     * a one-pass page (that revisits almost nothing) never uses; a large document a query joins
     * over still gets them all.
     */
    ChildCache(long length) {
        int want = (int) Math.min(SLOTS, Math.max(MIN_SLOTS, length >>> 8));
        this.slots = Integer.highestOneBit(want - 1) << 1;
    }

    /** Reads the children's kinds and names, as a selective sibling walk does (tag, name, size), no more. */
    static Entry build(StoredTree t, long pos, long first) {
        Cursor c = new Cursor(t);
        long[] positions = new long[8];
        byte[] kinds = new byte[8];
        int[] codes = new int[8];
        int n = 0;
        long p = first;
        while (true) {
            int tg = c.at(p);
            if (tg == Format.END) {
                break;
            }
            if (n == MAX_CHILDREN) {
                return new Entry(pos, NO_POSITIONS, null, null, 0);
            }
            if (n == positions.length) {
                positions = java.util.Arrays.copyOf(positions, n * 2);
                kinds = java.util.Arrays.copyOf(kinds, n * 2);
                codes = java.util.Arrays.copyOf(codes, n * 2);
            }
            int k = tg & Format.KIND_MASK;
            int code = k == Format.ELEMENT || k == Format.PI ? c.varint() : -1;
            positions[n] = p;
            kinds[n] = (byte) StoredTree.SAXON_KIND[k];
            codes[n] = code;
            n++;
            p = c.skip(p, tg, k);
        }
        // not trimmed: an entry lives for a page or a query, and most hold a few children
        return new Entry(pos, positions, kinds, codes, n);
    }

    /** The children from an entry: names tested in the arrays, only matches decoded. */
    static final class Cached extends Cursor implements AxisIterator {
        private final Entry e;
        private final Axes.Test test;
        private final StoredNode parent;
        private int i;

        Cached(StoredTree t, Entry e, Axes.Test test, StoredNode parent) {
            super(t);
            this.e = e;
            this.test = test;
            this.parent = parent;
        }

        @Override
        public NodeInfo next() {
            long[] positions = e.positions;
            int count = e.count;
            while (i < count) {
                int k = i++;
                if (test.quick(e.kinds[k], e.codes[k])) {
                    long p = positions[k];
                    StoredNode n = new StoredNode(t, this, p, at(p));
                    n.knownParent(parent);
                    if (test.full(n)) {
                        return n;
                    }
                }
            }
            return null;
        }
    }
}
