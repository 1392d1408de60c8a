package arno.fulltext;

import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import net.sf.saxon.s9api.Processor;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The full-text index beside a store as its last commit left it, read only: what {@code ./arno
 * query} searches. It never writes, so it runs beside a server that holds the index (whose writer
 * commits every few seconds: the hits may lag the store by that, and by whatever was committed to
 * the store while no server ran; each answer's version says which store version it reflects). An
 * index that is missing, of another format or built from another configuration than the store's
 * answers search-unavailable, saying so; {@code ./arno serve} builds it.
 */
public final class CommittedIndex implements Searchable, AutoCloseable {

    private final Directory directory;
    private final DirectoryReader reader;
    private final FulltextIndex.Indexed in;
    private final long version;
    private final Supplier<ArnoException> refusal;

    private CommittedIndex(Directory directory, DirectoryReader reader, FulltextIndex.Indexed in, long version,
                           Supplier<ArnoException> refusal) {
        this.directory = directory;
        this.reader = reader;
        this.in = in;
        this.version = version;
        this.refusal = refusal;
    }

    /** The index of {@code store} in {@code folder} as last committed; never fails: a search says what is wrong. */
    public static CommittedIndex open(Store store, Path folder) {
        FulltextConfig config;
        String xml;
        try (Snapshot s = store.read()) {
            if (!s.exists(FulltextConfig.URI)) {
                return refused(() -> ErrorCode.SEARCH_UNAVAILABLE.error("the store has no full-text configuration ("
                        + FulltextConfig.URI + ")"));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.export(FulltextConfig.URI, out);
            xml = out.toString(java.nio.charset.StandardCharsets.UTF_8);
            try {
                config = FulltextConfig.parse(out.toByteArray(), Store.SCHEME + FulltextConfig.URI, store.options().xmlPolicy());
            } catch (RuntimeException bad) {
                return refused(() -> ErrorCode.SEARCH_UNAVAILABLE.error(String.valueOf(bad.getMessage())));
            }
        }
        if (!Files.isDirectory(folder)) return refused(() -> ErrorMessage.SEARCH_NO_INDEX.error(folder, "no such folder"));
        Directory d = null;
        try {
            d = FSDirectory.open(folder);
            if (!DirectoryReader.indexExists(d)) {
                d.close();
                return refused(() -> ErrorMessage.SEARCH_NO_INDEX.error(folder, "nothing committed yet"));
            }
            Map<String, String> data = SegmentInfos.readLatestCommit(d).getUserData();
            if (!FulltextIndex.FORMAT.equals(data.get(FulltextIndex.FORMAT_KEY)) || data.get(FulltextIndex.VERSION) == null
                    || !config.hash().equals(data.get(FulltextIndex.CONFIG))) {
                d.close();
                return refused(() -> ErrorMessage.SEARCH_NO_INDEX.error(folder, "the one there was built from another"
                        + " configuration or format than the store's " + FulltextConfig.URI));
            }
            long version = Long.parseLong(data.get(FulltextIndex.VERSION));
            Processor processor = new Processor(false);
            store.options().xmlPolicy().install(processor.getUnderlyingConfiguration());
            FulltextIndex.Indexed in = new FulltextIndex.Indexed(config, Analyzers.of(config),
                    new EntryDocuments(config, processor, Store.SCHEME + FulltextConfig.URI), xml);
            return new CommittedIndex(d, DirectoryReader.open(d), in, version, null);
        } catch (IOException | RuntimeException e) {
            if (d != null) {
                try {
                    d.close();
                } catch (IOException ignored) {
                    // what matters is why it could not be read
                }
            }
            return refused(() -> ErrorMessage.SEARCH_NO_INDEX.error(e, folder, "it cannot be read: " + e.getMessage()));
        }
    }

    private static CommittedIndex refused(Supplier<ArnoException> why) {
        return new CommittedIndex(null, null, null, -1, why);
    }

    /** The store version whose commits the index holds, or -1 when there is none to read. */
    public long version() {
        return version;
    }

    @Override
    public Results search(SearchRequest request) {
        if (refusal != null) throw refusal.get();
        return new Search(in, reader, FulltextIndex.Options.defaults().timeout(), MatchCounts.SAMPLE, version, null).run(request);
    }

    @Override
    public void close() {
        try {
            if (reader != null) reader.close();
            if (directory != null) directory.close();
        } catch (IOException e) {
            // read only: nothing is lost
        }
    }
}
