package arno.store.http;

import arno.store.atom.ResourcePath;
import arno.xml.ErrorMessage;

/**
 * Which deletes through the store API are big enough to need an administrator's explicit
 * confirmation: deleting an entry at {@code depth} or above (1 is a top-level entry such as
 * {@code /journals}, 2 its children; 0: none by depth), and any delete that removes more than
 * {@code documents} documents (the entry, its variants and everything below it). Such a delete
 * needs the admin role, {@code If-Match} with the entry's ETag and {@code ?recursive=N} stating the
 * number of documents it removes ({@link Confirmations}).
 *
 * @param depth     entries at this depth or above need confirmation
 * @param documents deletes that remove more documents than this need confirmation
 */
public record DeleteGuard(int depth, long documents) {
    /**
     * Depth 2, 100 documents: the list of journals and a journal always need confirmation; of the
     * demo's hierarchy, an article with its variants and figures (a few to a few dozen documents)
     * is deleted by one request, an issue or a volume (hundreds) is confirmed.
     */
    public static final DeleteGuard DEFAULT = new DeleteGuard(2, 100);

    public DeleteGuard {
        if (depth < 0) throw ErrorMessage.GUARD_DEPTH.error(depth);
        if (documents < 0) {
            throw ErrorMessage.GUARD_DOCUMENTS.error(documents);
        }
    }

    /** Whether deleting the entry at {@code path}, which removes {@code removed} documents, needs confirmation. */
    public boolean applies(ResourcePath path, long removed) {
        return path.depth() <= depth || removed > documents;
    }
}
