package arno.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.cache.Dependencies.Dependency;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several {@link TwoTierCache}s whose memory tiers share one {@link SharedMemory}, with real disk tiers. */
class SharedMemoryTest {

    @TempDir
    Path dir;

    private final List<TwoTierCache<String, String>> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws IOException {
        for (TwoTierCache<String, String> cache : open) cache.close();
    }

    /** A cache capped at {@code cap} bytes of the shared memory, with a disk tier in {@code name} (null: memory only). */
    private TwoTierCache<String, String> cache(SharedMemory memory, long cap, String name, Stats stats) throws IOException {
        TwoTierCache.Builder<String, String> b = TwoTierCache.<String, String>builder(1)
                .memoryWeight(cap, String::length).sharedMemory(memory).stats(stats);
        if (name != null) b.disk(dir.resolve(name), 1 << 20, Codec.utf8(), Codec.utf8());
        TwoTierCache<String, String> cache = b.build();
        open.add(cache);
        return cache;
    }

    private static String page(String key, int bytes) {
        return (key + "=" + "x".repeat(bytes)).substring(0, bytes);
    }

    @Test
    void anotherCachesPutEvictsToTheOwnersDisk() throws IOException {
        SharedMemory memory = SharedMemory.of(100, 1000);
        Stats.Counting aStats = Stats.counting();
        TwoTierCache<String, String> a = cache(memory, 100, "a", aStats);
        TwoTierCache<String, String> b = cache(memory, 100, "b", Stats.disabled());
        for (int i = 1; i <= 5; i++) a.put("a" + i, page("a" + i, 20), Dependencies.none());
        assertThat(memory.weight()).isEqualTo(100);
        b.put("b1", page("b1", 20), Dependencies.none());
        assertThat(memory.weight()).isEqualTo(100);
        assertThat(a.inMemory("a1")).as("A's least valuable page made room for B's").isFalse();
        assertThat(a.fileOf("a1")).as("written to A's own disk tier").isNotNull();
        assertThat(a.fileOf("a1").getParent()).isEqualTo(dir.resolve("a").toAbsolutePath());
        assertThat(b.fileOf("a1")).isNull();
        assertThat(aStats.count(Stats.Event.EVICTION)).isEqualTo(1);
        assertThat(aStats.count(Stats.Event.DISK_WRITE)).isEqualTo(1);
        assertThat(a.get("a1")).isEqualTo(page("a1", 20));
        assertThat(aStats.count(Stats.Event.DISK_HIT)).isEqualTo(1);
        assertThat(memory.weight()).isLessThanOrEqualTo(100);
        assertThat(a.memoryWeight() + b.memoryWeight()).isEqualTo(memory.weight());
        a.checkConsistency();
        b.checkConsistency();
        memory.checkInvariants();
    }

    @Test
    void anOwnerAtItsCapGivesUpItsOwnPagesNotTheOthers() throws IOException {
        SharedMemory memory = SharedMemory.of(100, 1000);
        TwoTierCache<String, String> a = cache(memory, 40, "a", Stats.disabled());
        TwoTierCache<String, String> b = cache(memory, 100, "b", Stats.disabled());
        for (int i = 1; i <= 3; i++) b.put("b" + i, page("b" + i, 20), Dependencies.none());
        for (int i = 1; i <= 10; i++) {
            a.put("a" + i, page("a" + i, 20), Dependencies.none());
            assertThat(a.memoryWeight()).as("A within its cap").isLessThanOrEqualTo(40);
        }
        assertThat(a.memoryWeight()).isEqualTo(40);
        assertThat(a.inMemory("a9")).isTrue();
        assertThat(a.inMemory("a10")).isTrue();
        for (int i = 1; i <= 3; i++) assertThat(b.inMemory("b" + i)).as("B's b" + i).isTrue();
        assertThat(a.get("a1")).as("A's evicted pages are on its disk").isEqualTo(page("a1", 20));
        assertThat(a.memoryWeight()).isEqualTo(40);
        // A value heavier than the cap goes straight to disk.
        a.put("big", page("big", 50), Dependencies.none());
        assertThat(a.inMemory("big")).isFalse();
        assertThat(a.get("big")).isEqualTo(page("big", 50));
        a.checkConsistency();
        b.checkConsistency();
        memory.checkInvariants();
    }

    /** ARC across owners: one site's crawl flows through T1 and leaves another site's popular pages. */
    @Test
    void aCrawlOfOneSiteLeavesAnotherSitesPopularPages() throws IOException {
        SharedMemory memory = SharedMemory.of(200, 1000);
        TwoTierCache<String, String> crawled = cache(memory, 200, null, Stats.disabled());
        TwoTierCache<String, String> popular = cache(memory, 200, null, Stats.disabled());
        for (int i = 0; i < 4; i++) popular.put("p" + i, page("p" + i, 20), Dependencies.none());
        for (int i = 0; i < 4; i++) assertThat(popular.get("p" + i)).isNotNull();
        for (int i = 0; i < 500; i++) {
            crawled.put("c" + i, page("c" + i, 20), Dependencies.none());
            for (int j = 0; j < 4 && i % 50 == 0; j++) popular.get("p" + j);
        }
        for (int i = 0; i < 4; i++) assertThat(popular.get("p" + i)).as("p" + i).isNotNull();
        assertThat(memory.weight()).isLessThanOrEqualTo(200);
        crawled.checkConsistency();
        popular.checkConsistency();
    }

    @Test
    void noNumberOfOwnersPassesTheBudget() throws IOException {
        SharedMemory memory = SharedMemory.of(1000, 10_000);
        List<TwoTierCache<String, String>> sites = new ArrayList<>();
        for (int s = 0; s < 60; s++) sites.add(cache(memory, 500, s % 2 == 0 ? "site" + s : null, Stats.disabled()));
        Random random = new Random(7);
        for (int i = 0; i < 3000; i++) {
            TwoTierCache<String, String> site = sites.get(random.nextInt(sites.size()));
            site.put("k" + random.nextInt(30), page("k", 10 + random.nextInt(40)), Dependencies.none());
            assertThat(memory.weight()).isLessThanOrEqualTo(1000);
        }
        long sum = 0;
        for (TwoTierCache<String, String> site : sites) {
            site.checkConsistency();
            sum += site.memoryWeight();
        }
        assertThat(sum).isEqualTo(memory.weight());
        memory.checkInvariants();
    }

    @Test
    void clearAndCloseOfOneOwnerTakeOnlyItsPages() throws IOException {
        SharedMemory memory = SharedMemory.of(1000, 1000);
        TwoTierCache<String, String> a = cache(memory, 1000, "a", Stats.disabled());
        TwoTierCache<String, String> b = cache(memory, 1000, "b", Stats.disabled());
        TwoTierCache<String, String> c = cache(memory, 1000, "c", Stats.disabled());
        for (int i = 0; i < 5; i++) {
            a.put("k" + i, page("a" + i, 20), Dependencies.none());
            b.put("k" + i, page("b" + i, 30), Dependencies.none());
            c.put("k" + i, page("c" + i, 40), Dependencies.none());
        }
        assertThat(b.get("k1")).as("same key, another owner").isEqualTo(page("b1", 30));
        assertThat(memory.weight()).isEqualTo(450);
        assertThat(a.clear()).isEqualTo(5);
        assertThat(memory.weight()).isEqualTo(350);
        b.close();
        open.remove(b);
        assertThat(memory.weight()).isEqualTo(200);
        assertThat(c.memoryWeight()).isEqualTo(200);
        assertThat(c.get("k3")).isEqualTo(page("c3", 40));
        // B's pages were written at close: a new B on its folder starts warm.
        TwoTierCache<String, String> b2 = cache(memory, 1000, "b", Stats.disabled());
        assertThat(b2.get("k4")).isEqualTo(page("b4", 30));
        memory.checkInvariants();
    }

    @Test
    void concurrentOwnersStayConsistentAndWithinTheBudget() throws Exception {
        SharedMemory memory = SharedMemory.of(2_000, 100);
        List<TwoTierCache<String, String>> sites = new ArrayList<>();
        for (int s = 0; s < 3; s++) sites.add(cache(memory, 1_000, "site" + s, Stats.disabled()));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        AtomicBoolean crossed = new AtomicBoolean();
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = t;
                runs.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    for (int i = 0; i < 3_000; i++) {
                        int s = random.nextInt(sites.size());
                        TwoTierCache<String, String> site = sites.get(s);
                        String key = "k" + random.nextInt(40);
                        int op = random.nextInt(20);
                        if (op < 10) {
                            String v = site.get(key);
                            if (v != null && !v.startsWith(s + key + "=")) crossed.set(true);
                        } else if (op < 18) {
                            site.put(key, s + key + "=" + "x".repeat(random.nextInt(200)),
                                    Dependencies.of(new Dependency("store", "/d" + random.nextInt(10), "1")));
                        } else if (op < 19) {
                            site.invalidate(new Dependency("store", "/d" + random.nextInt(10), "2"));
                        } else {
                            site.remove(key);
                        }
                        if (memory.weight() > 2_000) crossed.set(true);
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) run.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(crossed).as("a value under another key or owner, or the budget passed").isFalse();
        for (TwoTierCache<String, String> site : sites) site.checkConsistency();
        memory.checkInvariants();
    }

    @Test
    void refusesBadSettings() {
        assertThatThrownBy(() -> SharedMemory.of(0, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the shared memory budget must be at least 1, was 0");
        assertThatThrownBy(() -> TwoTierCache.<String, String>builder(1).sharedMemory(SharedMemory.of(10, 10)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a cache with shared memory needs memoryWeight(cap, weigher)");
    }
}
