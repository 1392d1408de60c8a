package arno.store;

import arno.xml.ErrorMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;

import net.sf.saxon.lib.ConversionRules;


/**
 * Reads a value index: one {@code MDB_SET_RANGE} seek to the first entry that can match, then a
 * forward scan while entries can still match (see {@link ValueKeys} for the order). Equality is
 * the range [v, v]. A string cut to fit a key is checked against its whole value, kept in the
 * entry; the seek starts early enough to meet such entries (at the bound cut to
 * {@code max − 4} bytes, below every cut point), and the scan stops at the first entry whose
 * stored bytes sort after the upper bound (its whole value, which extends them, does too).
 */
final class ValueLookup {

    private ValueLookup() {
    }

    /**
     * The elements of index {@code name} whose (key and) value is in [low, high] (either bound null:
     * open), each once, in index order (by value, then in storage order).
     */
    static List<IndexHit> find(Snapshot s, String name, String key, String low, String high) {
        return find(s, name, key, low, high, Integer.MAX_VALUE - 1);
    }

    /**
     * As {@link #find(Snapshot, String, String, String, String)}, reading at most {@code limit} + 1
     * hits: a bounded walk, whose answer is complete when it holds {@code limit} hits or fewer, and
     * otherwise says "more than {@code limit}" (the planner's estimate, see {@link Planner}).
     */
    static List<IndexHit> find(Snapshot s, String name, String key, String low, String high, int limit) {
        synchronized (s) {
            s.checkOpen();
            Engine engine = s.store().engine;
            Keys keys = new Keys();
            ValueWalk.Active a;
            try {
                a = Indexer.active(engine, s.txn(), keys, name);
            } catch (LmdbException e) {
                throw StoreFailures.of(e, "store " + s.store().directory());
            }
            if (a == null) {
                throw s.indexes().unknown(name, ErrorMessage.LOOKUP_NO_INDEX, ErrorMessage.LOOKUP_NO_INDEXES);
            }
            IndexDefinition d = a.definition();
            if (d.correlated() != (key != null)) {
                throw (d.correlated()
                        ? ErrorMessage.INDEX_CORRELATED.error(name, d.key().display(), d.value().display())
                        : ErrorMessage.INDEX_UNKEYED.error(name));
            }
            ConversionRules rules = s.store().ownConfiguration().getConversionRules();
            String k = key == null ? null : d.normalised(key);
            Object lo = bound(d, low, rules, "low");
            Object hi = bound(d, high, rules, "high");
            return scan(s, engine, a, k, lo, hi, limit);
        }
    }

    private static Object bound(IndexDefinition d, String v, ConversionRules rules, String which) {
        if (v == null) {
            return null;
        }
        Object t = ValueKeys.typed(d, v, rules);
        if (t == null) {
            throw (d.type() == IndexDefinition.Type.DATE ? ErrorMessage.NOT_INDEX_DATE.error(v, d.name(), which)
                    : ErrorMessage.NOT_INDEX_TYPE.error(v, d.type().name().toLowerCase(java.util.Locale.ROOT), d.name(), which));
        }
        return t;
    }

    private static List<IndexHit> scan(Snapshot s, Engine engine, ValueWalk.Active a, String key, Object lo, Object hi,
            int limit) {
        IndexDefinition d = a.definition();
        boolean string = d.type() == IndexDefinition.Type.STRING;
        int max = d.correlated() ? ValueKeys.MAX_PAIR_STRING : ValueKeys.MAX_STRING;
        ByteArrayOutputStream seek = new ByteArrayOutputStream();
        ValueKeys.intBE(seek, a.id());
        byte[] prefix = seek.toByteArray();
        byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        boolean exactKey = keyBytes != null && keyBytes.length <= ValueKeys.MAX_PAIR_STRING - 4 && clean(keyBytes);
        if (keyBytes != null) {
            if (exactKey) {
                seek.write(keyBytes, 0, keyBytes.length);
                seek.write(ValueKeys.WHOLE);
                prefix = seek.toByteArray();
            } else {
                seek.write(keyBytes, 0, cut(keyBytes, ValueKeys.MAX_PAIR_STRING - 4));
            }
        }
        byte[] hiBytes = null;
        if (lo != null && (keyBytes == null || exactKey)) {
            if (string) {
                byte[] b = ((String) lo).getBytes(StandardCharsets.UTF_8);
                seek.write(b, 0, cut(b, max - 4));
            } else {
                encodeFixed(seek, d, lo);
            }
        }
        if (hi != null) {
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            if (string) {
                byte[] b = ((String) hi).getBytes(StandardCharsets.UTF_8);
                h.write(b, 0, b.length);
            } else {
                encodeFixed(h, d, hi);
            }
            hiBytes = h.toByteArray();
        }
        List<IndexHit> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Map<Long, String> uris = new HashMap<>();
        Keys k = new Keys();
        try (Cursor<DirectBuffer> c = engine.values.openCursor(s.txn())) {
            boolean found = c.get(k.bytes(seek.toByteArray()), GetOp.MDB_SET_RANGE);
            while (found) {
                byte[] entry = new byte[c.key().capacity()];
                c.key().getBytes(0, entry);
                if (!startsWith(entry, prefix)) {
                    break;
                }
                int at = 4;
                String wholeKey = null;
                String wholeValue = null;
                String[] whole = null;
                if (c.val().capacity() > 0) {
                    byte[] v = new byte[c.val().capacity()];
                    c.val().getBytes(0, v);
                    whole = ValueKeys.wholeStrings(v);
                }
                int w = 0;
                if (d.correlated()) {
                    int end = terminator(entry, at);
                    boolean cut = entry[end] == ValueKeys.CUT;
                    if (!exactKey) {
                        int cmp = compareBytes(entry, at, end, keyBytes);
                        if (cmp > 0 && !isPrefix(entry, at, end, keyBytes)) {
                            break; // every later key part sorts after the key looked for
                        }
                    }
                    wholeKey = cut ? whole[w++] : new String(entry, at, end - at, StandardCharsets.UTF_8);
                    at = end + 1;
                }
                boolean stop = false;
                boolean match = key == null || wholeKey.equals(key);
                if (string) {
                    int end = terminator(entry, at);
                    boolean cut = entry[end] == ValueKeys.CUT;
                    if (hiBytes != null && compareBytes(entry, at, end, hiBytes) > 0
                            && !isPrefix(entry, at, end, hiBytes)) {
                        stop = exactKey || keyBytes == null;
                        match = false;
                    } else {
                        wholeValue = cut ? whole[w] : new String(entry, at, end - at, StandardCharsets.UTF_8);
                        match &= within(wholeValue, (String) lo, (String) hi);
                    }
                } else {
                    if (hiBytes != null && Arrays.compareUnsigned(entry, at, at + 8, hiBytes, 0, 8) > 0) {
                        stop = exactKey || keyBytes == null;
                        match = false;
                    } else if (lo != null) {
                        ByteArrayOutputStream l = new ByteArrayOutputStream();
                        encodeFixed(l, d, lo);
                        match &= Arrays.compareUnsigned(entry, at, at + 8, l.toByteArray(), 0, 8) >= 0;
                    }
                }
                if (stop) {
                    break;
                }
                if (match) {
                    long docId = getLong(entry, entry.length - 16);
                    long pos = getLong(entry, entry.length - 8);
                    String uri = uris.computeIfAbsent(docId, id -> uriOf(s, engine, id));
                    if (seen.add(docId + ":" + pos)) {
                        out.add(new IndexHit(uri, pos));
                        if (out.size() > limit) {
                            break;
                        }
                    }
                }
                found = c.next();
            }
        } catch (LmdbException e) {
            throw StoreFailures.of(e, "store " + s.store().directory());
        }
        return out;
    }

    private static boolean within(String v, String lo, String hi) {
        return (lo == null || compareCodepoints(v, lo) >= 0) && (hi == null || compareCodepoints(v, hi) <= 0);
    }

    /** Code point order, which is UTF-8 byte order. */
    static int compareCodepoints(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static void encodeFixed(ByteArrayOutputStream out, IndexDefinition d, Object v) {
        if (d.type() == IndexDefinition.Type.NUMBER) {
            ValueKeys.number(out, (Double) v);
        } else {
            ValueKeys.day(out, (Long) v);
        }
    }

    private static String uriOf(Snapshot s, Engine engine, long docId) {
        DirectBuffer h = engine.docs.get(s.txn(), new Keys().doc(docId, Keys.HEADER));
        if (h == null) {
            throw new StoreException(ErrorMessage.VALUE_ENTRY_ORPHAN, docId);
        }
        return DocHeader.decode(docId, h).uri();
    }

    /**
     * Bytes of {@code b} up to at most {@code max}, ending at a character boundary, and before any
     * control character (where {@link ValueKeys#string} cuts stored strings).
     */
    private static int cut(byte[] b, int max) {
        for (int i = 0; i < b.length && i <= max; i++) {
            if ((b[i] & 0xFF) < 0x09) {
                return i;
            }
        }
        if (b.length <= max) {
            return b.length;
        }
        int n = max;
        while (n > 0 && (b[n] & 0xC0) == 0x80) {
            n--;
        }
        return n;
    }

    private static boolean clean(byte[] b) {
        for (byte x : b) {
            if ((x & 0xFF) < 0x09) {
                return false;
            }
        }
        return true;
    }

    private static int terminator(byte[] e, int from) {
        int i = from;
        while (i < e.length && (e[i] & 0xFF) > ValueKeys.CUT) {
            i++;
        }
        if (i >= e.length - 16) {
            throw new StoreException(ErrorMessage.VALUE_ENTRY_UNTERMINATED);
        }
        return i;
    }

    /** Lexicographic comparison of {@code e[from, to)} with {@code b}; a proper prefix sorts first. */
    private static int compareBytes(byte[] e, int from, int to, byte[] b) {
        return Arrays.compareUnsigned(e, from, to, b, 0, b.length);
    }

    private static boolean isPrefix(byte[] e, int from, int to, byte[] b) {
        int n = to - from;
        return n <= b.length && Arrays.equals(e, from, to, b, 0, n);
    }

    private static boolean startsWith(byte[] e, byte[] prefix) {
        return e.length >= prefix.length && Arrays.equals(e, 0, prefix.length, prefix, 0, prefix.length);
    }

    static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }
}
