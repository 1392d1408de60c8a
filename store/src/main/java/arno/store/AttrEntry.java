package arno.store;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Decodes one attribute entry ({@code name<<3|flags, length, UTF-8 value}) of an element
 * header. The two varints always come from the entry's own chunk (overlap); the value may span
 * chunks and is read with {@link StoredTree#bytes}. Reusable, not thread-safe; the attribute
 * iterator extends it, so that an attribute step allocates one object besides the nodes it returns.
 */
class AttrEntry {

    long pos;
    int code;
    int flags;
    long value;
    int length;
    /** Position of the next entry (or the end of the attributes). */
    long next;

    void read(StoredTree t, long p) {
        pos = p;
        int o = (int) (p & Format.CHUNK_MASK);
        UnsafeBuffer b = t.chunk((int) (p >>> Format.CHUNK_SHIFT));
        long v = 0;
        int shift = 0;
        byte x;
        do {
            x = b.getByte(o++);
            v |= (long) (x & 0x7F) << shift;
            shift += 7;
        } while (x < 0);
        code = (int) (v >>> Format.A_SHIFT);
        flags = (int) (v & ((1 << Format.A_SHIFT) - 1));
        int len = 0;
        shift = 0;
        do {
            x = b.getByte(o++);
            len |= (x & 0x7F) << shift;
            shift += 7;
        } while (x < 0);
        length = len;
        value = p - (p & Format.CHUNK_MASK) + o;
        next = value + len;
    }
}
