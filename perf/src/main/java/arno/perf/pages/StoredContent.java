package arno.perf.pages;

import arno.store.Store;
import arno.store.WriteTransaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * With {@code -Darno.store=true}, the page benchmarks serve their content from
 * a store loaded with it (in a temporary folder) instead of from the files.
 */
final class StoredContent {
    private StoredContent() {}

    static boolean wanted() {
        return Boolean.getBoolean("arno.store");
    }

    /** A new store in {@code dir} holding every file under {@code content} at its relative path. */
    static Store load(Path content, Path dir) throws IOException {
        Store store = Store.open(dir);
        try (WriteTransaction w = store.write(); Stream<Path> files = Files.walk(content)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                w.put("/" + content.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            }
            w.commit();
        }
        return store;
    }
}
