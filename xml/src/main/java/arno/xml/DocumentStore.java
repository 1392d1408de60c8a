package arno.xml;

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

        /** Whether a document is stored at {@code path} ("/journals/ja/journal.atom"). */
        boolean exists(String path);

        /**
         * The document at {@code path}, for {@code config} (its names come from that configuration's
         * name pool); {@link ErrorCode#NOT_FOUND} when there is none. Valid until the view closes.
         */
        TreeInfo document(String path, Configuration config);

        /** The paths of the stored documents that start with {@code prefix}, in order. */
        List<String> uris(String prefix);

        @Override
        void close();
    }
}
