package arno.store.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.XmlPolicy;

/**
 * A query's reports over the whole store, with a clock the test moves: results stream (the first
 * is written before the last document is read), progress is drawn as documents are examined, and
 * the time limit stops the run with what it did.
 */
class StoreQueryReportingTest {

    @TempDir
    Path dir;

    Store store;

    @BeforeEach
    void fill() {
        store = Store.open(dir, StoreOptions.defaults().mapSize(256L << 20));
        try (WriteTransaction w = store.write()) {
            for (int i = 0; i < 100; i++) {
                w.put(String.format("/d/%03d.xml", i), ("<doc n='" + i + "'/>").getBytes(StandardCharsets.UTF_8));
            }
            w.commit();
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    StoreQuery query(String text) {
        return StoreQuery.compile(text, URI.create("file:/q"), "query", XmlPolicy.DEFAULT);
    }

    /** A clock that moves one second at each reading. */
    static final class Ticking implements java.util.function.LongSupplier {
        long now;

        @Override
        public long getAsLong() {
            now += 1_000_000_000L;
            return now;
        }
    }

    @Test
    void aCollectionStreamsItsDocumentsToTheOutput() {
        // the output records how many documents had been read when each result arrived
        List<Long> readWhenWritten = new ArrayList<>();
        long[] read = {0};
        StringWriter err = new StringWriter();
        StoreQuery.Reporting r = new StoreQuery.Reporting(new PrintWriter(err), false, true, false, null, () -> {
            read[0]++;
            return read[0] * Progress.LOG_INTERVAL_NANOS;
        });
        StringBuilder all = new StringBuilder();
        Writer out = new Writer() {
            @Override
            public void write(char[] b, int off, int len) {
                all.append(b, off, len);
                int count = all.toString().split("<doc", -1).length - 1;
                while (readWhenWritten.size() < count) {
                    readWhenWritten.add(read[0]);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        query("collection('store:/d/') ! doc").run(store, null, out, r);
        assertThat(readWhenWritten).hasSize(100);
        assertThat(readWhenWritten.get(0)).as("the first result before the 100th document").isLessThan(50);
        // one progress line at each clock reading in a log (the clock moves a log interval each time)
        assertThat(err.toString()).contains("[query]   1% 1/100 documents").contains("[query] 100% 100/100 documents")
                .contains("/d/099.xml");
    }

    @Test
    void aCollectionsMembersAreTheDocumentsDocGivesForTheirUris() {
        StringWriter out = new StringWriter();
        query("count(distinct-values(collection('store:/d/') ! document-uri(.))),"
                + " every $d in collection('store:/d/') satisfies $d is doc(document-uri($d)),"
                + " doc('store:/d/007.xml') is collection('store:/d/')[8]").run(store, null, out);
        assertThat(out.toString().strip().split("\\s+")).containsExactly("100", "true", "true");
    }

    @Test
    void theTimeLimitStopsTheRunAndSaysWhatWasDone() {
        StoreQuery.Reporting r = new StoreQuery.Reporting(new PrintWriter(new StringWriter()), false, false, false,
                Duration.ofSeconds(5), new Ticking());
        StringWriter out = new StringWriter();
        assertThatThrownBy(() -> query("collection('store:/d/')/doc/@n/string()").run(store, null, out, r))
                .isInstanceOf(ArnoException.class)
                .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.QUERY_TIMEOUT))
                .hasMessageStartingWith("the query ran past its time limit of 5s and was stopped: ")
                .hasMessageContaining("documents examined");
        // a search is stopped the same way, between two candidates
        StoreQuery.Reporting s = new StoreQuery.Reporting(new PrintWriter(new StringWriter()), false, false, false,
                Duration.ofSeconds(3), new Ticking());
        assertThatThrownBy(() -> query("count(store:search('/d/', 'doc/@n = 99'))").run(store, null, new StringWriter(), s))
                .hasMessageContaining("(1 searches)");
        // and the store is free for what comes next
        StringWriter after = new StringWriter();
        query("count(collection('store:/d/'))").run(store, null, after);
        assertThat(after.toString().strip()).isEqualTo("100");
    }

    @Test
    void explainWritesThePlanBeforeTheResultsAndTheCountsAfter() {
        StringWriter err = new StringWriter();
        StringWriter out = new StringWriter();
        StoreQuery.Reporting r = new StoreQuery.Reporting(new PrintWriter(err), true, false, false, null);
        query("store:search('/d/', 'doc[@n >= 98]') ! string(*/@n)").run(store, null, out, r);
        assertThat(out.toString().strip()).isEqualTo("98\n99");
        assertThat(err.toString()).startsWith("search under /d/: doc[@n >= 98]\n")
                .contains("under /d/: scan of every document (no index narrows it)")
                .contains("-. no index  /doc/@n >= 98  (no index on /doc/@n)")
                .contains("done: 100 candidates examined, 2 results");
    }
}
