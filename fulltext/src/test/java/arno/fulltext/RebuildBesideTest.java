package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A changed configuration is built beside the index (FOLDER.next) while the index answers with
 * the configuration it had, then swapped in: searches never answer 503 for it; a build cut short
 * (the index closed mid-build, as a kill leaves it) starts again at the next open while the old
 * index answers; a build finished but not yet renamed into place is taken as it is. Real LMDB
 * stores, real Lucene folders.
 */
class RebuildBesideTest {

    @TempDir
    Path dir;

    static final Duration WAIT = Duration.ofSeconds(60);
    /** Enough articles that a build takes a while (progress is reported every 1,000 documents). */
    static final int ARTICLES = 2000;

    /** The default configuration with a French field over the summary. */
    static byte[] french() {
        return new String(FulltextConfig.defaultXml(), StandardCharsets.UTF_8).replace("</fulltext>",
                "<field name=\"resume\" select=\"atom:entry/atom:summary\" analyzer=\"french\"/></fulltext>")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Puts the French configuration and a summary with "les chevaux" on the first article. */
    static long changeConfiguration(Store store, Articles.Article first) {
        try (WriteTransaction w = store.write()) {
            w.put(FulltextConfig.URI, french());
            w.put(first.path() + ".atom", first.entry().replace("<summary>", "<summary>les chevaux ").getBytes(StandardCharsets.UTF_8));
            return w.commit();
        }
    }

    /** The paths of "resume:cheval", or null while the index answers with a configuration without that field. */
    static List<String> resume(FulltextIndex index) {
        try {
            return FollowTest.paths(index, "resume:cheval");
        } catch (ArnoException e) {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.BAD_QUERY);
            return null;
        }
    }

    @Test
    void searchesNeverAnswerUnavailableWhileAChangedConfigurationIsBuilt() throws Exception {
        List<Articles.Article> as = Articles.generate(ARTICLES, 5);
        try (Store store = Articles.open(dir.resolve("store"));
             FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
            long v = Articles.store(store, as, true);
            assertThat(index.awaitVersion(v, WAIT)).isTrue();
            assertThat(index.status().builds()).isEqualTo(1);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger answered = new AtomicInteger();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            Thread searcher = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        assertThat(FollowTest.search(index, "alpha").total()).isPositive();
                        answered.incrementAndGet();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }
            });
            searcher.start();
            try {
                long changed = changeConfiguration(store, as.get(0));
                boolean sawBeside = false;
                boolean sawOld = false;
                long end = System.nanoTime() + WAIT.toNanos();
                List<String> found = null;
                while (System.nanoTime() < end) {
                    FulltextIndex.Status s = index.status();
                    if (s.beside()) {
                        sawBeside = true;
                        assertThat(s.state()).isEqualTo(FulltextIndex.State.READY);
                    }
                    found = resume(index);
                    if (found == null) sawOld = true;
                    else break;
                    Thread.sleep(2);
                }
                assertThat(found).as("the new field answers once the build is done").containsExactly(as.get(0).path());
                assertThat(sawBeside).as("a build beside the index was seen").isTrue();
                assertThat(sawOld).as("the old configuration answered meanwhile").isTrue();
                assertThat(index.awaitVersion(changed, WAIT)).isTrue();
                assertThat(index.status().builds()).isEqualTo(2);
                assertThat(dir.resolve("ft.next")).doesNotExist();
                assertThat(dir.resolve("ft.old")).doesNotExist();
            } finally {
                stop.set(true);
                searcher.join(10_000);
            }
            assertThat(failures).as("no search failed (no 503) during the build or the swap").isEmpty();
            assertThat(answered.get()).isPositive();
        }
    }

    @Test
    void aBuildCutShortStartsAgainAtTheNextOpenWhileTheOldIndexAnswers() throws Exception {
        List<Articles.Article> as = Articles.generate(ARTICLES, 6);
        long changed;
        try (Store store = Articles.open(dir.resolve("store"))) {
            try (FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
                long v = Articles.store(store, as, true);
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
                changed = changeConfiguration(store, as.get(0));
                long end = System.nanoTime() + WAIT.toNanos();
                FulltextIndex.Status s = index.status();
                while (!(s.beside() && s.done() > 0 && s.done() < s.total()) && System.nanoTime() < end) {
                    Thread.sleep(1);
                    s = index.status();
                }
                assertThat(s.beside()).as("caught mid-build: %s", s).isTrue();
            } // closed mid-build
            assertThat(dir.resolve("ft.next")).as("the build's folder, uncommitted, as a kill leaves it").isDirectory();
            // ./arno store check: not damage, a configuration changed since
            FulltextCheck.Report report = FulltextCheck.check(store, dir.resolve("ft"));
            assertThat(report.problems()).isEmpty();
            assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("a new index is built beside it"));

            try (FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
                long end = System.nanoTime() + WAIT.toNanos();
                FulltextIndex.Status s = index.status();
                while (s.state() != FulltextIndex.State.READY && System.nanoTime() < end) {
                    Thread.sleep(1);
                    s = index.status();
                }
                // The old index answers at once, with the configuration kept in its commit data, while the build runs again.
                assertThat(s.state()).isEqualTo(FulltextIndex.State.READY);
                assertThat(s.beside()).as("%s", s).isTrue();
                assertThat(FollowTest.search(index, "alpha").total()).isPositive();
                assertThat(index.awaitVersion(changed, WAIT)).isTrue();
                assertThat(resume(index)).containsExactly(as.get(0).path());
                assertThat(index.status().builds()).isEqualTo(1);
                assertThat(dir.resolve("ft.next")).doesNotExist();
            }
        }
    }

    @Test
    void aFinishedBuildThatWasNotRenamedIntoPlaceIsTaken() throws Exception {
        List<Articles.Article> as = Articles.generate(40, 7);
        try (Store store = Articles.open(dir.resolve("store"))) {
            long v;
            try (FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
                v = Articles.store(store, as, true);
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
            }
            // A crash between the swap's two renames: the old index moved away and deleted, the new one not yet in place.
            Files.move(dir.resolve("ft"), dir.resolve("ft.next"));
            try (FulltextIndex index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults())) {
                assertThat(index.awaitVersion(v, WAIT)).isTrue();
                assertThat(index.status().builds()).as("resumed, not built again").isZero();
                assertThat(FollowTest.paths(index, "title:\"" + as.get(0).title() + "\"")).contains(as.get(0).path());
                assertThat(dir.resolve("ft.next")).doesNotExist();
            }
        }
    }
}
