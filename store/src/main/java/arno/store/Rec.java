package arno.store;

import java.nio.ByteOrder;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Decodes one record header of a {@link StoredTree} into fields. Reused by an iterator for every
 * record it passes, so a scan allocates only the nodes it returns. Not thread-safe.
 *
 * <p>All reads of a header come from the chunk its tag is in: the chunk's 64-byte overlap with
 * the next one covers the longest header (see {@link Format}).
 */
final class Rec {

    private final StoredTree t;

    long pos;
    int tag;
    int kind;
    /** Name code (element, PI), else -1. */
    int code;
    /** Position of the parent record; -1 for the document. */
    long parent;
    /** Element, document: first child, or for a leaf element the end of its header. Others: end. */
    long first;
    /** Position just after the whole subtree: the next sibling or the parent's END. */
    long end;
    /** Element: index of its namespace map, -1 if none in scope. */
    int ns;
    /** Element: start and byte length of the attribute entries. */
    long attrs;
    int attrBytes;
    /** Text, comment, PI: start and byte length of the UTF-8 content. */
    long content;
    int length;

    private UnsafeBuffer b;
    private int o;

    Rec(StoredTree t) {
        this.t = t;
    }

    void read(long p) {
        pos = p;
        int o0 = (int) (p & Format.CHUNK_MASK);
        UnsafeBuffer buf = t.chunk((int) (p >>> Format.CHUNK_SHIFT));
        b = buf;
        o = o0 + 1;
        long base = p - o0;
        int tg = buf.getByte(o0) & 0xFF;
        tag = tg;
        int k = tg & Format.KIND_MASK;
        kind = k;
        switch (k) {
            case Format.ELEMENT -> {
                code = varint();
                parent = p - varlong();
                int size = -1;
                if ((tg & Format.F_CHILDREN) != 0) {
                    size = buf.getShort(o, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
                    o += 2;
                }
                ns = (tg & Format.F_NS) != 0 ? varint() : -1;
                attrBytes = (tg & Format.F_ATTRS) != 0 ? varint() : 0;
                attrs = base + o;
                first = attrs + attrBytes;
                end = size < 0 ? first : size == Format.BIG ? p + t.bigSize(p) : p + size;
            }
            case Format.TEXT, Format.COMMENT -> {
                code = -1;
                parent = p - varlong();
                textTail(tg, base);
            }
            case Format.PI -> {
                code = varint();
                parent = p - varlong();
                textTail(tg, base);
            }
            case Format.DOCUMENT -> {
                code = -1;
                parent = -1;
                ns = -1;
                int size = buf.getShort(o, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
                o += 2;
                attrs = base + o;
                attrBytes = 0;
                first = attrs;
                end = size == Format.BIG ? p + t.bigSize(p) : p + size;
            }
            case Format.END -> {
                code = -1;
                first = p + 1;
                end = p + 1;
            }
            default -> throw t.corrupt(p, "unknown record tag " + tg);
        }
    }

    private void textTail(int tg, long base) {
        int l = tg >>> 3;
        if (l == Format.LENGTH_FOLLOWS) {
            l = varint();
        }
        length = l;
        content = base + o;
        first = content + l;
        end = first;
    }

    boolean hasChildren() {
        return (tag & Format.F_CHILDREN) != 0;
    }

    private int varint() {
        return (int) varlong();
    }

    private long varlong() {
        UnsafeBuffer buf = b;
        int i = o;
        byte x = buf.getByte(i++);
        if (x >= 0) {
            o = i;
            return x;
        }
        long v = x & 0x7F;
        int shift = 7;
        do {
            x = buf.getByte(i++);
            v |= (long) (x & 0x7F) << shift;
            shift += 7;
        } while (x < 0);
        o = i;
        return v;
    }
}
