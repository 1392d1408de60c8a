package arno.store;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;

import net.sf.saxon.lib.ConversionRules;
import net.sf.saxon.str.StringView;
import net.sf.saxon.type.ConversionResult;
import net.sf.saxon.value.CalendarValue;
import net.sf.saxon.value.DateTimeValue;
import net.sf.saxon.value.DateValue;
import net.sf.saxon.value.GDateValue;
import net.sf.saxon.value.Whitespace;

/**
 * The byte layout of value index entries, in the {@code values} database:
 *
 * <pre>
 * key    indexId(4) [part: the key's string] part: the value   docId(8) position(8)
 * value  empty; or, when a string part was cut to fit, the whole parts: u16 length + UTF-8 each
 * </pre>
 *
 * Parts are encoded so that LMDB's byte order is value order, which makes an equality lookup one
 * range seek and a range one seek and a forward scan:
 * <ul>
 * <li><b>string</b>: UTF-8 (byte order is code point order, XPath's default collation), then a
 * terminator: 0x00 for the whole string, 0x01 when it was cut ({@link #MAX_STRING}; or it has a
 * control character below 0x09, which only XML 1.1 allows). A terminator sorts below any character
 * byte, so a string sorts before its extensions. A cut string keeps at least
 * {@code max − 3} bytes; its whole value is in the entry's value, and a lookup checks it there.
 * <li><b>number</b>: the IEEE 754 double, sign bit flipped for positives and all bits flipped for
 * negatives (-0 is stored as 0; NaN is not indexed): 8 bytes whose unsigned order is numeric order.
 * <li><b>date</b>: the epoch day (days since 1970-01-01, proleptic Gregorian) with the sign bit
 * flipped: 8 bytes.
 * </ul>
 * The document id and the element's position end the key, so that the entries of one value list
 * their documents in storage order and each element once; they are read from the key's end.
 */
final class ValueKeys {

    /** Longest string part of a plain index, and of each part of a correlated one. */
    static final int MAX_STRING = 400;
    static final int MAX_PAIR_STRING = 200;
    static final byte WHOLE = 0;
    static final byte CUT = 1;

    private ValueKeys() {
    }

    /** A typed, normalised value ready to encode; null when the value is not indexed (NaN, not a date). */
    static Object typed(IndexDefinition d, String raw, ConversionRules rules) {
        switch (d.type()) {
            case STRING:
                return d.normalised(raw);
            case NUMBER: {
                double v = number(raw, rules);
                return Double.isNaN(v) ? null : v == 0 ? 0.0d : v;
            }
            default:
                return date(raw, rules);
        }
    }

    /** As XPath's {@code number()}: NaN when {@code raw} is not a number. */
    static double number(String raw, ConversionRules rules) {
        try {
            return rules.getStringToDoubleConverter().stringToNumber(StringView.of(raw));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** The epoch day of an xs:date or xs:dateTime (timezone ignored), or null. */
    static Long date(String raw, ConversionRules rules) {
        String t = Whitespace.trim(raw);
        if (t == null) {
            return null;
        }
        ConversionResult r = t.indexOf('T') >= 0 ? DateTimeValue.makeDateTimeValue(StringView.of(t), rules)
                : DateValue.makeDateValue(StringView.of(t), rules);
        if (!(r instanceof CalendarValue)) {
            return null;
        }
        GDateValue g = r instanceof DateTimeValue dt ? dt.toDateValue() : (GDateValue) r;
        try {
            int year = g.getYear();
            return LocalDate.of(year, g.getMonth(), g.getDay()).toEpochDay();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Appends a string part; returns whether it was cut. */
    static boolean string(ByteArrayOutputStream out, String s, int max) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        int n = b.length;
        boolean cut = false;
        for (int i = 0; i < n; i++) {
            if ((b[i] & 0xFF) < 0x09) {
                n = i;
                cut = true;
                break;
            }
        }
        if (n > max) {
            n = max;
            while (n > 0 && (b[n] & 0xC0) == 0x80) {
                n--; // back to the start of a character
            }
            cut = true;
        }
        out.write(b, 0, n);
        out.write(cut ? CUT : WHOLE);
        return cut;
    }

    static void number(ByteArrayOutputStream out, double d) {
        long bits = Double.doubleToLongBits(d == 0 ? 0.0d : d);
        bits = bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
        longBE(out, bits);
    }

    static void day(ByteArrayOutputStream out, long epochDay) {
        longBE(out, epochDay ^ Long.MIN_VALUE);
    }

    static void longBE(ByteArrayOutputStream out, long v) {
        for (int i = 56; i >= 0; i -= 8) {
            out.write((int) (v >>> i));
        }
    }

    static void intBE(ByteArrayOutputStream out, int v) {
        for (int i = 24; i >= 0; i -= 8) {
            out.write(v >>> i);
        }
    }

    /** Encodes a typed value (from {@link #typed}) as the value part; returns whether it was cut. */
    static boolean value(ByteArrayOutputStream out, IndexDefinition d, Object typed) {
        switch (d.type()) {
            case STRING:
                return string(out, (String) typed, d.correlated() ? MAX_PAIR_STRING : MAX_STRING);
            case NUMBER:
                number(out, (Double) typed);
                return false;
            default:
                day(out, (Long) typed);
                return false;
        }
    }

    /** One entry: its key, and its value (empty unless a part was cut). */
    record Entry(byte[] key, byte[] value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && Arrays.equals(e.key, key) && Arrays.equals(e.value, value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(key);
        }
    }

    static final byte[] EMPTY = new byte[0];

    /** The entry for one matched element: {@code keyPart} is null for a plain index. */
    static Entry entry(IndexDefinition d, int indexId, String keyPart, Object typed, long docId, long pos) {
        ByteArrayOutputStream k = new ByteArrayOutputStream(64);
        intBE(k, indexId);
        boolean cut = false;
        if (keyPart != null) {
            cut |= string(k, keyPart, MAX_PAIR_STRING);
        }
        cut |= value(k, d, typed);
        longBE(k, docId);
        longBE(k, pos);
        byte[] v = EMPTY;
        if (cut) {
            ByteArrayOutputStream w = new ByteArrayOutputStream();
            if (keyPart != null) {
                whole(w, keyPart);
            }
            if (typed instanceof String s) {
                whole(w, s);
            }
            v = w.toByteArray();
        }
        return new Entry(k.toByteArray(), v);
    }

    private static void whole(ByteArrayOutputStream w, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        w.write(b.length >>> 8);
        w.write(b.length);
        w.write(b, 0, b.length);
    }

    /** The whole strings of a cut entry's value: [key part,] value part (strings only). */
    static String[] wholeStrings(byte[] v) {
        java.util.List<String> out = new java.util.ArrayList<>(2);
        int at = 0;
        while (at < v.length) {
            int len = ((v[at] & 0xFF) << 8) | (v[at + 1] & 0xFF);
            out.add(new String(v, at + 2, len, StandardCharsets.UTF_8));
            at += 2 + len;
        }
        return out.toArray(new String[0]);
    }
}
