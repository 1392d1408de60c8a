package arno.store;

/**
 * One element found by a value index lookup ({@link Snapshot#lookup}): the document and the
 * element's position in it (its identity; {@link Snapshot#node} turns it into a Saxon node).
 */
public record IndexHit(String uri, long position) {
}
