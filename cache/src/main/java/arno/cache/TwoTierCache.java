package arno.cache;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * A cache with memory in front and a folder of files behind, whose entries record the
 * {@link Dependencies} they were built from.
 *
 * <h2>Design</h2>
 * Three structures, each with one job:
 * <ul>
 * <li>The <em>directory</em> maps every live key to its {@code Meta}: a stamp (a number unique
 * to one {@link #put}) and the dependencies. It is the truth: a value found in a tier counts
 * only if it carries the directory's stamp, so a value left behind by a race is ignored, never
 * served.</li>
 * <li>The <em>tiers</em> say where a live entry's value is: an {@link ArcCache} of values in
 * memory, and an {@link ArcCache} of file records bounded by count and total bytes. The disk
 * tier is inclusive: a value promoted back to memory keeps its file, so bouncing between the
 * tiers costs one write, not one per eviction.</li>
 * <li>The <em>source index</em> maps each source (dependency kind and URI) to the keys built
 * from it, so {@link #invalidate} finds them at once.</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * A key's directory entry, index entries and tier membership change together under the key's
 * stripe lock (one of {@value #STRIPES} monitors). File I/O, encoding, decoding and validation
 * happen outside every lock: a file is written under a fresh name, then published under the
 * lock only if the directory still holds the same stamp, else deleted. Evictions caused while
 * holding one key's stripe are handled after it is released (they take the evicted key's
 * stripe), so no thread ever holds two stripes.
 *
 * <h2>Validation</h2>
 * {@link #get(Object, Validator)} checks an entry's dependencies before touching its value:
 * one on the calling thread, the others on the validation executor, and it answers as soon as
 * one is stale. The disk-cache prototype Arno replaces spent 30% of its time in serial checks.
 * {@link #invalidate} is the fast path (a store commit announces what changed); validation is
 * the safety net for what no one announces, and for a put that races an invalidation.
 *
 * @param <K> the keys
 * @param <V> the values
 */
public final class TwoTierCache<K, V> implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TwoTierCache.class.getName());
    static final int STRIPES = 64;
    static final String LOCK_FILE = "cache.lock";

    /**
     * The directory's truth about one live key. {@code validatedAt} is when its dependencies
     * were last known current (ticker time); concurrent lookups may both validate and both
     * write it, which is harmless.
     */
    private static final class Meta {
        private final long stamp;
        private final Dependencies dependencies;
        private volatile long validatedAt;

        Meta(long stamp, Dependencies dependencies, long validatedAt) {
            this.stamp = stamp;
            this.dependencies = dependencies;
            this.validatedAt = validatedAt;
        }

        long stamp() {
            return stamp;
        }

        Dependencies dependencies() {
            return dependencies;
        }
    }

    /** A value in memory. */
    private record Held<V>(long stamp, V value, Dependencies dependencies) { }

    /** A value on disk. */
    private record Stored(long stamp, Path file, long bytes) { }

    /** A dependency's identity, without its version. */
    private record Source(String kind, String uri) {
        static Source of(Dependencies.Dependency d) {
            return new Source(d.kind(), d.uri());
        }
    }

    private final Memory memory;
    private final ArcCache<K, Stored> disk;
    private final Path folder;
    private final Codec<K> keyCodec;
    private final Codec<V> valueCodec;
    private final Executor validationExecutor;
    private final long revalidateAfterNanos;
    private final Ticker ticker;
    private final Stats stats;

    private final ConcurrentHashMap<K, Meta> directory = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Source, Set<K>> sources = new ConcurrentHashMap<>();
    private final Object[] stripes = new Object[STRIPES];
    /** Stamps and file sequence numbers; both only need to be unique and increasing. */
    private final AtomicLong sequence = new AtomicLong();
    private final FileChannel lockChannel;
    private final FileLock folderLock;
    private volatile boolean closed;
    /**
     * Why writing the disk tier failed, or null while it works. Set once: from then on the cache
     * runs in memory only (files already written are still read), and the failure is logged once
     * rather than at every eviction of a full or unwritable disk.
     */
    private volatile String diskFailure;

    private TwoTierCache(Builder<K, V> b) throws IOException {
        ToLongFunction<? super V> weigher = b.weigher;
        if (b.shared != null) {
            this.memory = new SharedTier(b.shared.join(b.memoryWeight, this::evictedFromShared), weigher);
        } else {
            ArcCache.Builder<K, Held<V>> memoryBuilder = ArcCache.builder(b.memoryEntries);
            if (weigher != null) {
                memoryBuilder.maximumWeight(b.memoryWeight, held -> weigher.applyAsLong(held.value()));
            }
            this.memory = new OwnTier(memoryBuilder.build());
        }
        this.folder = b.folder;
        this.keyCodec = b.keyCodec;
        this.valueCodec = b.valueCodec;
        this.validationExecutor = b.validationExecutor;
        this.revalidateAfterNanos = b.revalidateAfterNanos;
        this.ticker = b.ticker;
        this.stats = b.stats;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
        if (folder == null) {
            this.disk = null;
            this.lockChannel = null;
            this.folderLock = null;
            return;
        }
        this.disk = ArcCache.<K, Stored>builder(b.diskEntries).maximumWeight(b.diskBytes, Stored::bytes).build();
        Files.createDirectories(folder, EntryFile.ownerOnly(folder, true));
        this.lockChannel = FileChannel.open(folder.resolve(LOCK_FILE), Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), EntryFile.ownerOnly(folder.resolve(LOCK_FILE), false));
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            lockChannel.close();
            throw new IOException("cache folder " + folder + " is in use by another TwoTierCache"
                    + " (in this or another process); give each cache its own folder");
        }
        this.folderLock = lock;
        try {
            recover();
        } catch (IOException | RuntimeException e) {
            releaseFolder();
            throw e;
        }
    }

    /** A builder of a cache holding at most {@code memoryEntries} values in memory. */
    public static <K, V> Builder<K, V> builder(int memoryEntries) {
        return new Builder<>(memoryEntries);
    }

    /** The value for {@code key} if present, trusting invalidation alone (no validation). */
    public V get(K key) {
        return get(key, null);
    }

    /**
     * The value for {@code key}, or null if absent or if {@code validator} (when not null)
     * finds one of its dependencies outdated, in which case the entry is dropped. An entry
     * built or validated less than the builder's {@code revalidateAfter} ago is not validated
     * again (by default every lookup validates). A value found on disk is promoted to memory.
     */
    public V get(K key, Validator validator) {
        Objects.requireNonNull(key, "key");
        checkOpen();
        Meta meta = directory.get(key);
        if (meta == null) {
            stats.record(Stats.Event.MISS);
            return null;
        }
        if (validator != null && !meta.dependencies().isEmpty()) {
            long now = ticker.read();
            if (now - meta.validatedAt >= revalidateAfterNanos) {
                if (!validate(meta.dependencies(), validator)) {
                    if (drop(key, meta.stamp())) {
                        stats.record(Stats.Event.STALE);
                    }
                    stats.record(Stats.Event.MISS);
                    return null;
                }
                meta.validatedAt = now;
            }
        }
        Held<V> held = memory.get(key);
        if (held != null && held.stamp() == meta.stamp()) {
            stats.record(Stats.Event.HIT);
            return held.value();
        }
        V value = held == null ? fromDisk(key, meta) : null;
        stats.record(value == null ? Stats.Event.MISS : Stats.Event.DISK_HIT);
        return value;
    }

    /**
     * Stores {@code value} for {@code key}, built from {@code dependencies}. It replaces any
     * earlier value (and its file) at once.
     */
    public void put(K key, V value, Dependencies dependencies) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(dependencies, "dependencies");
        checkOpen();
        Meta meta = new Meta(sequence.incrementAndGet(), dependencies, ticker.read());
        List<Map.Entry<Object, Object>> evicted = new ArrayList<>(2);
        Stored replacedFile = null;
        synchronized (stripe(key)) {
            Meta old = directory.put(key, meta);
            if (old != null) {
                unindex(key, old.dependencies());
            }
            index(key, dependencies);
            memory.put(key, new Held<>(meta.stamp(), value, dependencies), evicted);
            if (disk != null) {
                replacedFile = disk.remove(key);
            }
        }
        if (replacedFile != null) {
            deleteQuietly(replacedFile.file());
        }
        memory.handle(evicted);
    }

    /** Drops the entry for {@code key} from both tiers. */
    public void remove(K key) {
        Objects.requireNonNull(key, "key");
        checkOpen();
        drop(key, -1);
    }

    /**
     * Drops every entry from both tiers (their files deleted), as {@link #remove} would one by one.
     *
     * @return how many entries were dropped
     */
    public int clear() {
        checkOpen();
        int dropped = 0;
        for (K key : List.copyOf(directory.keySet())) {
            if (drop(key, -1)) {
                dropped++;
            }
        }
        return dropped;
    }

    /**
     * Announces that a source is now at {@code current.version()}: drops, at once, every entry
     * that recorded the same source (kind and URI) at any other version.
     *
     * @return how many entries were dropped
     */
    public int invalidate(Dependencies.Dependency current) {
        return invalidate(current, built -> false);
    }

    /**
     * As {@link #invalidate(Dependencies.Dependency)}, sparing the entries {@code spare} says were
     * built after the change (a change feed read late must not drop what already reflects it).
     */
    public int invalidate(Dependencies.Dependency current, java.util.function.Predicate<Dependencies> spare) {
        Objects.requireNonNull(current, "current");
        checkOpen();
        Set<K> keys = sources.get(Source.of(current));
        if (keys == null) {
            return 0;
        }
        int dropped = 0;
        for (K key : List.copyOf(keys)) {
            List<Stored> files = new ArrayList<>(1);
            synchronized (stripe(key)) {
                Meta meta = directory.get(key);
                if (meta != null && recordsOtherVersion(meta.dependencies(), current) && !spare.test(meta.dependencies())) {
                    dropLocked(key, meta, files);
                    dropped++;
                    stats.record(Stats.Event.INVALIDATION);
                }
            }
            files.forEach(f -> deleteQuietly(f.file()));
        }
        return dropped;
    }

    /**
     * Writes every value held only in memory to disk (when there is a disk tier) and releases
     * the folder, so that a new cache on the same folder starts warm. The cache refuses every
     * call afterwards; no other thread may be using it meanwhile.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        if (disk != null && diskFailure == null) {
            // Least valuable first, so that the disk tier's order ends with the hottest.
            demote(memory.entries());
        }
        closed = true;
        memory.close();
        releaseFolder();
    }

    // ----- Disk. -----

    /** Promotes the current value of {@code key} from disk, or returns null. */
    private V fromDisk(K key, Meta meta) {
        if (disk == null) {
            return null;
        }
        Stored stored = disk.get(key);
        if (stored == null || stored.stamp() != meta.stamp()) {
            return null;
        }
        V value;
        try {
            EntryFile.Contents contents = EntryFile.read(stored.file());
            if (contents.header().stamp() != stored.stamp()
                    || !Arrays.equals(contents.header().key(), keyCodec.encode(key))) {
                throw new EntryFile.CorruptException(stored.file(), "holds another entry than key " + key);
            }
            value = decodeValue(stored.file(), contents.value());
        } catch (EntryFile.CorruptException e) {
            LOG.log(Level.WARNING, e.getMessage() + "; dropped");
            stats.record(Stats.Event.CORRUPT);
            drop(key, meta.stamp());
            return null;
        } catch (NoSuchFileException e) {
            // Deleted by a concurrent replacement or eviction since we looked it up.
            return null;
        } catch (IOException e) {
            LOG.log(Level.WARNING, "reading cache file " + stored.file() + " for key " + key + " failed", e);
            stats.record(Stats.Event.IO_ERROR);
            drop(key, meta.stamp());
            return null;
        }
        List<Map.Entry<Object, Object>> evicted = new ArrayList<>(2);
        synchronized (stripe(key)) {
            Meta now = directory.get(key);
            if (now == null || now.stamp() != meta.stamp()) {
                // Replaced or invalidated while we read: what we read is no longer the entry.
                return null;
            }
            memory.put(key, new Held<>(meta.stamp(), value, meta.dependencies()), evicted);
        }
        memory.handle(evicted);
        return value;
    }

    private V decodeValue(Path file, byte[] bytes) throws EntryFile.CorruptException {
        try {
            return Objects.requireNonNull(valueCodec.decode(bytes), "codec decoded null");
        } catch (IOException | RuntimeException e) {
            throw new EntryFile.CorruptException(file, "value does not decode (" + e + ")");
        }
    }

    /** Values of this cache that another cache's put evicted from the shared memory. */
    private void evictedFromShared(List<Map.Entry<K, Held<V>>> evicted) {
        if (closed) return;
        evicted(evicted);
    }

    private void evicted(List<Map.Entry<K, Held<V>>> evicted) {
        for (int i = 0; i < evicted.size(); i++) {
            stats.record(Stats.Event.EVICTION);
        }
        demote(evicted);
    }

    /**
     * Handles values evicted from memory (or all of memory's, at close): each goes to disk unless it is there already (or
     * there is no disk, or writing fails), in which case its entry ends.
     */
    private void demote(List<Map.Entry<K, Held<V>>> evicted) {
        for (Map.Entry<K, Held<V>> e : evicted) {
            K key = e.getKey();
            Held<V> held = e.getValue();
            if (disk == null) {
                forgetIfGone(key, held.stamp());
                continue;
            }
            Stored onDisk = disk.peek(key);
            if (onDisk != null && onDisk.stamp() == held.stamp()) {
                continue;
            }
            if (diskFailure != null) {
                forgetIfGone(key, held.stamp());
                continue;
            }
            byte[] encodedKey;
            byte[] encodedValue;
            try {
                encodedKey = keyCodec.encode(key);
                encodedValue = valueCodec.encode(held.value());
            } catch (IOException | RuntimeException ex) {
                // This value's codec failed, not the disk: the entry ends, the disk tier goes on.
                LOG.log(Level.WARNING, "encoding key " + key + " for cache folder " + folder + " failed", ex);
                stats.record(Stats.Event.IO_ERROR);
                forgetIfGone(key, held.stamp());
                continue;
            }
            Stored written;
            try {
                long fileSequence = sequence.incrementAndGet();
                long bytes = EntryFile.write(folder, fileSequence, held.stamp(), encodedKey,
                        held.dependencies(), encodedValue);
                written = new Stored(held.stamp(), folder.resolve(EntryFile.name(fileSequence)), bytes);
            } catch (IOException | RuntimeException ex) {
                stats.record(Stats.Event.IO_ERROR);
                diskFailed(ex);
                forgetIfGone(key, held.stamp());
                continue;
            }
            List<Map.Entry<K, Stored>> diskEvicted = new ArrayList<>(2);
            Stored replaced = null;
            boolean published = false;
            synchronized (stripe(key)) {
                Meta now = directory.get(key);
                if (now != null && now.stamp() == held.stamp()) {
                    replaced = disk.put(key, written, diskEvicted);
                    published = true;
                }
            }
            if (published) {
                stats.record(Stats.Event.DISK_WRITE);
            } else {
                deleteQuietly(written.file());
            }
            if (replaced != null && !replaced.file().equals(written.file())) {
                deleteQuietly(replaced.file());
            }
            discardFromDisk(diskEvicted);
        }
    }

    /**
     * A write to the folder failed (the device is full, the folder is unwritable or gone): the
     * cache goes on in memory only, and says so once. A half-written file was deleted by
     * {@link EntryFile#write}, and a temporary file left by a crash is deleted at the next start.
     */
    private void diskFailed(Exception cause) {
        synchronized (stripes) {
            if (diskFailure != null) {
                return;
            }
            diskFailure = String.valueOf(cause);
        }
        LOG.log(Level.WARNING, "writing to cache folder " + folder + " failed (" + cause
                + "); the cache goes on in memory only, still reading the files it has. Free space on the device or"
                + " make the folder writable, then restart");
    }

    /** Handles files the disk tier evicted: deleted, and their entries end unless in memory. */
    private void discardFromDisk(List<Map.Entry<K, Stored>> evicted) {
        for (Map.Entry<K, Stored> e : evicted) {
            stats.record(Stats.Event.DISK_EVICTION);
            deleteQuietly(e.getValue().file());
            forgetIfGone(e.getKey(), e.getValue().stamp());
        }
    }

    /** Ends the entry {@code key}@{@code stamp} if neither tier holds its value any more. */
    private void forgetIfGone(K key, long stamp) {
        synchronized (stripe(key)) {
            Meta meta = directory.get(key);
            if (meta == null || meta.stamp() != stamp) {
                return;
            }
            Held<V> held = memory.peek(key);
            Stored stored = disk == null ? null : disk.peek(key);
            if ((held == null || held.stamp() != stamp) && (stored == null || stored.stamp() != stamp)) {
                directory.remove(key);
                unindex(key, meta.dependencies());
            }
        }
    }

    /**
     * Drops {@code key} from everywhere if its stamp is {@code stamp} (any stamp if negative).
     *
     * @return whether an entry was dropped
     */
    private boolean drop(K key, long stamp) {
        List<Stored> files = new ArrayList<>(1);
        synchronized (stripe(key)) {
            Meta meta = directory.get(key);
            if (meta == null || (stamp >= 0 && meta.stamp() != stamp)) {
                return false;
            }
            dropLocked(key, meta, files);
        }
        files.forEach(f -> deleteQuietly(f.file()));
        return true;
    }

    private void dropLocked(K key, Meta meta, List<Stored> filesToDelete) {
        directory.remove(key);
        unindex(key, meta.dependencies());
        memory.remove(key);
        if (disk != null) {
            Stored stored = disk.remove(key);
            if (stored != null) {
                filesToDelete.add(stored);
            }
        }
    }

    /**
     * Rebuilds the directory, the index and the disk tier from the folder's files: temporary
     * files from an interrupted write are deleted, damaged files too, and of several files for
     * one key only the latest stamp is kept. Files enter the disk tier oldest first.
     */
    private void recover() throws IOException {
        record Found<T>(Path file, long modified, EntryFile.Header header, T key) { }
        Map<K, Found<K>> latest = new HashMap<>();
        long highest = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(EntryFile.TEMP_SUFFIX)) {
                    deleteQuietly(file);
                    continue;
                }
                if (!name.endsWith(EntryFile.SUFFIX)) {
                    continue;
                }
                highest = Math.max(highest, sequenceOf(name));
                Found<K> found;
                try {
                    EntryFile.Header header = EntryFile.readHeader(file);
                    K key = Objects.requireNonNull(keyCodec.decode(header.key()), "codec decoded null");
                    found = new Found<>(file, Files.getLastModifiedTime(file).toMillis(), header, key);
                } catch (EntryFile.CorruptException e) {
                    LOG.log(Level.WARNING, e.getMessage() + "; deleted");
                    stats.record(Stats.Event.CORRUPT);
                    deleteQuietly(file);
                    continue;
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "key of cache file " + file + " does not decode (" + e + "); deleted");
                    stats.record(Stats.Event.CORRUPT);
                    deleteQuietly(file);
                    continue;
                }
                highest = Math.max(highest, found.header().stamp());
                Found<K> other = latest.get(found.key());
                if (other == null || other.header().stamp() < found.header().stamp()) {
                    latest.put(found.key(), found);
                    if (other != null) {
                        deleteQuietly(other.file());
                    }
                } else {
                    deleteQuietly(file);
                }
            }
        }
        sequence.set(highest);
        List<Found<K>> ordered = new ArrayList<>(latest.values());
        ordered.sort(Comparator.<Found<K>>comparingLong(Found::modified).thenComparing(f -> f.file().getFileName()));
        for (Found<K> f : ordered) {
            EntryFile.Header h = f.header();
            // Not validated since the last run: the first validated lookup checks it.
            directory.put(f.key(), new Meta(h.stamp(), h.dependencies(), ticker.read() - revalidateAfterNanos));
            index(f.key(), h.dependencies());
            List<Map.Entry<K, Stored>> evicted = new ArrayList<>(0);
            disk.put(f.key(), new Stored(h.stamp(), f.file(), Files.size(f.file())), evicted);
            discardFromDisk(evicted);
        }
    }

    private static long sequenceOf(String name) {
        try {
            return Long.parseUnsignedLong(name.substring(0, name.length() - EntryFile.SUFFIX.length()), 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private void releaseFolder() throws IOException {
        if (lockChannel != null) {
            try {
                folderLock.release();
            } finally {
                lockChannel.close();
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete cache file " + file, e);
        }
    }

    // ----- Validation. -----

    /** Whether every dependency is current; answers false as soon as one is not. */
    private boolean validate(Dependencies dependencies, Validator validator) {
        Dependencies rest;
        try {
            rest = validator.screen(dependencies);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            LOG.log(Level.DEBUG, () -> "screening " + dependencies + " failed; counted as stale", e);
            return false;
        }
        if (rest == null) {
            return false;
        }
        List<Dependencies.Dependency> list = rest.asList();
        if (list.isEmpty()) {
            return true;
        }
        if (list.size() == 1) {
            return isCurrent(validator, list.get(0));
        }
        CompletableFuture<Boolean> verdict = new CompletableFuture<>();
        AtomicInteger pending = new AtomicInteger(list.size());
        for (int i = 1; i < list.size(); i++) {
            Dependencies.Dependency d = list.get(i);
            Runnable check = () -> settle(verdict, pending, validator, d);
            try {
                validationExecutor.execute(check);
            } catch (RejectedExecutionException e) {
                check.run();
            }
        }
        settle(verdict, pending, validator, list.get(0));
        try {
            return verdict.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof Error) {
                throw (Error) e.getCause();
            }
            throw e;
        }
    }

    private static void settle(CompletableFuture<Boolean> verdict, AtomicInteger pending, Validator validator,
            Dependencies.Dependency d) {
        if (verdict.isDone()) {
            return;
        }
        try {
            if (!isCurrent(validator, d)) {
                verdict.complete(false);
            } else if (pending.decrementAndGet() == 0) {
                verdict.complete(true);
            }
        } catch (Error e) {
            verdict.completeExceptionally(e);
        }
    }

    private static boolean isCurrent(Validator validator, Dependencies.Dependency d) {
        try {
            return validator.isCurrent(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            LOG.log(Level.DEBUG, () -> "validating " + d + " failed; counted as stale", e);
            return false;
        }
    }

    private static boolean recordsOtherVersion(Dependencies dependencies, Dependencies.Dependency current) {
        for (Dependencies.Dependency d : dependencies) {
            if (d.sameSource(current) && !d.version().equals(current.version())) {
                return true;
            }
        }
        return false;
    }

    // ----- The source index; changed only under the key's stripe. -----

    private void index(K key, Dependencies dependencies) {
        for (Dependencies.Dependency d : dependencies) {
            sources.compute(Source.of(d), (s, keys) -> {
                Set<K> set = keys != null ? keys : ConcurrentHashMap.newKeySet();
                set.add(key);
                return set;
            });
        }
    }

    private void unindex(K key, Dependencies dependencies) {
        for (Dependencies.Dependency d : dependencies) {
            sources.computeIfPresent(Source.of(d), (s, keys) -> {
                keys.remove(key);
                return keys.isEmpty() ? null : keys;
            });
        }
    }

    private Object stripe(K key) {
        int h = key.hashCode();
        return stripes[(h ^ (h >>> 16)) & (STRIPES - 1)];
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("cache " + (folder == null ? "(memory only)" : "on " + folder)
                    + " is closed");
        }
    }

    // ----- Figures, for statistics. -----

    /** Live entries (in memory, on disk or both). */
    public int entries() {
        return directory.size();
    }

    /** Values held in memory. */
    public int memoryEntries() {
        return memory.size();
    }

    /** The weight of the values in memory (bytes when the builder's weigher gives bytes). */
    public long memoryWeight() {
        return memory.weight();
    }

    /** Memory ARC's target size for its T1 list (the paper's {@code p}); see {@link ArcCache#target()}. */
    public double memoryTarget() {
        return memory.target();
    }

    /** Files in the disk tier (0 without one). */
    public int diskEntries() {
        return disk == null ? 0 : disk.size();
    }

    /**
     * Why the disk tier stopped taking new entries (a write failed: a full device, an unwritable
     * folder), or null while it works or when there is none. Then the cache runs in memory only.
     */
    public String diskFailure() {
        return diskFailure;
    }

    /** Bytes of the disk tier's files (0 without one). */
    public long diskWeight() {
        return disk == null ? 0 : disk.weight();
    }

    /** Disk ARC's target size for its T1 list, or 0 without a disk tier. */
    public double diskTarget() {
        return disk == null ? 0 : disk.target();
    }

    // ----- Views for tests. -----

    int memorySize() {
        return memory.size();
    }

    int diskSize() {
        return disk == null ? 0 : disk.size();
    }

    long diskBytes() {
        return disk == null ? 0 : disk.weight();
    }

    int liveEntries() {
        return directory.size();
    }

    int indexedSources() {
        return sources.size();
    }

    boolean inMemory(K key) {
        return memory.peek(key) != null;
    }

    /** The file holding {@code key}'s value, or null. */
    Path fileOf(K key) {
        Stored stored = disk == null ? null : disk.peek(key);
        return stored == null ? null : stored.file();
    }

    /**
     * Checks, when no operation is running, that the structures agree: each tier holds only
     * live entries at their directory stamp, every live entry has its value somewhere, the
     * index holds exactly the live entries' sources, and the folder holds exactly the disk
     * tier's files.
     */
    void checkConsistency() throws IOException {
        memory.checkInvariants();
        Map<K, Long> where = new HashMap<>();
        for (Map.Entry<K, Held<V>> e : memory.entries()) {
            Meta meta = directory.get(e.getKey());
            require(meta != null && meta.stamp() == e.getValue().stamp(), "memory holds a dead " + e.getKey());
            where.put(e.getKey(), meta.stamp());
        }
        Set<Path> files = new HashSet<>();
        if (disk != null) {
            disk.checkInvariants();
            for (Map.Entry<K, Stored> e : disk.entries()) {
                Meta meta = directory.get(e.getKey());
                require(meta != null && meta.stamp() == e.getValue().stamp(), "disk holds a dead " + e.getKey());
                require(Files.size(e.getValue().file()) == e.getValue().bytes(), "size of " + e.getValue().file());
                where.put(e.getKey(), meta.stamp());
                files.add(e.getValue().file());
            }
            try (DirectoryStream<Path> listing = Files.newDirectoryStream(folder, "*" + EntryFile.SUFFIX)) {
                Set<Path> present = new HashSet<>();
                listing.forEach(present::add);
                require(present.equals(files), "folder holds " + present + ", disk tier " + files);
            }
        }
        require(where.keySet().equals(directory.keySet()), "live " + directory.keySet() + ", held " + where.keySet());
        Map<Source, Set<K>> expected = new HashMap<>();
        directory.forEach((k, meta) -> meta.dependencies().forEach(
                d -> expected.computeIfAbsent(Source.of(d), s -> new HashSet<>()).add(k)));
        Map<Source, Set<K>> actual = new HashMap<>();
        sources.forEach((s, keys) -> actual.put(s, new HashSet<>(keys)));
        require(expected.equals(actual), "index " + actual + ", expected " + expected);
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("two-tier cache inconsistent: " + what);
        }
    }

    /**
     * The memory tier: an ARC of this cache's own, or this cache's share of a {@link SharedMemory}.
     * Evictions are collected while a stripe is held and handled by {@link #handle} after.
     */
    private abstract class Memory {
        abstract Held<V> get(K key);
        abstract Held<V> peek(K key);
        abstract void put(K key, Held<V> held, List<Map.Entry<Object, Object>> evicted);
        abstract void remove(K key);
        abstract List<Map.Entry<K, Held<V>>> entries();
        abstract int size();
        abstract long weight();
        abstract double target();
        /** Hands what {@link #put} evicted to its owners (this cache, or with shared memory any). */
        abstract void handle(List<Map.Entry<Object, Object>> evicted);
        /** Drops every value of this cache (at close). */
        abstract void close();
        abstract void checkInvariants();
    }

    private final class OwnTier extends Memory {
        private final ArcCache<K, Held<V>> arc;

        OwnTier(ArcCache<K, Held<V>> arc) {
            this.arc = arc;
        }

        @Override Held<V> get(K key) { return arc.get(key); }
        @Override Held<V> peek(K key) { return arc.peek(key); }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        void put(K key, Held<V> held, List<Map.Entry<Object, Object>> evicted) {
            arc.put(key, held, (List) evicted);
        }

        @Override void remove(K key) { arc.remove(key); }
        @Override List<Map.Entry<K, Held<V>>> entries() { return arc.entries(); }
        @Override int size() { return arc.size(); }
        @Override long weight() { return arc.weight(); }
        @Override double target() { return arc.target(); }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        void handle(List<Map.Entry<Object, Object>> evicted) {
            evicted((List) evicted);
        }

        @Override void close() { arc.clear(); }
        @Override void checkInvariants() { arc.checkInvariants(); }

        @Override
        public String toString() {
            return arc.toString();
        }
    }

    private final class SharedTier extends Memory {
        private final SharedMemory.Owner<K, Held<V>> owner;
        private final ToLongFunction<? super V> weigher;

        SharedTier(SharedMemory.Owner<K, Held<V>> owner, ToLongFunction<? super V> weigher) {
            this.owner = owner;
            this.weigher = weigher;
        }

        @Override Held<V> get(K key) { return owner.get(key); }
        @Override Held<V> peek(K key) { return owner.peek(key); }

        @Override
        void put(K key, Held<V> held, List<Map.Entry<Object, Object>> evicted) {
            owner.put(key, held, weigher.applyAsLong(held.value()), evicted);
        }

        @Override void remove(K key) { owner.remove(key); }
        @Override List<Map.Entry<K, Held<V>>> entries() { return owner.entries(); }
        @Override int size() { return owner.size(); }
        @Override long weight() { return owner.weight(); }
        @Override double target() { return owner.memory().target(); }
        @Override void handle(List<Map.Entry<Object, Object>> evicted) { SharedMemory.dispatch(evicted); }
        @Override void close() { owner.leave(); }

        @Override
        void checkInvariants() {
            // The shared ARC's invariants are the SharedMemory's; this owner's part is within its cap.
            require(owner.weight() <= owner.cap(), "the memory tier's weight is within its cap");
        }

        @Override
        public String toString() {
            return "share[cap=" + owner.cap() + ", weight=" + owner.weight() + " of " + owner.memory() + "]";
        }
    }

    @Override
    public String toString() {
        return "TwoTierCache[" + (folder == null ? "memory only" : folder) + ", entries=" + directory.size()
                + ", memory=" + memory + (disk == null ? "" : ", disk=" + disk) + "]";
    }

    /**
     * Settings of a {@link TwoTierCache}, each refused at once if out of range.
     *
     * @param <K> the keys
     * @param <V> the values
     */
    public static final class Builder<K, V> {
        private final int memoryEntries;
        private long memoryWeight;
        private ToLongFunction<? super V> weigher;
        private Path folder;
        private long diskBytes;
        private int diskEntries = 1 << 20;
        private Codec<K> keyCodec;
        private Codec<V> valueCodec;
        private Executor validationExecutor = ForkJoinPool.commonPool();
        private long revalidateAfterNanos;
        private Ticker ticker = Ticker.system();
        private Stats stats = Stats.disabled();
        private SharedMemory shared;

        private Builder(int memoryEntries) {
            if (memoryEntries < 1 || memoryEntries > ArcCache.MAXIMUM_CAPACITY) {
                throw new IllegalArgumentException("memoryEntries must be in 1.." + ArcCache.MAXIMUM_CAPACITY
                        + ", was " + memoryEntries);
            }
            this.memoryEntries = memoryEntries;
        }

        /** Also bounds the total weight (e.g. bytes) of the values in memory. */
        public Builder<K, V> memoryWeight(long maximumWeight, ToLongFunction<? super V> weigher) {
            if (maximumWeight < 1) {
                throw new IllegalArgumentException("memoryWeight must be at least 1, was " + maximumWeight);
            }
            this.memoryWeight = maximumWeight;
            this.weigher = Objects.requireNonNull(weigher, "weigher");
            return this;
        }

        /**
         * Keeps the memory tier in {@code memory}, shared with other caches, instead of an ARC of
         * its own: {@link #memoryWeight} (required) is then this cache's cap within the shared
         * budget, and {@code memoryEntries} is not used (the shared memory bounds the count).
         * A value evicted by any cache's operation is handed back to this one, which demotes it to
         * its disk tier; {@link TwoTierCache#close} removes this cache's values only.
         */
        public Builder<K, V> sharedMemory(SharedMemory memory) {
            this.shared = Objects.requireNonNull(memory, "memory");
            return this;
        }

        /**
         * Adds a disk tier in {@code folder} (created if missing, used by this cache alone),
         * holding at most {@code maximumBytes} of files.
         */
        public Builder<K, V> disk(Path folder, long maximumBytes, Codec<K> keys, Codec<V> values) {
            if (maximumBytes < 1) {
                throw new IllegalArgumentException("disk maximumBytes must be at least 1, was " + maximumBytes);
            }
            this.folder = Objects.requireNonNull(folder, "folder").toAbsolutePath();
            this.diskBytes = maximumBytes;
            this.keyCodec = Objects.requireNonNull(keys, "key codec");
            this.valueCodec = Objects.requireNonNull(values, "value codec");
            return this;
        }

        /** The most files in the disk tier (default 2^20). */
        public Builder<K, V> diskEntries(int maximumEntries) {
            if (maximumEntries < 1 || maximumEntries > ArcCache.MAXIMUM_CAPACITY) {
                throw new IllegalArgumentException("diskEntries must be in 1.." + ArcCache.MAXIMUM_CAPACITY
                        + ", was " + maximumEntries);
            }
            this.diskEntries = maximumEntries;
            return this;
        }

        /**
         * Where an entry's dependencies after the first are checked (default: the common
         * fork-join pool). Give a pool sized for I/O when validators wait on the network.
         */
        public Builder<K, V> validationExecutor(Executor executor) {
            this.validationExecutor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Trusts an entry for {@code interval} after it was put or last validated: lookups in
         * that time skip the validator (default zero: every validated lookup checks). For
         * dependencies whose check costs a round trip, such as ETags of external URIs; the
         * store's changes still arrive at once through {@link TwoTierCache#invalidate}.
         */
        public Builder<K, V> revalidateAfter(Duration interval) {
            if (interval.isNegative() || interval.compareTo(Duration.ofDays(365)) > 0) {
                throw new IllegalArgumentException("revalidateAfter must be in 0..365 days, was " + interval);
            }
            this.revalidateAfterNanos = interval.toNanos();
            return this;
        }

        /** The time source for {@link #revalidateAfter} (default {@link Ticker#system()}). */
        public Builder<K, V> ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        public Builder<K, V> stats(Stats stats) {
            this.stats = Objects.requireNonNull(stats, "stats");
            return this;
        }

        /**
         * Builds the cache; with a disk tier, this locks the folder and reads every entry
         * file's header.
         *
         * @throws IOException if the folder cannot be created, locked or listed
         */
        public TwoTierCache<K, V> build() throws IOException {
            if (shared != null && weigher == null) {
                throw new IllegalArgumentException("a cache with shared memory needs memoryWeight(cap, weigher)");
            }
            return new TwoTierCache<>(this);
        }
    }
}
