package arno.server.ops;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * {@code arno_jvm_heap_after_gc_bytes}: the heap in use just after the last collection of any kind,
 * the figure a GC log prints after each pause ({@code 200M->48M}). Whether the heap is flat over
 * hours is read from it. Micrometer's {@code jvm_gc_live_data_size_bytes} answers only after an
 * old-generation collection, which G1 may not run for hours under a steady load (the soak saw it
 * stay 0 for ten minutes); after a young collection the eden is empty, so this figure is what
 * survived plus the old generation, garbage there included, and it grows if anything leaks.
 * {@code arno_jvm_gc_collections_total} counts the collections it was taken from.
 *
 * <p>{@code arno_jvm_heap_after_old_gc_bytes} is the same figure after the last collection that
 * reclaimed old-generation space: a full collection, or a G1 mixed one (reported as a young
 * collection, told apart by the old generation shrinking through it). Under writes the first
 * figure climbs between old-generation cycles (replaced cache entries die old) and falls at each;
 * this one is the floor it falls to, the live set plus the young objects of the moment: the
 * figure that must stay flat.
 *
 * <p>The admin console reads the first figure too, to stop a query before it fills the heap.
 */
public final class HeapAfterGc implements NotificationListener, AutoCloseable {
    private final Set<String> heapPools = new HashSet<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final AtomicLong afterLast = new AtomicLong(-1);
    private final AtomicLong afterLastOld = new AtomicLong(-1);
    /** The old generation's pool, or null when the collector has one heap for all ages (then every collection is "old"). */
    private final String oldPool;
    private final AtomicLong collections = new AtomicLong();

    /** Listens to the collectors from now on: {@link #afterLast()}, {@link #collections()}. */
    public HeapAfterGc() {
        String old = null;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() != MemoryType.HEAP) continue;
            heapPools.add(pool.getName());
            // G1 Old Gen, PS Old Gen, Tenured Gen: the names HotSpot's generational collectors give it
            if (pool.getName().contains("Old") || pool.getName().contains("Tenured")) old = pool.getName();
        }
        oldPool = old;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(this, null, null);
                emitters.add(e);
            }
        }
    }

    /** As {@link #HeapAfterGc()}, with its figures as gauges in {@code registry}. */
    HeapAfterGc(MeterRegistry registry) {
        this();
        // NaN until the first collection: a scrape must not read "0 bytes in use"
        Gauge.builder("arno.jvm.heap.after.gc", afterLast, a -> a.get() < 0 ? Double.NaN : a.get())
                .description("Heap in use just after the last garbage collection (any generation)")
                .baseUnit("bytes").strongReference(true).register(registry);
        Gauge.builder("arno.jvm.heap.after.old.gc", afterLastOld, a -> a.get() < 0 ? Double.NaN : a.get())
                .description("Heap in use just after the last collection that reclaimed old-generation space (full or mixed)")
                .baseUnit("bytes").strongReference(true).register(registry);
        FunctionCounter.builder("arno.jvm.gc.collections", collections, AtomicLong::get)
                .description("Garbage collections seen (any generation)").register(registry);
    }

    /** Bytes of heap in use just after the last collection of any kind; -1 before the first. */
    public long afterLast() {
        return afterLast.get();
    }

    /** Collections seen since this was made. */
    public long collections() {
        return collections.get();
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            MemoryUsage u = e.getValue();
            if (heapPools.contains(e.getKey())) used += u.getUsed();
        }
        afterLast.set(used);
        if (oldPool == null || reclaimedOld(info.getGcAction(), usedIn(info.getGcInfo().getMemoryUsageBeforeGc(), oldPool),
                usedIn(info.getGcInfo().getMemoryUsageAfterGc(), oldPool))) {
            afterLastOld.set(used);
        }
        collections.incrementAndGet();
    }

    /**
     * Whether a collection reclaimed old-generation space: a major one always (it may still leave
     * the old generation larger, having moved the young survivors there), a minor one when the old
     * generation shrank through it (G1's mixed collections; a young one only adds to it).
     */
    static boolean reclaimedOld(String gcAction, long oldBefore, long oldAfter) {
        return "end of major GC".equals(gcAction) || oldAfter < oldBefore;
    }

    private static long usedIn(Map<String, MemoryUsage> pools, String pool) {
        MemoryUsage u = pools.get(pool);
        return u == null ? 0 : u.getUsed();
    }

    /** Stops listening (a WAR undeployed must leave no listener holding its classes). */
    @Override
    public void close() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(this);
            } catch (ListenerNotFoundException ignored) {
                // already gone
            }
        }
        emitters.clear();
    }
}
