package arno.store;

import static org.agrona.UnsafeAccess.UNSAFE;

import arno.xml.ErrorMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.GenericTreeInfo;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.str.StringView;
import net.sf.saxon.str.Twine8;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.type.Type;


/**
 * A stored document seen as a Saxon tree, for one snapshot and one Configuration. Opening it reads
 * the path entry, the header and the first chunk (three B+tree lookups), nothing else: other chunks, the namespace
 * table and the large-size table are fetched when first needed, so opening costs the same for a
 * 1 KB and a 1 GB document.
 *
 * <p>Threads: safe for concurrent readers (chunk loading is serialized on the snapshot and
 * published with release/acquire).
 */
final class StoredTree extends GenericTreeInfo {

    private static final long BYTE_ARRAY_BASE = UNSAFE.arrayBaseOffset(byte[].class);
    private static final VarHandle CHUNKS = MethodHandles.arrayElementVarHandle(UnsafeBuffer[].class);
    static final int[] SAXON_KIND = {-1, Type.ELEMENT, Type.TEXT, Type.COMMENT, Type.PROCESSING_INSTRUCTION,
            Type.DOCUMENT, -1, -1};

    final Snapshot snapshot;
    final DocHeader header;
    final long docId;
    final int[] fingerprints;
    final NodeName[] names;
    final String[] locals;
    final long documentNumber;
    final String systemId;
    final StoredNode root;
    /**
     * Ranges of this document shorter than this are scanned, not read from its structural index
     * ({@link Axes#byName}): the store's {@link Store#indexMinRangeBytes}, or {@code Long.MAX_VALUE}
     * when the document has no index ({@link Store#hasNameIndex}). Both settings folded into one
     * final field here, so the step that asks, once per descendant step under a name test, reads
     * one field of the tree it already holds.
     */
    final long scanBelow;
    /** The attribute columns of this tree's store (see {@link AttributeColumns}). */
    private final AttributeColumns columns;
    private final UnsafeBuffer first;
    private final UnsafeBuffer[] chunks;
    private volatile NamespaceMap[] nsMaps;
    private volatile UnsafeBuffer bigs;
    /**
     * Attribute names asked for by {@code getAttributeValue(uri, local)} and their fingerprints.
     * Saxon's {@code @name} step asks a non-TinyTree node by URI and local name, the same two
     * objects for every node it visits, so an identity check saves a NamePool lookup per node. A
     * join alternates a few names ({@code $t2/@id}, {@code @person}), which a single last name
     * made a NamePool lookup and an allocation each: 8 slots by the local name's hash (a String
     * caches it). Immutable records, so a racy read sees a whole entry or another.
     */
    record AttributeName(NamespaceUri uri, String local, int fingerprint) {
    }

    private final AttributeName[] attributeNames = new AttributeName[8];

    /** The fingerprint of an attribute name, -1 when the name pool has none (then no element has it). */
    int attributeFingerprint(NamespaceUri uri, String local) {
        int slot = local.hashCode() & (attributeNames.length - 1);
        AttributeName a = attributeNames[slot];
        if (a != null && a.uri == uri && a.local == local) {
            return a.fingerprint;
        }
        int fp = getConfiguration().getNamePool().getFingerprint(uri, local);
        attributeNames[slot] = new AttributeName(uri, local, fp);
        return fp;
    }

    /** Children of recently revisited elements, for named child steps. */
    final ChildCache childCache;

    /**
     * Name tests compiled for this tree's iterators, by identity (immutable; racy reads see each
     * whole). A page's stylesheet asks a few hundred different steps of one tree: with 8 slots
     * most of them made a new test each time.
     */
    final Axes.Test[] nameTests = new Axes.Test[64];

    /** The store's names by code, with their index by fingerprint ({@link #codes}). */
    private final Namebase.Table table;

    StoredTree(Snapshot snapshot, DocHeader header, Configuration config, Namebase.Table table) {
        super(config);
        this.snapshot = snapshot;
        this.header = header;
        this.docId = header.docId();
        this.table = table;
        this.fingerprints = table.fingerprints;
        this.names = table.names;
        this.locals = table.locals;
        this.chunks = new UnsafeBuffer[header.chunks()];
        this.childCache = new ChildCache(header.length());
        this.first = snapshot.chunk(docId, 0);
        this.chunks[0] = first;
        this.documentNumber = config.getDocumentNumberAllocator().allocateDocumentNumber();
        setDocumentNumber(documentNumber);
        this.systemId = Store.SCHEME + header.uri();
        setSystemId(systemId);
        Store store = snapshot.store();
        this.scanBelow = store.hasNameIndex(header.length()) ? store.indexMinRangeBytes : Long.MAX_VALUE;
        this.columns = store.columns;
        Rec r = new Rec(this);
        r.read(0);
        this.root = new StoredNode(this, r);
        setRootNode(root);
    }

    int chunkCount() {
        return chunks.length;
    }

    UnsafeBuffer chunk(int i) {
        if (i == 0) {
            return first;
        }
        UnsafeBuffer b = (UnsafeBuffer) CHUNKS.getAcquire(chunks, i);
        return b != null ? b : load(i);
    }

    private UnsafeBuffer load(int i) {
        if (i < 0 || i >= chunks.length) {
            throw corrupt((long) i << Format.CHUNK_SHIFT, "position beyond the document's " + chunks.length + " chunks");
        }
        UnsafeBuffer b = snapshot.chunk(docId, i);
        CHUNKS.setRelease(chunks, i, b);
        return b;
    }

    /** Size of a subtree whose size field says BIG: binary search in the sorted BIGS table. */
    long bigSize(long pos) {
        UnsafeBuffer t = bigs;
        if (t == null) {
            t = snapshot.entry(docId, Keys.BIGS);
            if (t == null) {
                throw corrupt(pos, "a large subtree but no BIGS table");
            }
            bigs = t;
        }
        int lo = 0;
        int hi = t.capacity() / 16 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long p = t.getLong(mid * 16, Keys.BE);
            if (p < pos) {
                lo = mid + 1;
            } else if (p > pos) {
                hi = mid - 1;
            } else {
                return t.getLong(mid * 16 + 8, Keys.BE);
            }
        }
        throw corrupt(pos, "no BIGS entry for a large subtree");
    }

    /**
     * The name codes of this document whose fingerprint is {@code fp}: usually one, more when the
     * same name is written with several prefixes. From the table's index by fingerprint (made once
     * for the store), less the codes named after this document was written, so that a name test
     * asked per context node (as in {@code //a//b}) costs a hash probe. The array returned is
     * shared: callers never change it.
     */
    int[] codes(int fp) {
        int[] all = table.codes(fp);
        int n = Math.min(header.nameCodes(), fingerprints.length);
        if (all.length == 0 || all[all.length - 1] < n) {
            return all;
        }
        int k = 0;
        while (k < all.length && all[k] < n) {
            k++;
        }
        return java.util.Arrays.copyOf(all, k);
    }

    /** Run directories of the name lists asked, direct-mapped by (kind, code); see {@link NameIndex#directory}. */
    private final RunDirectory[] runDirectories = new RunDirectory[64];

    /** A list's directory with its key (immutable, so a racy slot holds a whole pair or a miss). */
    private record RunDirectory(byte kind, int code, NameIndex.Runs runs) {
    }

    NameIndex.Runs runDirectory(byte kind, int code) {
        int slot = (code * 2 + kind) & (runDirectories.length - 1);
        RunDirectory d = runDirectories[slot];
        if (d != null && d.code == code && d.kind == kind) {
            return d.runs;
        }
        d = new RunDirectory(kind, code, NameIndex.directory(this, kind, code));
        runDirectories[slot] = d;
        return d.runs;
    }

    /**
     * The columns this tree's slices used, by (element code, attribute name identity; a name's
     * positions with no attribute name): a slice per iterator then finds its column without the
     * store-wide map (a synchronized lookup). Every one-name index step asks for its positions, so
     * 64 slots keep those and a few columns from evicting each other (256 bytes). A column evicted
     * from that map stays reachable from here while this tree lives (one snapshot).
     */
    final ColumnRef[] columnRefs = new ColumnRef[64];

    record ColumnRef(int code, NamespaceUri uri, String local, AttributeColumns.Column column) {
    }

    AttributeColumns columns() {
        return columns;
    }

    /** The key buffer of this tree's index seeks (a direct buffer: made once); used under the snapshot's lock. */
    private Keys keys;

    Keys keys() {
        Keys k = keys;
        if (k == null) {
            k = new Keys();
            keys = k;
        }
        return k;
    }

    /**
     * Counts of the elements of a name code in the whole document, as asked: {@code count(//name)}
     * asked again (per page, per template) costs a map lookup, as in TinyTree, which keeps each
     * name's element list once built.
     */
    private final java.util.concurrent.ConcurrentHashMap<Integer, Long> elementCounts =
            new java.util.concurrent.ConcurrentHashMap<>();

    long elementCount(int code) {
        Long n = elementCounts.get(code);
        if (n == null) {
            n = new NameIndex.Positions(this, NameIndex.ELEMENTS, code, 0).count(Long.MAX_VALUE);
            elementCounts.putIfAbsent(code, n);
        }
        return n;
    }

    NamespaceMap namespaces(int index) {
        NamespaceMap[] maps = nsMaps;
        if (maps == null) {
            maps = decodeNamespaces();
            nsMaps = maps;
        }
        if (index < 0 || index >= maps.length) {
            throw corrupt(-1, "namespace map " + index + " of " + maps.length);
        }
        return maps[index];
    }

    /** Entries in the document's namespace-map table (0 when it has none). */
    int namespaceCount() {
        if ((header.flags() & DocHeader.HAS_NSMAPS) == 0) {
            return 0;
        }
        NamespaceMap[] maps = nsMaps;
        if (maps == null) {
            maps = decodeNamespaces();
            nsMaps = maps;
        }
        return maps.length;
    }

    private NamespaceMap[] decodeNamespaces() {
        UnsafeBuffer b = snapshot.entry(docId, Keys.NSMAPS);
        if (b == null) {
            throw corrupt(-1, "elements have namespaces but there is no NSMAPS table");
        }
        int[] at = {0};
        int count = (int) varint(b, at);
        NamespaceMap[] maps = new NamespaceMap[count];
        for (int i = 0; i < count; i++) {
            int n = (int) varint(b, at);
            List<NamespaceBinding> list = new ArrayList<>(n);
            for (int j = 0; j < n; j++) {
                String prefix = string(b, at);
                String uri = string(b, at);
                list.add(new NamespaceBinding(prefix, NamespaceUri.of(uri)));
            }
            maps[i] = new NamespaceMap(list);
        }
        return maps;
    }

    private static long varint(UnsafeBuffer b, int[] at) {
        long v = 0;
        int shift = 0;
        byte x;
        do {
            x = b.getByte(at[0]++);
            v |= (long) (x & 0x7F) << shift;
            shift += 7;
        } while (x < 0);
        return v;
    }

    private static String string(UnsafeBuffer b, int[] at) {
        int len = (int) varint(b, at);
        String s = Keys.string(b, at[0], len);
        at[0] += len;
        return s;
    }

    /**
     * Values up to this many bytes are copied word by word in Java: {@code Unsafe.copyMemory} is
     * a native call whose fixed cost (a thread-state transition) was a sixth of a
     * {@code //x[@y = 'z']} scan, for three-byte values.
     */
    static final int SHORT_COPY = 128;

    /** Copies {@code len} bytes at {@code pos} (possibly across chunks) into {@code dst}. */
    void bytes(long pos, int len, byte[] dst, int dstOff) {
        if (dstOff < 0 || len < 0 || dstOff + len > dst.length) {
            throw new IndexOutOfBoundsException("copy of " + len + " bytes at " + dstOff + " into " + dst.length);
        }
        if (len <= SHORT_COPY) {
            int o = (int) (pos & Format.CHUNK_MASK);
            UnsafeBuffer b = chunk((int) (pos >>> Format.CHUNK_SHIFT));
            // a value ending in the chunk's overlap reads the copy of the next chunk's first bytes
            if (o + len <= b.capacity()) {
                long a = b.addressOffset() + o;
                long d = BYTE_ARRAY_BASE + dstOff;
                int i = 0;
                for (; i + 8 <= len; i += 8) {
                    UNSAFE.putLong(dst, d + i, UNSAFE.getLong(a + i));
                }
                for (; i < len; i++) {
                    UNSAFE.putByte(dst, d + i, UNSAFE.getByte(a + i));
                }
                return;
            }
        }
        while (len > 0) {
            int o = (int) (pos & Format.CHUNK_MASK);
            UnsafeBuffer b = chunk((int) (pos >>> Format.CHUNK_SHIFT));
            int n = Math.min(len, Format.CHUNK_SIZE - o);
            if (o + n > b.capacity()) {
                throw corrupt(pos, "value of " + len + " bytes runs past the end of its chunk");
            }
            // one bounds check per piece above, instead of Agrona's two per call
            UNSAFE.copyMemory(null, b.addressOffset() + o, dst, BYTE_ARRAY_BASE + dstOff, n);
            pos += n;
            dstOff += n;
            len -= n;
        }
    }

    UnicodeString text(long pos, int len, boolean ascii) {
        byte[] b = new byte[len];
        bytes(pos, len, b, 0);
        return ascii ? new Twine8(b) : decode(b, len);
    }

    String string(long pos, int len) {
        byte[] b = new byte[len];
        bytes(pos, len, b, 0);
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * Attribute values of at most this many bytes go through the value caches: the four words a
     * {@link Word} keys them by, so the two cannot drift apart (a longer value would be keyed by
     * its first 32 bytes only).
     */
    private static final int CACHED_VALUE_BYTES = 4 * Long.BYTES;

    /**
     * Recent short ASCII attribute values, direct-mapped by a hash of their bytes: as Strings
     * ({@code getAttributeValue}, which must return one) and as Saxon strings (atomizing an
     * attribute node). Such values repeat (types, roles, languages, flags: {@code linktype="nav"}
     * on every link), and queries ask for the same ones again and again (a nested-loop join
     * compares {@code $t/buyer/@person} with every {@code $p/@id}): a hit costs a hash and a compare
     * of the value's bytes read in place, instead of a byte array, a String and two copies, and
     * hands back an object whose hash code is already computed. Unique values (ids) only pay the
     * hash and replace a slot. Made once the tree has read {@link #CACHE_AFTER} short values (see
     * {@link #valueReads}), with a slot per 256 record bytes (64 to 4,096).
     *
     * <p>A value's bytes are keyed as four words (first byte lowest, unused bytes zero): hashed
     * with a few multiplies and compared with five tests, where byte by byte the hash and the
     * compare took half of the cache's time on a page. A {@link Word}'s fields are final, so a
     * slot read racily across threads is whole.
     */
    private Word[] strings;
    private Word[] texts;
    /**
     * Short ASCII values read so far: the caches start after {@link #CACHE_AFTER}. A page's one
     * pass over an article (hundreds of such values, most read once) paid for the cache's misses
     * (a key, a copy and a slot each) more than its hits saved: without it the page's store CPU
     * was 44 µs less and its allocation lower (perf/RESULTS.md, twelfth session). A join over a
     * large document reads the same values millions of times, and gets the cache after its first
     * few thousand reads. Counted without synchronisation: threads sharing a tree may start it a
     * little later, which changes no answer.
     */
    private int valueReads;
    static final int CACHE_AFTER = 4096;

    private record Word(long w0, long w1, long w2, long w3, int len, Object value) {
    }

    /** Whether a value cache was made (tests). */
    boolean valueCacheMade() {
        return strings != null || texts != null;
    }

    private static final boolean LITTLE_ENDIAN = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    private int slots() {
        long n = Math.max(64, Math.min(4096, header.length() >>> 8));
        return Integer.highestOneBit((int) n);
    }

    /** The start address of a short value when it can be read in place (its chunk holds it), else 0. */
    private long inPlace(long pos, int len) {
        int o = (int) (pos & Format.CHUNK_MASK);
        UnsafeBuffer b = chunk((int) (pos >>> Format.CHUNK_SHIFT));
        return o + len <= b.capacity() ? b.addressOffset() + o : 0;
    }

    /** The {@code left} bytes at {@code a} (at most 8 of them count) as a word, first byte lowest. */
    private static long word(long a, int left) {
        if (left <= 0) {
            return 0;
        }
        long w = UNSAFE.getLong(a);
        if (!LITTLE_ENDIAN) {
            w = Long.reverseBytes(w);
        }
        return left >= 8 ? w : w & ((1L << (left << 3)) - 1);
    }

    /**
     * A short ASCII value from its cache ({@link #strings} as a String, {@link #texts} as a
     * Twine8), or null when its words cannot be read in place (the last ones would cross its
     * chunk's end).
     */
    private Object cached(long pos, int len, boolean text) {
        long a = inPlace(pos, Math.max(8, (len + 7) & ~7));
        if (a == 0) {
            return null;
        }
        long w0 = word(a, len);
        long w1 = word(a + 8, len - 8);
        long w2 = word(a + 16, len - 16);
        long w3 = word(a + 24, len - 24);
        Word[] cache = text ? texts : strings;
        if (cache == null) {
            cache = new Word[slots()];
            if (text) {
                texts = cache;
            } else {
                strings = cache;
            }
        }
        long h = (w0 + len) * 0x9E3779B97F4A7C15L;
        h = (h ^ w1) * 0x9E3779B97F4A7C15L;
        h = (h ^ w2) * 0x9E3779B97F4A7C15L;
        h = (h ^ w3) * 0x9E3779B97F4A7C15L;
        int slot = (int) (h >>> 40) & (cache.length - 1);
        Word hit = cache[slot];
        if (hit != null && hit.w0 == w0 && hit.w1 == w1 && hit.w2 == w2 && hit.w3 == w3 && hit.len == len) {
            return hit.value;
        }
        byte[] copy = new byte[len];
        UNSAFE.copyMemory(null, a, copy, BYTE_ARRAY_BASE, len);
        Object value = text ? new Twine8(copy) : new String(copy, StandardCharsets.ISO_8859_1);
        cache[slot] = new Word(w0, w1, w2, w3, len, value);
        return value;
    }

    /** Whether a value goes through the caches: short and ASCII, once the tree has read enough of them. */
    private boolean cacheable(int len, boolean ascii) {
        return ascii && len <= CACHED_VALUE_BYTES && (valueReads > CACHE_AFTER || ++valueReads > CACHE_AFTER);
    }

    /** An attribute value as a String, from the cache when short and ASCII. */
    String attributeValue(long pos, int len, boolean ascii) {
        if (cacheable(len, ascii)) {
            Object v = cached(pos, len, false);
            if (v != null) {
                return (String) v;
            }
        }
        return string(pos, len);
    }

    /** An attribute value as a Saxon string, from the cache when short and ASCII. */
    UnicodeString attributeText(long pos, int len, boolean ascii) {
        if (cacheable(len, ascii)) {
            Object v = cached(pos, len, true);
            if (v != null) {
                return (Twine8) v;
            }
        }
        return text(pos, len, ascii);
    }

    /** UTF-8 to Saxon's string: ASCII stays in its bytes (Twine8), the rest goes through String. */
    static UnicodeString decode(byte[] b, int len) {
        for (int i = 0; i < len; i++) {
            if (b[i] < 0) {
                return StringView.of(new String(b, 0, len, StandardCharsets.UTF_8));
            }
        }
        return new Twine8(len == b.length ? b : java.util.Arrays.copyOf(b, len));
    }

    StoredNode node(Rec r) {
        return new StoredNode(this, r);
    }

    StoredNode nodeAt(long pos) {
        if (pos == 0) {
            return root;
        }
        Rec r = new Rec(this);
        r.read(pos);
        return node(r);
    }

    /**
     * Fails clearly when the snapshot was closed. A plain read, as it is on every axis step: it is
     * a diagnostic, not what keeps memory safe (closing the store refuses while snapshots are open,
     * so the pages stay mapped), and the thread that closed the snapshot always sees it.
     */
    void checkOpen() {
        if (snapshot.closedPlain) {
            snapshot.checkOpen();
        }
    }

    StoreException corrupt(long pos, String what) {
        return (pos >= 0 ? new StoreException(ErrorMessage.CORRUPT_AT, systemId, docId, pos, what)
                : new StoreException(ErrorMessage.CORRUPT, systemId, docId, what));
    }

    @Override
    public NodeInfo selectID(String id, boolean getParent) {
        checkOpen();
        Long p = snapshot.id(docId, id);
        if (p == null) {
            return scanForId(id);
        }
        return p < 0 ? null : nodeAt(p);
    }

    /** Ids too long for an LMDB key are not indexed; find them the slow way. */
    private NodeInfo scanForId(String id) {
        if ((header.flags() & DocHeader.HAS_IDS) == 0) {
            return null;
        }
        Rec r = new Rec(this);
        long p = 0;
        long limit = header.length();
        while (p < limit) {
            r.read(p);
            if (r.kind == Format.ELEMENT && r.attrBytes > 0) {
                StoredNode e = node(r);
                for (StoredNode a = e.firstAttribute(); a != null; a = e.nextAttribute(a)) {
                    if (a.isIdAttribute() && a.getStringValue().equals(id)) {
                        return e;
                    }
                }
            }
            p = r.kind == Format.END ? p + 1 : r.first;
        }
        return null;
    }

    @Override
    public boolean isTyped() {
        return false;
    }
}
