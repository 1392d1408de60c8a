package arno.store;

import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.lmdbjava.Dbi;
import org.lmdbjava.Txn;

/**
 * Writes a document's record stream into 1 MiB LMDB values as it is produced, holding at most two
 * chunks in memory. A chunk is written once the next one has {@link #FLUSH_AT} bytes: by then every
 * element that started in it and is still open is larger than 64 KiB, so its size goes to the BIGS
 * table and no size field in a written chunk (or in the overlap copied into it) is patched again.
 */
final class ChunkSink {

    static final int FLUSH_AT = 128 * 1024;

    private final Dbi<DirectBuffer> docs;
    private final Txn<DirectBuffer> txn;
    private final Keys keys = new Keys();
    private final long docId;

    /** Grows to a chunk as it fills: most documents (entries of 1–2 KB) never need the 1 MiB. */
    private byte[] cur = new byte[4096];
    private byte[] prev;
    private byte[] spare;
    private int index;
    private int off;

    ChunkSink(Dbi<DirectBuffer> docs, Txn<DirectBuffer> txn, long docId) {
        this.docs = docs;
        this.txn = txn;
        this.docId = docId;
    }

    long position() {
        return ((long) index << Format.CHUNK_SHIFT) + off;
    }

    /** Called at record boundaries: writes the previous chunk once it can no longer change. */
    void maybeFlush() {
        if (prev != null && off >= FLUSH_AT) {
            flushPrevious();
        }
    }

    void write(int b) {
        if (off == Format.CHUNK_SIZE) {
            advance();
        } else if (off == cur.length) {
            cur = Arrays.copyOf(cur, Math.min(Format.CHUNK_SIZE, cur.length * 2));
        }
        cur[off++] = (byte) b;
    }

    void write(byte[] b, int from, int len) {
        while (len > 0) {
            if (off == Format.CHUNK_SIZE) {
                advance();
            }
            int n = Math.min(len, Format.CHUNK_SIZE - off);
            if (off + n > cur.length) {
                cur = Arrays.copyOf(cur, Math.min(Format.CHUNK_SIZE, Math.max(off + n, cur.length * 2)));
            }
            System.arraycopy(b, from, cur, off, n);
            off += n;
            from += n;
            len -= n;
        }
    }

    void writeVarint(long v) {
        while ((v & ~0x7FL) != 0) {
            write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        write((int) v);
    }

    void writeU16(int v) {
        write(v & 0xFF);
        write((v >>> 8) & 0xFF);
    }

    /** Overwrites a 16-bit little-endian field that is still in memory. */
    void patchU16(long at, int v) {
        patchByte(at, v & 0xFF);
        patchByte(at + 1, (v >>> 8) & 0xFF);
    }

    private void patchByte(long at, int b) {
        int i = (int) (at >>> Format.CHUNK_SHIFT);
        int o = (int) (at & Format.CHUNK_MASK);
        if (i == index && o < off) {
            cur[o] = (byte) b;
        } else if (i == index - 1 && prev != null) {
            prev[o] = (byte) b;
        } else {
            throw new IllegalStateException("patch at " + at + " outside the write window (chunk " + index
                    + ", offset " + off + ")");
        }
    }

    private void advance() {
        if (prev != null) {
            flushPrevious();
        }
        prev = cur;
        cur = spare != null ? spare : new byte[Format.CHUNK_SIZE];
        spare = null;
        index++;
        off = 0;
    }

    private void flushPrevious() {
        int overlap = Math.min(Format.OVERLAP, off);
        put(index - 1, prev, Format.CHUNK_SIZE, cur, overlap);
        spare = prev;
        prev = null;
    }

    /** Writes what is left; returns the number of chunks. */
    int finish() {
        if (prev != null) {
            flushPrevious();
        }
        put(index, cur, off, null, 0);
        cur = null;
        spare = null;
        return index + 1;
    }

    private void put(int chunk, byte[] data, int len, byte[] next, int nextLen) {
        MutableDirectBuffer v = (MutableDirectBuffer) docs.reserve(txn, keys.chunk(docId, chunk), Math.max(1, len + nextLen));
        v.putBytes(0, data, 0, len);
        if (nextLen > 0) {
            v.putBytes(len, next, 0, nextLen);
        }
    }
}
