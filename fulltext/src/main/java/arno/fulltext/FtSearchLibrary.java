package arno.fulltext;

import arno.store.Store;
import arno.xml.DocumentStore;
import arno.xml.FunctionLibrary;
import net.sf.saxon.Configuration;

/** Offers {@code store:ft-search} to the sites: the index is the one attached to their store when a call runs. */
public final class FtSearchLibrary implements FunctionLibrary {

    @Override
    public void register(Configuration config, DocumentStore store) {
        FtSearchFunction.register(config, () -> store instanceof Store s ? s.attached(FulltextIndex.class) : null);
    }
}
