package arno.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Layouts of the keys and small values in the LMDB databases. Integers are big-endian so that
 * LMDB's memcmp order is numeric order; a document's entries share its id as key prefix so that
 * they sit together in the B+tree and delete with one cursor sweep.
 *
 * <pre>
 * meta     "magic" | "format" | "version" | "nextDoc"     → value
 * names    code(4)                                         → prefix \0 uri \0 local (UTF-8)
 * paths    uri (UTF-8)                                     → docId(8) version(8)
 * docs     docId(8) HEADER                                 → document header, see {@link DocHeader}
 *          docId(8) CHUNK index(4)                         → 1 MiB of records + 64 bytes of the next chunk
 *          docId(8) BIGS                                   → sorted (pos(8), size(8)) of large subtrees
 *          docId(8) NSMAPS                                 → the document's namespace maps
 *          docId(8) IDS id (UTF-8)                         → element position(8), first occurrence
 * changes  version(8) seq(4)                               → kind(1) docId(8) uri (UTF-8)
 * </pre>
 *
 * A {@code Keys} object is a scratch key buffer: not thread-safe, one per transaction.
 */
final class Keys {

    static final byte HEADER = 0;
    static final byte CHUNK = 1;
    static final byte BIGS = 2;
    static final byte NSMAPS = 3;
    static final byte IDS = 4;

    /** LMDB's default maximum key size. */
    static final int MAX_KEY = 511;
    /** Longest id that gets an index entry; longer xml:id values are found by a scan. */
    static final int MAX_ID_BYTES = MAX_KEY - 9;

    static final ByteOrder BE = ByteOrder.BIG_ENDIAN;

    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_KEY + 1));
    private final UnsafeBuffer val = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

    DirectBuffer utf8(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        key.putBytes(0, b);
        view.wrap(key, 0, b.length);
        return view;
    }

    DirectBuffer code(int code) {
        key.putInt(0, code, BE);
        view.wrap(key, 0, 4);
        return view;
    }

    DirectBuffer version(long version, int seq) {
        key.putLong(0, version, BE);
        key.putInt(8, seq, BE);
        view.wrap(key, 0, 12);
        return view;
    }

    DirectBuffer doc(long docId, byte kind) {
        key.putLong(0, docId, BE);
        key.putByte(8, kind);
        view.wrap(key, 0, 9);
        return view;
    }

    DirectBuffer chunk(long docId, int index) {
        key.putLong(0, docId, BE);
        key.putByte(8, CHUNK);
        key.putInt(9, index, BE);
        view.wrap(key, 0, 13);
        return view;
    }

    /** The id key, or null when the id is too long for an LMDB key. */
    DirectBuffer id(long docId, String id) {
        byte[] b = id.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_ID_BYTES) {
            return null;
        }
        key.putLong(0, docId, BE);
        key.putByte(8, IDS);
        key.putBytes(9, b);
        view.wrap(key, 0, 9 + b.length);
        return view;
    }

    /** A small scratch value buffer (64 bytes), separate from the key buffer. */
    UnsafeBuffer value() {
        return val;
    }

    DirectBuffer value(int length) {
        UnsafeBuffer v = new UnsafeBuffer(0, 0);
        v.wrap(val, 0, length);
        return v;
    }

    static String string(DirectBuffer b, int offset, int length) {
        byte[] bytes = new byte[length];
        b.getBytes(offset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static DirectBuffer direct(byte[] bytes) {
        UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, bytes.length)));
        b.putBytes(0, bytes);
        return new UnsafeBuffer(b, 0, bytes.length);
    }
}
