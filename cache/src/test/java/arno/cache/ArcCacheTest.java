package arno.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.cache.ArcCache.ListId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ArcCacheTest {

    /** A value that knows its key (to catch crossed values) and its weight. */
    record Val(int key, int version, long weight) { }

    // ----- The paper, traced by hand. -----

    @Test
    void followsThePaperOnAHandTracedStream() {
        ArcCache<Integer, String> cache = ArcCache.<Integer, String>builder(2).build();
        request(cache, 1);
        request(cache, 2);
        assertLists(cache, List.of(1, 2), List.of(), List.of(), List.of(), 0);
        assertThat(request(cache, 1)).as("hit").isTrue();
        assertLists(cache, List.of(2), List.of(1), List.of(), List.of(), 0);
        // Case IV.B, directory holds c keys: REPLACE takes T1's LRU (|T1| = 1 > p = 0).
        request(cache, 3);
        assertLists(cache, List.of(3), List.of(1), List.of(2), List.of(), 0);
        // Case II: 2 is in B1, p grows by 1; REPLACE takes T2's LRU since |T1| = 1 = p.
        assertThat(request(cache, 2)).as("miss").isFalse();
        assertLists(cache, List.of(3), List.of(2), List.of(), List.of(1), 1);
        // Case III: 1 is in B2, p shrinks by 1; REPLACE takes T1's LRU (|T1| = 1 > p = 0).
        request(cache, 1);
        assertLists(cache, List.of(), List.of(2, 1), List.of(3), List.of(), 0);
        // Case IV.B: T1 is empty, so REPLACE takes T2's LRU.
        request(cache, 4);
        assertLists(cache, List.of(4), List.of(1), List.of(3), List.of(2), 0);
        // Case IV.A: L1 holds c keys and |T1| < c: drop B1's LRU, then REPLACE.
        request(cache, 5);
        assertLists(cache, List.of(5), List.of(1), List.of(4), List.of(2), 0);
    }

    @Test
    void adaptsByTheRatioOfTheGhostListsAsThePaperSays() {
        ArcCache<Integer, Integer> cache = ArcCache.<Integer, Integer>builder(4).build();
        // Each key asked twice goes to T2; with T1 empty, REPLACE then takes T2's LRU to B2.
        for (int k = 1; k <= 7; k++) {
            request(cache, k);
            request(cache, k);
        }
        assertLists(cache, List.of(), List.of(4, 5, 6, 7), List.of(), List.of(1, 2, 3), 0);
        request(cache, 8);
        assertLists(cache, List.of(8), List.of(5, 6, 7), List.of(), List.of(1, 2, 3, 4), 0);
        // Case IV.B with a full directory (2c keys): B2's LRU is deleted before REPLACE.
        request(cache, 9);
        assertLists(cache, List.of(9), List.of(5, 6, 7), List.of(8), List.of(2, 3, 4), 0);
        // Case II with |B1| = 1 < |B2| = 3: p grows by |B2|/|B1| = 3; then, |T1| = 1 not over
        // p, REPLACE takes T2's LRU.
        request(cache, 8);
        assertLists(cache, List.of(9), List.of(6, 7, 8), List.of(), List.of(2, 3, 4, 5), 3);
        // Case III with |B2| >= |B1|: p shrinks by 1.
        request(cache, 2);
        assertLists(cache, List.of(9), List.of(7, 8, 2), List.of(), List.of(3, 4, 5, 6), 2);
    }

    // ----- Differential tests against the plain model. -----

    static Stream<Arguments> shapes() {
        List<Arguments> shapes = new ArrayList<>();
        for (int c : new int[] {1, 2, 3, 5, 16, 64}) {
            for (int keysPerSlot : new int[] {1, 2, 4}) {
                shapes.add(Arguments.of(c, Math.max(2, c * keysPerSlot)));
            }
        }
        return shapes.stream();
    }

    @ParameterizedTest(name = "c={0}, keys={1}")
    @MethodSource("shapes")
    void requestStreamsMatchThePaper(int c, int keys) {
        for (long seed = 0; seed < 8; seed++) {
            Random random = new Random(seed * 31 + c);
            ArcCache<Integer, Val> cache = ArcCache.<Integer, Val>builder(c).build();
            ArcModel<Integer, Val> model = new ArcModel<>(c, Long.MAX_VALUE, v -> 1);
            for (int step = 0; step < 2_000; step++) {
                // Skewed keys, so that both T2 and the ghost lists see traffic.
                int key = random.nextBoolean() ? random.nextInt(Math.max(1, keys / 4)) : random.nextInt(keys);
                String where = "seed " + seed + ", step " + step + ", key " + key;
                Val expected = model.get(key);
                Val actual = cache.get(key);
                assertThat(actual).as(where).isEqualTo(expected);
                if (actual == null) {
                    Val v = new Val(key, step, 1);
                    model.put(key, v);
                    List<Map.Entry<Integer, Val>> evicted = new ArrayList<>();
                    cache.put(key, v, evicted);
                    assertThat(evicted).as(where).isEqualTo(model.evicted);
                }
                assertSame(cache, model, where);
            }
            assertThat(model.skippedReplaces).as("REPLACE skipped on a pure request stream").isZero();
        }
    }

    @ParameterizedTest(name = "c={0}, keys={1}")
    @MethodSource("shapes")
    void mixedOperationsWithWeightsMatchTheModel(int c, int keys) {
        for (long seed = 0; seed < 8; seed++) {
            Random random = new Random(seed * 17 + keys);
            long maximumWeight = 1 + random.nextInt(4 * c);
            ArcCache<Integer, Val> cache = ArcCache.<Integer, Val>builder(c)
                    .maximumWeight(maximumWeight, Val::weight).build();
            ArcModel<Integer, Val> model = new ArcModel<>(c, maximumWeight, Val::weight);
            for (int step = 0; step < 2_000; step++) {
                int key = random.nextInt(keys);
                String where = "seed " + seed + ", step " + step + ", key " + key;
                int op = random.nextInt(10);
                if (op < 5) {
                    assertThat(cache.get(key)).as(where).isEqualTo(model.get(key));
                } else if (op < 9) {
                    // Weights up to a bit over the bound, so some values never fit.
                    Val v = new Val(key, step, random.nextInt((int) Math.min(maximumWeight + 2, 1 << 20)));
                    List<Map.Entry<Integer, Val>> evicted = new ArrayList<>();
                    assertThat(cache.put(key, v, evicted)).as(where).isEqualTo(model.put(key, v));
                    assertThat(evicted).as(where).isEqualTo(model.evicted);
                } else {
                    assertThat(cache.remove(key)).as(where).isEqualTo(model.remove(key));
                }
                assertSame(cache, model, where);
                assertThat(cache.weight()).as(where).isLessThanOrEqualTo(maximumWeight);
            }
        }
    }

    /**
     * Several owners in one ARC (a {@link SharedMemory}): keys owned by {@code key % owners}, each
     * owner capped. Gets, puts, removes and an owner's clear against the model, with the four
     * lists, p and the evicted entries compared, every owner within its cap and all within the
     * bound after every step.
     */
    @ParameterizedTest(name = "c={0}, keys={1}")
    @MethodSource("shapes")
    void sharesWithCapsMatchTheModel(int c, int keys) {
        for (long seed = 0; seed < 8; seed++) {
            Random random = new Random(seed * 13 + keys + c);
            int owners = 1 + random.nextInt(3);
            long maximumWeight = 1 + random.nextInt(4 * c);
            ArcCache<Integer, Val> cache = ArcCache.<Integer, Val>builder(c).maximumWeight(maximumWeight, Val::weight).build();
            ArcModel<Integer, Val> model = new ArcModel<>(c, maximumWeight, Val::weight);
            model.ownerOf = k -> k % owners;
            List<ArcCache.Share<Integer, Val>> shares = new ArrayList<>();
            for (int o = 0; o < owners; o++) {
                // Caps below, at and above the bound: a cap above it only bounds with the others.
                long cap = 1 + random.nextInt((int) Math.min(2 * maximumWeight, 1 << 20));
                shares.add(new ArcCache.Share<>(cap));
                model.caps.put(o, cap);
            }
            for (int step = 0; step < 2_000; step++) {
                int key = random.nextInt(keys);
                String where = "seed " + seed + ", step " + step + ", key " + key;
                int op = random.nextInt(20);
                if (op < 10) {
                    assertThat(cache.get(key)).as(where).isEqualTo(model.get(key));
                } else if (op < 18) {
                    Val v = new Val(key, step, random.nextInt((int) Math.min(maximumWeight + 2, 1 << 20)));
                    List<Map.Entry<Integer, Val>> evicted = new ArrayList<>();
                    model.evicted.clear();
                    assertThat(cache.put(key, v, v.weight(), shares.get(key % owners), evicted)).as(where)
                            .isEqualTo(model.put(key, v));
                    assertThat(evicted).as(where).isEqualTo(model.evicted);
                } else if (op < 19) {
                    assertThat(cache.remove(key)).as(where).isEqualTo(model.remove(key));
                } else {
                    assertThat(cache.clear(shares.get(key % owners))).as(where).isEqualTo(model.clear(key % owners));
                }
                assertSame(cache, model, where);
                assertThat(cache.weight()).as(where).isLessThanOrEqualTo(maximumWeight);
                for (int o = 0; o < owners; o++) {
                    ArcCache.Share<Integer, Val> share = shares.get(o);
                    List<Integer> own = new ArrayList<>(model.owned(model.t1, o));
                    own.addAll(model.owned(model.t2, o));
                    assertThat(cache.entries(share)).as("owner " + o + " at " + where).extracting(Map.Entry::getKey)
                            .isEqualTo(own);
                    assertThat(cache.weight(share)).as(where).isLessThanOrEqualTo(share.cap);
                }
            }
        }
    }

    private static void assertSame(ArcCache<Integer, Val> cache, ArcModel<Integer, Val> model, String where) {
        cache.checkInvariants();
        assertThat(cache.keys(ListId.T1)).as("T1 at " + where).isEqualTo(model.t1);
        assertThat(cache.keys(ListId.T2)).as("T2 at " + where).isEqualTo(model.t2);
        assertThat(cache.keys(ListId.B1)).as("B1 at " + where).isEqualTo(model.b1);
        assertThat(cache.keys(ListId.B2)).as("B2 at " + where).isEqualTo(model.b2);
        assertThat(cache.target()).as("p at " + where).isEqualTo(model.p);
        assertThat(cache.weight()).as("weight at " + where).isEqualTo(model.weight());
    }

    // ----- Scan resistance. -----

    /**
     * A hot set of 50 pages in a cache of 100, then a crawler's single pass over 20,000 pages
     * that takes 80% of the requests. ARC keeps the hot set in T2; LRU lets the scan flush it.
     */
    @Test
    void hotSetSurvivesAScanUnderArcButNotUnderLru() {
        int c = 100;
        int hot = 50;
        ArcCache<Integer, Integer> arc = ArcCache.<Integer, Integer>builder(c).build();
        Lru<Integer, Integer> lru = new Lru<>(c);
        Random random = new Random(42);
        for (int i = 0; i < 10 * hot; i++) {
            int key = random.nextInt(hot);
            request(arc, key);
            lru.request(key);
        }
        int scanKey = 1_000_000;
        int hotRequests = 0;
        int arcHotHits = 0;
        int lruHotHits = 0;
        for (int i = 0; i < 25_000; i++) {
            if (random.nextInt(10) < 8) {
                request(arc, scanKey);
                lru.request(scanKey);
                scanKey++;
            } else {
                int key = random.nextInt(hot);
                hotRequests++;
                arcHotHits += request(arc, key) ? 1 : 0;
                lruHotHits += lru.request(key) ? 1 : 0;
            }
        }
        double arcRatio = (double) arcHotHits / hotRequests;
        double lruRatio = (double) lruHotHits / hotRequests;
        assertThat(arcRatio).as("ARC hot-set hit ratio during the scan").isGreaterThan(0.95);
        assertThat(lruRatio).as("LRU hot-set hit ratio during the scan").isLessThan(0.5);
        arc.checkInvariants();
    }

    /**
     * Bounded by bytes, as the page caches are: 4,000 pages of 10 to 60 KB, a bound of a tenth
     * of their bytes and an entry bound at 4 KB per entry (as PageCache sets it), far above what
     * the bytes allow. Users ask for Zipf(0.9)-popular pages; a crawler then takes half the
     * requests. ARC must keep the users' hit ratio near its value without the crawler; LRU loses
     * more. ARC counting its lists in entries behaved as LRU here (0.83 of its no-crawler ratio):
     * p grew in entries past anything T1 could hold, so every eviction came from T1's recency.
     */
    @Test
    void popularPagesSurviveACrawlerWhenBoundedByWeight() {
        int n = 4_000;
        long[] weight = new long[n];
        Random random = new Random(1);
        long total = 0;
        for (int i = 0; i < n; i++) total += weight[i] = 10_000 + random.nextInt(50_000);
        long bound = total / 10;
        double arcAlone = usersHitRatio(weight, bound, 0, true);
        double arcCrawled = usersHitRatio(weight, bound, 0.5, true);
        double lruAlone = usersHitRatio(weight, bound, 0, false);
        double lruCrawled = usersHitRatio(weight, bound, 0.5, false);
        assertThat(arcCrawled / arcAlone).as("ARC: users' hit ratio with the crawler over without (%.4f, %.4f)",
                arcCrawled, arcAlone).isGreaterThan(0.95);
        assertThat(lruCrawled / lruAlone).as("LRU: users' hit ratio with the crawler over without (%.4f, %.4f)",
                lruCrawled, lruAlone).isLessThan(0.9);
        assertThat(arcCrawled).as("ARC against LRU with the crawler").isGreaterThan(lruCrawled);
    }

    /** Users' hits over 80,000 user requests after as many to warm up; {@code crawl}: the crawler's share. */
    private static double usersHitRatio(long[] weight, long bound, double crawl, boolean arc) {
        int n = weight.length;
        Random random = new Random(42);
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) cdf[i] = sum += 1 / Math.pow(i + 1, 0.9);
        ArcCache<Integer, Integer> arcCache = ArcCache.<Integer, Integer>builder((int) (bound / 4096))
                .maximumWeight(bound, k -> weight[k]).build();
        Map<Integer, Long> lru = new LinkedHashMap<>(16, 0.75f, true);
        long held = 0;
        int crawler = 0;
        int hits = 0;
        for (int pass = 0; pass < 2; pass++) {
            hits = 0;
            for (int users = 0; users < 80_000; ) {
                int key;
                boolean user = !(random.nextDouble() < crawl);
                if (user) {
                    int r = java.util.Arrays.binarySearch(cdf, random.nextDouble() * sum);
                    key = r < 0 ? -r - 1 : r;
                    users++;
                } else {
                    key = crawler;
                    crawler = (crawler + 1) % n;
                }
                boolean hit;
                if (arc) {
                    hit = request(arcCache, key);
                } else {
                    hit = lru.get(key) != null;
                    if (!hit) {
                        lru.put(key, weight[key]);
                        held += weight[key];
                        var it = lru.values().iterator();
                        while (held > bound) {
                            held -= it.next();
                            it.remove();
                        }
                    }
                }
                if (hit && user) hits++;
            }
        }
        arcCache.checkInvariants();
        return hits / 80_000.0;
    }

    // ----- Bounds, listener, settings. -----

    @Test
    void valuesHeavierThanTheBoundGoStraightToTheListener() {
        List<String> evicted = new ArrayList<>();
        Stats.Counting stats = Stats.counting();
        ArcCache<String, String> cache = ArcCache.<String, String>builder(10)
                .maximumWeight(10, String::length)
                .stats(stats)
                .evictionListener((k, v) -> evicted.add(k + "=" + v))
                .build();
        cache.put("a", "12345");
        cache.put("b", "12345");
        assertThat(cache.weight()).isEqualTo(10);
        cache.put("c", "123");
        assertThat(evicted).containsExactly("a=12345");
        cache.put("big", "12345678901");
        assertThat(evicted).containsExactly("a=12345", "big=12345678901");
        assertThat(cache.peek("big")).isNull();
        assertThat(cache.size()).isEqualTo(2);
        assertThat(stats.count(Stats.Event.EVICTION)).isEqualTo(2);
        cache.checkInvariants();
    }

    @Test
    void listenerRunsAfterTheLockIsReleased() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            AtomicReference<Integer> seenFromOtherThread = new AtomicReference<>();
            AtomicReference<ArcCache<Integer, Integer>> self = new AtomicReference<>();
            ArcCache<Integer, Integer> cache = ArcCache.<Integer, Integer>builder(1)
                    .evictionListener((k, v) -> {
                        // Blocks (and times out) if the evicting thread still held the lock.
                        Future<Integer> size = other.submit(() -> self.get().size());
                        try {
                            seenFromOtherThread.set(size.get(5, TimeUnit.SECONDS));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    })
                    .build();
            self.set(cache);
            cache.put(1, 1);
            cache.put(2, 2);
            assertThat(seenFromOtherThread.get()).isEqualTo(1);
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void refusesBadSettingsAtOnce() {
        assertThatThrownBy(() -> ArcCache.builder(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maximumSize must be in 1..536870912, was 0");
        assertThatThrownBy(() -> ArcCache.<String, String>builder(1).maximumWeight(0, String::length))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maximumWeight must be at least 1, was 0");
        ArcCache<String, String> cache = ArcCache.<String, String>builder(1).maximumWeight(5, s -> -1).build();
        assertThatThrownBy(() -> cache.put("k", "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weigher returned -1 for key k");
        assertThatThrownBy(() -> cache.put(null, "v")).isInstanceOf(NullPointerException.class);
    }

    @Test
    void removeForgetsHistoryAndClearResets() {
        ArcCache<Integer, Integer> cache = ArcCache.<Integer, Integer>builder(2).build();
        request(cache, 1);
        request(cache, 1);
        request(cache, 2);
        request(cache, 3);
        assertThat(cache.keys(ListId.B1)).containsExactly(2);
        assertThat(cache.remove(2)).as("a ghost has no value").isNull();
        assertThat(cache.keys(ListId.B1)).isEmpty();
        assertThat(cache.remove(1)).isEqualTo(1);
        assertThat(cache.keys(ListId.T2)).isEmpty();
        cache.clear();
        assertThat(cache.size()).isZero();
        assertThat(cache.target()).isZero();
        cache.checkInvariants();
    }

    @Test
    void manyThreadsKeepTheInvariantsAndNeverCrossValues() throws Exception {
        ArcCache<Integer, Val> cache = ArcCache.<Integer, Val>builder(64)
                .maximumWeight(200, Val::weight).build();
        int threads = 4;
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = t;
            runs.add(CompletableFuture.runAsync(() -> {
                Random random = new Random(seed);
                for (int i = 0; i < 50_000; i++) {
                    int key = random.nextInt(256);
                    int op = random.nextInt(10);
                    if (op < 6) {
                        Val v = cache.get(key);
                        if (v != null && v.key() != key) {
                            throw new AssertionError("value of " + v.key() + " under key " + key);
                        }
                    } else if (op < 9) {
                        cache.put(key, new Val(key, i, random.nextInt(8)));
                    } else {
                        cache.remove(key);
                    }
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        cache.checkInvariants();
    }

    // ----- Helpers. -----

    /** One request of the paper: a get, and on a miss a put. True on a hit. */
    private static <V> boolean request(ArcCache<Integer, V> cache, int key) {
        if (cache.get(key) != null) {
            return true;
        }
        @SuppressWarnings("unchecked")
        V value = (V) (Object) key;
        cache.put(key, value);
        return false;
    }

    private static void assertLists(ArcCache<Integer, ?> cache, List<Integer> t1, List<Integer> t2,
            List<Integer> b1, List<Integer> b2, double p) {
        assertThat(cache.keys(ListId.T1)).as("T1").isEqualTo(t1);
        assertThat(cache.keys(ListId.T2)).as("T2").isEqualTo(t2);
        assertThat(cache.keys(ListId.B1)).as("B1").isEqualTo(b1);
        assertThat(cache.keys(ListId.B2)).as("B2").isEqualTo(b2);
        assertThat(cache.target()).as("p").isEqualTo(p);
        cache.checkInvariants();
    }

    /** The baseline: LinkedHashMap in access order. */
    static final class Lru<K, V> {
        private final Map<K, Boolean> map;

        Lru(int capacity) {
            map = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<K, Boolean> eldest) {
                    return size() > capacity;
                }
            };
        }

        boolean request(K key) {
            if (map.get(key) != null) {
                return true;
            }
            map.put(key, Boolean.TRUE);
            return false;
        }
    }
}
