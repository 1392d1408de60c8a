package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index follows the store's change feed: writes, deletes and variant changes, freshness,
 * restart from the commit data, rebuilds of a damaged, stale or reconfigured index, and the
 * answers while there is no index to search. Real LMDB stores, real Lucene folders.
 */
class FollowTest {

    @TempDir
    Path dir;

    static final Duration WAIT = Duration.ofSeconds(20);

    static Results search(FulltextIndex index, String q) {
        return index.search(new SearchRequest(q, 0, 100, null, "relevance", Map.of(), false, 0));
    }

    static List<String> paths(FulltextIndex index, String q) {
        return search(index, q).hits().stream().map(Results.Hit::path).sorted().toList();
    }

    static Articles.Article withTitle(Articles.Article a, String title) {
        return new Articles.Article(a.path(), title, a.summary(), a.body(), a.authors(), a.keywords(), a.journal(), a.type(),
                a.year(), a.date());
    }

    @Test
    void pagingByRelevanceGoesOnWhenTheEntryATokenNamesIsDeleted() throws Exception {
        List<Articles.Article> as = Articles.generate(40, 5);
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v = Articles.store(store, as, true);
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            Results all = index.search(new SearchRequest("alpha", 0, 100, null, "relevance", Map.of(), false, 0));
            assertThat(all.hits()).hasSizeGreaterThan(14);
            Results first = index.search(new SearchRequest("alpha", 0, 7, null, "relevance", Map.of(), false, 0));
            String last = first.hits().get(6).path();
            try (WriteTransaction w = store.write()) {
                w.delete(last + ".atom");
                v = w.commit();
            }
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            // The next page starts after the deleted entry's score: the ranking's 8th to 14th, as before the delete.
            Results second = index.search(new SearchRequest("alpha", 0, 7, first.next(), "relevance", Map.of(), false, 0));
            assertThat(second.hits()).extracting(Results.Hit::path)
                    .isEqualTo(all.hits().subList(7, 14).stream().map(Results.Hit::path).toList());
            // And a token of a live entry: the page after it, in the same reader.
            Results third = index.search(new SearchRequest("alpha", 0, 7, second.next(), "relevance", Map.of(), false, 0));
            assertThat(third.hits()).extracting(Results.Hit::path)
                    .isEqualTo(all.hits().subList(14, Math.min(21, all.hits().size())).stream().map(Results.Hit::path).toList());
        }
    }

    @Test
    void writesDeletesAndVariantsAreFollowedInCommitOrderAndSearchableWithinASecond() throws Exception {
        List<Articles.Article> as = Articles.generate(10, 3);
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v = Articles.store(store, as, true);
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            assertThat(paths(index, "title:unusualword")).isEmpty();

            // A new title: searchable within a second of the commit (near-real-time readers).
            long t0 = System.nanoTime();
            try (WriteTransaction w = store.write()) {
                Articles.put(w, withTitle(as.get(0), "An Unusualword Title"));
                w.commit();
            }
            while (paths(index, "title:unusualword").isEmpty() && System.nanoTime() - t0 < 5_000_000_000L) Thread.sleep(5);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(paths(index, "title:unusualword")).containsExactly(as.get(0).path());
            assertThat(millis).as("commit to searchable").isLessThan(1000);

            // Two commits in a row on one entry: the later one wins (commit order).
            try (WriteTransaction w = store.write()) {
                Articles.put(w, withTitle(as.get(1), "First Rareword"));
                w.commit();
            }
            long last;
            try (WriteTransaction w = store.write()) {
                Articles.put(w, withTitle(as.get(1), "Second Otherword"));
                last = w.commit();
            }
            assertThat(index.awaitVersion(last, WAIT)).isTrue();
            assertThat(paths(index, "rareword")).isEmpty();
            assertThat(paths(index, "otherword")).containsExactly(as.get(1).path());

            // Only the variant changes: the body is indexed again.
            try (WriteTransaction w = store.write()) {
                w.put(as.get(2).path() + ".xml", ("<article><front><journal-meta><journal-title-group><journal-title>"
                        + "Journal A</journal-title></journal-title-group></journal-meta></front><body><p>A café sentence"
                        + " about zeppelins.</p></body></article>").getBytes(StandardCharsets.UTF_8));
                last = w.commit();
            }
            assertThat(index.awaitVersion(last, WAIT)).isTrue();
            assertThat(paths(index, "zeppelin")).as("stemmed").containsExactly(as.get(2).path());
            assertThat(paths(index, "cafe")).as("folded").containsExactly(as.get(2).path());

            // Deleting the entry deletes the document; deleting only a variant keeps the entry.
            try (WriteTransaction w = store.write()) {
                w.delete(as.get(0).path() + ".atom");
                w.delete(as.get(0).path() + ".xml");
                w.delete(as.get(2).path() + ".xml");
                last = w.commit();
            }
            assertThat(index.awaitVersion(last, WAIT)).isTrue();
            assertThat(paths(index, "unusualword")).isEmpty();
            assertThat(paths(index, "zeppelin")).isEmpty();
            assertThat(paths(index, "title:\"" + as.get(2).title() + "\"")).contains(as.get(2).path());
            assertThat(search(index, as.get(3).title()).total()).isPositive();
            assertThat(index.status().builds()).isEqualTo(1);
        }
    }

    @Test
    void aRestartResumesFromTheVersionInTheCommitData() throws Exception {
        List<Articles.Article> as = Articles.generate(10, 4);
        Path ft = dir.resolve("ft");
        try (Store store = Articles.open(dir.resolve("store"))) {
            long v = Articles.store(store, as, true);
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
                try (WriteTransaction w = store.write()) {
                    Articles.put(w, withTitle(as.get(0), "Before Zebrafish"));
                    v = w.commit();
                }
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
            }
            // Closing commits what was applied, with the store version.
            try (FSDirectory d = FSDirectory.open(ft)) {
                assertThat(SegmentInfos.readLatestCommit(d).getUserData()).containsEntry(FulltextIndex.VERSION, Long.toString(v));
            }
            // Written while no index follows: found after the restart, without a rebuild.
            long later;
            try (WriteTransaction w = store.write()) {
                Articles.put(w, withTitle(as.get(1), "While Quokka"));
                later = w.commit();
            }
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(later, WAIT)).isTrue();
                assertThat(index.status().builds()).as("resumed, not built").isZero();
                assertThat(paths(index, "title:quokka")).containsExactly(as.get(1).path());
                assertThat(paths(index, "title:zebrafish")).containsExactly(as.get(0).path());
            }
        }
    }

    @Test
    void aDamagedIndexIsBuiltAgainFromTheStore() throws Exception {
        List<Articles.Article> as = Articles.generate(10, 5);
        Path ft = dir.resolve("ft");
        try (Store store = Articles.open(dir.resolve("store"))) {
            long v = Articles.store(store, as, true);
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
            }
            // Flip bytes in the middle of every segment file: checksums and headers no longer hold.
            try (Stream<Path> files = Files.list(ft)) {
                for (Path f : files.filter(p -> !p.getFileName().toString().startsWith("segments")
                        && !p.getFileName().toString().equals("write.lock")).toList()) {
                    long size = Files.size(f);
                    try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
                        c.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}), Math.max(0, size / 2 - 4));
                    }
                }
            }
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, WAIT)).as("%s", index.status()).isTrue();
                assertThat(index.status().builds()).isEqualTo(1);
                assertThat(search(index, as.get(4).title()).hits()).extracting(Results.Hit::path).contains(as.get(4).path());
            }
        }
    }

    @Test
    void anIndexOlderThanTheFeedIsBuiltAgain() throws Exception {
        List<Articles.Article> as = Articles.generate(6, 6);
        Path ft = dir.resolve("ft");
        try (Store store = Articles.open(dir.resolve("store"), Duration.ofMillis(50))) {
            long v = Articles.store(store, as, true);
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
            }
            Thread.sleep(120);
            long last = 0;
            for (int i = 0; i < 3; i++) {
                try (WriteTransaction w = store.write()) {
                    Articles.put(w, withTitle(as.get(i), "Pruned Meanwhile " + i));
                    last = w.commit();
                }
                Thread.sleep(60);
            }
            try (arno.store.Snapshot s = store.read()) {
                assertThat(s.oldestChange()).as("the index's version is no longer in the feed").isGreaterThan(v + 1);
            }
            try (FulltextIndex index = FulltextIndex.open(store, ft, FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(last, WAIT)).isTrue();
                assertThat(index.status().builds()).isEqualTo(1);
                assertThat(paths(index, "meanwhile")).hasSize(3);
            }
        }
    }

    @Test
    void withoutAConfigurationSearchesAreUnavailableAndAChangedOneReindexes() throws Exception {
        List<Articles.Article> as = Articles.generate(8, 8);
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v = Articles.store(store, as, false);
            long end = System.nanoTime() + WAIT.toNanos();
            while (index.status().state() != FulltextIndex.State.UNCONFIGURED && System.nanoTime() < end) Thread.sleep(10);
            assertThatThrownBy(() -> search(index, "alpha")).isInstanceOfSatisfying(ArnoException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.SEARCH_UNAVAILABLE);
                assertThat(e.status()).isEqualTo(503);
                assertThat(e.getMessage()).contains(FulltextConfig.URI);
            });

            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
                v = w.commit();
            }
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            assertThat(index.status().builds()).isEqualTo(1);
            assertThat(search(index, as.get(0).title()).total()).isPositive();

            // A French field added: the whole store is indexed again under the new configuration.
            String french = new String(FulltextConfig.defaultXml(), StandardCharsets.UTF_8).replace("</fulltext>",
                    "<field name=\"resume\" select=\"atom:entry/atom:summary\" analyzer=\"french\"/></fulltext>");
            try (WriteTransaction w = store.write()) {
                w.put(FulltextConfig.URI, french.getBytes(StandardCharsets.UTF_8));
                w.put(as.get(0).path() + ".atom", as.get(0).entry().replace("<summary>", "<summary>les chevaux ")
                        .getBytes(StandardCharsets.UTF_8));
                v = w.commit();
            }
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            assertThat(index.status().builds()).isEqualTo(2);
            // French light stemming: cheval and chevaux are one word; the English field does not know it.
            assertThat(paths(index, "resume:cheval")).containsExactly(as.get(0).path());
            assertThat(paths(index, "abstract:cheval")).isEmpty();

            // A broken configuration is refused when stored (ConfigCheckTest): the index stays as it was, still answering.
            try (WriteTransaction w = store.write()) {
                assertThatThrownBy(() -> w.put(FulltextConfig.URI, "<fulltext xmlns=\"urn:arno:fulltext\"><field name=\"x\" select=\"((\"/></fulltext>"
                        .getBytes(StandardCharsets.UTF_8))).isInstanceOf(ArnoException.class);
                w.put("/other.xml", "<x/>".getBytes(StandardCharsets.UTF_8));
                v = w.commit();
            }
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            assertThat(paths(index, "resume:cheval")).containsExactly(as.get(0).path());

            // Deleting the configuration empties the index.
            try (WriteTransaction w = store.write()) {
                w.delete(FulltextConfig.URI);
                w.commit();
            }
            end = System.nanoTime() + WAIT.toNanos();
            while (index.status().state() != FulltextIndex.State.UNCONFIGURED && System.nanoTime() < end) Thread.sleep(10);
            assertThat(index.status().state()).isEqualTo(FulltextIndex.State.UNCONFIGURED);
        }
    }
}
