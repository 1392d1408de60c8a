package arno.store;

import static org.agrona.UnsafeAccess.UNSAFE;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Raw reading of record headers: positions on a record and reads its tag, varints and 16-bit
 * fields. Keeps the chunk of the previous record, since consecutive records nearly always share
 * it. Iterators extend it (so it must stay small: one is allocated per axis step that has
 * results). Not thread-safe.
 *
 * <p>Header bytes are read without Agrona's per-byte bounds checks: one check that the record
 * starts inside its chunk covers them, since a header never extends more than
 * {@link Format#OVERLAP} bytes past its start and the chunk carries that much of the next one.
 * (Damaged data can at worst read a few bytes past a chunk's last value, still inside the map,
 * and then fails the checker's structural tests.)
 */
class Cursor {

    final StoredTree t;
    private int chunkIndex = -1;
    private long chunkAddr;
    private int chunkCapacity;
    /** Offset of the next byte to read within the current chunk. */
    int o;

    Cursor(StoredTree t) {
        this.t = t;
    }

    /** Positions on the record at {@code p}; returns its tag byte. */
    final int at(long p) {
        int o0 = (int) (p & Format.CHUNK_MASK);
        int ci = (int) (p >>> Format.CHUNK_SHIFT);
        if (ci != chunkIndex) {
            UnsafeBuffer buf = t.chunk(ci);
            chunkAddr = buf.addressOffset();
            chunkCapacity = buf.capacity();
            chunkIndex = ci;
        }
        if (o0 >= chunkCapacity) {
            throw t.corrupt(p, "record beyond the end of chunk " + ci);
        }
        o = o0 + 1;
        return UNSAFE.getByte(chunkAddr + o0) & 0xFF;
    }

    /** The position of the next byte to read, as a document position, given the record's. */
    static long position(long recordPos, int offset) {
        return recordPos - (recordPos & Format.CHUNK_MASK) + offset;
    }

    final int u16() {
        long a = chunkAddr + o;
        o += 2;
        return (UNSAFE.getByte(a) & 0xFF) | (UNSAFE.getByte(a + 1) & 0xFF) << 8;
    }

    final int varint() {
        return (int) varlong();
    }

    final long varlong() {
        long a = chunkAddr;
        int i = o;
        byte x = UNSAFE.getByte(a + i++);
        if (x >= 0) {
            o = i;
            return x;
        }
        long v = x & 0x7F;
        int shift = 7;
        do {
            x = UNSAFE.getByte(a + i++);
            v |= (long) (x & 0x7F) << shift;
            shift += 7;
        } while (x < 0 && shift < 64);
        o = i;
        return v;
    }

    /**
     * The end of the child record at {@code p} (tag {@code tg}, kind {@code k}), the cursor just
     * past its name code if it has one: what a sibling walk reads of a record it does not keep.
     */
    final long skip(long p, int tg, int k) {
        long base = p - (p & Format.CHUNK_MASK);
        switch (k) {
            case Format.ELEMENT -> {
                varlong();
                if ((tg & Format.F_CHILDREN) != 0) {
                    int size = u16();
                    return size == Format.BIG ? p + t.bigSize(p) : p + size;
                }
                if ((tg & Format.F_NS) != 0) {
                    varint();
                }
                int attrs = (tg & Format.F_ATTRS) != 0 ? varint() : 0;
                return base + o + attrs;
            }
            case Format.TEXT, Format.COMMENT, Format.PI -> {
                varlong();
                int l = tg >>> 3;
                if (l == Format.LENGTH_FOLLOWS) {
                    l = varint();
                }
                return base + o + l;
            }
            default -> throw t.corrupt(p, "record tag " + tg + " where a sibling was expected");
        }
    }
}
