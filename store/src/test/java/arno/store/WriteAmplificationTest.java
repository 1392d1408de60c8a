package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small write to a grown store makes little to write back: the bytes the writing thread dirties
 * (Linux counts them in {@code /proc/thread-self/io}, {@code write_bytes}, when a page-cache page
 * becomes dirty) stay near the pages the transaction changes, whatever the store's size. Without
 * {@code MDB_NORDAHEAD} the kernel kept the map in large folios and a commit that changed ten
 * scattered documents dirtied megabytes (see {@link Engine}).
 */
class WriteAmplificationTest {

    @TempDir
    Path dir;

    @Test
    void aFewScatteredPutsDirtyKilobytesNotMegabytes() throws IOException {
        try (Store store = Store.open(dir.resolve("store"), StoreOptions.defaults().mapSize(1L << 30))) {
            String body = "<entry><title>a title</title><summary>" + "some words of a summary ".repeat(30)
                    + "</summary></entry>";
            int n = 12_000;
            // small commits, each synced, as the service makes them: the file grows page fault by page fault
            for (int start = 0; start < n; start += 50) {
                try (WriteTransaction w = store.write()) {
                    for (int i = start; i < start + 50; i++) {
                        w.put(uri(i), body.getBytes(StandardCharsets.UTF_8));
                    }
                    w.commit();
                }
            }
            Random rnd = new Random(3);
            long most = 0;
            for (int round = 0; round < 5; round++) {
                long before = dirtied();
                try (WriteTransaction w = store.write()) {
                    for (int i = 0; i < 10; i++) {
                        w.put(uri(rnd.nextInt(n)), body.replace("a title", "changed").getBytes(StandardCharsets.UTF_8));
                    }
                    w.commit();
                }
                most = Math.max(most, dirtied() - before);
            }
            // ten documents: each its paths leaf, its old and new docs entries, the change feed, their
            // branch pages and LMDB's freelist: about 50 pages of 4 KiB (measured: 200-220 KiB; without
            // the flag 0.75-1.5 MB at this size, 5-12 MB at 30,000 documents)
            assertThat(most).as("bytes dirtied by a commit of 10 scattered puts into %,d documents", n)
                    .isLessThan(512L << 10);
        }
    }

    private static String uri(int i) {
        return "/j" + (i % 7) + "/v" + (i % 50) + "/a" + i + ".atom";
    }

    /** The bytes this thread has dirtied in the page cache so far. */
    private static long dirtied() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
            if (line.startsWith("write_bytes:")) return Long.parseLong(line.substring("write_bytes:".length()).trim());
        }
        throw new IllegalStateException("/proc/thread-self/io has no write_bytes line");
    }
}
