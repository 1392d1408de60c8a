package arno.store;

/**
 * The binary layout of a stored document, version 4 (version 3 had no path summary and no value
 * indexes, see {@link Indexer}; version 2 had no structural index, see
 * {@link NameIndex}; version 1 had no binary documents, media types, references or commit times).
 *
 * <h2>Records</h2>
 * A document is one byte stream of records in document order (pre-order), so that a node's
 * position is its identity and document order is the order of positions. Each record starts with
 * a tag byte: the kind in the low 3 bits, flags or a short length in the high 5. Integers are
 * unsigned LEB128 varints unless said otherwise.
 *
 * <pre>
 * DOCUMENT  tag size:u16le            children… END
 * ELEMENT   tag name parent [size:u16le] [ns] [attrBytes attrs…] [children… END]
 *             flags: ATTRS (attrBytes and attrs follow), CHILDREN (size, children and END follow),
 *                    NS (index of the in-scope namespace map follows)
 *             attr  = name&lt;&lt;3|ascii&lt;&lt;2|idflags  length  UTF-8 bytes
 * TEXT      tag parent&lt;&lt;1|ascii [length] UTF-8 bytes     (length in the tag when below 31)
 * COMMENT   tag parent&lt;&lt;1|ascii [length] UTF-8 bytes
 * PI        tag name parent&lt;&lt;1|ascii [length] UTF-8 bytes
 * END       0x00: the end of a parent's children
 * </pre>
 *
 * {@code ascii} says the value is all ASCII, so reading it is one copy into Saxon's 8-bit string
 * without a scan. {@code parent} is the distance back to the parent's record, so parent is O(1) and needs no
 * fix-up. {@code size} is the distance to the end of the subtree, so next-sibling is O(1): the
 * record there is the sibling, or END. First child is the record right after the header, and the
 * attributes are in the header, so both are O(1) too. A size that does not fit in 16 bits is
 * stored as 0xFFFF and looked up in the document's BIGS table (few entries: only subtrees over
 * 64 KiB). This lets the writer stream: it writes 0xFFFF first and patches small sizes in place,
 * which is always possible because it keeps the last 128 KiB in memory.
 *
 * <h2>Chunks</h2>
 * The stream is cut into 1 MiB chunks, each an LMDB value (a run of contiguous overflow pages),
 * so a document may be far larger than memory and is still navigated in place. Each chunk also
 * carries a copy of the first {@link #OVERLAP} bytes of the next one, so that any record header
 * starting in a chunk can be decoded from that chunk alone; only long text may span chunks.
 *
 * <h2>Names and namespaces</h2>
 * Names are codes in the store's persistent namebase (prefix, URI, local name); each
 * {@code Configuration} maps them once to NamePool fingerprints. An element's in-scope namespaces
 * are an index into the document's table of distinct namespace maps (elements without the NS flag
 * have none but the xml namespace).
 */
final class Format {

    /** The format version written in the store's meta database; other versions are refused. */
    static final int VERSION = 4;

    static final int CHUNK_SHIFT = 20;
    static final int CHUNK_SIZE = 1 << CHUNK_SHIFT;
    static final int CHUNK_MASK = CHUNK_SIZE - 1;
    /** Longest record header: tag 1 + name 5 + parent 10 + size 2 + ns 5 + attrBytes 5, with room. */
    static final int OVERLAP = 64;

    static final int END = 0;
    static final int ELEMENT = 1;
    static final int TEXT = 2;
    static final int COMMENT = 3;
    static final int PI = 4;
    static final int DOCUMENT = 5;

    static final int KIND_MASK = 0x07;
    static final int F_ATTRS = 0x08;
    static final int F_CHILDREN = 0x10;
    static final int F_NS = 0x20;

    /** Inline lengths of TEXT, COMMENT and PI records: 0..30 in the tag, 31 means a varint follows. */
    static final int INLINE_LENGTH_MAX = 30;
    static final int LENGTH_FOLLOWS = 31;

    /** A size field holding this value means "see the BIGS table". */
    static final int BIG = 0xFFFF;

    /** Attribute flags: the attribute is an ID (xml:id or DTD ID), an IDREF(S); its value is ASCII. */
    static final int A_ID = 1;
    static final int A_IDREF = 2;
    static final int A_ASCII = 4;
    static final int A_SHIFT = 3;

    private Format() {
    }
}
