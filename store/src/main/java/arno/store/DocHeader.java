package arno.store;

import arno.xml.ErrorMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;


/**
 * The HEADER entry of a stored document: what is needed to open it without touching its chunks.
 *
 * <pre>
 *  0 u8  format          1 u8 flags (BIGS, NSMAPS, IDS, XML_BASE, BINARY)   2 u16 media type length
 *  4 i32 chunk count     8 i64 length of the record stream (binary: of the bytes)
 * 16 i64 XML bytes read (-1 when not from bytes, and for binaries)         24 i64 version
 * 32 i64 node count     40 i32 name codes used (highest + 1)      44 i32 URI length
 * 48 URI (UTF-8), then the media type (ASCII)
 * </pre>
 *
 * A binary document ({@link #BINARY}) is its bytes cut into 1 MiB CHUNK values with no overlap
 * and no side tables: {@code chunks = ceil(length / 1 MiB)} (none when empty), no nodes, no names.
 */
record DocHeader(long docId, String uri, long version, long length, int chunks, long xmlBytes, long nodes,
                 int nameCodes, int flags, String mediaType) {

    static final int HAS_BIGS = 1;
    static final int HAS_NSMAPS = 2;
    static final int HAS_IDS = 4;
    /** Some element has an xml:base attribute; without one every node's base URI is the document's. */
    static final int HAS_XML_BASE = 8;
    /** The document is bytes, not a tree. */
    static final int BINARY = 16;

    /** The media type of XML stored without one. */
    static final String XML = "application/xml";

    boolean binary() {
        return (flags & BINARY) != 0;
    }

    DocHeader withXmlBytes(long xml) {
        return new DocHeader(docId, uri, version, length, chunks, xml, nodes, nameCodes, flags, mediaType);
    }

    DirectBuffer encode() {
        byte[] u = uri.getBytes(StandardCharsets.UTF_8);
        byte[] m = mediaType.getBytes(StandardCharsets.US_ASCII);
        UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(48 + u.length + m.length));
        b.putByte(0, (byte) Format.VERSION);
        b.putByte(1, (byte) flags);
        b.putShort(2, (short) m.length, Keys.BE);
        b.putInt(4, chunks, Keys.BE);
        b.putLong(8, length, Keys.BE);
        b.putLong(16, xmlBytes, Keys.BE);
        b.putLong(24, version, Keys.BE);
        b.putLong(32, nodes, Keys.BE);
        b.putInt(40, nameCodes, Keys.BE);
        b.putInt(44, u.length, Keys.BE);
        b.putBytes(48, u);
        b.putBytes(48 + u.length, m);
        return b;
    }

    static DocHeader decode(long docId, DirectBuffer b) {
        if (b.capacity() < 48 || b.getByte(0) != Format.VERSION) {
            throw new StoreException(ErrorMessage.HEADER_MALFORMED, docId);
        }
        int ulen = b.getInt(44, Keys.BE);
        int mlen = b.getShort(2, Keys.BE) & 0xFFFF;
        if (ulen < 0 || 48 + ulen + mlen != b.capacity()) {
            throw new StoreException(ErrorMessage.HEADER_NAME_MALFORMED, docId);
        }
        return new DocHeader(docId, Keys.string(b, 48, ulen), b.getLong(24, Keys.BE), b.getLong(8, Keys.BE),
                b.getInt(4, Keys.BE), b.getLong(16, Keys.BE), b.getLong(32, Keys.BE), b.getInt(40, Keys.BE),
                b.getByte(1) & 0xFF, Keys.string(b, 48 + ulen, mlen));
    }
}
