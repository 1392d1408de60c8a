package arno.perf.pages;

import arno.store.Store;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import java.io.IOException;
import java.nio.file.Path;

/**
 * With {@code -Darno.store=true}, the page benchmarks serve their content from
 * a store loaded with it (in a temporary folder) instead of from the files.
 */
public final class StoredContent {
    private StoredContent() {}

    public static boolean wanted() {
        return Boolean.getBoolean("arno.store");
    }

    /**
     * A new store in {@code dir} holding the content folder (laid out as the store's resources),
     * loaded through the store service as {@code ./arno serve} loads the demo.
     */
    public static Store load(Path content, Path dir) throws IOException {
        Store store = Store.open(dir);
        try (AtomStore atom = AtomStore.open(store, AtomOptions.defaults().hrefPrefix("/store"))) {
            TreeLoader.load(atom, content, "perf", null);
        }
        return store;
    }
}
