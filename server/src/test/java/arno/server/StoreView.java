package arno.server;

import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import java.util.List;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.TreeInfo;

/**
 * The real LMDB store as the pipeline sees it, until the store module implements
 * {@link DocumentStore} itself (then this adapter goes).
 */
final class StoreView implements DocumentStore {
    private final arno.store.Store store;

    StoreView(arno.store.Store store) {
        this.store = store;
    }

    @Override
    public View read() {
        arno.store.Snapshot s = store.read();
        return new View() {
            @Override public long version() { return s.version(); }
            @Override public boolean exists(String path) { return s.exists(path); }
            @Override public List<String> uris(String prefix) { return s.uris(prefix); }
            @Override public void close() { s.close(); }

            @Override
            public TreeInfo document(String path, Configuration config) {
                try {
                    return s.document(path, config);
                } catch (ArnoException e) {
                    throw e;
                } catch (RuntimeException e) {
                    throw ErrorCode.NOT_FOUND.error(e, "store:" + path + ": " + e.getMessage());
                }
            }
        };
    }
}
