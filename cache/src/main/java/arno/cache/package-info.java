/**
 * Arno's caches: {@link arno.cache.ArcCache}, a bounded map replaced by ARC, and
 * {@link arno.cache.TwoTierCache}, memory in front of a disk folder, whose entries record the
 * {@link arno.cache.Dependencies} they were built from; {@link arno.cache.SharedMemory}, one ARC
 * that is the memory tier of several two-tier caches under one budget.
 *
 * <h2>Thread rules</h2>
 * <ul>
 * <li>Every public type here is safe for use by many threads at once, except the builders,
 * which belong to the thread that configures them.</li>
 * <li>{@code ArcCache} holds one lock per operation, {@code get} included (a hit reorders the
 * lists). Nothing the caller supplies runs under that lock except the weigher, which MUST be
 * quick and MUST NOT call the cache.</li>
 * <li>Eviction listeners run after the lock is released, on the thread whose operation caused
 * the eviction; they MAY call the cache.</li>
 * <li>{@code TwoTierCache} never holds a lock while it reads or writes a file, encodes or
 * decodes a value, or runs a {@link arno.cache.Validator}. Validators of one lookup run in
 * parallel on the executor given to the builder, the calling thread taking a share; they
 * MUST be thread-safe.</li>
 * <li>With a {@code SharedMemory}, one cache's operation may evict another cache's values: they
 * are handed to their owner after every lock of the evicting cache is released, on the evicting
 * thread, and the owner takes its own stripe to demote them. No thread holds two stripes. The
 * shared ARC's one lock is taken by every cache's memory lookups.</li>
 * </ul>
 */
package arno.cache;
