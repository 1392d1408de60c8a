package arno.xml;

import net.sf.saxon.Configuration;

/**
 * Extension functions a module adds to the sites' Saxon configuration, beside {@link StoreFunctions}:
 * the pipeline finds every implementation on the class path ({@link java.util.ServiceLoader}, listed in
 * {@code META-INF/services/arno.xml.FunctionLibrary}) and registers them before it compiles any site,
 * so that a module the pipeline does not depend on (full-text search) can offer functions to templates.
 */
public interface FunctionLibrary {

    /**
     * Registers the functions on {@code config}, for sites reading {@code store} (null: no store);
     * {@code views} finds the store view of the request a call runs in (null outside one), which
     * records what the page read for the page cache.
     */
    void register(Configuration config, DocumentStore store,
                  java.util.function.Function<net.sf.saxon.expr.XPathContext, DocumentStore.View> views);
}
