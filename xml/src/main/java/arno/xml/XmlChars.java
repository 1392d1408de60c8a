package arno.xml;

/**
 * The characters XML 1.0 can carry ({@code Char} of XML 1.0, production 2): tab, line feed,
 * carriage return, U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF. XML 1.1 can carry the other
 * C0 controls as character references ({@code &#x1;}), and a Java string can hold anything; a
 * document with such a character cannot be written as XML 1.0 at all, so no parser reads what is
 * written back. Whatever the store keeps and whatever the API writes into it is checked here.
 */
public final class XmlChars {
    private XmlChars() {}

    /** Whether XML 1.0 can carry the code point {@code c}. */
    public static boolean allowed(int c) {
        return c >= 0x20 ? c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD || c >= 0x10000 && c <= 0x10FFFF
                : c == 0x9 || c == 0xA || c == 0xD;
    }

    /** The index of the first char of {@code s} that XML 1.0 cannot carry (an unpaired surrogate too), or -1. */
    public static int firstDisallowed(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c) || !allowed(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The offset of the first character XML 1.0 cannot carry in {@code len} bytes of UTF-8 from
     * {@code off}, or -1. Bytes only: a C0 control is one byte below 0x20, U+FFFE and U+FFFF are
     * EF BF BE and EF BF BF, a surrogate is ED A0–BF; a sequence cut at the end is not judged.
     */
    public static int firstDisallowedUtf8(byte[] b, int off, int len) {
        int end = off + len;
        for (int i = off; i < end; i++) {
            int x = b[i] & 0xFF;
            if (x < 0x20) {
                if (x != 0x9 && x != 0xA && x != 0xD) return i - off;
            } else if (x == 0xEF && i + 2 < end && (b[i + 1] & 0xFF) == 0xBF && (b[i + 2] & 0xFE) == 0xBE
                    || x == 0xED && i + 1 < end && (b[i + 1] & 0xFF) >= 0xA0) {
                return i - off;
            }
        }
        return -1;
    }

    /** The code point at a byte offset {@link #firstDisallowedUtf8} reported. */
    public static int codePointAtUtf8(byte[] b, int at) {
        int x = b[at] & 0xFF;
        if (x < 0x80 || at + 2 >= b.length) return x;
        return (x & 0x0F) << 12 | (b[at + 1] & 0x3F) << 6 | b[at + 2] & 0x3F;
    }

    /** A code point as people read it in a message: {@code U+0001}. */
    public static String name(int c) {
        return String.format("U+%04X", c);
    }

    /**
     * {@code s} as a message may quote it: each character XML 1.0 cannot carry written as
     * {@code [U+0001]} (an error document is XML 1.0 too).
     */
    public static String quote(CharSequence s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        s.codePoints().forEach(c -> {
            if (allowed(c)) b.appendCodePoint(c);
            else b.append('[').append(name(c)).append(']');
        });
        return b.toString();
    }

    /**
     * Null when {@code s} (null included) is all characters XML 1.0 can carry; else why not, for a
     * message: {@code "U+0001 at character 4"}.
     */
    public static String problem(CharSequence s) {
        if (s == null) return null;
        int at = firstDisallowed(s);
        return at < 0 ? null : name(Character.codePointAt(s, at)) + " at character " + (at + 1);
    }
}
