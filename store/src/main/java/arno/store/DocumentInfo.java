package arno.store;

import java.time.Instant;

/**
 * What the store knows about one stored document without reading it.
 *
 * @param uri         the store URI, e.g. {@code /journals/ja/v1/i2/a3/article.xml}
 * @param version     the store version that last wrote it; it only grows (the resource's ETag)
 * @param storedBytes size of its binary form (the record stream), or of the bytes of a binary document
 * @param xmlBytes    size of the XML it was parsed from, or -1 when it came from a tree or is binary
 * @param nodes       nodes stored, attributes included (0 for a binary document)
 * @param mediaType   its media type: {@code application/xml} unless the writer gave another
 * @param binary      whether it is stored as bytes ({@link Snapshot#binary}) rather than as a tree
 * @param modified    the commit time of {@code version} (the resource's Last-Modified); inside a write
 *                    transaction, that transaction's commit time for what it wrote itself
 */
public record DocumentInfo(String uri, long version, long storedBytes, long xmlBytes, long nodes, String mediaType,
                           boolean binary, Instant modified) {
}
