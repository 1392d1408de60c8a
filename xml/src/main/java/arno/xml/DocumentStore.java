package arno.xml;

import java.util.ArrayList;
import java.util.List;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.TreeInfo;

/**
 * What the pipeline needs of a persistent XML store: consistent read views whose documents
 * Saxon navigates in place. The store implements it; the pipeline depends on this interface only,
 * so a different store (a replica that follows another node's change feed) plugs in unchanged.
 */
public interface DocumentStore {
    /** The URI scheme under which stored documents are reachable from XSLT and XQuery. */
    String SCHEME = "store:";

    /** Opens a view of the current version. Close it on the thread that opened it. */
    View read();

    /** One consistent version of the whole store, however many writers commit meanwhile. */
    interface View extends AutoCloseable {
        /** The version this view sees. */
        long version();

        /** Whether a document is stored at {@code path} ("/journals/ja.atom"). */
        boolean exists(String path);

        /**
         * The version of the document at {@code path} in this view: the store version that last
         * wrote it, which only grows; -1 when there is none. What a page cache records of every
         * document a page read, and checks a cached page against (one lookup, no document read).
         * This default, for views without versions, answers 0 for every document, so that a
         * cache sees documents appear and disappear but not change.
         */
        default long documentVersion(String path) {
            return exists(path) ? 0 : -1;
        }

        /**
         * The document at {@code path}, for {@code config} (its names come from that configuration's
         * name pool); {@link ErrorCode#NOT_FOUND} when there is none. Valid until the view closes.
         */
        TreeInfo document(String path, Configuration config);

        /**
         * {@link #document}, or null when nothing is stored at {@code path}: for a reader that
         * falls back to something else (the site's content files) and would otherwise ask
         * {@link #exists} first, a second lookup of the same path. This default does just that;
         * the store answers from one.
         */
        default TreeInfo documentIfStored(String path, Configuration config) {
            return exists(path) ? document(path, config) : null;
        }

        /**
         * The binary document (a PDF, an image) at {@code path}, or null when none is stored there
         * (nothing, or an XML document). Its bytes are read from the view's version until the view
         * closes. This default, for views without binaries, has none.
         */
        default Bytes bytes(String path) {
            return null;
        }

        /** The paths of the stored documents that start with {@code prefix}, in order. */
        List<String> uris(String prefix);

        /**
         * The direct children of {@code folder} ("/journals/ja/", or "/"): documents by name
         * ("v1.atom"), sub-folders by name and a slash ("v1/"), in the order of {@link #uris}.
         * This default walks every path under the folder; the store answers from its index,
         * skipping each sub-folder's contents.
         */
        default List<String> children(String folder) {
            List<String> out = new ArrayList<>();
            String last = null;
            for (String p : uris(folder)) {
                String rest = p.substring(folder.length());
                int slash = rest.indexOf('/');
                String name = slash < 0 ? rest : rest.substring(0, slash + 1);
                if (!name.equals(last)) {
                    out.add(name);
                    last = name;
                }
            }
            return out;
        }

        /**
         * The elements that the store's value index {@code index} holds with a value in [low, high]
         * (inclusive; null for an open end; low = high for equality), under {@code key} for a
         * correlated index (null otherwise), each once, in index order; nodes of {@code config}.
         * This default has no indexes: {@link ErrorCode#BAD_PARAMETER}.
         */
        default List<net.sf.saxon.om.NodeInfo> lookup(String index, String key, String low, String high,
                Configuration config) {
            throw ErrorMessage.NO_VALUE_INDEXES.error(index);
        }

        /**
         * A structured search: the XML documents stored under {@code under} ("/journals/") for which
         * the XPath {@code condition} (a subset: paths, predicates, comparisons with literals, and,
         * or, not()), with the document node as context item, is true: exactly
         * {@code collection('store:' || $under)[CONDITION]}, in that order, planned on the store's
         * value indexes. {@code namespaces} binds the condition's prefixes ("" for the default
         * element namespace). Documents of {@code config}, found as the iterator is read.
         * This default has no search: {@link ErrorCode#BAD_PARAMETER}.
         */
        default java.util.Iterator<net.sf.saxon.om.NodeInfo> search(String under, String condition,
                java.util.Map<String, String> namespaces, Configuration config) {
            throw ErrorMessage.NO_STRUCTURED_SEARCH.error(under);
        }

        /**
         * Tells the view that its reader used an index that follows the store's commits from behind
         * (the full-text index, fed by the change feed), as it stood having applied every commit up to
         * store version {@code applied}. What the reader builds then depends on any later commit: a page
         * cache keeps it only while the store is at {@code applied}, and not at all when that is not
         * this view's version (the page would mix two versions). {@code index} names it in the reason;
         * {@code applied} -1 says that it refused (its answer is not kept either).
         * This default, for views that record nothing, does nothing.
         */
        default void followedIndexRead(String index, long applied) {
        }

        /** The plan {@link #search} would follow, as a {@code store:plan} element of {@code config}. */
        default net.sf.saxon.om.NodeInfo explain(String under, String condition,
                java.util.Map<String, String> namespaces, Configuration config) {
            throw ErrorMessage.NO_STRUCTURED_SEARCH.error(under);
        }

        @Override
        void close();
    }

    /** A stored binary document as a view sees it: what a response streams by reference. */
    interface Bytes {
        /** Its media type, as it was stored. */
        String mediaType();

        /** Its length in bytes. */
        long length();

        /** The store version that last wrote it. */
        long version();

        /** When that version was committed. */
        java.time.Instant modified();

        /** Its bytes from the first; read them before the view closes. */
        java.io.InputStream open();
    }
}
