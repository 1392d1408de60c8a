package arno.cache;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Receives the caches' events. The caches call {@link #record} on the hot path, so an
 * implementation must be cheap and thread-safe; {@link #disabled()} is the null object that
 * costs one virtual call, {@link #counting()} counts with striped adders.
 */
public interface Stats {

    /** What happened. The two-tier cache uses every event, {@link ArcCache} the first three. */
    enum Event {
        /** A lookup found a live value in memory. */
        HIT,
        /** A lookup found nothing usable (absent, stale, unreadable). */
        MISS,
        /** Memory dropped a value to respect its bounds (it may still go to disk). */
        EVICTION,
        /** A lookup missed memory, found the value on disk and promoted it. */
        DISK_HIT,
        /** A value evicted from memory was written to disk. */
        DISK_WRITE,
        /** The disk tier deleted a file to respect its bounds. */
        DISK_EVICTION,
        /** Validation found an entry built from an outdated dependency and dropped it. */
        STALE,
        /** {@code invalidate} dropped an entry. */
        INVALIDATION,
        /** A disk file failed its checksum or could not be decoded; it was deleted. */
        CORRUPT,
        /** Reading or writing the disk tier failed; the entry was treated as absent. */
        IO_ERROR
    }

    void record(Event event);

    /** Records nothing; a non-capturing lambda, so the JVM shares one instance. */
    static Stats disabled() {
        return event -> { };
    }

    /** A fresh thread-safe counter of every event. */
    static Counting counting() {
        return new Counting();
    }

    /** Counts every event; reads are weakly consistent with concurrent updates. */
    final class Counting implements Stats {
        private final LongAdder[] counts = new LongAdder[Event.values().length];

        private Counting() {
            for (int i = 0; i < counts.length; i++) {
                counts[i] = new LongAdder();
            }
        }

        @Override
        public void record(Event event) {
            counts[event.ordinal()].increment();
        }

        public long count(Event event) {
            return counts[event.ordinal()].sum();
        }

        /** Hits (memory and disk) over lookups, or 0 before the first lookup. */
        public double hitRatio() {
            long hits = count(Event.HIT) + count(Event.DISK_HIT);
            long lookups = hits + count(Event.MISS);
            return lookups == 0 ? 0 : (double) hits / lookups;
        }

        public Map<Event, Long> snapshot() {
            Map<Event, Long> snapshot = new EnumMap<>(Event.class);
            for (Event event : Event.values()) {
                snapshot.put(event, count(event));
            }
            return snapshot;
        }

        @Override
        public String toString() {
            return snapshot().toString();
        }
    }
}
