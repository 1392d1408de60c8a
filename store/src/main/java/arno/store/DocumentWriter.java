package arno.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.PutFlags;
import org.lmdbjava.Txn;

import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NameChecker;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.type.SchemaType;
import net.sf.saxon.value.Whitespace;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlChars;

/**
 * A Saxon {@link Receiver} that encodes one document into the {@link Format} record stream and
 * writes it into a write transaction as the events arrive, so a document of any size loads in
 * bounded memory (two chunks, the open-element stack, one text node at a time, and the structural
 * index's open runs, bounded by {@link StoreOptions#indexSpillBytes}).
 *
 * <p>Two events of lookahead keep the format free of back-patching except for sizes: an element's
 * header is written when the next event shows whether it has children, and adjacent character
 * events are merged into one text node (XDM has no adjacent text nodes).
 *
 * <p>Every text, attribute value, comment and processing instruction is checked for characters
 * XML 1.0 cannot carry ({@link XmlChars}: an XML 1.1 {@code &#x1;}, a control character in a tree
 * built in Java): such a document could never be exported and loaded again, so it is refused
 * ({@link ErrorCode#REFUSED_XML}, with where it was) and nothing of it is stored.
 */
final class DocumentWriter implements Receiver {

    private final Engine engine;
    private final Txn<DirectBuffer> txn;
    private final Namebase.Pending names;
    private final long docId;
    private final String uri;
    private final long version;
    private final ChunkSink sink;
    private final NameIndex.Builder index;
    private final Keys keys = new Keys();
    private PipelineConfiguration pipe;
    private String systemId;

    /** Open parents: record start and position of the size field. */
    private long[] starts = new long[64];
    private long[] sizeFields = new long[64];
    private int depth;
    private int nestedDocuments;
    private boolean started;
    private boolean finished;

    /** The element whose header waits for the next event. */
    private NodeName pendingName;
    private AttributeMap pendingAttributes;
    private NamespaceMap pendingNamespaces;
    private boolean pending;

    private final StringBuilder text = new StringBuilder();
    /** Where the pending text and the pending element began, for a refusal. */
    private int textLine = -1;
    private int textColumn = -1;
    private int elementLine = -1;
    private int elementColumn = -1;
    private byte[] attrBuffer = new byte[256];
    private int attrLength;

    private final Map<NamespaceMap, Integer> nsIndex = new HashMap<>();
    private final List<NamespaceMap> nsMaps = new ArrayList<>();
    private NamespaceMap lastMap;
    private int lastMapIndex = -1;

    private long[] bigs = new long[16];
    private int bigCount;
    private long nodes;
    private boolean hasIds;
    private boolean hasXmlBase;
    private long xmlBytes = -1;
    private DocHeader header;
    private final String mediaType;

    DocumentWriter(Store store, Txn<DirectBuffer> txn, Namebase.Pending names, long docId, String uri, long version,
                   String mediaType) {
        this.engine = store.engine;
        this.mediaType = mediaType;
        this.txn = txn;
        this.names = names;
        this.docId = docId;
        this.uri = uri;
        this.version = version;
        this.sink = new ChunkSink(engine.docs, txn, docId);
        this.index = new NameIndex.Builder(store, txn, docId);
    }

    void xmlBytes(long n) {
        this.xmlBytes = n;
    }

    /** The header written at the end, or null if the document never ended. */
    DocHeader header() {
        return header;
    }

    boolean finished() {
        return finished;
    }

    @Override
    public void setPipelineConfiguration(PipelineConfiguration pipe) {
        this.pipe = pipe;
    }

    @Override
    public PipelineConfiguration getPipelineConfiguration() {
        return pipe;
    }

    @Override
    public void setSystemId(String systemId) {
        this.systemId = systemId;
    }

    @Override
    public String getSystemId() {
        return systemId;
    }

    @Override
    public void open() {
        // nothing to do before the first event
    }

    @Override
    public void startDocument(int properties) {
        if (started) {
            nestedDocuments++;
            return;
        }
        beginDocument();
    }

    private void beginDocument() {
        started = true;
        sink.write(Format.DOCUMENT | Format.F_CHILDREN);
        long field = sink.position();
        sink.writeU16(Format.BIG);
        push(0, field);
        nodes++;
    }

    @Override
    public void endDocument() {
        if (nestedDocuments > 0) {
            nestedDocuments--;
            return;
        }
        finishDocument();
    }

    @Override
    public void setUnparsedEntity(String name, String systemID, String publicID) {
        // unparsed entities are not part of what the store keeps (TreeInfo reports none)
    }

    @Override
    public void startElement(NodeName elemName, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                             Location location, int properties) {
        if (!started) {
            beginDocument();
        }
        beforeChild();
        pending = true;
        pendingName = elemName;
        pendingAttributes = attributes;
        pendingNamespaces = namespaces;
        elementLine = location == null ? -1 : location.getLineNumber();
        elementColumn = location == null ? -1 : location.getColumnNumber();
    }

    @Override
    public void endElement() {
        flushText();
        if (pending) {
            writeElement(false);
            return;
        }
        closeParent();
    }

    @Override
    public void characters(UnicodeString chars, Location location, int properties) {
        if (chars.isEmpty()) {
            return;
        }
        if (!started) {
            beginDocument();
        }
        if (pending) {
            writeElement(true);
        }
        if (text.length() == 0) {
            textLine = location == null ? -1 : location.getLineNumber();
            textColumn = location == null ? -1 : location.getColumnNumber();
        }
        text.append(chars);
    }

    @Override
    public void processingInstruction(String name, UnicodeString data, Location location, int properties) {
        if (!started) {
            beginDocument();
        }
        beforeChild();
        byte[] b = data.toString().getBytes(StandardCharsets.UTF_8);
        checkChars(b, "processing instruction " + name, location);
        int code = names.code("", "", name);
        writeLeaf(Format.PI, code, b);
    }

    @Override
    public void comment(UnicodeString content, Location location, int properties) {
        if (!started) {
            beginDocument();
        }
        beforeChild();
        byte[] b = content.toString().getBytes(StandardCharsets.UTF_8);
        checkChars(b, "comment", location);
        writeLeaf(Format.COMMENT, -1, b);
    }

    @Override
    public void close() {
        if (started && !finished && depth == 1 && nestedDocuments == 0) {
            // a tree without document node (an element, text) was sent: close the synthesized one
            finishDocument();
        }
    }

    private void beforeChild() {
        flushText();
        if (pending) {
            writeElement(true);
        }
    }

    private void flushText() {
        if (text.length() == 0) {
            return;
        }
        byte[] b = text.toString().getBytes(StandardCharsets.UTF_8);
        checkChars(b, "text", textLine, textColumn);
        if (text.capacity() > (1 << 20)) {
            text.setLength(0);
            text.trimToSize();
        } else {
            text.setLength(0);
        }
        writeLeaf(Format.TEXT, -1, b);
    }

    /** TEXT, COMMENT and PI records. */
    private void writeLeaf(int kind, int code, byte[] value) {
        sink.maybeFlush();
        long start = sink.position();
        int len = value.length;
        sink.write(kind | (Math.min(len, Format.LENGTH_FOLLOWS) << 3));
        if (kind == Format.PI) {
            sink.writeVarint(code);
        }
        sink.writeVarint(((start - starts[depth - 1]) << 1) | (ascii(value) ? 1 : 0));
        if (len > Format.INLINE_LENGTH_MAX) {
            sink.writeVarint(len);
        }
        sink.write(value, 0, len);
        nodes++;
    }

    private void writeElement(boolean children) {
        pending = false;
        sink.maybeFlush();
        long start = sink.position();
        NodeName name = pendingName;
        int code = names.code(name.getPrefix(), name.getNamespaceUri().toString(), name.getLocalPart());
        int ns = namespaceIndex(pendingNamespaces);
        index.add(NameIndex.ELEMENTS, code, start);
        AttributeMap atts = pendingAttributes;
        boolean hasAtts = atts != null && atts.size() > 0;
        if (hasAtts) {
            encodeAttributes(atts, start);
        }
        int tag = Format.ELEMENT | (hasAtts ? Format.F_ATTRS : 0) | (children ? Format.F_CHILDREN : 0)
                | (ns >= 0 ? Format.F_NS : 0);
        sink.write(tag);
        sink.writeVarint(code);
        sink.writeVarint(start - starts[depth - 1]);
        long field = -1;
        if (children) {
            field = sink.position();
            sink.writeU16(Format.BIG);
        }
        if (ns >= 0) {
            sink.writeVarint(ns);
        }
        if (hasAtts) {
            sink.writeVarint(attrLength);
            sink.write(attrBuffer, 0, attrLength);
        }
        nodes++;
        pendingName = null;
        pendingAttributes = null;
        pendingNamespaces = null;
        if (children) {
            push(start, field);
        }
    }

    private void encodeAttributes(AttributeMap atts, long elementStart) {
        attrLength = 0;
        for (AttributeInfo a : atts) {
            NodeName n = a.getNodeName();
            int code = names.code(n.getPrefix(), n.getNamespaceUri().toString(), n.getLocalPart());
            index.add(NameIndex.ATTRIBUTES, code, elementStart);
            int flags = 0;
            if (a.isId()) {
                flags |= Format.A_ID;
            }
            if (ReceiverOption.contains(a.getProperties(), ReceiverOption.IS_IDREF)
                    || a.getType().isIdRefType()) {
                flags |= Format.A_IDREF;
            }
            String value = a.getValue();
            if (n.getLocalPart().equals("base") && n.hasURI(NamespaceUri.XML)) {
                hasXmlBase = true;
            }
            if ((flags & Format.A_ID) != 0) {
                // as TinyTree does: an ID's value is kept trimmed, and indexed when it is an NCName
                value = Whitespace.trim(value);
                if (NameChecker.isValidNCName(value)) {
                    indexId(value, elementStart);
                }
            }
            byte[] v = value.getBytes(StandardCharsets.UTF_8);
            checkChars(v, "attribute " + n.getDisplayName(), elementLine, elementColumn);
            if (ascii(v)) {
                flags |= Format.A_ASCII;
            }
            attrVarint(((long) code << Format.A_SHIFT) | flags);
            attrVarint(v.length);
            attrBytes(v);
            nodes++;
        }
    }

    private void checkChars(byte[] value, String what, Location location) {
        checkChars(value, what, location == null ? -1 : location.getLineNumber(),
                location == null ? -1 : location.getColumnNumber());
    }

    /** Refuses a value XML 1.0 cannot carry (see the class comment). */
    private void checkChars(byte[] value, String what, int line, int column) {
        int at = XmlChars.firstDisallowedUtf8(value, 0, value.length);
        if (at < 0) {
            return;
        }
        String doc = systemId != null ? systemId : Store.SCHEME + uri;
        String character = XmlChars.name(XmlChars.codePointAtUtf8(value, at));
        StoreException e = line <= 0 ? new StoreException(ErrorMessage.UNWRITABLE_CHARACTER, doc, what, character)
                : column <= 0 ? new StoreException(ErrorMessage.UNWRITABLE_CHARACTER_AT_LINE, doc, what, line, character)
                : new StoreException(ErrorMessage.UNWRITABLE_CHARACTER_AT, doc, what, line, column, character);
        e.at(Where.at(doc, line, column));
        throw e;
    }

    private void indexId(String id, long elementStart) {
        DirectBuffer key = keys.id(docId, id);
        hasIds = true;
        if (key == null) {
            return;
        }
        UnsafeBuffer v = keys.value();
        v.putLong(0, elementStart, Keys.BE);
        // the first element with an id wins, as in TinyTree
        engine.docs.put(txn, key, keys.value(8), PutFlags.MDB_NOOVERWRITE);
    }

    private static boolean ascii(byte[] b) {
        for (byte x : b) {
            if (x < 0) {
                return false;
            }
        }
        return true;
    }

    private void attrVarint(long v) {
        ensureAttr(10);
        while ((v & ~0x7FL) != 0) {
            attrBuffer[attrLength++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        attrBuffer[attrLength++] = (byte) v;
    }

    private void attrBytes(byte[] b) {
        ensureAttr(b.length);
        System.arraycopy(b, 0, attrBuffer, attrLength, b.length);
        attrLength += b.length;
    }

    private void ensureAttr(int more) {
        if (attrLength + more > attrBuffer.length) {
            attrBuffer = Arrays.copyOf(attrBuffer, Math.max(attrBuffer.length * 2, attrLength + more));
        }
    }

    private int namespaceIndex(NamespaceMap m) {
        if (m == null || m.isEmpty()) {
            return -1;
        }
        if (m == lastMap) {
            return lastMapIndex;
        }
        Integer i = nsIndex.get(m);
        if (i == null) {
            i = nsMaps.size();
            nsMaps.add(m);
            nsIndex.put(m, i);
        }
        lastMap = m;
        lastMapIndex = i;
        return i;
    }

    private void push(long start, long field) {
        if (depth == starts.length) {
            starts = Arrays.copyOf(starts, depth * 2);
            sizeFields = Arrays.copyOf(sizeFields, depth * 2);
        }
        starts[depth] = start;
        sizeFields[depth] = field;
        depth++;
    }

    private void closeParent() {
        sink.write(Format.END);
        depth--;
        long start = starts[depth];
        long size = sink.position() - start;
        if (size < Format.BIG) {
            sink.patchU16(sizeFields[depth], (int) size);
        } else {
            if (bigCount * 2 + 2 > bigs.length) {
                bigs = Arrays.copyOf(bigs, bigs.length * 2);
            }
            bigs[bigCount * 2] = start;
            bigs[bigCount * 2 + 1] = size;
            bigCount++;
        }
    }

    private void finishDocument() {
        if (finished) {
            return;
        }
        flushText();
        if (pending) {
            writeElement(false);
        }
        if (depth != 1) {
            throw new IllegalStateException("document ended with " + (depth - 1) + " elements open");
        }
        closeParent();
        long length = sink.position();
        int chunks = sink.finish();
        index.finish(length);
        int flags = 0;
        if (bigCount > 0) {
            putBigs();
            flags |= DocHeader.HAS_BIGS;
        }
        if (!nsMaps.isEmpty()) {
            putNamespaces();
            flags |= DocHeader.HAS_NSMAPS;
        }
        if (hasIds) {
            flags |= DocHeader.HAS_IDS;
        }
        if (hasXmlBase) {
            flags |= DocHeader.HAS_XML_BASE;
        }
        header = new DocHeader(docId, uri, version, length, chunks, xmlBytes, nodes, names.limit(), flags, mediaType);
        engine.docs.put(txn, keys.doc(docId, Keys.HEADER), header.encode());
        finished = true;
    }

    /** Sorted by position, (pos, size) as big-endian longs, for binary search in place. */
    private void putBigs() {
        long[][] pairs = new long[bigCount][];
        for (int i = 0; i < bigCount; i++) {
            pairs[i] = new long[] {bigs[2 * i], bigs[2 * i + 1]};
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(bigCount * 16));
        for (int i = 0; i < bigCount; i++) {
            b.putLong(i * 16, pairs[i][0], Keys.BE);
            b.putLong(i * 16 + 8, pairs[i][1], Keys.BE);
        }
        engine.docs.put(txn, keys.doc(docId, Keys.BIGS), b);
    }

    /** count, then per map: count, then per binding: prefix, URI (each length-prefixed UTF-8). */
    private void putNamespaces() {
        ByteSink out = new ByteSink();
        out.varint(nsMaps.size());
        for (NamespaceMap m : nsMaps) {
            out.varint(m.size());
            for (NamespaceBinding nb : m) {
                out.string(nb.getPrefix());
                out.string(nb.getNamespaceUri().toString());
            }
        }
        engine.docs.put(txn, keys.doc(docId, Keys.NSMAPS), out.direct());
    }

    /** A growable byte array for small side tables. */
    static final class ByteSink {
        private byte[] b = new byte[64];
        private int n;

        void varint(long v) {
            ensure(10);
            while ((v & ~0x7FL) != 0) {
                b[n++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            b[n++] = (byte) v;
        }

        void string(String s) {
            byte[] u = s.getBytes(StandardCharsets.UTF_8);
            varint(u.length);
            ensure(u.length);
            System.arraycopy(u, 0, b, n, u.length);
            n += u.length;
        }

        private void ensure(int more) {
            if (n + more > b.length) {
                b = Arrays.copyOf(b, Math.max(b.length * 2, n + more));
            }
        }

        DirectBuffer direct() {
            return Keys.direct(Arrays.copyOf(b, n));
        }
    }
}
