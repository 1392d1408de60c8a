package arno.store.atom;

import static arno.store.atom.Fixtures.bytes;
import static arno.store.atom.Fixtures.entry;
import static arno.store.atom.Fixtures.xpath;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.testkit.Wait;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;

/**
 * Many threads writing at once through the one writer: the operations that succeed are all
 * stored, those refused (409, 412, a malformed variant, 422) leave nothing, and commits are
 * shared. The store's write lock is held by the test at first, so the first operations of every
 * thread are certainly queued together and committed as one group.
 */
class GroupCommitTest {

    @TempDir
    Path dir;

    record Outcome(String op, String path, long version, ErrorCode error) {
    }

    @Test
    void concurrentWritersShareCommitsAndFailuresLeaveNothing() throws Exception {
        int threads = 12;
        int each = 15;
        try (Store store = Fixtures.store(dir); AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "J"), "ed").path();
            ResourcePath ja = atom.createEntry(journals, null, "ja", entry("journal", "JA"), "ed").path();
            ResourcePath i1 = atom.createEntry(atom.createEntry(ja, null, null, entry("volume", "V"), "ed").path(), null, null,
                    entry("issue", "I"), "ed").path();
            ResourcePath taken = atom.createEntry(i1, null, "taken", entry("article", "Taken"), "ed").path();
            long takenVersion;
            try (Snapshot s = store.read()) {
                takenVersion = s.info(taken.entryDocument()).version();
            }
            List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            WriteTransaction hold = store.write();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        int kind = (thread + i) % 5;
                        String slug = "t" + thread + "-" + i;
                        String op = switch (kind) {
                            case 0, 1 -> "create";
                            case 2 -> "conflict";
                            case 3 -> "stale";
                            default -> "malformed";
                        };
                        try {
                            AtomStore.Written w = switch (kind) {
                                case 0, 1 -> atom.createEntry(i1, null, slug, entry("article", "Title " + slug), "ed");
                                case 2 -> atom.createEntry(i1, null, "taken", entry("article", "Conflict " + slug), "ed");
                                case 3 -> atom.replaceEntry(taken, takenVersion - 1, entry("article", "Stale " + slug), "ed");
                                default -> atom.putVariant(taken, "xml", null, -1, bytes("<article><oops></article>"), "ed");
                            };
                            outcomes.add(new Outcome(op, w.path().path(), w.version(), null));
                        } catch (ArnoException e) {
                            outcomes.add(new Outcome(op, i1.child(slug).path(), -1, e.code()));
                        }
                    }
                }));
            }
            // every thread's first operation waits in the queue (one is taken by the writer, which waits for
            // the lock); exactly, not "at least": under load all may be queued before the writer takes one.
            // The lock is given back whatever happens, or closing the store would wait for it forever.
            try {
                Wait.upTo(Duration.ofSeconds(30)).until(atom::queued, queued -> queued == threads - 1);
            } finally {
                hold.abort();
            }
            for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
            pool.shutdown();

            assertThat(outcomes).hasSize(threads * each);
            Map<Long, Integer> perVersion = new HashMap<>();
            try (Snapshot s = store.read()) {
                for (Outcome o : outcomes) {
                    switch (o.op) {
                        case "create" -> {
                            assertThat(o.error).as(o.toString()).isNull();
                            assertThat(s.info(o.path + ".atom").version()).isEqualTo(o.version);
                            perVersion.merge(o.version, 1, Integer::sum);
                        }
                        case "conflict" -> {
                            assertThat(o.error).isEqualTo(ErrorCode.CONFLICT);
                            assertThat(s.exists(o.path + ".atom")).isFalse();
                        }
                        case "stale" -> assertThat(o.error).isEqualTo(ErrorCode.PRECONDITION_FAILED);
                        default -> assertThat(o.error).isEqualTo(ErrorCode.MALFORMED_XML);
                    }
                }
                // the refused ones left nothing: the article they aimed at is as it was, and has no variant
                assertThat(s.info(taken.entryDocument()).version()).isEqualTo(takenVersion);
                assertThat(s.uris(taken.path() + ".")).containsExactly(taken.entryDocument());
            }
            assertThat(xpath(store, taken.entryDocument(), "/a:entry/a:title")).containsExactly("Taken");
            long creates = outcomes.stream().filter(o -> o.op.equals("create")).count();
            try (Snapshot s = store.read()) {
                assertThat(s.children(i1.childrenFolder(), null, 1000).stream().filter(n -> n.endsWith(".atom")).count())
                        .isEqualTo(creates + 1);
            }
            // the first operations of the threads were held back together: at least the creates among them share a commit
            assertThat(perVersion.values().stream().mapToInt(Integer::intValue).max().orElse(0)).isGreaterThan(1);
            assertThat(perVersion.size()).isLessThan((int) creates);
            assertThat(store.check()).isEmpty();
        }
    }

    /**
     * A model document written in a group governs the operations after it in the same group: the
     * model is read once per group, and again after a write to it (the version of the group's
     * transaction is the same before and after, so it cannot tell the two apart).
     */
    @Test
    void aModelChangeTakesEffectWithinItsGroup() throws Exception {
        try (Store store = Fixtures.store(dir); AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "J"), "ed").path();
            ResourcePath ja = atom.createEntry(journals, null, "ja", entry("journal", "JA"), "ed").path();
            String journalModel = "<kind xmlns='urn:arno:introspection' xmlns:atom='http://www.w3.org/2005/Atom' name='journal'>"
                    + "<title>Journal</title><require element='atom:title'/>"
                    + "<collection name='volumes' kinds='volume' naming='pattern' pattern='v{n}'/>"
                    + "<collection name='specials' kinds='issue' naming='slug'/></kind>";
            WriteTransaction hold = store.write();
            Future<WritePath.Done> volume;
            Future<WritePath.Done> model;
            Future<WritePath.Done> special;
            try {
                // the writer takes the first operation (which reads the model) and waits for the lock;
                // the model write and the creation it allows queue behind it
                volume = atom.createEntryAsync(ja, null, null, entry("volume", "V"), "ed");
                Wait.upTo(Duration.ofSeconds(30)).until(atom::queued, queued -> queued == 0);
                model = atom.putModelAsync("journal", -1, journalModel.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                special = atom.createEntryAsync(ja, null, "s1", entry("issue", "Special"), "ed");
                assertThat(atom.queued()).isEqualTo(2);
            } finally {
                hold.abort();
            }
            WritePath.Done v = volume.get(30, TimeUnit.SECONDS);
            WritePath.Done m = model.get(30, TimeUnit.SECONDS);
            WritePath.Done d = special.get(30, TimeUnit.SECONDS);
            assertThat(List.of(v.version(), d.version())).as("one group").containsOnly(m.version());
            assertThat(d.applied().document()).isEqualTo("/journals/ja/s1.atom");
            assertThat(xpath(store, "/journals/ja/s1.atom", "/a:entry/a:category/@term")).containsExactly("issue");
        }
    }
}
