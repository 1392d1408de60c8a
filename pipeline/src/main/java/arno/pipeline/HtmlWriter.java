package arno.pipeline;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.str.BMPString;
import net.sf.saxon.str.Slice16;
import net.sf.saxon.str.Slice8;
import net.sf.saxon.str.StringView;
import net.sf.saxon.str.Twine16;
import net.sf.saxon.str.Twine8;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.SchemaType;

/**
 * Serializes a page body as HTML5 in UTF-8, written as bytes straight into
 * the response: the case nearly every page is (rsp:body method="html", UTF-8,
 * not indented). Saxon's own serializer stays in use for everything else.
 *
 * <p>Why our own: on a full-text page Saxon's HTML serializer took a quarter
 * of the server's time and a tenth of its allocation, because it widens every
 * text node to an array of code points before escaping it and looks each tag
 * name up case-insensitively in several tables. This writer reads text in the
 * form Saxon already holds it (Latin-1 bytes, chars or a String) and escapes
 * it as it encodes.
 *
 * <p>What it writes follows the XSLT and XQuery Serialization 3.1 HTML method
 * with html-version 5: {@code <!DOCTYPE html>} before a root {@code html}
 * element; elements in no namespace or the XHTML namespace are HTML (void
 * elements have no end tag, boolean attributes are minimized, {@code script}
 * and {@code style} content is not escaped, {@code &} before <code>{</code> in
 * an attribute is not escaped, non-ASCII characters in URI attributes are
 * %-escaped); other elements (SVG, MathML) are written as XML with their
 * namespace declarations; disabled output escaping is honoured. As
 * include-content-type asks, a {@code <meta http-equiv="Content-Type">} naming UTF-8
 * opens the head and any other one in the head is dropped, except that a head
 * whose first element is already {@code <meta charset>} keeps that alone: a
 * page must not declare its encoding twice. No character is written as an
 * entity reference where UTF-8 can carry it. HTML parsers build the same
 * document from this writer's output as from Saxon's ({@code HtmlWriterTest}
 * checks that).
 */
final class HtmlWriter implements Receiver {
    /** Element kinds: what the HTML method treats specially, by lower-case name; looked up once per name (see Tag). */
    private static final byte HTML = 1, VOID_ELEMENT = 2, RAW = 4, HEAD = 8, META = 16, ROOT = 32;
    private static final Map<String, Byte> ELEMENTS = new HashMap<>();
    /** Attribute kinds, by name. */
    private static final byte URI_ATTRIBUTE = 1, BOOLEAN_ATTRIBUTE = 2;
    private static final Map<String, Byte> ATTRIBUTES = new HashMap<>();
    /** ASCII characters no escaping mode changes. */
    private static final boolean[] PLAIN = new boolean[256];

    static {
        for (String v : List.of("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "source", "track",
                "wbr", "basefont", "bgsound", "frame", "keygen", "param", "command", "isindex")) {
            ELEMENTS.put(v, VOID_ELEMENT);
        }
        ELEMENTS.put("meta", (byte) (VOID_ELEMENT | META));
        ELEMENTS.put("script", RAW);
        ELEMENTS.put("style", RAW);
        ELEMENTS.put("head", HEAD);
        ELEMENTS.put("html", ROOT);
        for (String u : List.of("href", "src", "action", "cite", "background", "codebase", "data", "longdesc",
                "profile", "usemap", "classid", "archive", "formaction", "poster", "manifest", "icon")) {
            ATTRIBUTES.put(u, URI_ATTRIBUTE);
        }
        // Attributes whose one value is their name: the HTML method writes checked="checked" as checked.
        for (String b : List.of("checked", "compact", "declare", "defer", "disabled", "ismap", "multiple", "nohref",
                "noresize", "noshade", "nowrap", "readonly", "selected", "async", "autofocus", "autoplay",
                "controls", "default", "formnovalidate", "hidden", "loop", "muted", "novalidate", "open",
                "required", "reversed")) {
            ATTRIBUTES.put(b, BOOLEAN_ATTRIBUTE);
        }
        for (int c = 0; c < 0x80; c++) PLAIN[c] = c != '&' && c != '<' && c != '>' && c != '"';
    }

    private static final byte[] CONTENT_TYPE =
            ascii("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\">");
    private static final byte[] HEX = ascii("0123456789ABCDEF");

    /** Escaping modes. */
    private static final int TEXT = 0, ATTRIBUTE = 1, URI = 2, NONE = 3;
    /** Head states: the meta element is written once, before the head's first child. */
    private static final int HEAD_NOT_SEEN = 0, HEAD_OPEN = 1, HEAD_DONE = 2;

    private final OutputStream out;
    private final byte[] buf = new byte[8192];
    private static final int LIMIT = 8192 - 16; // room for the longest single write: a 4-byte character %-escaped
    private int pos;

    /**
     * What the writer needs of a name: its kind and its display name in UTF-8, made once per
     * {@link NodeName} object. A compiled stylesheet passes the same NodeName for every element
     * one literal result element makes, so a page's few dozen names are looked up, lower-cased
     * and encoded once each rather than once per element. The tables are shared by all writers
     * and used without locks: an entry is immutable, and one lost to a race or a collision is
     * only made again.
     */
    private static final class Tag {
        final NodeName name;
        final byte kind;
        final byte[] utf8;

        Tag(NodeName name, byte kind) {
            this.name = name;
            this.kind = kind;
            this.utf8 = name.getDisplayName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        /** Outside every element. */
        private Tag() {
            this.name = null;
            this.kind = 0;
            this.utf8 = new byte[0];
        }
    }

    private static final Tag OUTSIDE = new Tag();

    private static final int TAG_SLOTS = 512; // a power of two
    private static final Tag[] ELEMENT_TAGS = new Tag[TAG_SLOTS];
    private static final Tag[] ATTRIBUTE_TAGS = new Tag[TAG_SLOTS];

    /** An element's tag; its kind is 0 for an element that is not HTML. */
    private static Tag element(NodeName name) {
        int i = slot(name);
        Tag t = ELEMENT_TAGS[i];
        if (t == null || t.name != name) {
            NamespaceUri uri = name.getNamespaceUri();
            boolean html = name.getPrefix().isEmpty() && (uri == NamespaceUri.NULL || uri == NamespaceUri.XHTML);
            ELEMENT_TAGS[i] = t = new Tag(name, (byte) (html ? HTML | elementKind(name.getLocalPart()) : 0));
        }
        return t;
    }

    /** An attribute's tag; its kind (URI or boolean) applies on HTML elements only. */
    private static Tag attribute(NodeName name) {
        int i = slot(name);
        Tag t = ATTRIBUTE_TAGS[i];
        if (t == null || t.name != name) {
            Byte special = name.getNamespaceUri() == NamespaceUri.NULL ? ATTRIBUTES.get(name.getDisplayName()) : null;
            ATTRIBUTE_TAGS[i] = t = new Tag(name, special == null ? 0 : special);
        }
        return t;
    }

    private static int slot(NodeName name) {
        int h = System.identityHashCode(name);
        return (h ^ (h >>> 9)) & (TAG_SLOTS - 1);
    }

    private PipelineConfiguration pipe;
    private Tag[] tags = new Tag[32];
    private NamespaceMap[] scopes = new NamespaceMap[33];
    private int depth;
    private int documents;
    /** A start tag written up to its attributes, waiting to learn whether the element is empty. */
    private boolean startTagOpen;
    private boolean seenElement;
    private int head = HEAD_NOT_SEEN;
    private int headDepth;
    private boolean inHead;
    /** Depth of an element being dropped with its content (a second Content-Type meta), or 0. */
    private int skipping;

    HtmlWriter(OutputStream out, PipelineConfiguration pipe) {
        this.out = out;
        this.pipe = pipe;
        scopes[0] = NamespaceMap.emptyMap();
        tags[0] = OUTSIDE;
    }

    @Override public void setPipelineConfiguration(PipelineConfiguration pipe) { this.pipe = pipe; }
    @Override public PipelineConfiguration getPipelineConfiguration() { return pipe; }
    @Override public void setSystemId(String systemId) {}
    @Override public String getSystemId() { return null; }
    @Override public void open() {}
    @Override public void setUnparsedEntity(String name, String systemID, String publicID) {}

    @Override
    public void startDocument(int properties) {
        documents++;
    }

    @Override
    public void endDocument() throws XPathException {
        if (--documents == 0) flush();
    }

    @Override
    public void startElement(NodeName name, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                             Location location, int properties) throws XPathException {
        if (skipping > 0) {
            skipping++;
            return;
        }
        Tag tag = element(name);
        int kind = tag.kind;
        boolean html = (kind & HTML) != 0;
        if (head == HEAD_OPEN && depth == headDepth) {
            if ((kind & META) != 0 && attributes.getValue(NamespaceUri.NULL, "charset") != null) {
                head = HEAD_DONE;
            } else {
                closeStartTag();
                write(CONTENT_TYPE);
                head = HEAD_DONE;
            }
        }
        if ((kind & META) != 0 && inHead && isContentType(attributes)) {
            skipping = 1; // include-content-type replaces the page's own declaration
            return;
        }
        closeStartTag();
        if (!seenElement) {
            seenElement = true;
            if ((kind & ROOT) != 0 && depth == 0) {
                write("<!DOCTYPE html>");
                byte1('\n');
            }
        }
        push(tag, namespaces);
        byte1('<');
        write(tag.utf8);
        NamespaceMap parent = scopes[depth - 1];
        if (namespaces != parent) declare(namespaces, parent);
        for (int i = 0, n = attributes.size(); i < n; i++) {
            AttributeInfo a = attributes.itemAt(i);
            Tag at = attribute(a.getNodeName());
            int special = html ? at.kind : 0;
            byte1(' ');
            write(at.utf8);
            if (special == BOOLEAN_ATTRIBUTE && at.name.getDisplayName().equalsIgnoreCase(a.getValue())) continue;
            byte1('=');
            byte1('"');
            int mode = ReceiverOption.contains(a.getProperties(), ReceiverOption.DISABLE_ESCAPING) ? NONE
                    : special == URI_ATTRIBUTE ? URI : ATTRIBUTE;
            string(a.getValue(), mode);
            byte1('"');
        }
        startTagOpen = true;
        if ((kind & HEAD) != 0 && head == HEAD_NOT_SEEN) {
            head = HEAD_OPEN;
            headDepth = depth;
            inHead = true;
        }
    }

    @Override
    public void endElement() throws XPathException {
        if (skipping > 0) {
            skipping--;
            return;
        }
        if (head == HEAD_OPEN && depth == headDepth) {
            closeStartTag();
            write(CONTENT_TYPE);
            head = HEAD_DONE;
        }
        if (inHead && depth == headDepth) inHead = false;
        byte kind = tags[depth].kind;
        if (startTagOpen) {
            startTagOpen = false;
            if ((kind & HTML) == 0) {
                byte1('/');
                byte1('>');
                depth--;
                return;
            }
            byte1('>');
            if ((kind & VOID_ELEMENT) != 0) {
                depth--;
                return;
            }
        }
        byte1('<');
        byte1('/');
        write(tags[depth].utf8);
        byte1('>');
        depth--;
    }

    @Override
    public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
        if (skipping > 0 || chars.isEmpty()) return;
        beforeContent();
        int mode = (tags[depth].kind & RAW) != 0 || ReceiverOption.contains(properties, ReceiverOption.DISABLE_ESCAPING)
                ? NONE : TEXT;
        text(chars, mode);
    }

    @Override
    public void processingInstruction(String target, UnicodeString data, Location location, int properties)
            throws XPathException {
        if (skipping > 0) return;
        beforeContent();
        byte1('<');
        byte1('?');
        write(target);
        if (!data.isEmpty()) {
            byte1(' ');
            text(data, NONE);
        }
        byte1('>');
    }

    @Override
    public void comment(UnicodeString content, Location location, int properties) throws XPathException {
        if (skipping > 0) return;
        beforeContent();
        write("<!--");
        text(content, NONE);
        write("-->");
    }

    @Override
    public void close() throws XPathException {
        flush();
    }

    // ---- structure

    /** The special kinds of an HTML element; names match without regard to case. */
    private static int elementKind(String local) {
        Byte k = ELEMENTS.get(local);
        if (k == null) {
            String lower = local.toLowerCase(Locale.ROOT);
            if (lower != local) k = ELEMENTS.get(lower);
        }
        return k == null ? 0 : k;
    }

    private void beforeContent() throws XPathException {
        if (head == HEAD_OPEN && depth == headDepth) {
            closeStartTag();
            write(CONTENT_TYPE);
            head = HEAD_DONE;
        }
        closeStartTag();
    }

    private void closeStartTag() throws XPathException {
        if (startTagOpen) {
            startTagOpen = false;
            byte1('>');
        }
    }

    private void push(Tag tag, NamespaceMap namespaces) {
        depth++;
        if (depth == tags.length) {
            tags = Arrays.copyOf(tags, depth * 2);
            scopes = Arrays.copyOf(scopes, depth * 2 + 1);
        }
        tags[depth] = tag;
        scopes[depth] = namespaces;
    }

    /** Writes the namespace declarations that differ from the parent's; prefixed undeclarations cannot be written. */
    private void declare(NamespaceMap namespaces, NamespaceMap parent) throws XPathException {
        for (NamespaceBinding b : namespaces.getDifferences(parent, true)) {
            if (b.isXmlNamespace()) continue;
            String prefix = b.getPrefix();
            NamespaceUri uri = b.getNamespaceUri();
            if (uri == NamespaceUri.NULL && !prefix.isEmpty()) continue;
            write(prefix.isEmpty() ? " xmlns=\"" : " xmlns:");
            if (!prefix.isEmpty()) {
                write(prefix);
                write("=\"");
            }
            string(uri.toString(), ATTRIBUTE);
            byte1('"');
        }
    }

    private static boolean isContentType(AttributeMap attributes) {
        String v = attributes.getValue(NamespaceUri.NULL, "http-equiv");
        return v != null && v.trim().equalsIgnoreCase("content-type");
    }

    // ---- characters: read in the form Saxon holds them, escaped and encoded in one pass

    private void text(UnicodeString s, int mode) throws XPathException {
        if (s instanceof Twine8 t) {
            latin1(t.getByteArray(), 0, t.length32(), mode);
        } else if (s instanceof Slice8 t) {
            latin1(t.getByteArray(), t.getStart(), t.getEnd(), mode);
        } else if (s instanceof Twine16 t) {
            chars(t.getCharArray(), 0, t.length32(), mode);
        } else if (s instanceof Slice16 t) {
            chars(t.getCharArray(), t.getStart(), t.getEnd(), mode);
        } else if (s instanceof StringView || s instanceof BMPString) {
            string(s.toString(), mode);
        } else {
            for (long i = 0, n = s.length(); i < n; i++) codePoint(s.codePointAt(i), mode, i + 1 < n ? s.codePointAt(i + 1) : -1);
        }
    }

    /** Latin-1 text: runs of plain ASCII are copied as they are, the rest goes character by character. */
    private void latin1(byte[] b, int from, int to, int mode) throws XPathException {
        int i = from;
        while (i < to) {
            int run = plainRun(b, i, to);
            copy(b, i, run - i);
            if (run < to) {
                codePoint(b[run] & 0xFF, mode, run + 1 < to ? b[run + 1] & 0xFF : -1);
                run++;
            }
            i = run;
        }
    }

    /**
     * The end of the run of {@link #PLAIN} bytes from {@code from}: eight bytes at a time while
     * none of them is special (text is mostly plain, and a byte at a time through the table cost
     * a tenth of a page), then byte by byte to the exact end.
     */
    static int plainRun(byte[] b, int from, int to) {
        int i = from;
        while (i + 8 <= to && !special((long) LONGS.get(b, i))) i += 8;
        while (i < to && PLAIN[b[i] & 0xFF]) i++;
        return i;
    }

    /** Whether any of the eight bytes is non-ASCII or one of & < > ". */
    private static boolean special(long x) {
        return ((x | zeroByte(x ^ AMP) | zeroByte(x ^ LT) | zeroByte(x ^ GT) | zeroByte(x ^ QUOT)) & HIGH) != 0;
    }

    /** High bit set in some byte if any byte of {@code y} is zero (the classic test; exact for "any"). */
    private static long zeroByte(long y) {
        return (y - ONES) & ~y;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH = 0x8080808080808080L;
    private static final long AMP = ONES * '&', LT = ONES * '<', GT = ONES * '>', QUOT = ONES * '"';

    private void copy(byte[] b, int from, int length) throws XPathException {
        while (length > 0) {
            if (pos >= LIMIT) flush();
            int n = Math.min(length, LIMIT - pos);
            System.arraycopy(b, from, buf, pos, n);
            pos += n;
            from += n;
            length -= n;
        }
    }

    private void chars(char[] a, int from, int to, int mode) throws XPathException {
        for (int i = from; i < to; i++) {
            char c = a[i];
            if (c < 0x80 && c != '&' && c != '<' && c != '>' && c != '"') {
                if (pos > LIMIT) flush();
                buf[pos++] = (byte) c;
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(a[i + 1])) {
                codePoint(Character.toCodePoint(c, a[++i]), mode, -1);
            } else {
                codePoint(c, mode, i + 1 < to ? a[i + 1] : -1);
            }
        }
    }

    private void string(String s, int mode) throws XPathException {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80 && c != '&' && c != '<' && c != '>' && c != '"') {
                if (pos > LIMIT) flush();
                buf[pos++] = (byte) c;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                codePoint(s.codePointAt(i++), mode, -1);
            } else {
                codePoint(c, mode, i + 1 < n ? s.charAt(i + 1) : -1);
            }
        }
    }

    /** One character that may need escaping or more than one byte; {@code next} is the one after it, or -1. */
    private void codePoint(int c, int mode, int next) throws XPathException {
        if (pos > LIMIT) flush();
        switch (c) {
            case '&' -> {
                if (mode == NONE || mode != TEXT && next == '{') buf[pos++] = '&';
                else entity("&amp;");
                return;
            }
            case '<' -> {
                if (mode == TEXT) entity("&lt;");
                else buf[pos++] = '<';
                return;
            }
            case '>' -> {
                if (mode == TEXT) entity("&gt;");
                else buf[pos++] = '>';
                return;
            }
            case '"' -> {
                if (mode == ATTRIBUTE || mode == URI) entity("&quot;");
                else buf[pos++] = '"';
                return;
            }
            default -> { }
        }
        if (c < 0x80) {
            buf[pos++] = (byte) c;
        } else if (mode == URI) {
            int at = pos;
            utf8(c);
            int end = pos;
            byte[] bytes = Arrays.copyOfRange(buf, at, end);
            pos = at;
            for (byte b : bytes) {
                buf[pos++] = '%';
                buf[pos++] = HEX[(b >> 4) & 0xF];
                buf[pos++] = HEX[b & 0xF];
            }
        } else {
            utf8(c);
        }
    }

    private void utf8(int c) {
        if (c < 0x800) {
            buf[pos++] = (byte) (0xC0 | c >> 6);
            buf[pos++] = (byte) (0x80 | c & 0x3F);
        } else if (c < 0x10000) {
            buf[pos++] = (byte) (0xE0 | c >> 12);
            buf[pos++] = (byte) (0x80 | c >> 6 & 0x3F);
            buf[pos++] = (byte) (0x80 | c & 0x3F);
        } else {
            buf[pos++] = (byte) (0xF0 | c >> 18);
            buf[pos++] = (byte) (0x80 | c >> 12 & 0x3F);
            buf[pos++] = (byte) (0x80 | c >> 6 & 0x3F);
            buf[pos++] = (byte) (0x80 | c & 0x3F);
        }
    }

    private void entity(String ascii) {
        for (int i = 0; i < ascii.length(); i++) buf[pos++] = (byte) ascii.charAt(i);
    }

    // ---- bytes

    private void byte1(char c) throws XPathException {
        if (pos > LIMIT) flush();
        buf[pos++] = (byte) c;
    }

    /** Markup: names and fixed strings, which need no escaping but may hold non-ASCII letters. */
    private void write(String s) throws XPathException {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (pos > LIMIT) flush();
            if (c < 0x80) buf[pos++] = (byte) c;
            else if (Character.isHighSurrogate(c) && i + 1 < n) utf8(s.codePointAt(i++));
            else utf8(c);
        }
    }

    private void write(byte[] bytes) throws XPathException {
        if (pos + bytes.length > buf.length) {
            flush();
            if (bytes.length > buf.length) {
                send(bytes, bytes.length);
                return;
            }
        }
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
    }

    private void flush() throws XPathException {
        if (pos == 0) return;
        send(buf, pos);
        pos = 0;
    }

    private void send(byte[] bytes, int length) throws XPathException {
        try {
            out.write(bytes, 0, length);
        } catch (IOException e) {
            throw ErrorResponses.quietIfClientGone(new XPathException("cannot write the response: " + e.getMessage(), e), e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
