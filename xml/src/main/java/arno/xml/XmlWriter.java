package arno.xml;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small streaming XML (and HTML) writer for the service's own vocabularies:
 * reports, status documents, errors. It writes UTF-8 straight to a stream,
 * holds only the stack of open element names, and replaces characters that
 * XML 1.0 cannot carry (control characters in an error message, say) with
 * U+FFFD rather than produce a report nobody can parse.
 */
public final class XmlWriter {
    private final OutputStream out;
    private final Deque<String> open = new ArrayDeque<>();
    private final StringBuilder buffer = new StringBuilder(256);
    private boolean tagOpen;

    public XmlWriter(OutputStream out) {
        this.out = out;
    }

    public XmlWriter declaration() {
        buffer.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        return this;
    }

    public XmlWriter start(String name) {
        closeTag();
        buffer.append('<').append(name);
        open.push(name);
        tagOpen = true;
        return this;
    }

    /** An attribute of the element just started; null values are left out. */
    public XmlWriter attr(String name, Object value) {
        if (value == null) return this;
        if (!tagOpen) throw new IllegalStateException("attribute " + name + " after content");
        buffer.append(' ').append(name).append("=\"");
        escape(value.toString(), true);
        buffer.append('"');
        return this;
    }

    public XmlWriter text(String text) {
        if (text == null || text.isEmpty()) return this;
        closeTag();
        escape(text, false);
        flushIfLarge();
        return this;
    }

    public XmlWriter end() {
        String name = open.pop();
        if (tagOpen) {
            buffer.append("/>");
            tagOpen = false;
        } else {
            buffer.append("</").append(name).append('>');
        }
        flushIfLarge();
        return this;
    }

    /** An element with text content (or empty when text is null). */
    public XmlWriter element(String name, String text) {
        return start(name).text(text).end();
    }

    public XmlWriter newline() {
        closeTag();
        buffer.append('\n');
        return this;
    }

    /** Text already serialized as markup (e.g. a message's content from Saxon's serializer). */
    public XmlWriter raw(byte[] markup) {
        closeTag();
        flush();
        try {
            out.write(markup);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Writes pending characters through; the element stack stays as it is. */
    public XmlWriter flush() {
        closeTag();
        if (buffer.length() > 0) {
            try {
                out.write(buffer.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            buffer.setLength(0);
        }
        return this;
    }

    /** Closes every open element and flushes. */
    public void finish() {
        while (!open.isEmpty()) end();
        flush();
    }

    private void closeTag() {
        if (tagOpen) {
            buffer.append('>');
            tagOpen = false;
        }
    }

    private void flushIfLarge() {
        if (buffer.length() > 8192) flush();
    }

    private void escape(String s, boolean attribute) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> buffer.append("&lt;");
                case '>' -> buffer.append("&gt;");
                case '&' -> buffer.append("&amp;");
                case '"' -> buffer.append(attribute ? "&quot;" : "\"");
                case '\n' -> buffer.append(attribute ? "&#10;" : "\n");
                case '\r' -> buffer.append("&#13;");
                case '\t' -> buffer.append(attribute ? "&#9;" : "\t");
                default -> {
                    if (c < 0x20 || c == 0xFFFE || c == 0xFFFF) {
                        buffer.append('\uFFFD');
                    } else if (Character.isHighSurrogate(c)) {
                        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                            buffer.append(c).append(s.charAt(++i));
                        } else {
                            buffer.append('\uFFFD');
                        }
                    } else if (Character.isLowSurrogate(c)) {
                        buffer.append('\uFFFD');
                    } else {
                        buffer.append(c);
                    }
                }
            }
        }
    }
}
