package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.xml.DocumentStore;
import arno.xml.ErrorCode;

/**
 * The children listing against a simple reference (the interface's default, which filters
 * {@code uris(prefix)}), on random trees whose names sort around '/': '-', '.', '0' and '/' itself
 * are the bytes where a careless seek would skip or repeat a child.
 */
class ChildrenTest {

    @TempDir
    Path dir;

    private static final String[] PARTS = {"a", "a-b", "a.atom", "a.xml", "a0", "a/", "b", "ab", "-", ".", "0", "é"};

    /** The reference: the default method of the interface, built on uris(prefix). */
    private static List<String> reference(Snapshot s, String folder) {
        return new DocumentStore.View() {
            @Override
            public long version() {
                return s.version();
            }

            @Override
            public boolean exists(String path) {
                return s.exists(path);
            }

            @Override
            public net.sf.saxon.om.TreeInfo document(String path, net.sf.saxon.Configuration config) {
                return s.document(path, config);
            }

            @Override
            public List<String> uris(String prefix) {
                return s.uris(prefix);
            }

            @Override
            public void close() {
            }
        }.children(folder);
    }

    private static String randomUri(Random r) {
        StringBuilder b = new StringBuilder();
        int depth = 1 + r.nextInt(4);
        for (int i = 0; i < depth; i++) {
            b.append('/');
            String p = PARTS[r.nextInt(PARTS.length)];
            b.append(p.equals("a/") ? "a" : p.equals(".") ? ".x" : p);
        }
        return b.toString();
    }

    @Test
    void listingsMatchTheReferenceOnRandomTreesWholeAndPaged() {
        Random r = new Random(11);
        try (Store store = TestStores.open(dir)) {
            for (int round = 0; round < 4; round++) {
                try (WriteTransaction w = store.write()) {
                    for (int i = 0; i < 150; i++) {
                        String u = randomUri(r);
                        if (r.nextInt(5) == 0) {
                            w.delete(u);
                        } else {
                            TestStores.put(w, u, "<d/>");
                        }
                    }
                    w.commit();
                }
                try (Snapshot s = store.read()) {
                    TreeSet<String> folders = new TreeSet<>(List.of("/", "/nothing/"));
                    for (String u : s.uris("")) {
                        for (int i = u.indexOf('/', 1); i > 0; i = u.indexOf('/', i + 1)) {
                            folders.add(u.substring(0, i + 1));
                        }
                    }
                    for (String f : folders) {
                        List<String> expected = reference(s, f);
                        assertThat(s.children(f)).as(f).isEqualTo(expected);
                        assertThat(s.children(f, null, Integer.MAX_VALUE)).as(f).isEqualTo(expected);
                        // page through with every limit up to 4, resuming after the last name
                        for (int limit = 1; limit <= 4; limit++) {
                            List<String> paged = new ArrayList<>();
                            String after = null;
                            while (true) {
                                List<String> page = s.children(f, after, limit);
                                assertThat(page.size()).isLessThanOrEqualTo(limit);
                                paged.addAll(page);
                                if (page.size() < limit) {
                                    break;
                                }
                                after = page.get(page.size() - 1);
                            }
                            assertThat(paged).as(f + " by " + limit).isEqualTo(expected);
                        }
                        // resuming after a name that is not there
                        assertThat(s.children(f, "a.", 100)).as(f + " after a.")
                                .isEqualTo(expected.stream().filter(n -> Snapshot.BYTE_ORDER.compare(n, "a.") > 0)
                                        .toList());
                    }
                    assertThat(folders.size()).isGreaterThan(20);
                }
            }
        }
    }

    @Test
    void documentsAndFoldersOfTheSameNameAreBothListedInByteOrder() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/j/c", "<d/>", "/j/c.atom", "<d/>", "/j/c/x.atom", "<d/>", "/j/c/y/z.atom", "<d/>",
                    "/j/c-1.atom", "<d/>", "/j/c0/q", "<d/>", "/j/b.xml", "<d/>", "/k.atom", "<d/>");
            try (Snapshot s = store.read()) {
                assertThat(s.children("/j/")).containsExactly("b.xml", "c", "c-1.atom", "c.atom", "c/", "c0/");
                assertThat(s.children("/j/", "c/", 10)).containsExactly("c0/");
                assertThat(s.children("/j/", "c", 2)).containsExactly("c-1.atom", "c.atom");
                assertThat(s.children("/j/c/")).containsExactly("x.atom", "y/");
                assertThat(s.children("/")).containsExactly("j/", "k.atom");
                assertThat(s.children("/j/c.atom/")).isEmpty();
            }
        }
    }

    @Test
    void badFoldersAndLimitsAreRefused() {
        try (Store store = TestStores.open(dir); Snapshot s = store.read()) {
            for (String bad : new String[] {"", "j/", "/j", "/j//", "/../"}) {
                assertThatThrownBy(() -> s.children(bad, null, 10)).as(bad)
                        .isInstanceOf(StoreException.class)
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.UNSUPPORTED_URI));
            }
            assertThatThrownBy(() -> s.children("/", null, 0))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("limit of at least 1")
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.BAD_PARAMETER));
        }
    }
}
