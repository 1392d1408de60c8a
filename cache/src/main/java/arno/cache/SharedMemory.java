package arno.cache;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One memory budget for the memory tiers of several {@link TwoTierCache}s (a server's sites): a
 * single {@link ArcCache} bounded by the budget in bytes, whose keys name their owner. The
 * popular values of any owner stay, an owner without traffic holds little, and no number of
 * owners can hold more than the budget. Each owner also has a cap (its site's {@code memory}):
 * when a value would take it over, its own least valuable values go ({@link ArcCache}'s shares).
 * A value evicted is handed back to its owner, which writes it to its disk tier as it does with
 * a memory tier of its own.
 *
 * <p>Why one ARC rather than tiers resized under one bound: ARC already decides which value is
 * worth least across every owner at once (recency and frequency, learnt from the ghosts), and
 * does so on every eviction; resizing per-owner tiers needs a second policy guessing each
 * owner's worth from its hit rates, which lags traffic, and a crawler of one site would still
 * fill that site's whole share.
 *
 * <p>Thread-safe: every operation takes the ARC's one lock. An owner's handler of evicted values
 * runs on the thread whose operation evicted them, after every lock is released.
 */
public final class SharedMemory {

    private static final System.Logger LOG = System.getLogger(SharedMemory.class.getName());

    /** A key of the shared ARC: the owner (by identity) and the owner's key. */
    record Owned(Owner<?, ?> owner, Object key) { }

    private final ArcCache<Object, Object> arc;
    private final long budget;

    private SharedMemory(long budget, int maximumEntries) {
        this.budget = budget;
        // The weigher is never asked: owners give each value's weight with it.
        this.arc = ArcCache.builder(maximumEntries).maximumWeight(budget, v -> 0).build();
    }

    /**
     * A budget of {@code bytes} (weights, as the owners' weighers give them) for at most
     * {@code maximumEntries} values in all.
     *
     * @throws IllegalArgumentException if {@code bytes} is below 1 or {@code maximumEntries} is not in 1..2^29
     */
    public static SharedMemory of(long bytes, int maximumEntries) {
        if (bytes < 1) throw new IllegalArgumentException("the shared memory budget must be at least 1, was " + bytes);
        return new SharedMemory(bytes, maximumEntries);
    }

    /** The budget: the most the owners' values weigh together. */
    public long budget() {
        return budget;
    }

    /** What every owner's values weigh now. */
    public long weight() {
        return arc.weight();
    }

    /** Values held now, of every owner. */
    public int entries() {
        return arc.size();
    }

    /** The ARC's target for its list of values seen once (the paper's {@code p}), in weight. */
    public double target() {
        return arc.target();
    }

    /**
     * A new owner whose values weigh at most {@code cap}, handing the values evicted to
     * {@code evicted} (which must not throw).
     */
    <K, V> Owner<K, V> join(long cap, Consumer<List<Map.Entry<K, V>>> evicted) {
        return new Owner<>(this, new ArcCache.Share<>(cap), evicted);
    }

    /**
     * Hands values that an operation under an owner's lock evicted to their owners. Call it after
     * releasing every lock.
     */
    @SuppressWarnings("unchecked")
    static void dispatch(List<Map.Entry<Object, Object>> evicted) {
        if (evicted.isEmpty()) return;
        Map<Owner<?, ?>, List<Map.Entry<Object, Object>>> byOwner = new LinkedHashMap<>();
        for (Map.Entry<Object, Object> e : evicted) {
            Owned owned = (Owned) e.getKey();
            byOwner.computeIfAbsent(owned.owner(), o -> new ArrayList<>(2)).add(Map.entry(owned.key(), e.getValue()));
        }
        byOwner.forEach((owner, values) -> {
            Consumer<List<Map.Entry<Object, Object>>> handler = (Consumer<List<Map.Entry<Object, Object>>>) (Consumer<?>) owner.evicted;
            if (handler == null) return; // the owner left: its values are simply dropped
            try {
                handler.accept(values);
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, "an owner of the shared memory failed to take back its evicted values", ex);
            }
        });
    }

    /** Checks the shared ARC's invariants, each owner's cap among them (for tests). */
    void checkInvariants() {
        arc.checkInvariants();
    }

    @Override
    public String toString() {
        return "SharedMemory[budget=" + budget + ", " + arc + "]";
    }

    /**
     * One owner's view of the shared memory: its keys, its cap, its figures.
     *
     * @param <K> the owner's keys
     * @param <V> the owner's values
     */
    static final class Owner<K, V> {
        private final SharedMemory memory;
        private final ArcCache.Share<Object, Object> share;
        /** Null once the owner left: what is evicted of it afterwards is dropped. */
        private volatile Consumer<List<Map.Entry<K, V>>> evicted;

        private Owner(SharedMemory memory, ArcCache.Share<Object, Object> share, Consumer<List<Map.Entry<K, V>>> evicted) {
            this.memory = memory;
            this.share = share;
            this.evicted = Objects.requireNonNull(evicted, "evicted");
        }

        SharedMemory memory() {
            return memory;
        }

        long cap() {
            return share.cap;
        }

        @SuppressWarnings("unchecked")
        V get(K key) {
            return (V) memory.arc.get(new Owned(this, key));
        }

        @SuppressWarnings("unchecked")
        V peek(K key) {
            return (V) memory.arc.peek(new Owned(this, key));
        }

        /**
         * Stores {@code value} of weight {@code weight}; what it evicts, of any owner, is added to
         * {@code evictedAny} for {@link SharedMemory#dispatch}.
         */
        @SuppressWarnings("unchecked")
        V put(K key, V value, long weight, List<Map.Entry<Object, Object>> evictedAny) {
            return (V) memory.arc.put(new Owned(this, key), value, weight, share, evictedAny);
        }

        @SuppressWarnings("unchecked")
        V remove(K key) {
            return (V) memory.arc.remove(new Owned(this, key));
        }

        /** This owner's values, T1 then T2, each least recently used first. */
        @SuppressWarnings("unchecked")
        List<Map.Entry<K, V>> entries() {
            List<Map.Entry<K, V>> out = new ArrayList<>();
            for (Map.Entry<Object, Object> e : memory.arc.entries(share)) {
                out.add(Map.entry((K) ((Owned) e.getKey()).key(), (V) e.getValue()));
            }
            return out;
        }

        /** Drops this owner's values and ghosts; the others' stay. */
        int clear() {
            return memory.arc.clear(share);
        }

        /** Drops this owner's values and stops handing it evictions. */
        void leave() {
            evicted = null;
            clear();
        }

        long weight() {
            return memory.arc.weight(share);
        }

        int size() {
            return memory.arc.size(share);
        }
    }
}
