package arno.store.atom;

import arno.xml.ErrorMessage;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One resource document to store with others in one transaction ({@link AtomStore#putAll}): the
 * entry {@code PATH.atom} (created, or replaced when it exists) or the variant {@code PATH.EXT} of
 * an entry that exists or is created by the same call. The body is in memory ({@link #bytes}) or in
 * a file the caller owns ({@link #file}, read before the write is queued; not deleted).
 *
 * @param path      the resource
 * @param extension {@code atom} for the entry, else the variant's extension (as its kind declares it)
 * @param mediaType the variant's media type, or null for the one its kind declares (ignored for entries)
 * @param bytes     the body, or null when {@code file} holds it
 * @param file      the file holding the body, or null when {@code bytes} does
 */
public record Put(ResourcePath path, String extension, String mediaType, byte[] bytes, Path file) {

    public Put {
        Objects.requireNonNull(path, "path");
        ResourcePath.checkExtension(Objects.requireNonNull(extension, "extension"));
        if (path.isRoot()) throw new IllegalArgumentException("the root has no entry and no variants");
        if ((bytes == null) == (file == null)) throw new IllegalArgumentException("a put has bytes or a file, exactly one");
    }

    /** The document {@code store:} path ({@code /journals/ja/v1/i1/a0001.xhtml}) with its body in memory. */
    public static Put of(String storePath, String mediaType, byte[] bytes) {
        ResourcePath.Document d = document(storePath);
        return new Put(d.resource(), d.extension(), mediaType, bytes, null);
    }

    /** The document {@code storePath} with its body in {@code file}. */
    public static Put of(String storePath, String mediaType, Path file) {
        ResourcePath.Document d = document(storePath);
        return new Put(d.resource(), d.extension(), mediaType, null, file);
    }

    private static ResourcePath.Document document(String storePath) {
        ResourcePath.Document d = ResourcePath.document(storePath);
        if (d == null) {
            throw ErrorMessage.NOT_RESOURCE_DOCUMENT.error(storePath)
                    .at(arno.xml.Where.at("store:" + storePath));
        }
        return d;
    }

    public boolean isEntry() {
        return extension.equals(Atom.ENTRY_EXTENSION);
    }

    /** The store document this writes. */
    public String document() {
        return path.path() + "." + extension;
    }
}
