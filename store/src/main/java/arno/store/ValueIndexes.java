package arno.store;

import java.util.Objects;

/**
 * Changing a store's value indexes: {@link #install} stores a configuration as
 * {@link IndexConfig#URI}, which, in the same transaction, builds each new or changed index over
 * every stored document and drops each removed one (see {@link Indexer}).
 */
public final class ValueIndexes {

    /** Told of each stored document while new indexes are built over them. */
    @FunctionalInterface
    public interface Progress {
        void document(long done, long total, String uri);
    }

    private ValueIndexes() {
    }

    /**
     * Makes {@code config} the store's index configuration in {@code w} (commit to keep it),
     * building what it adds over every stored document, telling {@code progress} (may be null).
     *
     * @throws arno.xml.ArnoException BAD_CONFIGURATION when the configuration is refused
     */
    public static void install(WriteTransaction w, IndexConfig config, Progress progress) {
        Objects.requireNonNull(config, "config");
        Indexer indexer = w.indexer();
        indexer.progress = progress == null ? null : progress::document;
        try {
            w.put(IndexConfig.URI, config.toXml());
        } finally {
            indexer.progress = null;
        }
    }
}
