package arno.store;

/**
 * One distinct element path of the store's path summary ({@link Snapshot#paths()}).
 *
 * @param path         with the prefixes it was first stored with: {@code /atom:entry/atom:category}
 * @param expandedPath with namespace URIs, as XPath 3 EQNames: {@code /Q{http://www.w3.org/2005/Atom}entry/…}
 * @param occurrences  elements with this path in the store
 * @param documents    documents with at least one
 */
public record PathCount(String path, String expandedPath, long occurrences, long documents) {
}
