package arno.fulltext;

import arno.store.Store;
import arno.store.query.StoreQuery;
import arno.xml.DocumentStore;
import arno.xml.FunctionLibrary;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;

/**
 * Offers {@code store:ft-search} to the sites: the index is the one attached to their store when a
 * call runs, and the request's view records the search, so a cached page goes at the next commit.
 * {@link #forQueries} offers it to {@link StoreQuery}'s queries ({@code ./arno query}, the
 * console's query box).
 */
public final class FtSearchLibrary implements FunctionLibrary {

    @Override
    public void register(Configuration config, DocumentStore store, Function<XPathContext, DocumentStore.View> views) {
        FtSearchFunction.register(config, () -> store instanceof Store s ? s.attached(FulltextIndex.class) : null, views);
    }

    /**
     * What {@link StoreQuery#compile(String, java.net.URI, String, arno.xml.Access, Consumer)} registers
     * so that a query can call {@code store:ft-search}: the one place for {@code ./arno query} (the
     * index as last committed) and the admin console (the server's live index, within its bound on
     * searches at once like every other search). {@code index} gives the index when a call runs (null:
     * none, search-unavailable); the call reads through the run's view.
     */
    public static Consumer<Configuration> forQueries(Supplier<? extends Searchable> index) {
        return config -> FtSearchFunction.register(config, index, StoreQuery.VIEWS);
    }
}
