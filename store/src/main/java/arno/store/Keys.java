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
 * meta     "magic" | "format" | "version" | "nextDoc" | "feedStart"
 *          | "indexMinDocumentBytes" (absent in stores created before it was recorded: 2048)  → value(8)
 *          | "mark:" name (see {@link WriteTransaction#setMark})   → value(8)
 * names    code(4)                                         → prefix \0 uri \0 local (UTF-8)
 * paths    uri (UTF-8)                                     → docId(8) version(8)
 * docs     docId(8) HEADER                                 → document header, see {@link DocHeader}
 *          docId(8) CHUNK index(4)                         → XML: 1 MiB of records + 64 bytes of the next chunk;
 *                                                            binary: 1 MiB of the bytes, no overlap
 *          docId(8) BIGS                                   → sorted (pos(8), size(8)) of large subtrees
 *          docId(8) NSMAPS                                 → the document's namespace maps
 *          docId(8) IDS id (UTF-8)                         → element position(8), first occurrence
 *          docId(8) NAMES kind(1) code(4) last(8)          → a run of the name's positions, see {@link NameIndex}
 * changes  version(8) seq(4)                               → kind(1) docId(8) mediaTypeLength(1) mediaType uri
 * commits  version(8)                                      → epoch millis(8)
 * refs     target \0 fit(source)                           → source (UTF-8)
 * refsOut  source \0 fit(target)                           → target (UTF-8)
 * </pre>
 *
 * <h2>Reference keys</h2>
 * A reference is a pair of store URIs, each at most {@link Store#MAX_URI_BYTES} (400) bytes, so
 * the pair may not fit LMDB's 511-byte keys. The first URI is kept whole (it is what prefix seeks
 * need: {@code referrers("/journals/ja/")}); the second is kept whole when the key fits, else cut
 * to what fits less 8 bytes followed by the first 8 bytes of its SHA-256 ({@link #pair}). The value
 * always holds the second URI whole, so nothing is lost; two different URIs with the same long
 * prefix and the same 64-bit hash under the same first URI would share a key (never seen in
 * practice; the checker would report the pair that lost).
 *
 * A {@code Keys} object is a scratch key buffer: not thread-safe, one per transaction.
 */
final class Keys {

    static final byte HEADER = 0;
    static final byte CHUNK = 1;
    static final byte BIGS = 2;
    static final byte NSMAPS = 3;
    static final byte IDS = 4;
    /** The structural index, see {@link NameIndex}. */
    static final byte NAMES = 5;
    /** Length of a {@link #name} key. */
    static final int NAME_KEY = 22;

    /** LMDB's default maximum key size. */
    static final int MAX_KEY = 511;
    /** Longest id that gets an index entry; longer xml:id values are found by a scan. */
    static final int MAX_ID_BYTES = MAX_KEY - 9;

    static final ByteOrder BE = ByteOrder.BIG_ENDIAN;

    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_KEY + 1));
    /** Made on first use: most Keys only seek (a direct buffer costs a native allocation and a cleaner). */
    private UnsafeBuffer val;
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

    /** A commits key: the version alone. */
    DirectBuffer version(long version) {
        key.putLong(0, version, BE);
        view.wrap(key, 0, 8);
        return view;
    }

    /** A refs or refsOut key: {@code first \0 fit(second)} (see the class comment). */
    DirectBuffer pair(String first, String second) {
        byte[] a = first.getBytes(StandardCharsets.UTF_8);
        byte[] b = second.getBytes(StandardCharsets.UTF_8);
        key.putBytes(0, a);
        key.putByte(a.length, (byte) 0);
        int room = MAX_KEY - a.length - 1;
        int n;
        if (b.length <= room) {
            key.putBytes(a.length + 1, b);
            n = a.length + 1 + b.length;
        } else {
            int cut = room - 8;
            key.putBytes(a.length + 1, b, 0, cut);
            key.putBytes(a.length + 1 + cut, sha256(b), 0, 8);
            n = MAX_KEY;
        }
        view.wrap(key, 0, n);
        return view;
    }

    /** The prefix {@code first \0} of every pair key that starts with {@code first}. */
    static byte[] pairPrefix(String first) {
        byte[] a = first.getBytes(StandardCharsets.UTF_8);
        byte[] p = java.util.Arrays.copyOf(a, a.length + 1);
        return p;
    }

    /** Seeks to the first key at or after {@code bytes}. */
    DirectBuffer bytes(byte[] bytes) {
        key.putBytes(0, bytes);
        view.wrap(key, 0, bytes.length);
        return view;
    }

    static boolean startsWith(DirectBuffer b, byte[] prefix) {
        if (b.capacity() < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (b.getByte(i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] sha256(byte[] b) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
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

    /** A run of a structural index list, keyed by the run's last position (see {@link NameIndex}). */
    DirectBuffer name(long docId, byte kind, int code, long last) {
        key.putLong(0, docId, BE);
        key.putByte(8, NAMES);
        key.putByte(9, kind);
        key.putInt(10, code, BE);
        key.putLong(14, last, BE);
        view.wrap(key, 0, NAME_KEY);
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
        if (val == null) {
            val = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        }
        return val;
    }

    DirectBuffer value(int length) {
        UnsafeBuffer v = new UnsafeBuffer(0, 0);
        v.wrap(value(), 0, length);
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
