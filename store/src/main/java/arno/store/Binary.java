package arno.store;

import java.io.InputStream;
import java.time.Instant;

import org.agrona.concurrent.UnsafeBuffer;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * A binary document (a PDF, an image) as one snapshot sees it. Its bytes are read straight from
 * the memory-mapped chunks, 1 MiB each, so serving a range costs no copy beyond the one into the
 * caller's buffer and no read of the chunks before it. Valid while its snapshot is open (for the
 * view of a write transaction: until that transaction's next write).
 */
public final class Binary implements arno.xml.DocumentStore.Bytes {

    private final Snapshot snapshot;
    private final DocHeader header;
    private final Instant modified;
    private final int generation;

    Binary(Snapshot snapshot, DocHeader header, Instant modified) {
        this.snapshot = snapshot;
        this.header = header;
        this.modified = modified;
        this.generation = snapshot.generation();
    }

    public String uri() {
        return header.uri();
    }

    public String mediaType() {
        return header.mediaType();
    }

    /** Its length in bytes. */
    public long length() {
        return header.length();
    }

    /** The version that wrote it (its ETag). */
    public long version() {
        return header.version();
    }

    /** The commit time of {@link #version()} (its Last-Modified). */
    public Instant modified() {
        return modified;
    }

    /** All of its bytes. */
    public InputStream open() {
        return open(0, length());
    }

    /**
     * {@code length} bytes from {@code offset}.
     *
     * @throws StoreException RANGE_NOT_SATISFIABLE when the range is not inside the document
     */
    public InputStream open(long offset, long length) {
        if (offset < 0 || length < 0 || offset > length() || length > length() - offset) {
            StoreException e = new StoreException(ErrorCode.RANGE_NOT_SATISFIABLE, null, offset, offset + length - 1, Store.SCHEME + uri(),
                    length());
            e.at(Where.at(Store.SCHEME + uri()));
            throw e;
        }
        return new Bytes(offset, offset + length);
    }

    @Override
    public String toString() {
        return "Binary[" + uri() + ", " + mediaType() + ", " + length() + " bytes, version " + version() + "]";
    }

    private void checkValid() {
        snapshot.checkOpen();
        if (snapshot.generation() != generation) {
            throw new StoreException(ErrorMessage.READ_AFTER_WRITE, Store.SCHEME + uri());
        }
    }

    /** Reads chunk by chunk, keeping the current chunk's mapped view. */
    private final class Bytes extends InputStream {
        private long pos;
        private final long end;
        private int chunkIndex = -1;
        private UnsafeBuffer chunk;

        Bytes(long pos, long end) {
            this.pos = pos;
            this.end = end;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (pos >= end) {
                return -1;
            }
            if (len == 0) {
                return 0;
            }
            checkValid();
            int i = (int) (pos >>> Format.CHUNK_SHIFT);
            if (i != chunkIndex) {
                chunk = snapshot.chunk(header.docId(), i);
                chunkIndex = i;
            }
            int o = (int) (pos & Format.CHUNK_MASK);
            int n = (int) Math.min(Math.min(len, end - pos), chunk.capacity() - o);
            if (n <= 0) {
                throw new StoreException(ErrorMessage.CHUNK_SHORT, Store.SCHEME + uri(), i, chunk.capacity(), length());
            }
            chunk.getBytes(o, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public long skip(long n) {
            long k = Math.max(0, Math.min(n, end - pos));
            pos += k;
            return k;
        }

        @Override
        public int available() {
            return (int) Math.min(Integer.MAX_VALUE, end - pos);
        }
    }
}
