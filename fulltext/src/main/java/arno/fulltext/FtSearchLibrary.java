package arno.fulltext;

import arno.store.Store;
import arno.xml.DocumentStore;
import arno.xml.FunctionLibrary;
import java.util.function.Function;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;

/**
 * Offers {@code store:ft-search} to the sites: the index is the one attached to their store when a
 * call runs, and the request's view records the search, so a cached page goes at the next commit.
 */
public final class FtSearchLibrary implements FunctionLibrary {

    @Override
    public void register(Configuration config, DocumentStore store, Function<XPathContext, DocumentStore.View> views) {
        FtSearchFunction.register(config, () -> store instanceof Store s ? s.attached(FulltextIndex.class) : null, views);
    }
}
