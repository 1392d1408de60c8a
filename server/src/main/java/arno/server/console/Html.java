package arno.server.console;

/**
 * A page written as text with everything escaped: {@link #text} and every attribute value go
 * through {@link #escape}, so data (error messages, URIs, query results, site names) can never
 * become markup. Only this class's callers' literal tag names are written raw.
 */
final class Html {
    private final StringBuilder b = new StringBuilder(4096);

    /** Markup the caller wrote as a literal (never data). */
    Html raw(String markup) {
        b.append(markup);
        return this;
    }

    Html text(Object s) {
        escape(b, String.valueOf(s));
        return this;
    }

    /** {@code <tag a="v" ...>}: attributes as name, value pairs; a null value leaves the attribute out. */
    Html open(String tag, String... attributes) {
        b.append('<').append(tag);
        for (int i = 0; i + 1 < attributes.length; i += 2) {
            if (attributes[i + 1] == null) continue;
            b.append(' ').append(attributes[i]).append("=\"");
            escape(b, attributes[i + 1]);
            b.append('"');
        }
        b.append('>');
        return this;
    }

    Html close(String tag) {
        b.append("</").append(tag).append('>');
        return this;
    }

    /** {@code <tag ...>text</tag>}. */
    Html el(String tag, Object text, String... attributes) {
        return open(tag, attributes).text(text).close(tag);
    }

    static void escape(StringBuilder out, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') out.append('\uFFFD');
                    else out.append(c);
                }
            }
        }
    }

    @Override
    public String toString() {
        return b.toString();
    }
}
