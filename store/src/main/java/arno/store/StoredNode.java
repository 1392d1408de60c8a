package arno.store;

import static org.agrona.UnsafeAccess.UNSAFE;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import net.sf.saxon.Configuration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.om.AtomicSequence;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.CopyOptions;
import net.sf.saxon.om.EmptyAttributeMap;
import net.sf.saxon.om.LargeAttributeMap;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.om.SingletonAttributeMap;
import net.sf.saxon.om.SmallAttributeMap;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.pattern.AnyNodeTest;
import net.sf.saxon.pattern.NameTest;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.pattern.NodePredicate;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.str.Twine8;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.tree.NamespaceNode;
import net.sf.saxon.tree.iter.ArrayIterator;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.tree.iter.SingleNodeIterator;
import net.sf.saxon.tree.iter.EmptyIterator;
import net.sf.saxon.tree.iter.PrependAxisIterator;
import net.sf.saxon.tree.util.Navigator;
import net.sf.saxon.type.BuiltInAtomicType;
import net.sf.saxon.type.SchemaType;
import net.sf.saxon.type.Type;
import net.sf.saxon.type.Untyped;
import net.sf.saxon.value.StringValue;
import net.sf.saxon.expr.parser.Loc;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.str.EmptyUnicodeString;

/**
 * A node of a stored document: a position in the record stream plus what the iterator that made
 * it had already decoded (kind and name code). For an attribute the position is that of its entry
 * in the element header and its parent is the element; entries lie between the
 * element record and its first child, so comparing positions is document order for every kind.
 */
final class StoredNode implements NodeInfo {

    private static final char[] LETTER = {'x', 'e', 'a', 't', 'x', 'x', 'x', 'p', 'c', 'r', 'x', 'x', 'x', 'n'};

    final StoredTree tree;
    final long pos;
    final byte kind;
    final int code;
    /**
     * Distance back to the parent (for an attribute, its element); 0 for the document, -1 when it
     * does not fit an int (a node more than 2 GiB into its parent), then decoded on demand.
     */
    private int parentDelta;
    /** Element, document: end of the subtree. Others: end of the value. */
    private long end;
    /** Element, document: first child minus pos. Text, comment, PI, attribute: value start minus pos. */
    private int headerLength;
    /** Element: bytes of attribute entries, which end where the first child starts. */
    private int attrLength;
    /** Element, document: the record tag (flags). Attribute: its flags. */
    private byte tag;
    /** Element: index of its namespace map, -1 for none. */
    private int ns;
    /** Text, comment, PI, attribute: the value is ASCII. */
    final boolean ascii;
    private StoredNode parent;
    /**
     * What a node remembers of the questions asked of it again (see {@link Memo}): null when never
     * asked, its first question (see {@link #memo(Object)}), then a {@link Memo}, or the node that
     * is the only answer of its only question (see {@link #memoized}); for an attribute or a text node, its
     * atomized value; for a lazy node, its {@link AttributeColumns.Slice} until it is decoded.
     * This reference fills the padding of the object (64 bytes with or without it).
     */
    private Object memo;

    /**
     * A node from a decoded record: the iterator that found it has paid for the decoding, so the
     * node keeps what navigation from it needs (in as few bytes as it can: nodes are allocated by
     * the million) and never decodes its own header again.
     */
    StoredNode(StoredTree tree, Rec r) {
        this.tree = tree;
        this.pos = r.pos;
        this.kind = (byte) StoredTree.SAXON_KIND[r.kind];
        this.code = r.code;
        this.parentDelta = r.parent < 0 ? 0 : delta(r.pos - r.parent);
        this.tag = (byte) r.tag;
        this.ns = r.ns;
        this.end = r.end;
        if (r.kind == Format.ELEMENT || r.kind == Format.DOCUMENT) {
            this.headerLength = (int) (r.first - r.pos);
            this.attrLength = r.attrBytes;
        } else {
            this.headerLength = (int) (r.content() - r.pos);
            this.attrLength = 0;
        }
        this.ascii = r.ascii;
    }

    /**
     * A child node decoded straight from its record (element, text, comment or PI), without an
     * intermediate {@link Rec}: the child and sibling axes make every node this way, so it is the
     * hottest path of a walk. The cursor is positioned after the tag byte {@code tg} at {@code p}.
     */
    StoredNode(StoredTree tree, Cursor c, long p, int tg) {
        this.tree = tree;
        this.pos = p;
        this.tag = (byte) tg;
        int k = tg & Format.KIND_MASK;
        this.kind = (byte) StoredTree.SAXON_KIND[k];
        long base = p - (p & Format.CHUNK_MASK);
        if (k == Format.ELEMENT) {
            this.code = c.varint();
            this.ascii = false;
            elementTail(c, p, tg);
        } else if (k == Format.TEXT || k == Format.COMMENT || k == Format.PI) {
            this.code = k == Format.PI ? c.varint() : -1;
            long pa = c.varlong();
            this.parentDelta = delta(pa >>> 1);
            this.ascii = (pa & 1) != 0;
            int l = tg >>> 3;
            if (l == Format.LENGTH_FOLLOWS) {
                l = c.varint();
            }
            this.ns = -1;
            this.attrLength = 0;
            long content = base + c.o;
            this.headerLength = (int) (content - p);
            this.end = content + l;
        } else {
            throw tree.corrupt(p, "record tag " + tg + " where a child was expected");
        }
    }

    /** Decodes an element header after its name code: the cursor is just past it. */
    private void elementTail(Cursor c, long p, int tg) {
        long base = p - (p & Format.CHUNK_MASK);
        this.parentDelta = delta(c.varlong());
        int size = (tg & Format.F_CHILDREN) != 0 ? c.u16() : -1;
        this.ns = (tg & Format.F_NS) != 0 ? c.varint() : -1;
        int attrs = (tg & Format.F_ATTRS) != 0 ? c.varint() : 0;
        long first = base + c.o + attrs;
        this.end = size < 0 ? first : size == Format.BIG ? p + tree.bigSize(p) : p + size;
        this.attrLength = attrs;
        this.headerLength = (int) (first - p);
        this.tag = (byte) tg;
    }

    /** {@link #headerLength} of a node whose record has not been read yet (see {@link AttributeColumns.Slice}). */
    private static final int LAZY = -1;

    /**
     * An element found in the structural index, its record not read: the iterator knows its
     * position and name, and a {@code //x[@y = 'z']} scan asks nothing else but the attribute,
     * which the slice's column may answer (see {@link AttributeColumns}). Anything else decodes
     * the record then ({@link #decode}); until then {@link #memo} holds the slice and
     * {@link #attrLength} the node's index in it.
     */
    StoredNode(StoredTree tree, long pos, int code, AttributeColumns.Slice slice, int index) {
        this.tree = tree;
        this.pos = pos;
        this.kind = Type.ELEMENT;
        this.code = code;
        this.ascii = false;
        this.headerLength = LAZY;
        this.attrLength = index;
        this.memo = slice;
    }

    /** Reads the record of a lazy node, checking that it is the element the index said. */
    private void decode() {
        Cursor c = new Cursor(tree);
        int tg = c.at(pos);
        if ((tg & Format.KIND_MASK) != Format.ELEMENT || c.varint() != code) {
            throw tree.corrupt(pos, "the name index lists a record that is not an element named "
                    + tree.names[code].getDisplayName());
        }
        memo = null;
        elementTail(c, pos, tg);
    }

    /** An attribute from its decoded entry. */
    StoredNode(StoredTree tree, AttrEntry e, long owner) {
        this.tree = tree;
        this.pos = e.pos;
        this.kind = Type.ATTRIBUTE;
        this.code = e.code;
        this.parentDelta = delta(e.pos - owner);
        this.tag = (byte) e.flags;
        this.ns = -1;
        this.headerLength = (int) (e.value - e.pos);
        this.attrLength = 0;
        this.end = e.next;
        this.ascii = (e.flags & Format.A_ASCII) != 0;
    }

    private static int delta(long d) {
        return d <= Integer.MAX_VALUE ? (int) d : -1;
    }

    /** The parent's position, -1 for the document. */
    long parentPos() {
        if (headerLength == LAZY) {
            decode();
        }
        if (parentDelta > 0) {
            return pos - parentDelta;
        }
        return parentDelta == 0 ? -1 : rec().parent;
    }

    /** Element, document: first child (or the end of a leaf element's header). Others: end. */
    long first() {
        if (headerLength == LAZY) {
            decode();
        }
        return kind == Type.ELEMENT || kind == Type.DOCUMENT ? pos + headerLength : end;
    }

    /** Element: start of the attribute entries. Text, comment, PI, attribute: start of the value. */
    long start() {
        if (headerLength == LAZY) {
            decode();
        }
        return pos + headerLength - attrLength;
    }

    /** Element, document: end of the subtree. Others: end of the value. */
    long end() {
        if (headerLength == LAZY) {
            decode();
        }
        return end;
    }

    private int attrLength() {
        if (headerLength == LAZY) {
            decode();
        }
        return attrLength;
    }

    private boolean hasChildFlag() {
        if (headerLength == LAZY) {
            decode();
        }
        return (tag & Format.F_CHILDREN) != 0;
    }

    private int valueLength() {
        return (int) (end() - start());
    }

    private Rec rec() {
        Rec r = new Rec(tree);
        r.read(pos);
        return r;
    }

    @Override
    public TreeInfo getTreeInfo() {
        return tree;
    }

    @Override
    public int getNodeKind() {
        return kind;
    }

    /** Direct, not the interface default through getTreeInfo(): Saxon asks for it constantly. */
    @Override
    public Configuration getConfiguration() {
        return tree.getConfiguration();
    }

    @Override
    public boolean isSameNodeInfo(NodeInfo other) {
        return equals(other);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredNode n && n.pos == pos && n.tree == tree && n.kind == kind;
    }

    @Override
    public int hashCode() {
        return ((int) tree.documentNumber << 20) ^ Long.hashCode(pos) ^ (kind << 14);
    }

    @Override
    public String getSystemId() {
        return tree.systemId;
    }

    @Override
    public String getPublicId() {
        return null;
    }

    @Override
    public void setSystemId(String systemId) {
        // a stored document's system id is its store URI; it cannot be changed per node
    }

    @Override
    public String getBaseURI() {
        if (kind == Type.DOCUMENT || (tree.header.flags() & DocHeader.HAS_XML_BASE) == 0) {
            return tree.systemId;
        }
        return Navigator.getBaseURI(this);
    }

    @Override
    public int getLineNumber() {
        return -1;
    }

    @Override
    public int getColumnNumber() {
        return -1;
    }

    @Override
    public Location saveLocation() {
        return this;
    }

    @Override
    public int compareOrder(NodeInfo other) {
        if (other instanceof StoredNode s) {
            if (s.tree == tree) {
                return Long.compare(pos, s.pos);
            }
            return Long.compare(tree.documentNumber, s.tree.documentNumber);
        }
        if (other instanceof NamespaceNode) {
            return -other.compareOrder(this);
        }
        return Long.compare(tree.getDocumentNumber(), other.getTreeInfo().getDocumentNumber());
    }

    @Override
    public boolean hasFingerprint() {
        return true;
    }

    @Override
    public int getFingerprint() {
        return code < 0 ? -1 : tree.fingerprints[code];
    }

    NodeName nodeName() {
        return code < 0 ? null : tree.names[code];
    }

    @Override
    public String getLocalPart() {
        return code < 0 ? "" : tree.locals[code];
    }

    @Override
    public NamespaceUri getNamespaceUri() {
        return code < 0 ? NamespaceUri.NULL : tree.names[code].getNamespaceUri();
    }

    @Override
    public String getDisplayName() {
        return code < 0 ? "" : tree.names[code].getDisplayName();
    }

    @Override
    public String getPrefix() {
        return code < 0 ? "" : tree.names[code].getPrefix();
    }

    @Override
    public SchemaType getSchemaType() {
        return switch (kind) {
            case Type.ELEMENT -> Untyped.getInstance();
            case Type.ATTRIBUTE -> BuiltInAtomicType.UNTYPED_ATOMIC;
            case Type.DOCUMENT -> Untyped.getInstance();
            default -> null;
        };
    }

    @Override
    public UnicodeString getUnicodeStringValue() {
        tree.checkOpen();
        switch (kind) {
            case Type.ATTRIBUTE -> {
                return tree.attributeText(start(), valueLength(), ascii);
            }
            case Type.TEXT, Type.COMMENT, Type.PROCESSING_INSTRUCTION -> {
                return tree.text(start(), valueLength(), ascii);
            }
            default -> {
                return descendantText();
            }
        }
    }

    @Override
    public String getStringValue() {
        if (kind == Type.ATTRIBUTE) {
            tree.checkOpen();
            return tree.attributeValue(start(), valueLength(), ascii);
        }
        return getUnicodeStringValue().toString();
    }

    /** The concatenated text descendants, gathered as UTF-8 and decoded once. */
    private UnicodeString descendantText() {
        Rec r = new Rec(tree);
        long p = first();
        long limit = end();
        if (p < limit) {
            // the common case, an element holding one text node, needs no gathering
            r.read(p);
            if (r.kind == Format.TEXT && r.end + 1 == limit) {
                return tree.text(r.content(), r.length, r.ascii);
            }
        }
        byte[] buf = null;
        int n = 0;
        boolean allAscii = true;
        while (p < limit) {
            r.read(p);
            if (r.kind == Format.TEXT) {
                allAscii &= r.ascii;
                if (buf == null) {
                    buf = new byte[Math.max(16, r.length)];
                } else if (n + r.length > buf.length) {
                    buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + r.length));
                }
                tree.bytes(r.content(), r.length, buf, n);
                n += r.length;
                p = r.end;
            } else {
                p = r.first;
            }
        }
        if (n == 0) {
            return EmptyUnicodeString.getInstance();
        }
        return allAscii ? new Twine8(n == buf.length ? buf : Arrays.copyOf(buf, n)) : StoredTree.decode(buf, n);
    }

    @Override
    public AtomicSequence atomize() {
        if (kind == Type.ATTRIBUTE || kind == Type.TEXT) {
            // remembered: a join atomizes the same attribute (or text) nodes once per outer item
            if (memo instanceof AtomicSequence a) {
                return a;
            }
            // An attribute's value as Saxon's own @name getter makes it (a String made a
            // UnicodeString by StringValue: a BMPString), so that a join comparing our atomized
            // attribute with a value from getAttributeValue compares two strings of one class
            // (String.equals). A Twine8 against a BMPString falls back to comparing code point
            // iterators: 12% of a join's time at 10 MB.
            AtomicSequence a = kind == Type.ATTRIBUTE
                    ? new StringValue(getStringValue(), BuiltInAtomicType.UNTYPED_ATOMIC)
                    : StringValue.makeUntypedAtomic(getUnicodeStringValue());
            memo = a;
            return a;
        }
        return switch (kind) {
            case Type.COMMENT, Type.PROCESSING_INSTRUCTION -> new StringValue(getUnicodeStringValue());
            default -> StringValue.makeUntypedAtomic(getUnicodeStringValue());
        };
    }

    /**
     * Sets the parent of a node an axis made from it (children from their element, attributes
     * from theirs, following siblings from a node's known parent): a template pattern with a
     * parent step ({@code caption/p}, {@code body/sec/title}), tested on every {@code p} and
     * {@code title} a page applies templates to, then reads the parent in hand instead of
     * decoding its record into a node of its own again. Null leaves it to be decoded if asked.
     */
    void knownParent(StoredNode p) {
        parent = p;
    }

    @Override
    public StoredNode getParent() {
        StoredNode p = parent;
        if (p != null) {
            return p;
        }
        if (kind == Type.DOCUMENT) {
            return null;
        }
        tree.checkOpen();
        p = tree.nodeAt(parentPos());
        parent = p;
        return p;
    }

    @Override
    public NodeInfo getRoot() {
        return tree.root;
    }

    @Override
    public boolean hasChildNodes() {
        if (kind != Type.ELEMENT && kind != Type.DOCUMENT) {
            return false;
        }
        return hasChildFlag() && first() < end() - 1;
    }

    /**
     * Overrides the interface's default so that the common no-test call binds here directly:
     * through the default method, every NodeInfo implementation shares one (megamorphic) call.
     */
    @Override
    public AxisIterator iterateAxis(int axisNumber) {
        return iterateAxis(axisNumber, AnyNodeTest.getInstance());
    }

    @Override
    public AxisIterator iterateAxis(int axisNumber, NodePredicate predicate) {
        tree.checkOpen();
        switch (axisNumber) {
            case AxisInfo.CHILD -> {
                if ((kind != Type.ELEMENT && kind != Type.DOCUMENT) || !hasChildFlag()) {
                    return EmptyIterator.ofNodes();
                }
                if (predicate instanceof NameTest || predicate instanceof NodeKindTest) {
                    AxisIterator m = memoized(AxisInfo.CHILD, predicate);
                    if (m != null) {
                        return m;
                    }
                }
                return childIterator(predicate);
            }
            case AxisInfo.DESCENDANT -> {
                if ((kind != Type.ELEMENT && kind != Type.DOCUMENT) || !hasChildFlag()) {
                    return EmptyIterator.ofNodes();
                }
                AxisIterator indexed = Axes.byName(tree, first(), end(), predicate);
                return indexed != null ? indexed : new Axes.Scan(tree, first(), end(), Axes.Test.of(predicate, tree));
            }
            case AxisInfo.DESCENDANT_OR_SELF -> {
                AxisIterator d = iterateAxis(AxisInfo.DESCENDANT, predicate);
                return predicate.test(this) ? new PrependAxisIterator(this, d) : d;
            }
            case AxisInfo.ATTRIBUTE -> {
                if (kind != Type.ELEMENT || attrLength() == 0) {
                    return EmptyIterator.ofNodes();
                }
                if (predicate instanceof NameTest) {
                    AxisIterator m = memoized(AxisInfo.ATTRIBUTE, predicate);
                    if (m != null) {
                        return m;
                    }
                }
                return new Axes.Attributes(this, start(), first(), Axes.Test.of(predicate, tree));
            }
            case AxisInfo.PARENT -> {
                return Navigator.filteredSingleton(getParent(), predicate);
            }
            case AxisInfo.SELF -> {
                return Navigator.filteredSingleton(this, predicate);
            }
            case AxisInfo.ANCESTOR -> {
                return new Axes.Ancestors(getParent(), predicate);
            }
            case AxisInfo.ANCESTOR_OR_SELF -> {
                return new Axes.Ancestors(this, predicate);
            }
            case AxisInfo.FOLLOWING_SIBLING -> {
                if (kind == Type.ATTRIBUTE || kind == Type.DOCUMENT) {
                    return EmptyIterator.ofNodes();
                }
                return new Axes.Siblings(tree, end(), Axes.Test.of(predicate, tree), parent);
            }
            case AxisInfo.PRECEDING_SIBLING -> {
                if (kind == Type.ATTRIBUTE || kind == Type.DOCUMENT) {
                    return EmptyIterator.ofNodes();
                }
                return Axes.precedingSiblings(this, predicate);
            }
            case AxisInfo.FOLLOWING -> {
                if (kind == Type.DOCUMENT) {
                    return EmptyIterator.ofNodes();
                }
                long from = kind == Type.ATTRIBUTE ? getParent().first() : end();
                AxisIterator indexed = Axes.byName(tree, from, tree.header.length(), predicate);
                return indexed != null ? indexed
                        : new Axes.Scan(tree, from, tree.header.length(), Axes.Test.of(predicate, tree));
            }
            case AxisInfo.PRECEDING -> {
                if (kind == Type.DOCUMENT) {
                    return EmptyIterator.ofNodes();
                }
                StoredNode start = kind == Type.ATTRIBUTE ? getParent() : this;
                return new Axes.Preceding(start, predicate, false);
            }
            case AxisInfo.PRECEDING_OR_ANCESTOR -> {
                if (kind == Type.DOCUMENT) {
                    return EmptyIterator.ofNodes();
                }
                if (kind == Type.ATTRIBUTE) {
                    StoredNode el = getParent();
                    AxisIterator rest = new Axes.Preceding(el, predicate, true);
                    return predicate.test(el) ? new PrependAxisIterator(el, rest) : rest;
                }
                return new Axes.Preceding(this, predicate, true);
            }
            case AxisInfo.NAMESPACE -> {
                if (kind != Type.ELEMENT) {
                    return EmptyIterator.ofNodes();
                }
                return NamespaceNode.makeIterator(this, predicate);
            }
            default -> throw new IllegalArgumentException("unknown axis number " + axisNumber);
        }
    }

    /** The children that {@code predicate} accepts, from the records (or the tree's {@link ChildCache}). */
    private AxisIterator childIterator(NodePredicate predicate) {
        Axes.Test test = Axes.Test.of(predicate, tree);
        if (test.selective()) {
            AxisIterator cached = tree.childCache.children(this, first(), test);
            if (cached != null) {
                return cached;
            }
        }
        return new Axes.Siblings(tree, first(), test, this);
    }

    /** A remembered empty answer: no such child or attribute. */
    private static final Object NONE = new Object();
    /** A remembered answer too long to keep: ask the records. */
    private static final Object TOO_MANY = new Object();

    /**
     * The answers a node gives to questions asked again: a named child or attribute step
     * ({@code $t/buyer}, {@code @person}, {@code $i/text()}: by the identity of Saxon's
     * {@code NameTest} or {@code NodeKindTest}, which an expression keeps) and {@code getAttributeValue} (by the identity of the URI and local name
     * Saxon passes). A nested-loop join asks the same few questions of the same node objects once
     * per outer item (Saxon evaluates the inner sequence once and keeps its nodes), and each answer
     * from the records costs a header decoded per sibling and an attribute entry read, where
     * TinyTree reads its arrays: remembered, a pair costs an identity compare and an iterator.
     *
     * <p>A node's first question only marks it with that question (a field write, no allocation),
     * and the memo starts when the same question comes again: a join asks it once per outer item,
     * while a one-pass walk or transform asks a node different questions once each (a page's
     * citation: its authors, year, title, source, volume, pages, DOI), which a memo made from the
     * second question on cost more to keep than to walk again (B/A 1.126 over HTTP with pages'
     * child steps not remembered at all; perf/RESULTS.md, seventh session). {@link #SLOTS}
     * answers, the oldest replaced; answers with more than {@link #MAX_NODES} nodes are not kept.
     * From a memo's third question on, it also holds the node's children as arrays of kinds and
     * names ({@link #children}), so that a join's different questions test names in an array
     * rather than walking the records again each. The tree is immutable, so an answer never goes
     * stale.
     *
     * <p>Flat and immutable: the slots are fields of the memo itself, and a new answer makes a new
     * memo (answers are added a few times per node, looked up once per pair). A join at 50 MB
     * loops over more nodes than the caches hold, so each object on the way from a node to its
     * answer is a cache miss: with an array of entry records that was node, memo, array, entry,
     * answer; now it is node, memo, answer. 72 bytes (12 references, two ints, the header), against
     * 24 + 32 + 4 × 32 for a full memo of records. Final fields publish whole, so threads sharing a
     * node may at worst lose an answer (then it is computed again).
     */
    static final class Memo {
        static final int SLOTS = 4;
        static final int MAX_NODES = 8;

        /** Each slot's axis (or -1 for getAttributeValue) plus 2 in its byte; 0 for an empty slot. */
        private final int axes;
        /** The slot the next answer replaces. */
        private final int next;
        private final Object k0, l0, a0, k1, l1, a1, k2, l2, a2, k3, l3, a3;
        /** The node's children as arrays of position, kind and name, once asked a third child question; or null. */
        final ChildCache.Entry children;

        static final Memo EMPTY = new Memo(0, 0, null, null, null, null, null, null, null, null, null, null, null, null, null);
        /** Empty, of a node whose one held answer (see {@link #memoized}) gave way to another question: asked twice before. */
        static final Memo EMPTY_AGAIN = new Memo(0, 0, null, null, null, null, null, null, null, null, null, null, null, null, null);

        private Memo(int axes, int next, Object k0, Object l0, Object a0, Object k1, Object l1, Object a1,
                Object k2, Object l2, Object a2, Object k3, Object l3, Object a3, ChildCache.Entry children) {
            this.axes = axes;
            this.next = next;
            this.children = children;
            this.k0 = k0;
            this.l0 = l0;
            this.a0 = a0;
            this.k1 = k1;
            this.l1 = l1;
            this.a1 = a1;
            this.k2 = k2;
            this.l2 = l2;
            this.a2 = a2;
            this.k3 = k3;
            this.l3 = l3;
            this.a3 = a3;
        }

        /** The answer for (axis, key, local), or null. Keys compare by identity. */
        Object get(int axis, Object key, Object local) {
            int ax = axes;
            int want = axis + 2;
            if (k0 == key && l0 == local && (ax & 0xFF) == want) {
                return a0;
            }
            if (k1 == key && l1 == local && ((ax >>> 8) & 0xFF) == want) {
                return a1;
            }
            if (k2 == key && l2 == local && ((ax >>> 16) & 0xFF) == want) {
                return a2;
            }
            if (k3 == key && l3 == local && (ax >>> 24) == want) {
                return a3;
            }
            return null;
        }

        /** This memo with the answer in the next slot (the oldest answer out once all are used). */
        Memo with(int axis, Object key, Object local, Object answer) {
            return with(axis, key, local, answer, children);
        }

        /** As {@link #with(int, Object, Object, Object)}, holding {@code kids} as the node's children. */
        Memo with(int axis, Object key, Object local, Object answer, ChildCache.Entry kids) {
            int i = next;
            int shift = 8 * i;
            int ax = (axes & ~(0xFF << shift)) | ((axis + 2) << shift);
            int n = (i + 1) & (SLOTS - 1);
            return new Memo(ax, n,
                    i == 0 ? key : k0, i == 0 ? local : l0, i == 0 ? answer : a0,
                    i == 1 ? key : k1, i == 1 ? local : l1, i == 1 ? answer : a1,
                    i == 2 ? key : k2, i == 2 ? local : l2, i == 2 ? answer : a2,
                    i == 3 ? key : k3, i == 3 ? local : l3, i == 3 ? answer : a3, kids);
        }
    }

    /**
     * This node's memo, or null: the answer is not to be remembered. A node's first question
     * marks it with the question (its NameTest or NodeKindTest, or the local name asked of
     * getAttributeValue); the memo starts when that same question is asked again, and from then
     * on every question of the node is remembered. A node's one remembered child or attribute
     * (see {@link #memoized}) gives way to a memo.
     */
    private Memo memo(Object question) {
        Object m = memo;
        if (m instanceof Memo x) {
            return x;
        }
        if (m == null) {
            memo = question;
            return null;
        }
        if (m == question || m instanceof StoredNode) {
            Memo fresh = m instanceof StoredNode ? Memo.EMPTY_AGAIN : Memo.EMPTY;
            memo = fresh;
            return fresh;
        }
        // another question than the node's first: a page's one pass (a citation asked for its
        // authors, year, title, source and pages, each once), answered from the records
        return null;
    }

    /**
     * A child or attribute step under a name test, from the memo; null: ask the records.
     *
     * <p>The commonest memo holds one answer of one node: {@code $t/buyer} of an auction, then
     * {@code @person} of that buyer. Then {@link #memo} holds that node itself, without a
     * {@link Memo}: the question is known from the node (a child element or an attribute of this
     * name, the only one, whatever NameTest object asks), so a join's pair costs one cache miss
     * less per step. Another question replaces it with a memo. Published with release and read
     * with acquire: the node's fields are not final, and the tree's root is shared by threads.
     */
    private AxisIterator memoized(int axis, NodePredicate test) {
        Object held = MEMO.getAcquire(this);
        if (held instanceof StoredNode one && test instanceof NameTest n && one.answers(axis, n)) {
            return SingleNodeIterator.makeIterator(one);
        }
        Memo m = memo(test);
        if (m == null) {
            return null;
        }
        Object answer = m.get(axis, test, null);
        if (answer == null) {
            // Not from the ChildCache: the memo keeps the answer, so caching every child's name
            // there too (for a join's 5,000 inner nodes, once each) would only evict entries. But
            // a node asked a third different child question (a page's reference: its authors,
            // year, title, source, volume, pages and DOI, each a step of its own) keeps its
            // children's names in its memo, as TinyTree's arrays hold them, and tests them there:
            // a page's citation was walked a dozen times, header by header.
            ChildCache.Entry kids = m.children;
            AxisIterator it;
            if (axis == AxisInfo.CHILD) {
                if (kids == null && m != Memo.EMPTY) {
                    kids = ChildCache.build(tree, pos, first());
                }
                it = kids != null && kids.count() > 0 ? new ChildCache.Cached(tree, kids, Axes.Test.of(test, tree), this)
                        : new Axes.Siblings(tree, first(), Axes.Test.of(test, tree), this);
            } else {
                it = new Axes.Attributes(this, start(), first(), Axes.Test.of(test, tree));
            }
            // most answers are one node or none: an array only from the second
            StoredNode single = null;
            StoredNode[] found = null;
            int n = 0;
            for (NodeInfo x; (x = it.next()) != null; ) {
                if (n == 0) {
                    single = (StoredNode) x;
                } else {
                    if (n == MAX_ANSWER) {
                        memo = m.with(axis, test, null, TOO_MANY, kids);
                        return null;
                    }
                    if (found == null) {
                        found = new StoredNode[MAX_ANSWER];
                        found[0] = single;
                    }
                    found[n] = (StoredNode) x;
                }
                n++;
            }
            answer = n == 0 ? NONE : n == 1 ? single : Arrays.copyOf(found, n);
            if (m == Memo.EMPTY && answer instanceof StoredNode one && test instanceof NameTest t
                    && one.answers(axis, t)) {
                MEMO.setRelease(this, one);
            } else {
                memo = m.with(axis, test, null, answer, kids);
            }
        }
        if (answer == NONE) {
            return EmptyIterator.ofNodes();
        }
        if (answer == TOO_MANY) {
            return null;
        }
        if (answer instanceof StoredNode one) {
            return SingleNodeIterator.makeIterator(one);
        }
        return new ArrayIterator.OfNodes<>((StoredNode[]) answer);
    }

    /**
     * Whether this node, held as the only answer of its parent's memo, answers {@code axis::n}:
     * an element for a child step, an attribute for an attribute step, of the test's kind and name.
     */
    private boolean answers(int axis, NameTest n) {
        int k = axis == AxisInfo.CHILD ? Type.ELEMENT : Type.ATTRIBUTE;
        return kind == k && n.getNodeKind() == k && n.getFingerprint() == getFingerprint();
    }

    private static final VarHandle MEMO;

    static {
        try {
            MEMO = MethodHandles.lookup().findVarHandle(StoredNode.class, "memo", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int MAX_ANSWER = Memo.MAX_NODES;

    /** The first attribute of this element, or null. */
    StoredNode firstAttribute() {
        if (kind != Type.ELEMENT || attrLength() == 0) {
            return null;
        }
        AttrEntry e = new AttrEntry();
        e.read(tree, start());
        return new StoredNode(tree, e, pos);
    }

    /** The attribute after {@code a} in this element, or null. */
    StoredNode nextAttribute(StoredNode a) {
        if (a.end() >= first()) {
            return null;
        }
        AttrEntry e = new AttrEntry();
        e.read(tree, a.end());
        return new StoredNode(tree, e, pos);
    }

    @Override
    public String getAttributeValue(NamespaceUri uri, String local) {
        if (kind != Type.ELEMENT) {
            return null;
        }
        tree.checkOpen();
        if (headerLength == LAZY && memo instanceof AttributeColumns.Slice slice) {
            // a scan's candidate: its slice's column answers without the record (or the name pool)
            String[] column = slice.column(uri, local);
            if (column != null) {
                return column[slice.offset() + attrLength];
            }
            decode();
        }
        // asked again (a join's inner item): the memo answers by the identity of the two names,
        // before any fingerprint is looked up
        Memo m = memo(local);
        if (m != null) {
            Object answer = m.get(-1, uri, local);
            if (answer != null) {
                return answer == NONE ? null : (String) answer;
            }
        }
        int fp = tree.attributeFingerprint(uri, local);
        String v = fp == -1 ? null : attributeValue(fp);
        if (m != null) {
            memo = m.with(-1, uri, local, v == null ? NONE : v);
        }
        return v;
    }

    /** The value of this element's attribute with fingerprint {@code fp}, from its record, or null. */
    private String attributeValue(int fp) {
        long p = start();
        long limit = first();
        int o = (int) (p & Format.CHUNK_MASK);
        org.agrona.concurrent.UnsafeBuffer b = tree.chunk((int) (p >>> Format.CHUNK_SHIFT));
        int n = (int) (limit - p);
        if (o + n <= b.capacity()) {
            // the common case, the whole attribute block in one chunk: read the entries in place
            return attributeIn(b.addressOffset() + o, n, p, fp);
        }
        AttrEntry e = new AttrEntry();
        while (p < limit) {
            e.read(tree, p);
            if (tree.fingerprints[e.code] == fp) {
                return tree.attributeValue(e.value, e.length, (e.flags & Format.A_ASCII) != 0);
            }
            p = e.next;
        }
        return null;
    }

    /** The value of the attribute with fingerprint {@code fp} among the {@code n} bytes of entries at {@code a} (position {@code p}). */
    private String attributeIn(long a, int n, long p, int fp) {
        int[] fps = tree.fingerprints;
        int i = 0;
        while (i < n) {
            long v = 0;
            int shift = 0;
            byte x;
            do {
                x = UNSAFE.getByte(a + i++);
                v |= (long) (x & 0x7F) << shift;
                shift += 7;
            } while (x < 0 && shift < 64);
            int len = 0;
            shift = 0;
            do {
                x = UNSAFE.getByte(a + i++);
                len |= (x & 0x7F) << shift;
                shift += 7;
            } while (x < 0 && shift < 35);
            if (len < 0 || i + len > n) {
                throw tree.corrupt(p + i, "an attribute entry runs past its element's header");
            }
            if (fps[(int) (v >>> Format.A_SHIFT)] == fp) {
                return tree.attributeValue(p + i, len, (v & Format.A_ASCII) != 0);
            }
            i += len;
        }
        return null;
    }

    @Override
    public AttributeMap attributes() {
        if (kind != Type.ELEMENT) {
            return EmptyAttributeMap.getInstance();
        }
        tree.checkOpen();
        return attributes(start(), first());
    }

    AttributeMap attributes(long from, long end) {
        if (from == end) {
            return EmptyAttributeMap.getInstance();
        }
        List<AttributeInfo> list = new ArrayList<>();
        long p = from;
        AttrEntry e = new AttrEntry();
        while (p < end) {
            e.read(tree, p);
            // no IS_ID/IS_IDREF properties: TinyTree's attribute maps carry none either
            list.add(new AttributeInfo(tree.names[e.code], BuiltInAtomicType.UNTYPED_ATOMIC,
                    tree.attributeValue(e.value, e.length, (e.flags & Format.A_ASCII) != 0), Loc.NONE,
                    ReceiverOption.NONE));
            p = e.next;
        }
        if (list.size() == 1) {
            return SingletonAttributeMap.of(list.get(0));
        }
        return list.size() <= SmallAttributeMap.LIMIT ? new SmallAttributeMap(list) : new LargeAttributeMap(list);
    }

    @Override
    public void generateId(StringBuilder buffer) {
        buffer.append('s').append(tree.documentNumber).append(LETTER[kind]).append(pos);
    }

    @Override
    public NamespaceBinding[] getDeclaredNamespaces(NamespaceBinding[] buffer) {
        if (kind != Type.ELEMENT) {
            return null;
        }
        NamespaceMap own = getAllNamespaces();
        StoredNode p = getParent();
        NamespaceMap above = p.kind == Type.ELEMENT ? p.getAllNamespaces() : NamespaceMap.emptyMap();
        return own.getDifferences(above, true);
    }

    @Override
    public NamespaceMap getAllNamespaces() {
        if (kind != Type.ELEMENT) {
            return null;
        }
        tree.checkOpen();
        if (headerLength == LAZY) {
            decode();
        }
        return ns < 0 ? NamespaceMap.emptyMap() : tree.namespaces(ns);
    }

    private NamespaceMap namespaces(Rec r) {
        return r.ns < 0 ? NamespaceMap.emptyMap() : tree.namespaces(r.ns);
    }

    /**
     * As in TinyTree, the is-id property comes only from a type annotation (schema or retained DTD
     * types), which stored trees never carry; xml:id and DTD ID attributes are still found by
     * {@code id()} through {@link StoredTree#selectID}.
     */
    @Override
    public boolean isId() {
        return false;
    }

    /** Whether the attribute was declared ID or is xml:id, which is what the ID index holds. */
    boolean isIdAttribute() {
        return kind == Type.ATTRIBUTE && (tag & Format.A_ID) != 0;
    }

    @Override
    public boolean isIdref() {
        return kind == Type.ATTRIBUTE && (tag & Format.A_IDREF) != 0;
    }

    @Override
    public boolean isNilled() {
        return false;
    }

    /**
     * Copies without recursion: the records of a subtree are contiguous and END bytes close the
     * elements, so a linear scan with a depth counter replays the events (a 1 GB document copies
     * in constant memory).
     */
    @Override
    public void copy(Receiver out, int copyOptions, Location locationId) throws XPathException {
        tree.checkOpen();
        switch (kind) {
            case Type.DOCUMENT -> {
                out.startDocument(CopyOptions.getStartDocumentProperties(copyOptions));
                Rec r = rec();
                copyContent(out, r, r.first, copyOptions, locationId, 0);
                out.endDocument();
            }
            case Type.ELEMENT -> {
                Rec r = rec();
                startElement(out, r, copyOptions, locationId);
                if (r.hasChildren()) {
                    copyContent(out, r, r.first, copyOptions, locationId, 1);
                } else {
                    out.endElement();
                }
            }
            case Type.TEXT -> out.characters(getUnicodeStringValue(), locationId, ReceiverOption.NONE);
            case Type.COMMENT -> out.comment(getUnicodeStringValue(), locationId, ReceiverOption.NONE);
            case Type.PROCESSING_INSTRUCTION -> out.processingInstruction(getLocalPart(), getUnicodeStringValue(),
                    locationId, ReceiverOption.NONE);
            case Type.ATTRIBUTE -> throw new IllegalArgumentException("an attribute node cannot be copied to a Receiver"
                    + " on its own");
            default -> throw new IllegalStateException("node kind " + kind);
        }
    }

    /**
     * Replays records from {@code p}; with {@code depth} 1 the END of the element being copied
     * ends the scan, with 0 (document) the document's END does.
     */
    private void copyContent(Receiver out, Rec r, long p, int options, Location loc, int depth) throws XPathException {
        while (true) {
            r.read(p);
            switch (r.kind) {
                case Format.END -> {
                    if (depth == 0) {
                        return;
                    }
                    out.endElement();
                    if (--depth == 0) {
                        return;
                    }
                    p++;
                }
                case Format.ELEMENT -> {
                    startElement(out, r, options, loc);
                    if (r.hasChildren()) {
                        depth++;
                        p = r.first;
                    } else {
                        out.endElement();
                        p = r.end;
                    }
                }
                case Format.TEXT -> {
                    out.characters(tree.text(r.content(), r.length, r.ascii), loc, ReceiverOption.WHOLE_TEXT_NODE);
                    p = r.end;
                }
                case Format.COMMENT -> {
                    out.comment(tree.text(r.content(), r.length, r.ascii), loc, ReceiverOption.NONE);
                    p = r.end;
                }
                case Format.PI -> {
                    out.processingInstruction(tree.names[r.code].getLocalPart(), tree.text(r.content(), r.length, r.ascii), loc,
                            ReceiverOption.NONE);
                    p = r.end;
                }
                default -> throw tree.corrupt(p, "unexpected record kind " + r.kind + " in element content");
            }
        }
    }

    /**
     * Mirrors TinyTree's element copy, so that results are identical: the element bequeaths only
     * the namespaces it passes on, and without ALL_NAMESPACES it passes only those its own name and
     * its attributes' names use.
     */
    private void startElement(Receiver out, Rec r, int options, Location loc) throws XPathException {
        NodeName name = tree.names[r.code];
        AttributeMap atts = attributes(r.attrs(), r.first);
        NamespaceMap ns;
        if (CopyOptions.includes(options, CopyOptions.ALL_NAMESPACES)) {
            ns = namespaces(r);
        } else {
            ns = name.getNamespaceUri().isEmpty() ? NamespaceMap.emptyMap()
                    : NamespaceMap.of(name.getPrefix(), name.getNamespaceUri());
            for (AttributeInfo a : atts) {
                NodeName an = a.getNodeName();
                if (!an.getPrefix().isEmpty()) {
                    ns = ns.put(an.getPrefix(), an.getNamespaceUri());
                }
            }
        }
        int props = ReceiverOption.BEQUEATH_INHERITED_NAMESPACES_ONLY;
        if (CopyOptions.includes(options, CopyOptions.FOR_UPDATE)) {
            props |= ReceiverOption.MUTABLE_TREE;
        }
        out.startElement(name, Untyped.getInstance(), atts, ns, loc, props);
    }

    @Override
    public String toShortString() {
        return switch (kind) {
            case Type.DOCUMENT -> "document-node(" + tree.systemId + ")";
            case Type.ELEMENT -> "<" + getDisplayName() + ">";
            case Type.ATTRIBUTE -> "@" + getDisplayName();
            case Type.TEXT -> "text()";
            case Type.COMMENT -> "<!--...-->";
            default -> "<?" + getDisplayName() + "?>";
        };
    }

    @Override
    public String toString() {
        return toShortString() + " at " + pos + " in " + tree.systemId;
    }
}
