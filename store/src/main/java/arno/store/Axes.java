package arno.store;

import java.util.Arrays;
import java.util.Optional;

import net.sf.saxon.expr.LastPositionFinder;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.pattern.AnyNodeTest;
import net.sf.saxon.pattern.NameTest;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.pattern.NodePredicate;
import net.sf.saxon.pattern.NodeTest;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.tree.iter.EmptyIterator;
import net.sf.saxon.type.Type;
import net.sf.saxon.type.UType;
import net.sf.saxon.z.IntComplementSet;
import net.sf.saxon.z.IntIterator;
import net.sf.saxon.z.IntSet;
import net.sf.saxon.z.IntUniversalSet;

/**
 * The axis iterators over stored records. The structural ones are O(1) per step:
 * {@link Siblings} hops from record to next sibling by the size field; {@link Scan} walks a
 * contiguous range (a subtree for descendant, the rest of the document for following), where
 * document order is byte order. Name and kind tests run on the decoded header, so records that do
 * not match allocate nothing. Under an element name test, descendant and following read the
 * name's list in the structural index instead ({@link Indexed}) and visit only the matches.
 *
 * <h2>Why {@code key()} does not use the index</h2>
 * Saxon-HE 12 builds an {@code xsl:key} index in {@code KeyIndex.constructIndex} through
 * {@code Pattern.selectNodes(doc, context)}, which no HE pattern class overrides for element
 * patterns: it calls {@code root.iterateAxis(DESCENDANT, NodeKindTest.ELEMENT)} and filters with
 * {@code matchesItem}. The name in the match pattern never reaches the tree, so the build is an
 * unnamed element {@link Scan} (every element decoded into a node, then tested by Saxon), and
 * there is no hook to change it short of replacing Saxon's pattern classes. The index is built once
 * per document and key() calls after it are hash lookups, as on TinyTree (whose build is the same
 * walk over its arrays); perf's {@code XMarkBench} measures it ({@code key-join}).
 */
final class Axes {

    /** More names than this in one test (a long union) are scanned, not merged from the index. */
    static final int MAX_INDEXED_NAMES = 16;

    private Axes() {
    }

    /**
     * The elements in [from, limit) that {@code predicate} accepts, read from the structural index,
     * or null when the predicate is not an element name test (then the caller scans). A name test
     * is any node test that only elements can match and that tells its names through
     * {@link NodeTest#getRequiredNodeNames()}: {@code NameTest}, a union of them
     * ({@code //(a|b)}), an intersection with a name part. Anything beyond the names (a type, the
     * other side of an intersection) is checked on the node.
     */
    static AxisIterator byName(StoredTree tree, long from, long limit, NodePredicate predicate) {
        // a short range is scanned (a few dozen records cost less than a B+tree seek), as is a document without an index
        if (limit - from < tree.scanBelow || !(predicate instanceof NodeTest test)
                || !UType.ELEMENT.subsumes(test.getUType())) {
            return null;
        }
        if (test instanceof NameTest n) {
            // the common step, one name: its codes without the IntSet and the copies below
            int[] codes = tree.codes(n.getFingerprint());
            return codes.length == 0 ? EmptyIterator.ofNodes() : new Indexed(tree, codes, from, limit, null);
        }
        Optional<IntSet> names = test.getRequiredNodeNames();
        if (names.isEmpty() || names.get() instanceof IntUniversalSet || names.get() instanceof IntComplementSet
                || names.get().size() > MAX_INDEXED_NAMES) {
            return null;
        }
        int[] codes = new int[0];
        for (IntIterator it = names.get().iterator(); it.hasNext(); ) {
            int[] c = tree.codes(it.next());
            int n = codes.length;
            codes = Arrays.copyOf(codes, n + c.length);
            System.arraycopy(c, 0, codes, n, c.length);
        }
        if (codes.length == 0) {
            return EmptyIterator.ofNodes();
        }
        return new Indexed(tree, codes, from, limit, test instanceof NameTest ? null : test);
    }

    /**
     * The elements of some names within a range, in document order: a merge of the names' lists in
     * the structural index (one list per name code; usually one), each read lazily from the range's
     * start, run by run, so a name with millions of occurrences is never held in memory. Only the
     * matches become nodes; with one name code they are lazy (a record is read only when its node is
     * asked more than its name and order) and share a slice whose attribute columns may answer an
     * attribute test ({@link AttributeColumns}). When the names are the whole test, the length is known from
     * the lists alone ({@link #getLength}), so {@code count(//name)} decodes no record.
     */
    static final class Indexed extends Rec implements AxisIterator, LastPositionFinder {
        private final int[] codes;
        private final long from;
        private final long limit;
        private final NodePredicate extra;
        private NameIndex.Positions[] lists;
        private long[] heads;
        private boolean done;
        /** With one name code: the slice its lazy nodes share, and the index of the next one. */
        private AttributeColumns.Slice slice;
        private int index;
        /** With the name's positions as an array: it, and the range [start, end) of this iteration. */
        private int[] array;
        private int start;
        private int end;

        Indexed(StoredTree tree, int[] codes, long from, long limit, NodePredicate extra) {
            super(tree);
            this.codes = codes;
            this.from = from;
            this.limit = limit;
            this.extra = extra;
        }

        @Override
        public NodeInfo next() {
            int[] all = array;
            if (all != null) {
                // the name's positions as an array (see AttributeColumns.Slice#positions)
                while (index < end) {
                    int i = index++;
                    StoredNode n = new StoredNode(t, all[i], codes[0], slice, i - start);
                    if (extra == null || extra.test(n)) {
                        return n;
                    }
                }
                array = null;
                done = true;
                return null;
            }
            if (lists == null) {
                if (done) {
                    return null;
                }
                if (codes.length == 1) {
                    slice = new AttributeColumns.Slice(t, codes[0], from);
                    all = slice.positions();
                    if (all != null) {
                        start = lowerBound(all, from);
                        end = lowerBound(all, limit);
                        index = start;
                        slice.offset(start);
                        array = all;
                        return next();
                    }
                }
                lists = new NameIndex.Positions[codes.length];
                heads = new long[codes.length];
                for (int i = 0; i < codes.length; i++) {
                    lists[i] = new NameIndex.Positions(t, NameIndex.ELEMENTS, codes[i], from);
                    heads[i] = lists[i].next();
                }
            }
            while (!done) {
                int best = -1;
                long p = Long.MAX_VALUE;
                for (int i = 0; i < heads.length; i++) {
                    long h = heads[i];
                    if (h >= 0 && h < p) {
                        p = h;
                        best = i;
                    }
                }
                if (best < 0 || p >= limit) {
                    done = true;
                    lists = null;
                    if (slice != null) {
                        slice.readPositions(index);
                    }
                    return null;
                }
                heads[best] = lists[best].next();
                if (slice != null) {
                    // one name: the node is made without reading its record (see StoredNode's lazy constructor)
                    StoredNode n = new StoredNode(t, p, codes[0], slice, index++);
                    if (extra == null || extra.test(n)) {
                        return n;
                    }
                    continue;
                }
                int tg = at(p);
                if ((tg & Format.KIND_MASK) != Format.ELEMENT) {
                    throw notListed(p, codes[best]);
                }
                // straight from the header into the node, as the child axis does
                StoredNode n = new StoredNode(t, this, p, tg);
                if (n.code != codes[best]) {
                    throw notListed(p, codes[best]);
                }
                if (extra == null || extra.test(n)) {
                    return n;
                }
            }
            return null;
        }

        /** The index of the first position at or after {@code p} in {@code all}, ascending without repeats (a name's positions). */
        private static int lowerBound(int[] all, long p) {
            if (p > Integer.MAX_VALUE) return all.length;
            int i = Arrays.binarySearch(all, (int) Math.max(p, Integer.MIN_VALUE));
            return i >= 0 ? i : -i - 1;
        }

        private StoreException notListed(long p, int code) {
            return t.corrupt(p, "the name index lists a record that is not an element named "
                    + t.names[code].getDisplayName());
        }

        @Override
        public boolean supportsGetLength() {
            return extra == null;
        }

        /** The number of nodes the whole iteration gives (whatever has been read so far). */
        @Override
        public int getLength() {
            if (extra != null) {
                throw new UnsupportedOperationException("the length of a name step with a further test is not known");
            }
            boolean whole = from <= t.root.first() && limit >= t.header.length();
            long n = 0;
            for (int code : codes) {
                n += whole ? t.elementCount(code)
                        : new NameIndex.Positions(t, NameIndex.ELEMENTS, code, from).count(limit);
            }
            return (int) Math.min(n, Integer.MAX_VALUE);
        }
    }

    /**
     * A node test compiled for the record decoder: any node, a kind, a kind and fingerprint, or
     * (for the rest: unions, wildcards with a namespace, typed tests) Saxon's own test on a node.
     */
    static final class Test {
        private static final int ANY = 0;
        private static final int KIND = 1;
        private static final int NAME = 2;
        private static final int GENERAL = 3;

        private final int mode;
        private final int kind;
        private final int fingerprint;
        private final NodePredicate predicate;
        private final int[] fingerprints;

        private Test(int mode, int kind, int fingerprint, NodePredicate predicate, int[] fingerprints) {
            this.mode = mode;
            this.kind = kind;
            this.fingerprint = fingerprint;
            this.predicate = predicate;
            this.fingerprints = fingerprints;
        }

        private static final Test ANY_NODE = new Test(ANY, 0, 0, null, null);
        private static final Test[] KINDS = new Test[Type.NAMESPACE + 1];

        static {
            for (int k = 0; k < KINDS.length; k++) {
                KINDS[k] = new Test(KIND, k, 0, null, null);
            }
        }

        static Test of(NodePredicate p, StoredTree t) {
            if (p == null || p instanceof AnyNodeTest) {
                return ANY_NODE;
            }
            if (p instanceof NodeKindTest k && k.getNodeKind() < KINDS.length) {
                return KINDS[k.getNodeKind()];
            }
            if (p instanceof NameTest n) {
                // a step like child::name or @name asks again with the same NameTest for every context
                // node, and a join alternates a few of them: keep the tests made, by the NameTest's identity
                Test[] made = t.nameTests;
                int slot = System.identityHashCode(n) & (made.length - 1);
                Test last = made[slot];
                if (last != null && last.predicate == n) {
                    return last;
                }
                Test test = new Test(NAME, n.getNodeKind(), n.getFingerprint(), n, t.fingerprints);
                made[slot] = test;
                return test;
            }
            return new Test(GENERAL, 0, 0, p, null);
        }

        /** Whether a node of this kind and name code might match without building it. */
        boolean quick(int saxonKind, int code) {
            return switch (mode) {
                case ANY, GENERAL -> true;
                case KIND -> saxonKind == kind;
                default -> saxonKind == kind && code >= 0 && fingerprints[code] == fingerprint;
            };
        }

        boolean full(NodeInfo n) {
            return mode != GENERAL || predicate.test(n);
        }

        /** Whether {@link #quick} can reject a record by its header alone. */
        boolean selective() {
            return mode == KIND || mode == NAME;
        }

        /** Attributes never match a kind or name test for another kind. */
        boolean attributes() {
            return mode == ANY || mode == GENERAL || kind == Type.ATTRIBUTE;
        }
    }

    /**
     * Child and following-sibling: from a record to its next sibling until the parent's END. Under
     * a name or kind test ({@code child::surname}) most siblings do not match: of those only the
     * tag, the name and what leads to the next sibling are read (the size of an element with
     * children; the header's end for a leaf element or a text), and only a match becomes a node.
     * A small object (a {@link Cursor}, not a {@link Rec}): a join makes one per context node.
     */
    static final class Siblings extends Cursor implements AxisIterator {
        private final Test test;
        private final boolean selective;
        /** The siblings' parent when the caller has it (null: decoded if asked, see {@link StoredNode#getParent}). */
        private final StoredNode parent;
        private long next;

        Siblings(StoredTree tree, long from, Test test, StoredNode parent) {
            super(tree);
            this.test = test;
            this.selective = test.selective();
            this.parent = parent;
            this.next = from;
        }

        @Override
        public NodeInfo next() {
            while (next >= 0) {
                long p = next;
                int tg = at(p);
                if (tg == Format.END) {
                    next = -1;
                    return null;
                }
                if (selective) {
                    int k = tg & Format.KIND_MASK;
                    int code = k == Format.ELEMENT || k == Format.PI ? varint() : -1;
                    if (!test.quick(StoredTree.SAXON_KIND[k], code)) {
                        next = skip(p, tg, k);
                        continue;
                    }
                    at(p);
                }
                StoredNode n = new StoredNode(t, this, p, tg);
                n.knownParent(parent);
                next = n.end();
                if (test.full(n)) {
                    return n;
                }
            }
            return null;
        }
    }

    /** Descendant and following: every record in [from, limit), END bytes skipped. */
    static final class Scan extends Rec implements AxisIterator {
        private final StoredTree tree;
        private final Test test;
        private final long limit;
        private long next;

        Scan(StoredTree tree, long from, long limit, Test test) {
            super(tree);
            this.tree = tree;
            this.test = test;
            this.next = from;
            this.limit = limit;
        }

        @Override
        public NodeInfo next() {
            while (next < limit) {
                read(next);
                if (kind == Format.END) {
                    next++;
                    continue;
                }
                next = first;
                if (test.quick(StoredTree.SAXON_KIND[kind], code)) {
                    StoredNode n = new StoredNode(tree, this);
                    if (test.full(n)) {
                        return n;
                    }
                }
            }
            return null;
        }
    }

    /** The attribute entries of one element header. */
    static final class Attributes extends AttrEntry implements AxisIterator {
        private final StoredNode element;
        private final Test test;
        private final long limit;
        private long at;

        Attributes(StoredNode element, long from, long limit, Test test) {
            this.element = element;
            this.test = test;
            this.at = test.attributes() ? from : limit;
            this.limit = limit;
        }

        @Override
        public NodeInfo next() {
            StoredTree tree = element.tree;
            while (at < limit) {
                read(tree, at);
                at = next;
                if (test.quick(Type.ATTRIBUTE, code)) {
                    StoredNode n = new StoredNode(tree, this, element.pos);
                    n.knownParent(element);
                    if (test.full(n)) {
                        return n;
                    }
                }
            }
            return null;
        }
    }

    /** Ancestor (from the parent) and ancestor-or-self (from the node). */
    static final class Ancestors implements AxisIterator {
        private final NodePredicate predicate;
        private StoredNode next;

        Ancestors(StoredNode from, NodePredicate predicate) {
            this.next = from;
            this.predicate = predicate;
        }

        @Override
        public NodeInfo next() {
            while (next != null) {
                StoredNode n = next;
                next = n.getParent();
                if (predicate == null || predicate.test(n)) {
                    return n;
                }
            }
            return null;
        }
    }

    /**
     * Preceding-sibling, nearest first. Records have no back links (they would cost bytes on
     * every node), so the siblings before the node are collected from the parent's first child.
     */
    static AxisIterator precedingSiblings(StoredNode node, NodePredicate predicate) {
        StoredTree tree = node.tree;
        Rec r = new Rec(tree);
        r.read(node.pos);
        r.read(r.parent);
        long p = r.first;
        long[] found = new long[8];
        int n = 0;
        Test test = Test.of(predicate, tree);
        while (p != node.pos) {
            r.read(p);
            if (test.quick(StoredTree.SAXON_KIND[r.kind], r.code)) {
                if (n == found.length) {
                    found = Arrays.copyOf(found, n * 2);
                }
                found[n++] = p;
            }
            p = r.end;
        }
        long[] positions = found;
        int count = n;
        return new AxisIterator() {
            private int i = count;

            @Override
            public NodeInfo next() {
                while (i > 0) {
                    StoredNode s = tree.nodeAt(positions[--i]);
                    if (test.full(s)) {
                        return s;
                    }
                }
                return null;
            }
        };
    }

    /**
     * Preceding (and preceding-or-ancestor), in reverse document order without back links.
     * Work is a stack of frames: an EXPAND frame holds subtree roots still to be reversed, an
     * EMIT frame holds record positions in document order, emitted from the end. A subtree up to
     * {@link #FLAT_BYTES} is reversed by one forward scan into an EMIT frame; a larger one is
     * split into its element, emitted last, and its children, expanded first. So the memory is
     * bounded by the depth times the fan-out plus one flat frame, even in a 1 GB document, and
     * every record is decoded a bounded number of times.
     */
    static final class Preceding implements AxisIterator {
        static final int FLAT_BYTES = 64 * 1024;

        private final StoredTree tree;
        private final Rec r;
        private final Test test;
        private final boolean includeAncestors;
        /** Ancestor-or-self positions, the node first, the document last. */
        private final long[] chain;
        private int level;
        private long[][] frames = new long[16][];
        private int[] cursors = new int[16];
        private boolean[] expand = new boolean[16];
        private int depth;

        Preceding(StoredNode node, NodePredicate predicate, boolean includeAncestors) {
            this.tree = node.tree;
            this.r = new Rec(tree);
            this.test = Test.of(predicate, tree);
            this.includeAncestors = includeAncestors;
            long[] c = new long[16];
            int n = 0;
            long p = node.pos;
            while (p >= 0) {
                if (n == c.length) {
                    c = Arrays.copyOf(c, n * 2);
                }
                c[n++] = p;
                r.read(p);
                p = r.parent;
            }
            this.chain = Arrays.copyOf(c, n);
        }

        private void push(long[] positions, int count, boolean isExpand) {
            if (depth == frames.length) {
                frames = Arrays.copyOf(frames, depth * 2);
                cursors = Arrays.copyOf(cursors, depth * 2);
                expand = Arrays.copyOf(expand, depth * 2);
            }
            frames[depth] = positions;
            cursors[depth] = count - 1;
            expand[depth] = isExpand;
            depth++;
        }

        /** Positions of the children of the element at {@code parent} that come before {@code stop}. */
        private long[] children(long parent, long stop, int[] count) {
            r.read(parent);
            long p = r.first;
            long[] out = new long[8];
            int n = 0;
            if (r.hasChildren()) {
                while (p != stop) {
                    r.read(p);
                    if (r.kind == Format.END) {
                        break;
                    }
                    if (n == out.length) {
                        out = Arrays.copyOf(out, n * 2);
                    }
                    out[n++] = p;
                    p = r.end;
                }
            }
            count[0] = n;
            return out;
        }

        @Override
        public NodeInfo next() {
            int[] count = new int[1];
            while (true) {
                if (depth == 0) {
                    if (level >= chain.length - 1) {
                        return null;
                    }
                    long self = chain[level];
                    long parent = chain[level + 1];
                    level++;
                    if (includeAncestors) {
                        push(new long[] {parent}, 1, false);
                    }
                    long[] siblings = children(parent, self, count);
                    push(siblings, count[0], true);
                    continue;
                }
                int top = depth - 1;
                if (cursors[top] < 0) {
                    frames[top] = null;
                    depth--;
                    continue;
                }
                long p = frames[top][cursors[top]--];
                if (expand[top]) {
                    r.read(p);
                    if (r.kind == Format.ELEMENT && r.hasChildren()) {
                        if (r.end - p <= FLAT_BYTES) {
                            push(flat(p, r.end, count), count[0], false);
                        } else {
                            push(new long[] {p}, 1, false);
                            long[] kids = children(p, -1, count);
                            push(kids, count[0], true);
                        }
                        continue;
                    }
                }
                r.read(p);
                if (test.quick(StoredTree.SAXON_KIND[r.kind], r.code)) {
                    StoredNode n = tree.node(r);
                    if (test.full(n)) {
                        return n;
                    }
                }
            }
        }

        /** Every record position in [from, limit), in document order. */
        private long[] flat(long from, long limit, int[] count) {
            long[] out = new long[32];
            int n = 0;
            long p = from;
            while (p < limit) {
                r.read(p);
                if (r.kind == Format.END) {
                    p++;
                    continue;
                }
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = p;
                p = r.first;
            }
            count[0] = n;
            return out;
        }
    }
}
