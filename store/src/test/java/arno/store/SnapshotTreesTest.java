package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Wait;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.TreeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot gives the same tree for a path while anyone holds it, and forgets the trees nobody
 * holds: a report that reads every document of a large store in one snapshot must not keep them.
 */
class SnapshotTreesTest {
    @TempDir
    Path dir;

    @Test
    void treesNobodyHoldsAreForgottenTheOthersStayTheSame() throws Exception {
        Configuration config = new Configuration();
        try (Store store = Store.open(dir, StoreOptions.defaults().mapSize(256L << 20))) {
            try (WriteTransaction w = store.write()) {
                for (int i = 0; i < 2000; i++) {
                    w.put("/d/" + i + ".xml", ("<doc n='" + i + "'><p>" + "x".repeat(100) + "</p></doc>").getBytes(StandardCharsets.UTF_8));
                }
                w.commit();
            }
            try (Snapshot s = store.read()) {
                TreeInfo held = s.document("/d/0.xml", config);
                for (int i = 1; i < 2000; i++) {
                    assertThat(s.document("/d/" + i + ".xml", config).getRootNode().getStringValue()).hasSize(100);
                }
                assertThat(s.document("/d/0.xml", config)).isSameAs(held);
                assertThat(s.treesKnown()).isPositive();

                // the 1,999 dropped trees go at a collection; the held one stays, with its identity
                Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
                    System.gc();
                    assertThat(s.treesKnown()).as("trees the snapshot still knows").isLessThanOrEqualTo(1);
                });
                assertThat(s.document("/d/0.xml", config)).isSameAs(held);
                // one read again is a tree equal in content (a new one: nobody could tell)
                assertThat(s.document("/d/1999.xml", config).getRootNode().getStringValue()).hasSize(100);
                assertThat(s.treesKnown()).isEqualTo(2);
            }
        }
    }

    /**
     * documentIfStored answers in one lookup what exists-then-document answered in two: the same
     * tree where there is a document, null where there is none, the same refusal for a binary,
     * and inside a write transaction what that transaction wrote or deleted.
     */
    @Test
    void documentIfStoredIsExistsThenDocument() throws Exception {
        Configuration config = new Configuration();
        try (Store store = Store.open(dir, StoreOptions.defaults().mapSize(64L << 20))) {
            try (WriteTransaction w = store.write()) {
                w.put("/a/x.xml", "<x>one</x>".getBytes(StandardCharsets.UTF_8));
                w.put("/a/gone.xml", "<g/>".getBytes(StandardCharsets.UTF_8));
                w.putBinary("/a/b.png", "image/png", new java.io.ByteArrayInputStream(new byte[] {1, 2, 3}));
                w.commit();
            }
            try (Snapshot s = store.read()) {
                TreeInfo x = s.documentIfStored("/a/x.xml", config);
                assertThat(x).isNotNull().isSameAs(s.document("/a/x.xml", config));
                assertThat(x.getRootNode().getStringValue()).isEqualTo("one");
                assertThat(s.exists("/a/none.xml")).isFalse();
                assertThat(s.documentIfStored("/a/none.xml", config)).isNull();
                assertThat(s.documentIfStored("/a", config)).isNull();
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.documentIfStored("/a/b.png", config))
                        .isInstanceOf(StoreException.class)
                        .hasMessage(catchMessage(() -> s.document("/a/b.png", config)));
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.documentIfStored("/a//x.xml", config))
                        .isInstanceOf(StoreException.class).hasMessageContaining("empty segment");
            }
            try (WriteTransaction w = store.write()) {
                Snapshot view = w.view();
                assertThat(view.documentIfStored("/a/gone.xml", config)).isNotNull();
                w.delete("/a/gone.xml");
                w.put("/a/new.xml", "<n>two</n>".getBytes(StandardCharsets.UTF_8));
                assertThat(view.documentIfStored("/a/gone.xml", config)).isNull();
                assertThat(view.documentIfStored("/a/new.xml", config).getRootNode().getStringValue()).isEqualTo("two");
            }
        }
    }

    private static String catchMessage(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
        assertThat(t).isInstanceOf(StoreException.class);
        return t.getMessage();
    }
}
