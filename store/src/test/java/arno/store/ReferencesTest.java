package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.xml.ErrorCode;

/**
 * The reverse link index against a reference map (source → set of targets) under random puts,
 * deletes, tree deletes, reference changes, commits and aborts; URIs of up to 400 bytes, so that
 * pairs whose keys would pass LMDB's 511 bytes take the hashed form.
 */
class ReferencesTest {

    @TempDir
    Path dir;

    private static final String LONG = "x".repeat(380);

    private static String uri(Random r) {
        String folder = "/" + "abc".charAt(r.nextInt(3)) + "/";
        String name = r.nextInt(6) == 0 ? LONG.substring(0, 380 - r.nextInt(3)) + r.nextInt(4) : "d" + r.nextInt(8);
        return folder + name + ".atom";
    }

    private static List<String> referrersOf(Map<String, Set<String>> model, String prefix) {
        TreeSet<String> out = new TreeSet<>(Snapshot.BYTE_ORDER);
        model.forEach((source, targets) -> {
            if (targets.stream().anyMatch(t -> t.startsWith(prefix))) {
                out.add(source);
            }
        });
        return new ArrayList<>(out);
    }

    @Test
    void referrersAndReferencesMatchAReferenceMapUnderRandomOperations() {
        Random r = new Random(5);
        Map<String, Set<String>> model = new HashMap<>();
        Set<String> stored = new TreeSet<>();
        int mostReferences = 0;
        boolean longPairs = false;
        try (Store store = TestStores.open(dir)) {
            for (int round = 0; round < 30; round++) {
                Map<String, Set<String>> next = new HashMap<>();
                model.forEach((k, v) -> next.put(k, new TreeSet<>(v)));
                Set<String> nextStored = new TreeSet<>(stored);
                boolean commit = r.nextInt(5) != 0;
                try (WriteTransaction w = store.write()) {
                    for (int op = 0; op < 20; op++) {
                        String u = uri(r);
                        switch (r.nextInt(6)) {
                            case 0, 1 -> {
                                // a put keeps the references
                                TestStores.put(w, u, "<e/>");
                                nextStored.add(u);
                            }
                            case 2 -> {
                                w.delete(u);
                                nextStored.remove(u);
                                next.remove(u);
                            }
                            case 3 -> {
                                if (r.nextInt(20) == 0) {
                                    String prefix = u.substring(0, 3);
                                    assertThat(w.deleteTree(prefix))
                                            .containsExactlyElementsOf(nextStored.stream()
                                                    .filter(s -> s.startsWith(prefix)).sorted(Snapshot.BYTE_ORDER).toList());
                                    nextStored.removeIf(s -> s.startsWith(prefix));
                                    next.keySet().removeIf(s -> s.startsWith(prefix));
                                }
                            }
                            default -> {
                                if (nextStored.contains(u)) {
                                    Set<String> targets = new TreeSet<>();
                                    for (int i = r.nextInt(4); i > 0; i--) {
                                        targets.add(uri(r));
                                    }
                                    w.setReferences(u, targets);
                                    if (targets.isEmpty()) {
                                        next.remove(u);
                                    } else {
                                        next.put(u, targets);
                                    }
                                }
                            }
                        }
                    }
                    // the view sees this transaction's references
                    for (String p : List.of("", "/a/", "/b/d", "/c/x")) {
                        assertThat(w.view().referrers(p)).as("in transaction, " + p).isEqualTo(referrersOf(next, p));
                    }
                    if (commit) {
                        w.commit();
                        model = next;
                        stored = nextStored;
                    }
                }
                try (Snapshot s = store.read()) {
                    assertThat(s.uris("")).containsExactlyInAnyOrderElementsOf(stored);
                    for (String p : List.of("", "/", "/a/", "/b/", "/c/", "/a/d1", "/b/x", "/c/" + LONG.substring(0, 200),
                            "/none/")) {
                        assertThat(s.referrers(p)).as(p).isEqualTo(referrersOf(model, p));
                    }
                    for (String source : stored) {
                        List<String> expected = new ArrayList<>(model.getOrDefault(source, Set.of()));
                        expected.sort(Snapshot.BYTE_ORDER);
                        assertThat(s.references(source)).as(source).isEqualTo(expected);
                    }
                }
                assertThat(store.check()).isEmpty();
                mostReferences = Math.max(mostReferences, model.values().stream().mapToInt(Set::size).sum());
                longPairs |= model.entrySet().stream().anyMatch(e -> e.getKey().length() > 300
                        && e.getValue().stream().anyMatch(t -> t.length() > 300));
            }
            assertThat(mostReferences).as("the test made references").isGreaterThan(20);
            assertThat(longPairs).as("a pair too long for a plain key").isTrue();
        }
    }

    @Test
    void referencesOfAMissingSourceAreRefusedAndOnlyReferenceChangesStillCommit() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/a.atom", "<a/>");
            try (WriteTransaction w = store.write()) {
                assertThatThrownBy(() -> w.setReferences("/none.atom", List.of("/a.atom")))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("cannot set the references of store:/none.atom: no document is stored there")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.NOT_FOUND));
                w.setReferences("/none.atom", List.of());
                w.setReferences("/a.atom", List.of("/b.atom", "/c.atom"));
                assertThat(w.commit()).as("a commit that only sets references is a new version").isEqualTo(2);
            }
            try (WriteTransaction w = store.write()) {
                w.setReferences("/a.atom", List.of("/c.atom", "/b.atom"));
                assertThat(w.commit()).as("the same references again change nothing").isEqualTo(2);
            }
            try (Snapshot s = store.read()) {
                assertThat(s.references("/a.atom")).containsExactly("/b.atom", "/c.atom");
                assertThat(s.referrers("/c.atom")).containsExactly("/a.atom");
                assertThat(s.changesSince(1)).as("references are not documents: no change").isEmpty();
            }
            assertThat(store.check()).isEmpty();
        }
    }
}
