package arno.store;

/**
 * What the store knows about one stored document without reading it.
 *
 * @param uri         the store URI, e.g. {@code /journals/ja/v1/i2/a3/article.xml}
 * @param version     the store version that last wrote it; it only grows
 * @param storedBytes size of its binary form (the record stream)
 * @param xmlBytes    size of the XML it was parsed from, or -1 when it came from a tree
 * @param nodes       nodes stored, attributes included
 */
public record DocumentInfo(String uri, long version, long storedBytes, long xmlBytes, long nodes) {
}
