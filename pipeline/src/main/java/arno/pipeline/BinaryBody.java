package arno.pipeline;

import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A response body given by reference, {@code <rsp:body src="…"/>}: a stored binary document (a
 * PDF, an image) or a file under the content folder, streamed from where it is to the client (the
 * store's memory-mapped chunks, or the file), never through the pipeline or into the heap. Its
 * validators come from what it is (the store version that wrote it, or the file's size and time)
 * unless the response declares its own.
 */
final class BinaryBody {
    final String mediaType;
    final long length;
    final String etag;
    final long modifiedMillis;
    private final Opener opener;

    private interface Opener {
        InputStream open() throws IOException;
    }

    private BinaryBody(String mediaType, long length, String etag, long modifiedMillis, Opener opener) {
        this.mediaType = mediaType;
        this.length = length;
        this.etag = etag;
        this.modifiedMillis = modifiedMillis;
        this.opener = opener;
    }

    InputStream open() throws IOException {
        return opener.open();
    }

    static BinaryBody of(DocumentStore.Bytes b) {
        return new BinaryBody(b.mediaType(), b.length(), "b" + b.version(), b.modified().toEpochMilli() / 1000 * 1000, b::open);
    }

    /** The file at {@code file}; {@link ErrorCode#NOT_FOUND} when there is no such regular file. */
    static BinaryBody of(Path file, String src) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            if (!a.isRegularFile()) throw ErrorMessage.NOT_A_FILE.error(src);
            long modified = a.lastModifiedTime().toMillis();
            String type = Files.probeContentType(file);
            if (type == null) type = java.net.URLConnection.guessContentTypeFromName(file.getFileName().toString());
            return new BinaryBody(type == null ? "application/octet-stream" : type, a.size(),
                    "f" + Long.toHexString(a.size()) + "-" + Long.toHexString(modified), modified / 1000 * 1000,
                    () -> Files.newInputStream(file));
        } catch (IOException e) {
            throw ErrorMessage.SOURCE_UNREADABLE.error(e, src, e.getMessage());
        }
    }
}
