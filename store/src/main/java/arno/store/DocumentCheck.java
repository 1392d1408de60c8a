package arno.store;

import arno.xml.XmlPolicy;

/**
 * A check of a configuration document that a module other than the store reads (the full-text
 * index's {@code /_config/fulltext.xml}): run by every write of {@link #uri()}, in the writing
 * transaction, so a document the module would refuse is never stored, whichever path wrote it (a
 * store load, the server's write path, a cluster node checking a write against its copy). Found
 * with {@link java.util.ServiceLoader} when a store opens, so the module need only be on the class
 * path. {@code /_config/indexes.xml}, the store's own, is checked by the store itself.
 *
 * <p>MUST throw an {@link arno.xml.ArnoException} naming what is wrong and, where it can, the line
 * and column; MUST NOT keep state between calls (several stores may share one instance's class).
 */
public interface DocumentCheck {

    /** The store path of the document it checks, e.g. {@code /_config/fulltext.xml}. */
    String uri();

    /**
     * Refuses {@code xml} (as the writer sent it where it can, else as stored), named {@code
     * systemId} in messages; {@code xml} is null when the document is binary.
     */
    void check(byte[] xml, String systemId, XmlPolicy policy);
}
