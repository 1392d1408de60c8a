package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.StoreFunctions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bound on searches at once (search-busy), what store:ft-search tells the view it reads for the
 * page cache, and the index as last committed, read only (what ./arno query searches).
 */
class SearchBoundTest {

    @TempDir
    Path dir;

    @Test
    void searchesBeyondTheBoundAreRefusedBusyAndTheOthersRun() throws Exception {
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"),
                     new FulltextIndex.Options(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(2), 1,
                             Duration.ofMillis(20)))) {
            long v = Articles.store(store, Articles.generate(20, 5), true);
            assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).isTrue();
            assertThat(index.search(SearchRequest.of("alpha OR bravo")).total()).isPositive();
            // Another search holds the one slot.
            assertThat(index.searching().tryAcquire()).isTrue();
            try {
                assertThatThrownBy(() -> index.search(SearchRequest.of("alpha")))
                        .isInstanceOfSatisfying(ArnoException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.SEARCH_BUSY);
                            assertThat(e.status()).isEqualTo(503);
                            assertThat(e.getMessage()).contains("1 searches are running").contains("20 ms")
                                    .contains("Retry-After");
                        });
                // The same through store:ft-search: an XPath error of code err:search-busy.
                Processor p = new Processor(false);
                FtSearchFunction.register(p.getUnderlyingConfiguration(), () -> index);
                XPathCompiler c = p.newXPathCompiler();
                c.declareNamespace("store", StoreFunctions.NS);
                assertThatThrownBy(() -> c.evaluateSingle("store:ft-search('alpha')", null))
                        .isInstanceOfSatisfying(SaxonApiException.class,
                                e -> assertThat(e.getErrorCode().getLocalName()).isEqualTo("search-busy"));
            } finally {
                index.searching().release();
            }
            assertThat(index.search(SearchRequest.of("alpha")).total()).as("the slot is free again").isPositive();
            assertThat(index.searching().availablePermits()).as("every search gave its slot back").isEqualTo(1);
            assertThatThrownBy(() -> index.search(SearchRequest.of("*"))).isInstanceOf(ArnoException.class);
            assertThat(index.searching().availablePermits()).as("a refused one too").isEqualTo(1);
        }
    }

    /** A view that records what store:ft-search tells it. */
    static final class Told implements DocumentStore.View {
        final List<String> told = new ArrayList<>();

        @Override
        public long version() {
            return 0;
        }

        @Override
        public boolean exists(String path) {
            return false;
        }

        @Override
        public net.sf.saxon.om.TreeInfo document(String path, net.sf.saxon.Configuration config) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<String> uris(String prefix) {
            return List.of();
        }

        @Override
        public void followedIndexRead(String index, long applied) {
            told.add(index + " " + applied);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void ftSearchTellsTheViewWhichStoreVersionTheIndexAnsweredFrom() throws Exception {
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v = Articles.store(store, Articles.generate(20, 5), true);
            assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).isTrue();
            Told view = new Told();
            Processor p = new Processor(false);
            FtSearchFunction.register(p.getUnderlyingConfiguration(), () -> index, context -> view);
            XPathCompiler c = p.newXPathCompiler();
            c.declareNamespace("store", StoreFunctions.NS);
            XdmNode r = (XdmNode) c.evaluateSingle("store:ft-search('alpha')", null);
            assertThat(c.evaluateSingle("string(@version)", r).getStringValue()).isEqualTo(Long.toString(v));
            assertThat(view.told).containsExactly("full-text index " + v);
            // A refusal is told too: a page that shows it must not be kept.
            assertThatThrownBy(() -> c.evaluateSingle("store:ft-search('*')", null)).isInstanceOf(SaxonApiException.class);
            assertThat(view.told).containsExactly("full-text index " + v, "full-text index -1");
        }
    }

    @Test
    void theCommittedIndexAnswersAsTheLiveOneDidAndSaysWhenThereIsNone() throws Exception {
        try (Store store = Articles.open(dir.resolve("store"))) {
            try (CommittedIndex none = CommittedIndex.open(store, dir.resolve("ft"))) {
                assertThatThrownBy(() -> none.search(SearchRequest.of("alpha")))
                        .isInstanceOfSatisfying(ArnoException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.SEARCH_UNAVAILABLE);
                            assertThat(e.getMessage()).contains("no full-text configuration");
                        });
            }
            long v = Articles.store(store, Articles.generate(20, 5), true);
            try (CommittedIndex none = CommittedIndex.open(store, dir.resolve("ft"))) {
                assertThatThrownBy(() -> none.search(SearchRequest.of("alpha")))
                        .isInstanceOfSatisfying(ArnoException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.SEARCH_UNAVAILABLE);
                            assertThat(e.getMessage()).contains(dir.resolve("ft").toString()).contains("./arno serve builds it");
                        });
            }
            Results live;
            try (FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).isTrue();
                live = index.search(SearchRequest.of("alpha OR bravo"));
                // Read beside the live index (which holds the folder's write lock): the last commit.
                try (CommittedIndex beside = CommittedIndex.open(store, dir.resolve("ft"))) {
                    assertThat(beside.version()).isEqualTo(v);
                    assertThat(beside.search(SearchRequest.of("alpha OR bravo")).hits()).isEqualTo(live.hits());
                }
            }
            try (CommittedIndex committed = CommittedIndex.open(store, dir.resolve("ft"))) {
                Results r = committed.search(SearchRequest.of("alpha OR bravo"));
                assertThat(r.version()).isEqualTo(v);
                assertThat(r.total()).isEqualTo(live.total()).isPositive();
                assertThat(r.hits()).isEqualTo(live.hits());
            }
        }
    }
}
