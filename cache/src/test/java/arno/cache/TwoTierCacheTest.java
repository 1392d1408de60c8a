package arno.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.cache.Dependencies.Dependency;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TwoTierCacheTest {

    @TempDir
    Path dir;

    private final Stats.Counting stats = Stats.counting();
    private final List<TwoTierCache<String, String>> open = new ArrayList<>();
    private ExecutorService pool;

    @AfterEach
    void closeAll() throws IOException {
        for (TwoTierCache<String, String> cache : open) {
            cache.close();
        }
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    private TwoTierCache<String, String> cache(int memoryEntries, long diskBytes) throws IOException {
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(memoryEntries)
                .disk(dir.resolve("cache"), diskBytes, Codec.utf8(), Codec.utf8())
                .stats(stats)
                .build();
        open.add(cache);
        return cache;
    }

    private static Dependencies store(String uri, String version) {
        return Dependencies.of(new Dependency("store", uri, version));
    }

    // ----- Tiers. -----

    @Test
    void memoryEvictionDemotesToDiskAndADiskHitPromotes() throws IOException {
        TwoTierCache<String, String> cache = cache(2, 1 << 20);
        cache.put("a", "alpha", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        cache.put("c", "gamma", Dependencies.none());
        assertThat(cache.inMemory("a")).isFalse();
        Path file = cache.fileOf("a");
        assertThat(file).exists();
        assertThat(stats.count(Stats.Event.DISK_WRITE)).isEqualTo(1);

        assertThat(cache.get("a")).isEqualTo("alpha");
        assertThat(stats.count(Stats.Event.DISK_HIT)).isEqualTo(1);
        assertThat(cache.inMemory("a")).as("promoted").isTrue();
        assertThat(cache.fileOf("a")).as("the file stays: the disk tier is inclusive").isEqualTo(file);
        assertThat(cache.get("a")).isEqualTo("alpha");
        assertThat(stats.count(Stats.Event.HIT)).isEqualTo(1);
        cache.checkConsistency();
    }

    /** Issue 21: cached pages on disk were readable by every user of the machine under umask 022. */
    @Test
    void theDiskTierIsReadableByItsOwnerOnly() throws IOException {
        Path data = dir.resolve("data");
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(1)
                .disk(data.resolve("cache/site"), 1 << 20, Codec.utf8(), Codec.utf8()).build();
        open.add(cache);
        cache.put("a", "a page for one user", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        Path file = cache.fileOf("a");
        assertThat(file).exists();
        List<Path> all;
        try (java.util.stream.Stream<Path> walk = java.nio.file.Files.walk(data)) {
            all = walk.toList();
        }
        assertThat(all).contains(file).hasSizeGreaterThan(4); // data, cache, site, its lock file, the entry
        for (Path p : all) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(p)))
                    .as(data.relativize(p).toString()).isEqualTo(java.nio.file.Files.isDirectory(p) ? "rwx------" : "rw-------");
        }
    }

    @Test
    void aPromotedValueThatIsEvictedAgainIsNotRewritten() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "alpha", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        assertThat(cache.get("a")).isEqualTo("alpha");
        // a was written when b pushed it out, b when a's promotion pushed b out.
        long writes = stats.count(Stats.Event.DISK_WRITE);
        assertThat(writes).isEqualTo(2);
        Path file = cache.fileOf("a");
        cache.put("c", "gamma", Dependencies.none());
        assertThat(cache.inMemory("a")).isFalse();
        assertThat(cache.fileOf("a")).isEqualTo(file);
        assertThat(stats.count(Stats.Event.DISK_WRITE)).as("a's file was still current").isEqualTo(writes);
        cache.checkConsistency();
    }

    @Test
    void aNewValueReplacesTheOldOneInBothTiers() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "old", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        Path oldFile = cache.fileOf("a");
        cache.put("a", "new", Dependencies.none());
        assertThat(oldFile).doesNotExist();
        assertThat(cache.get("a")).isEqualTo("new");
        cache.put("c", "gamma", Dependencies.none());
        assertThat(cache.get("a")).isEqualTo("new");
        cache.checkConsistency();
    }

    @Test
    void diskTierKeepsItsByteBound() throws IOException {
        long bound = 4_000;
        TwoTierCache<String, String> cache = cache(2, bound);
        for (int i = 0; i < 200; i++) {
            cache.put("k" + i, "v".repeat(100 + i % 50), Dependencies.none());
        }
        assertThat(cache.diskBytes()).isLessThanOrEqualTo(bound).isPositive();
        assertThat(folderBytes()).isEqualTo(cache.diskBytes());
        assertThat(stats.count(Stats.Event.DISK_EVICTION)).isPositive();
        assertThat(cache.liveEntries()).isEqualTo(cache.diskSize() + cache.memorySize());
        cache.checkConsistency();
    }

    @Test
    void valuesTooBigForMemoryGoToDiskAndTooBigForDiskAreDropped() throws IOException {
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(10)
                .memoryWeight(100, String::length)
                .disk(dir.resolve("cache"), 1_000, Codec.utf8(), Codec.utf8())
                .build();
        open.add(cache);
        cache.put("medium", "m".repeat(500), Dependencies.none());
        assertThat(cache.inMemory("medium")).isFalse();
        assertThat(cache.fileOf("medium")).exists();
        assertThat(cache.get("medium")).hasSize(500);
        cache.put("huge", "h".repeat(5_000), Dependencies.none());
        assertThat(cache.get("huge")).isNull();
        assertThat(cache.liveEntries()).isEqualTo(1);
        cache.checkConsistency();
    }

    @Test
    void withoutDiskAnEvictedEntryEnds() throws IOException {
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(2).build();
        open.add(cache);
        cache.put("a", "1", store("/a", "1"));
        cache.put("b", "2", store("/b", "1"));
        cache.put("c", "3", store("/c", "1"));
        assertThat(cache.get("a")).isNull();
        assertThat(cache.liveEntries()).isEqualTo(2);
        assertThat(cache.indexedSources()).isEqualTo(2);
        cache.checkConsistency();
    }

    // ----- Restart. -----

    @Test
    void aNewInstanceOnTheSameFolderFindsTheEntriesAndTheirDependencies() throws IOException {
        TwoTierCache<String, String> first = cache(2, 1 << 20);
        for (int i = 0; i < 6; i++) {
            first.put("k" + i, "value " + i, store("/doc/" + i, "v1"));
        }
        first.close();
        open.remove(first);
        assertThatThrownBy(() -> first.get("k0")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");

        TwoTierCache<String, String> second = cache(2, 1 << 20);
        assertThat(second.liveEntries()).as("close() wrote memory's values too").isEqualTo(6);
        for (int i = 0; i < 6; i++) {
            assertThat(second.get("k" + i)).isEqualTo("value " + i);
        }
        assertThat(second.invalidate(new Dependency("store", "/doc/3", "v2"))).isEqualTo(1);
        assertThat(second.get("k3")).isNull();
        assertThat(second.get("k4", d -> !d.uri().equals("/doc/4"))).isNull();
        assertThat(second.get("k5", d -> true)).isEqualTo("value 5");
        second.put("new", "fresh", Dependencies.none());
        second.checkConsistency();
    }

    @Test
    void afterACrashTheDemotedEntriesSurvive() throws IOException {
        // A crash leaves the folder as it is; a copy of it taken while the cache runs is that
        // folder (the running cache keeps the folder locked, as a dead process would not).
        TwoTierCache<String, String> running = cache(2, 1 << 20);
        for (int i = 0; i < 5; i++) {
            running.put("k" + i, "value " + i, Dependencies.none());
        }
        Path copy = dir.resolve("copy");
        Files.createDirectories(copy);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.resolve("cache"), "*.entry")) {
            for (Path f : files) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        Files.writeString(copy.resolve("00000000000000ff.tmp"), "half-written");
        try (TwoTierCache<String, String> recovered = TwoTierCache.<String, String>builder(2)
                .disk(copy, 1 << 20, Codec.utf8(), Codec.utf8()).build()) {
            assertThat(recovered.liveEntries()).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(recovered.get("k" + i)).isEqualTo("value " + i);
            }
            assertThat(copy.resolve("00000000000000ff.tmp")).doesNotExist();
            recovered.checkConsistency();
        }
    }

    @Test
    void aSecondLiveCacheOnTheSameFolderIsRefused() throws IOException {
        cache(2, 1 << 20);
        assertThatThrownBy(() -> cache(2, 1 << 20))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is in use by another TwoTierCache");
    }

    // ----- Corruption. -----

    @Test
    void aDamagedValueIsAMissAndTheFileIsDeleted() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "alpha alpha alpha", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        Path file = cache.fileOf("a");
        flipByte(file, Files.size(file) - 6);
        assertThat(cache.get("a")).isNull();
        assertThat(stats.count(Stats.Event.CORRUPT)).isEqualTo(1);
        assertThat(file).doesNotExist();
        assertThat(cache.liveEntries()).isEqualTo(1);
        cache.checkConsistency();
    }

    @Test
    void aTruncatedFileIsAMiss() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "alpha", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        Path file = cache.fileOf("a");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(raf.length() - 3);
        }
        assertThat(cache.get("a")).isNull();
        assertThat(stats.count(Stats.Event.CORRUPT)).isEqualTo(1);
        cache.checkConsistency();
    }

    @Test
    void aValueThatDoesNotDecodeIsAMiss() throws IOException {
        Codec<String> picky = new Codec<>() {
            @Override
            public byte[] encode(String value) throws IOException {
                return Codec.utf8().encode(value);
            }

            @Override
            public String decode(byte[] bytes) throws IOException {
                throw new IOException("not my format");
            }
        };
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(1)
                .disk(dir.resolve("cache"), 1 << 20, Codec.utf8(), picky).stats(stats).build();
        open.add(cache);
        cache.put("a", "alpha", Dependencies.none());
        cache.put("b", "beta", Dependencies.none());
        assertThat(cache.get("a")).isNull();
        assertThat(stats.count(Stats.Event.CORRUPT)).isEqualTo(1);
    }

    @Test
    void startUpDeletesDamagedFilesAndKeepsTheRest() throws IOException {
        TwoTierCache<String, String> first = cache(1, 1 << 20);
        for (int i = 0; i < 4; i++) {
            first.put("k" + i, "value " + i, store("/d" + i, "1"));
        }
        first.close();
        open.remove(first);
        Path folder = dir.resolve("cache");
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(folder, "*.entry")) {
            listing.forEach(files::add);
        }
        files.sort(null);
        assertThat(files).hasSize(4);
        flipByte(files.get(0), 14);                     // inside the header
        try (RandomAccessFile raf = new RandomAccessFile(files.get(1).toFile(), "rw")) {
            raf.setLength(10);                           // truncated inside the framing
        }
        Files.writeString(folder.resolve("00000000000000aa.entry"), "not a cache entry at all");
        Files.writeString(folder.resolve("notes.txt"), "left alone");

        TwoTierCache<String, String> second = cache(1, 1 << 20);
        assertThat(second.liveEntries()).isEqualTo(2);
        assertThat(stats.count(Stats.Event.CORRUPT)).isEqualTo(3);
        assertThat(files.get(0)).doesNotExist();
        assertThat(files.get(1)).doesNotExist();
        assertThat(folder.resolve("notes.txt")).exists();
        assertThat(second.indexedSources()).isEqualTo(2);
        second.checkConsistency();
    }

    @Test
    void aFailingDiskLosesTheEntryButNeverFailsTheCaller() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "alpha", Dependencies.none());
        Path folder = dir.resolve("cache");
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        assertThat(folder).doesNotExist();
        cache.put("b", "beta", Dependencies.none());       // demoting a fails
        assertThat(stats.count(Stats.Event.IO_ERROR)).isEqualTo(1);
        assertThat(cache.get("a")).isNull();
        assertThat(cache.get("b")).isEqualTo("beta");
        assertThat(cache.liveEntries()).isEqualTo(1);
    }

    @Test
    void aDiskThatCannotBeWrittenTurnsTheCacheMemoryOnlyWithOneWarning() throws IOException {
        List<java.util.logging.LogRecord> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) warnings.add(r);
            }

            @Override
            public void flush() { }

            @Override
            public void close() { }
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(TwoTierCache.class.getName());
        logger.addHandler(handler);
        try {
            TwoTierCache<String, String> cache = cache(2, 1 << 20);
            cache.put("a", "alpha", Dependencies.none());
            cache.put("b", "beta", Dependencies.none());
            cache.put("c", "gamma", Dependencies.none());          // a goes to disk
            assertThat(cache.fileOf("a")).isNotNull();
            assertThat(cache.diskFailure()).isNull();
            // The folder becomes unwritable (as root, permissions do not stop a write; a file in its place does).
            Path folder = dir.resolve("cache");
            Path aside = dir.resolve("aside");
            Files.move(folder, aside);
            Files.writeString(folder, "not a folder");
            for (int i = 0; i < 20; i++) {
                cache.put("k" + i, "value " + i, Dependencies.none()); // every put evicts one
            }
            assertThat(cache.diskFailure()).isNotNull();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).getMessage()).contains("memory only").contains(folder.toString());
            assertThat(stats.count(Stats.Event.IO_ERROR)).as("one failed write, then no more attempts").isEqualTo(1);
            assertThat(stats.count(Stats.Event.DISK_WRITE)).isEqualTo(1);
            // Memory goes on: the newest entries are served, the evicted ones are gone, nothing throws.
            assertThat(cache.get("k19")).isEqualTo("value 19");
            assertThat(cache.get("k18")).isEqualTo("value 18");
            assertThat(cache.get("k0")).isNull();
            assertThat(cache.liveEntries()).isEqualTo(3);              // two in memory, "a" still on disk
            cache.close();
            open.remove(cache);
            assertThat(warnings).as("closing writes nothing more").hasSize(1);
        } finally {
            logger.removeHandler(handler);
        }
    }

    @Test
    void clearDropsEveryEntryOfBothTiersAndTheirFiles() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "alpha", store("/a", "1"));
        cache.put("b", "beta", store("/b", "1"));              // a goes to disk
        assertThat(cache.fileOf("a")).isNotNull();
        assertThat(cache.clear()).isEqualTo(2);
        assertThat(cache.get("a")).isNull();
        assertThat(cache.get("b")).isNull();
        assertThat(cache.liveEntries()).isZero();
        assertThat(cache.indexedSources()).isZero();
        cache.checkConsistency();                               // the folder holds no entry file either
        cache.put("a", "again", Dependencies.none());
        assertThat(cache.get("a")).isEqualTo("again");
    }

    // ----- Invalidation. -----

    @Test
    void anInvalidationSparesWhatItsPredicateSaysIsNewer() throws IOException {
        TwoTierCache<String, String> cache = cache(2, 1 << 20);
        cache.put("old", "o", store("/a.xml", "3").and("view", "/", "3"));
        cache.put("new", "n", store("/a.xml", "5").and("view", "/", "5"));
        // a change at version 4, read late: the page built at 5 already shows it
        java.util.function.Predicate<Dependencies> builtFrom4On = built -> {
            for (Dependency d : built) if (d.kind().equals("view")) return Long.parseLong(d.version()) >= 4;
            return false;
        };
        assertThat(cache.invalidate(new Dependency("store", "/a.xml", "4"), builtFrom4On)).isEqualTo(1);
        assertThat(cache.get("old")).isNull();
        assertThat(cache.get("new")).isEqualTo("n");
        assertThat(cache.invalidate(new Dependency("store", "/a.xml", "6"))).isEqualTo(1);
        assertThat(cache.get("new")).isNull();
        cache.checkConsistency();
    }

    @Test
    void invalidationDropsEveryDependentEntryInBothTiersAtOnce() throws IOException {
        TwoTierCache<String, String> cache = cache(2, 1 << 20);
        Dependencies shared = store("/journal/a.xml", "7").and("uri", "http://example.org/x", "\"e1\"");
        cache.put("page1", "p1", shared);
        cache.put("page2", "p2", store("/journal/a.xml", "7"));
        cache.put("page3", "p3", store("/journal/b.xml", "7"));
        cache.put("page4", "p4", Dependencies.none());
        assertThat(cache.fileOf("page1")).isNotNull();
        Path onDisk = cache.fileOf("page1");

        assertThat(cache.invalidate(new Dependency("store", "/journal/a.xml", "7")))
                .as("same version: nothing changed").isZero();
        assertThat(cache.invalidate(new Dependency("store", "/journal/a.xml", "8"))).isEqualTo(2);
        assertThat(cache.get("page1")).isNull();
        assertThat(cache.get("page2")).isNull();
        assertThat(onDisk).doesNotExist();
        assertThat(cache.get("page3")).isEqualTo("p3");
        assertThat(cache.get("page4")).isEqualTo("p4");
        assertThat(stats.count(Stats.Event.INVALIDATION)).isEqualTo(2);
        assertThat(cache.invalidate(new Dependency("uri", "http://example.org/x", "\"e2\""))).isZero();
        assertThat(cache.indexedSources()).as("index cleaned").isEqualTo(1);
        cache.checkConsistency();
    }

    @Test
    void anEntryRebuiltFromTheNewVersionSurvivesTheAnnouncement() throws IOException {
        TwoTierCache<String, String> cache = cache(4, 1 << 20);
        cache.put("page", "old", store("/a.xml", "1"));
        cache.put("page", "new", store("/a.xml", "2"));
        assertThat(cache.invalidate(new Dependency("store", "/a.xml", "2"))).isZero();
        assertThat(cache.get("page")).isEqualTo("new");
        cache.checkConsistency();
    }

    // ----- Validation. -----

    @Test
    void dependenciesAreValidatedInParallel() throws Exception {
        pool = Executors.newFixedThreadPool(3);
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(4)
                .validationExecutor(pool).build();
        open.add(cache);
        Dependencies four = store("/1", "a").and("store", "/2", "a").and("store", "/3", "a").and("store", "/4", "a");
        cache.put("page", "value", four);
        // Each check waits until all four are running at once: only a parallel validation passes.
        CyclicBarrier allAtOnce = new CyclicBarrier(4);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        String value = cache.get("page", d -> {
            threads.add(Thread.currentThread().getName());
            allAtOnce.await(10, TimeUnit.SECONDS);
            return true;
        });
        assertThat(value).isEqualTo("value");
        assertThat(threads).hasSize(4).contains(Thread.currentThread().getName());
    }

    @Test
    void oneStaleDependencyAnswersWithoutWaitingForTheOthers() throws Exception {
        pool = Executors.newFixedThreadPool(3);
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(4)
                .validationExecutor(pool).stats(stats).build();
        open.add(cache);
        cache.put("page", "value", store("/stale", "1").and("store", "/slow1", "1").and("store", "/slow2", "1"));
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger slowFinished = new AtomicInteger();
        assertThat(cache.get("page", d -> {
            if (d.uri().equals("/stale")) {
                return false;
            }
            release.await(10, TimeUnit.SECONDS);
            slowFinished.incrementAndGet();
            return true;
        })).isNull();
        assertThat(slowFinished).as("answered while the slow checks still ran").hasValue(0);
        release.countDown();
        assertThat(stats.count(Stats.Event.STALE)).isEqualTo(1);
        assertThat(cache.get("page")).as("the stale entry was dropped").isNull();
    }

    @Test
    void screeningAnswersAtOnceOnTheCallingThreadAndLeavesOnlyTheRestToBeChecked() throws IOException {
        TwoTierCache<String, String> cache = cache(4, 1 << 20);
        Dependencies deps = Dependencies.of(new Dependency("store", "/a", "1"), new Dependency("store", "/b", "2"),
                new Dependency("file", "/f", "7"));
        cache.put("k", "v", deps);
        Thread caller = Thread.currentThread();
        List<String> checked = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean storeCurrent = new AtomicBoolean(true);
        Validator v = new Validator() {
            @Override
            public Dependencies screen(Dependencies all) {
                assertThat(Thread.currentThread()).isSameAs(caller);
                assertThat(all).isEqualTo(deps);
                if (!storeCurrent.get()) return null;
                return Dependencies.of(all.asList().stream().filter(d -> d.kind().equals("file")).toList());
            }

            @Override
            public boolean isCurrent(Dependency d) {
                checked.add(d.uri());
                return true;
            }
        };
        assertThat(cache.get("k", v)).isEqualTo("v");
        assertThat(checked).containsExactly("/f");
        storeCurrent.set(false);
        assertThat(cache.get("k", v)).as("screened out as stale").isNull();
        assertThat(checked).containsExactly("/f");
        assertThat(stats.count(Stats.Event.STALE)).isEqualTo(1);
        cache.put("k", "v", deps);
        Validator all = new Validator() {
            @Override
            public Dependencies screen(Dependencies d) {
                return Dependencies.none();
            }

            @Override
            public boolean isCurrent(Dependency d) {
                throw new AssertionError("nothing is left to check one by one");
            }
        };
        assertThat(cache.get("k", all)).isEqualTo("v");
    }

    @Test
    void aFailingValidatorCountsAsStale() throws IOException {
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(4).build();
        open.add(cache);
        cache.put("page", "value", store("/a", "1"));
        assertThat(cache.get("page", d -> {
            throw new IOException("HEAD timed out");
        })).isNull();
        assertThat(cache.get("page")).isNull();
    }

    @Test
    void aStaleEntryOnDiskIsDroppedBeforeItsFileIsRead() throws IOException {
        TwoTierCache<String, String> cache = cache(1, 1 << 20);
        cache.put("a", "alpha", store("/a", "1"));
        cache.put("b", "beta", Dependencies.none());
        Path file = cache.fileOf("a");
        flipByte(file, Files.size(file) - 6);
        assertThat(cache.get("a", d -> false)).isNull();
        assertThat(stats.count(Stats.Event.STALE)).isEqualTo(1);
        assertThat(stats.count(Stats.Event.CORRUPT)).as("the file was never read").isZero();
        assertThat(file).doesNotExist();
    }

    @Test
    void aRecentlyValidatedEntryIsTrustedForTheInterval() throws IOException {
        AtomicLong nanos = new AtomicLong();
        TwoTierCache<String, String> cache = TwoTierCache.<String, String>builder(4)
                .revalidateAfter(Duration.ofSeconds(5))
                .ticker(nanos::get)
                .build();
        open.add(cache);
        AtomicInteger checks = new AtomicInteger();
        AtomicBoolean current = new AtomicBoolean(true);
        Validator validator = d -> {
            checks.incrementAndGet();
            return current.get();
        };
        cache.put("page", "value", store("/a", "1"));
        nanos.set(TimeUnit.SECONDS.toNanos(4));
        assertThat(cache.get("page", validator)).isEqualTo("value");
        assertThat(checks).as("built 4 s ago: trusted").hasValue(0);
        nanos.set(TimeUnit.SECONDS.toNanos(5));
        assertThat(cache.get("page", validator)).isEqualTo("value");
        assertThat(checks).as("5 s: checked").hasValue(1);
        nanos.set(TimeUnit.SECONDS.toNanos(9));
        assertThat(cache.get("page", validator)).isEqualTo("value");
        assertThat(checks).as("validated 4 s ago: trusted").hasValue(1);
        current.set(false);
        nanos.set(TimeUnit.SECONDS.toNanos(10));
        assertThat(cache.get("page", validator)).isNull();
        assertThat(checks).hasValue(2);
        cache.put("page", "rebuilt", store("/a", "2"));
        assertThat(cache.invalidate(new Dependency("store", "/a", "3")))
                .as("invalidation does not wait for the interval").isEqualTo(1);
    }

    @Test
    void entriesFoundAtStartUpAreValidatedOnTheirFirstLookup() throws IOException {
        TwoTierCache<String, String> first = cache(2, 1 << 20);
        first.put("page", "value", store("/a", "1"));
        first.close();
        open.remove(first);
        TwoTierCache<String, String> second = TwoTierCache.<String, String>builder(2)
                .disk(dir.resolve("cache"), 1 << 20, Codec.utf8(), Codec.utf8())
                .revalidateAfter(Duration.ofMinutes(10))
                .build();
        open.add(second);
        AtomicInteger checks = new AtomicInteger();
        assertThat(second.get("page", d -> checks.incrementAndGet() > 0)).isEqualTo("value");
        assertThat(checks).hasValue(1);
        assertThat(second.get("page", d -> checks.incrementAndGet() > 0)).isEqualTo("value");
        assertThat(checks).hasValue(1);
    }

    // ----- Concurrency. -----

    @Test
    void concurrentUseLeavesTheStructuresConsistent() throws Exception {
        TwoTierCache<String, String> cache = cache(8, 3_000);
        pool = Executors.newFixedThreadPool(4);
        AtomicBoolean crossed = new AtomicBoolean();
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            long seed = t;
            runs.add(pool.submit(() -> {
                Random random = new Random(seed);
                for (int i = 0; i < 3_000; i++) {
                    String key = "k" + random.nextInt(40);
                    String doc = "/d" + random.nextInt(10);
                    int op = random.nextInt(20);
                    if (op < 10) {
                        String v = cache.get(key, d -> random.nextInt(50) != 0);
                        if (v != null && !v.startsWith(key + "=")) {
                            crossed.set(true);
                        }
                    } else if (op < 17) {
                        cache.put(key, key + "=" + "x".repeat(random.nextInt(100)), store(doc, "1"));
                    } else if (op < 19) {
                        cache.invalidate(new Dependency("store", doc, "2"));
                    } else {
                        cache.remove(key);
                    }
                }
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get(60, TimeUnit.SECONDS);
        }
        assertThat(crossed).as("a value under another key").isFalse();
        cache.checkConsistency();
        assertThat(folderBytes()).isLessThanOrEqualTo(3_000);
    }

    // ----- Settings. -----

    @Test
    void refusesBadSettingsAtOnce() {
        assertThatThrownBy(() -> TwoTierCache.builder(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("memoryEntries must be in 1..536870912, was 0");
        assertThatThrownBy(() -> TwoTierCache.<String, String>builder(1).disk(dir, 0, Codec.utf8(), Codec.utf8()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("disk maximumBytes must be at least 1, was 0");
        assertThatThrownBy(() -> TwoTierCache.builder(1).revalidateAfter(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("revalidateAfter must be in 0..365 days, was PT-1S");
        assertThatThrownBy(() -> new Dependency("store", " ", "1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dependency uri must not be blank (kind store)");
    }

    // ----- Helpers. -----

    private long folderBytes() throws IOException {
        long total = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.resolve("cache"), "*.entry")) {
            for (Path f : files) {
                total += Files.size(f);
            }
        }
        return total;
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(position);
            int b = raf.read();
            raf.seek(position);
            raf.write(b ^ 0x5A);
        }
    }
}
