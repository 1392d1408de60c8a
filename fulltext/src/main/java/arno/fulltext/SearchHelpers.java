package arno.fulltext;

import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;

/**
 * Threads that a search running alone borrows, one per core beside its own, to search parts of the
 * index at once. A phrase's top ten at a million articles check the words' positions in thousands
 * of bodies (14 ms); split over two cores that is 15–25% less for one client. Beside other searches
 * the cores are theirs, so {@link FulltextIndex} lends these only to a search that runs alone, and
 * a task finding no idle helper runs on the searching thread: a search never waits for a helper.
 */
final class SearchHelpers {
    private final ThreadPoolExecutor pool;
    private final int parts;

    SearchHelpers(int helpers) {
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(0, helpers, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "arno-search-helper-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
        this.parts = helpers + 1;
    }

    /** Helpers for every core but one; null on a machine of one core. */
    static SearchHelpers forThisMachine() {
        int cores = Runtime.getRuntime().availableProcessors();
        return cores > 1 ? new SearchHelpers(cores - 1) : null;
    }

    /**
     * A searcher over {@code reader} whose segments are grouped into one part per core, of about
     * as many documents each (Lucene's default groups by 250,000 documents, which at a million is
     * four parts for two cores).
     */
    IndexSearcher searcher(IndexReader reader) {
        int perPart = Math.max(1, (reader.maxDoc() + parts - 1) / parts);
        return new IndexSearcher(reader, pool) {
            @Override
            protected LeafSlice[] slices(List<LeafReaderContext> leaves) {
                return slices(leaves, perPart, Integer.MAX_VALUE);
            }
        };
    }

    void shutdown() {
        pool.shutdown();
    }
}
