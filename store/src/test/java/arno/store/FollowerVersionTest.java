package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Store#write(long, Instant)}: a follower (a cluster node applying the log) commits as the
 * version and at the time it is given, so every copy gives a document the same ETag and
 * Last-Modified; versions skip but never go back, times never go back.
 */
class FollowerVersionTest {

    @TempDir
    Path dir;

    @Test
    void aTransactionCommitsAsTheVersionAndAtTheTimeItIsGiven() {
        // recent: the change feed keeps a week
        Instant t = Instant.ofEpochMilli(System.currentTimeMillis() - 3_600_000);
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write(5, t)) {
                assertThat(w.version()).isEqualTo(5);
                assertThat(w.time()).isEqualTo(t);
                TestStores.put(w, "/a.xml", "<a/>");
                assertThat(w.commit()).isEqualTo(5);
            }
            try (Snapshot s = store.read()) {
                assertThat(s.version()).isEqualTo(5);
                assertThat(s.info("/a.xml").version()).isEqualTo(5);
                assertThat(s.info("/a.xml").modified()).isEqualTo(t);
                assertThat(s.changesSince(0)).singleElement().satisfies(c -> assertThat(c.version()).isEqualTo(5));
            }
            // a version not above the store's is refused, and the store stays usable
            assertThatThrownBy(() -> store.write(5, t)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is at version 5").hasMessageContaining("cannot commit as version 5");
            // a time before the last commit's is taken as the last commit's
            try (WriteTransaction w = store.write(9, t.minusSeconds(60))) {
                TestStores.put(w, "/b.xml", "<b/>");
                w.commit();
            }
            // and the plain writer goes on after the follower's version
            try (WriteTransaction w = store.write()) {
                TestStores.put(w, "/c.xml", "<c/>");
                assertThat(w.commit()).isEqualTo(10);
            }
            try (Snapshot s = store.read()) {
                assertThat(s.info("/b.xml").version()).isEqualTo(9);
                assertThat(s.info("/b.xml").modified()).isEqualTo(t);
                assertThat(s.changesSince(5)).extracting(Change::version).containsExactly(9L, 10L);
            }
        }
    }
}
