package arno.cache;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;

/**
 * A bounded map replaced by ARC, the Adaptive Replacement Cache of Megiddo and Modha
 * ("ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST 2003).
 *
 * <h2>Why ARC</h2>
 * An LRU cache lets one pass over many pages that are never asked for again (a web crawler
 * walking a journal's archive) push out every popular page. ARC splits the cache in two LRU
 * lists: T1 holds pages seen once recently, T2 pages seen at least twice. A scan only flows
 * through T1, so T2's frequent pages survive it. How much room T1 gets is the target {@code p},
 * learnt from two ghost lists that remember only the keys of pages recently evicted from T1
 * (B1) and from T2 (B2): a miss on a key in B1 says T1 was too small and grows {@code p}; a
 * miss in B2 says T2 was too small and shrinks it. With a capacity of {@code c} entries,
 * {@code |T1|+|T2| <= c}, {@code |T1|+|B1| <= c}, {@code |T1|+|T2|+|B1|+|B2| <= 2c} and
 * {@code 0 <= p <= c}. As in the paper, {@code p} is a real number (the adaptation steps are
 * ratios of the ghost lists' sizes).
 *
 * <h2>Mapping the paper to a map</h2>
 * The paper handles a stream of requests for pages. Here a request is a {@link #get} that hits
 * (case I), or a {@link #get} that misses followed by the caller's {@link #put} of the value it
 * built (cases II, III, IV). A {@code put} of a key already in memory is a re-reference too
 * (case I) and replaces the value. A miss alone changes nothing.
 *
 * <h2>Beyond the paper</h2>
 * The paper's cache only grows until full and never loses a page except by REPLACE. This map
 * also has {@link #remove} and an optional bound on the total weight (e.g. bytes) of the
 * resident values. The paper calls REPLACE at points where, in its world, the cache is always
 * full; here REPLACE runs at those same points only while the cache is full by count or over
 * its weight bound ({@link #makeRoom}).
 *
 * <p><b>Sizes are weights.</b> Every list's size above is the sum of its keys' weights (a
 * ghost keeps the weight its value had), {@code c} is the weight bound, and {@code p} and its
 * adaptation steps are weights: a ghost hit moves {@code p} by the ghost's weight times the
 * paper's ratio. Without a weigher every weight is 1 and {@code c} is the entry capacity, and
 * this is the paper's algorithm exactly: the test's reference model checks that the guard never
 * skips a REPLACE the paper would make. The count bound {@code c} entries still holds for
 * weighted caches (it bounds the directory's memory). Counting entries instead, as this class
 * first did, made a byte-bounded page cache plain LRU: with pages of 30 KB in a cache whose
 * count bound allows 4 KB each, {@code p} grew in entries past anything T1 could hold, so every
 * eviction came from T1 and a crawler pushed the popular pages out as it does under LRU
 * ({@code perf/RESULTS.md}, page caches). A value heavier than the whole weight bound is never
 * admitted: it is handed to the eviction listener at once.
 *
 * <h2>Threads</h2>
 * Every operation, {@link #get} included (a hit moves the entry to T2), holds one lock; the
 * eviction listener runs after the lock is released, on the thread whose operation evicted.
 * Keys and values must not be null; keys need stable {@code equals}/{@code hashCode}.
 *
 * @param <K> the keys
 * @param <V> the values
 */
public final class ArcCache<K, V> {

    private static final System.Logger LOG = System.getLogger(ArcCache.class.getName());

    /** The largest capacity; the directory holds twice as many keys. */
    static final int MAXIMUM_CAPACITY = 1 << 29;

    /** The four lists of the paper. */
    enum ListId { T1, T2, B1, B2 }

    private final int capacity;
    private final long maximumWeight;
    private final ToLongFunction<? super V> weigher;
    private final Stats stats;
    private final BiConsumer<? super K, ? super V> evictionListener;

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<K, Node<K, V>> nodes = new HashMap<>();
    private final LruList<K, V> t1 = new LruList<>(ListId.T1);
    private final LruList<K, V> t2 = new LruList<>(ListId.T2);
    private final LruList<K, V> b1 = new LruList<>(ListId.B1);
    private final LruList<K, V> b2 = new LruList<>(ListId.B2);
    /** The paper's c in weight: the weight bound, or the capacity when every weight is 1. */
    private final long limit;
    /** The target weight of T1. */
    private double p;

    private ArcCache(Builder<K, V> builder) {
        this.capacity = builder.maximumSize;
        this.maximumWeight = builder.maximumWeight;
        // Bounded so that twice it cannot overflow.
        this.limit = builder.weighted ? Math.min(builder.maximumWeight, Long.MAX_VALUE / 4) : builder.maximumSize;
        this.weigher = builder.weigher;
        this.stats = builder.stats;
        this.evictionListener = builder.evictionListener;
    }

    /**
     * A builder of a cache holding at most {@code maximumSize} values (the paper's {@code c}).
     *
     * @throws IllegalArgumentException if {@code maximumSize} is not in 1..2^29
     */
    public static <K, V> Builder<K, V> builder(int maximumSize) {
        return new Builder<>(maximumSize);
    }

    /**
     * The value for {@code key}, or null. A hit is the paper's case I: the entry moves to the
     * most recently used end of T2.
     */
    public V get(K key) {
        Objects.requireNonNull(key, "key");
        lock.lock();
        try {
            Node<K, V> x = nodes.get(key);
            if (x != null && x.isResident()) {
                // Case I: x is in T1 or T2 (a hit). Move x to the MRU position of T2.
                list(x.list).unlink(x);
                t2.addMru(x);
                stats.record(Stats.Event.HIT);
                return x.value;
            }
            stats.record(Stats.Event.MISS);
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** The value for {@code key} or null, without counting as a request or moving anything. */
    public V peek(K key) {
        Objects.requireNonNull(key, "key");
        lock.lock();
        try {
            Node<K, V> x = nodes.get(key);
            return x != null && x.isResident() ? x.value : null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stores {@code value} for {@code key}, evicting by ARC as needed; the eviction listener
     * sees every value evicted, this one included if it alone is heavier than the weight bound.
     *
     * @return the value it replaced, or null
     */
    public V put(K key, V value) {
        if (evictionListener == null) {
            return put(key, value, null);
        }
        List<Map.Entry<K, V>> evicted = new ArrayList<>(2);
        V previous = put(key, value, evicted);
        notifyEvicted(evicted);
        return previous;
    }

    /**
     * {@link #put} that collects the evicted entries (unless {@code evicted} is null) instead
     * of notifying the listener, so a caller holding its own locks can handle them after
     * releasing those.
     */
    V put(K key, V value, List<Map.Entry<K, V>> evicted) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return put(key, value, weigher.applyAsLong(value), null, evicted);
    }

    /**
     * {@link #put} of a value of weight {@code w} whose key belongs to {@code share} (null: to
     * none). A share's entries are kept within its cap: when one more would pass it, the share's
     * own least valuable entries go first, so that a site at its cap never takes room from the
     * others. A key always belongs to the same share (a {@link SharedMemory} key names its owner).
     */
    V put(K key, V value, long w, Share<K, V> share, List<Map.Entry<K, V>> evicted) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (w < 0) {
            throw new IllegalArgumentException("weigher returned " + w + " for key " + key
                    + "; weights must be zero or more");
        }
        lock.lock();
        try {
            Node<K, V> x = nodes.get(key);
            V previous = x != null && x.isResident() ? x.value : null;
            if (w > maximumWeight || (share != null && w > share.cap)) {
                // Never fits: forget the key (its old value is replaced, not evicted).
                if (x != null) {
                    discard(x);
                }
                collect(evicted, key, value);
                return previous;
            }
            if (x != null && x.isResident()) {
                // Case I: x is in T1 or T2 (a re-reference that brings a new value).
                // Move x to the MRU position of T2. Taken out first, so that making room for
                // its new weight cannot choose x itself.
                list(x.list).unlink(x);
                fitShare(share, w, evicted);
                makeRoom(w, false, evicted);
                admit(x, value, w, t2);
            } else if (x != null && x.list == ListId.B1) {
                // Case II: x is in B1 (a miss that T1 would have kept, had it been larger).
                // Adapt: p = min(p + d1, c), with d1 = |x| if |B1| >= |B2|, else |x| |B2|/|B1|.
                p = Math.min(p + step(x, b1, b2), limit);
                b1.unlink(x);
                // REPLACE(x, p); then move x from B1 to the MRU position of T2.
                fitShare(share, w, evicted);
                makeRoom(w, false, evicted);
                admit(x, value, w, t2);
            } else if (x != null && x.list == ListId.B2) {
                // Case III: x is in B2 (a miss that T2 would have kept, had it been larger).
                // Adapt: p = max(p - d2, 0), with d2 = |x| if |B2| >= |B1|, else |x| |B1|/|B2|.
                p = Math.max(p - step(x, b2, b1), 0);
                b2.unlink(x);
                // REPLACE(x, p); then move x from B2 to the MRU position of T2.
                fitShare(share, w, evicted);
                makeRoom(w, true, evicted);
                admit(x, value, w, t2);
            } else {
                // Case IV: x is in none of the four lists (a miss, and new to the directory).
                // A share at its cap first gives up its own entries (to the ghost lists, which
                // leaves L1 and the directory as large), so that the cases below take no room
                // from the others.
                fitShare(share, w, evicted);
                // Case A: L1 = T1 + B1 has no room for x: delete B1's LRU keys (one, with unit
                // weights), then REPLACE(x, p) below; when B1 is empty and T1 alone leaves no
                // room, delete T1's LRU pages instead, keeping no ghost of them.
                while (b1.size > 0 && l1Full(w)) forget(b1.lru());
                while (t1.size > 0 && l1Full(w)) {
                    Node<K, V> lru = t1.lru();
                    V gone = lru.value;
                    discard(lru);
                    collect(evicted, lru.key, gone);
                }
                // Case B: the directory (2c) has no room for x: delete B2's LRU keys.
                while (b2.size > 0 && (directorySize() >= 2L * capacity
                        || t1.weight + t2.weight + b1.weight + b2.weight + w > 2 * limit)) {
                    forget(b2.lru());
                }
                makeRoom(w, false, evicted);
                // Fetch x and move it to the MRU position of T1.
                x = new Node<>(key);
                x.share = share;
                nodes.put(key, x);
                admit(x, value, w, t1);
            }
            trimGhosts();
            return previous;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes {@code key} and its history (a ghost entry too). Not an eviction: the listener is
     * not told.
     *
     * @return the value removed, or null
     */
    public V remove(K key) {
        Objects.requireNonNull(key, "key");
        lock.lock();
        try {
            Node<K, V> x = nodes.get(key);
            if (x == null) {
                return null;
            }
            V value = x.value;
            discard(x);
            return value;
        } finally {
            lock.unlock();
        }
    }

    /** Removes every value and all history, and resets the target {@code p} to 0. */
    public void clear() {
        lock.lock();
        try {
            for (LruList<K, V> l : List.of(t1, t2)) {
                for (Node<K, V> e = l.head.next; e != l.head; e = e.next) {
                    if (e.share != null) {
                        e.share.t1.clear();
                        e.share.t2.clear();
                    }
                }
            }
            nodes.clear();
            t1.clear();
            t2.clear();
            b1.clear();
            b2.clear();
            p = 0;
        } finally {
            lock.unlock();
        }
    }

    /** The number of values held (|T1| + |T2|). */
    public int size() {
        lock.lock();
        try {
            return t1.size + t2.size;
        } finally {
            lock.unlock();
        }
    }

    /** The total weight of the values held (their count when no weigher was given). */
    public long weight() {
        lock.lock();
        try {
            return t1.weight + t2.weight;
        } finally {
            lock.unlock();
        }
    }

    /**
     * ARC's target size for T1 (the paper's {@code p}, between 0 and {@code c}): how much room
     * it currently gives to keys seen once against keys seen twice or more, in weight (entries
     * when no weigher was given). For statistics.
     */
    public double target() {
        lock.lock();
        try {
            return p;
        } finally {
            lock.unlock();
        }
    }

    /** The most entries this cache holds, the paper's {@code c}. */
    public int capacity() {
        return capacity;
    }

    // ----- REPLACE and the list operations; all run under the lock. -----

    /**
     * Runs REPLACE while the cache is full by count (which in the paper's world is the only
     * case, and then it runs exactly once) or while the incoming weight would not fit.
     */
    private void makeRoom(long incomingWeight, boolean xInB2, List<Map.Entry<K, V>> evicted) {
        while (t1.size + t2.size >= capacity
                || (t1.size + t2.size > 0 && incomingWeight > maximumWeight - (t1.weight + t2.weight))) {
            replace(xInB2, evicted);
        }
    }

    /**
     * Keeps {@code share} within its cap with a value of weight {@code w} to come: REPLACE
     * among the share's own entries. Its part of T1's target is {@code p} scaled by its cap
     * against {@code c}, so the learnt split between pages seen once and pages seen twice holds
     * inside a site as well: a crawler of one site at its cap pushes out that site's pages seen
     * once, never its popular ones, nor another site's.
     */
    private void fitShare(Share<K, V> share, long w, List<Map.Entry<K, V>> evicted) {
        if (share == null) return;
        double target = p * ((double) Math.min(share.cap, limit) / limit);
        while (share.t1.size + share.t2.size > 0 && share.t1.weight + share.t2.weight + w > share.cap) {
            boolean fromT1 = share.t1.size > 0 && (share.t1.weight > target || share.t2.size == 0);
            if (fromT1) {
                toGhost(share.t1.lru(), b1, evicted);
            } else {
                toGhost(share.t2.lru(), b2, evicted);
            }
        }
    }

    /** Whether L1 = T1 + B1 has no room for a new key of weight {@code w}: c keys, or c in weight. */
    private boolean l1Full(long w) {
        return t1.size + b1.size >= capacity || t1.weight + b1.weight + w > limit;
    }

    /** The paper's adaptation step for a hit on ghost {@code x} of {@code own}, in weight. */
    private static double step(Node<?, ?> x, LruList<?, ?> own, LruList<?, ?> other) {
        if (x.weight == 0) return 0;
        return own.weight >= other.weight ? x.weight : x.weight * ((double) other.weight / own.weight);
    }

    /**
     * Keeps the directory within 2c in weight after a key came back with a heavier value
     * (cases I to III; with unit weights it never has anything to do).
     */
    private void trimGhosts() {
        while (t1.weight + t2.weight + b1.weight + b2.weight > 2 * limit && b2.size + b1.size > 0) {
            forget(b2.size > 0 ? b2.lru() : b1.lru());
        }
    }

    /**
     * REPLACE(x, p): if T1 is not empty and either exceeds the target p, or x is in B2 and
     * |T1| = p, move the LRU page of T1 to the MRU position of B1 (removing its value);
     * otherwise move the LRU page of T2 to the MRU position of B2. T2 is empty there only
     * after removals or weight evictions, which the paper does not have; T1 gives a page then.
     */
    private void replace(boolean xInB2, List<Map.Entry<K, V>> evicted) {
        boolean fromT1 = t1.size > 0 && (t1.weight > p || (xInB2 && t1.weight == p));
        if (fromT1 || t2.size == 0) {
            toGhost(t1.lru(), b1, evicted);
        } else {
            toGhost(t2.lru(), b2, evicted);
        }
    }

    private void toGhost(Node<K, V> node, LruList<K, V> ghosts, List<Map.Entry<K, V>> evicted) {
        list(node.list).unlink(node);
        collect(evicted, node.key, node.value);
        node.value = null;
        ghosts.addMru(node); // with its weight: the ghost lists are sized in weight too
    }

    private void collect(List<Map.Entry<K, V>> evicted, K key, V value) {
        stats.record(Stats.Event.EVICTION);
        if (evicted != null) {
            evicted.add(Map.entry(key, value));
        }
    }

    private void admit(Node<K, V> x, V value, long w, LruList<K, V> into) {
        x.value = value;
        x.weight = w;
        into.addMru(x);
    }

    /** Deletes a ghost key from the directory. */
    private void forget(Node<K, V> ghost) {
        list(ghost.list).unlink(ghost);
        nodes.remove(ghost.key);
    }

    /** Deletes any node, resident or ghost, from the directory. */
    private void discard(Node<K, V> x) {
        list(x.list).unlink(x);
        nodes.remove(x.key);
        x.value = null;
    }

    private int directorySize() {
        return t1.size + t2.size + b1.size + b2.size;
    }

    private LruList<K, V> list(ListId id) {
        switch (id) {
            case T1: return t1;
            case T2: return t2;
            case B1: return b1;
            default: return b2;
        }
    }

    private void notifyEvicted(List<Map.Entry<K, V>> evicted) {
        if (evictionListener == null) {
            return;
        }
        for (Map.Entry<K, V> e : evicted) {
            try {
                evictionListener.accept(e.getKey(), e.getValue());
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, "eviction listener failed for key " + e.getKey(), ex);
            }
        }
    }

    // ----- Views for tests. -----

    /** The keys of one list, least recently used first. */
    List<K> keys(ListId id) {
        lock.lock();
        try {
            return list(id).keys();
        } finally {
            lock.unlock();
        }
    }

    /** The values held, T1 then T2, each least recently used first. */
    List<Map.Entry<K, V>> entries() {
        lock.lock();
        try {
            List<Map.Entry<K, V>> entries = new ArrayList<>(t1.size + t2.size);
            for (LruList<K, V> l : List.of(t1, t2)) {
                for (Node<K, V> e = l.head.next; e != l.head; e = e.next) {
                    entries.add(Map.entry(e.key, e.value));
                }
            }
            return entries;
        } finally {
            lock.unlock();
        }
    }

    /** Checks the paper's invariants and this class's bookkeeping. */
    void checkInvariants() {
        lock.lock();
        try {
            long c = capacity;
            check(t1.size + t2.size <= c, "|T1|+|T2| <= c");
            check(t1.size + b1.size <= c, "|T1|+|B1| <= c");
            check(directorySize() <= 2 * c, "|T1|+|T2|+|B1|+|B2| <= 2c");
            check(0 <= p && p <= limit, "0 <= p <= c");
            check(t1.weight + t2.weight <= maximumWeight, "weight <= maximumWeight");
            check(t1.weight + b1.weight <= limit, "|T1|+|B1| <= c in weight");
            check(t1.weight + t2.weight + b1.weight + b2.weight <= 2 * limit, "|T1|+|T2|+|B1|+|B2| <= 2c in weight");
            check(nodes.size() == directorySize(), "every key in exactly one list");
            for (LruList<K, V> l : List.of(t1, t2, b1, b2)) {
                int n = 0;
                long sum = 0;
                for (Node<K, V> e = l.head.next; e != l.head; e = e.next, n++) {
                    check(e.list == l.id, "node of " + e.key + " knows its list " + l.id);
                    check(nodes.get(e.key) == e, "node of " + e.key + " is the mapped one");
                    check(e.isResident() == (e.value != null), "values only in T1 and T2");
                    sum += e.weight;
                }
                check(n == l.size, "size of " + l.id);
                check(sum == l.weight, "weight of " + l.id + " is the sum of its keys' weights");
            }
            Map<Share<K, V>, long[]> shares = new HashMap<>();
            for (LruList<K, V> l : List.of(t1, t2)) {
                for (Node<K, V> e = l.head.next; e != l.head; e = e.next) {
                    if (e.share != null) {
                        long[] f = shares.computeIfAbsent(e.share, s -> new long[4]);
                        f[l.id == ListId.T1 ? 0 : 2]++;
                        f[l.id == ListId.T1 ? 1 : 3] += e.weight;
                    }
                }
            }
            for (Map.Entry<Share<K, V>, long[]> e : shares.entrySet()) {
                Share<K, V> s = e.getKey();
                long[] f = e.getValue();
                check(s.t1.size == f[0] && s.t1.weight == f[1], "a share's T1 holds its keys in T1");
                check(s.t2.size == f[2] && s.t2.weight == f[3], "a share's T2 holds its keys in T2");
                check(s.t1.weight + s.t2.weight <= s.cap, "a share's weight <= its cap");
                for (ShareList<K, V> l : List.of(s.t1, s.t2)) {
                    for (Node<K, V> n = l.head.snext; n != l.head; n = n.snext) {
                        check(n.share == s && n.list == (l == s.t1 ? ListId.T1 : ListId.T2), "a share's list is in order with ARC's");
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void check(boolean condition, String invariant) {
        if (!condition) {
            throw new IllegalStateException("ARC invariant broken: " + invariant + " (|T1|=" + t1.size
                    + " |T2|=" + t2.size + " |B1|=" + b1.size + " |B2|=" + b2.size + " p=" + p
                    + " c=" + capacity + " weight=" + (t1.weight + t2.weight) + ")");
        }
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "ArcCache[c=" + capacity + ", |T1|=" + t1.size + ", |T2|=" + t2.size + ", |B1|="
                    + b1.size + ", |B2|=" + b2.size + ", p=" + p + ", weight=" + (t1.weight + t2.weight) + "]";
        } finally {
            lock.unlock();
        }
    }

    /** A directory entry: a resident value in T1/T2, or a ghost key in B1/B2. */
    private static final class Node<K, V> {
        final K key;
        V value;
        long weight;
        ListId list;
        Node<K, V> prev;
        Node<K, V> next;
        /** The share the key belongs to, or null; while resident the node is in its T1 or T2 too. */
        Share<K, V> share;
        Node<K, V> sprev;
        Node<K, V> snext;

        Node(K key) {
            this.key = key;
        }

        boolean isResident() {
            return list == ListId.T1 || list == ListId.T2;
        }
    }

    /** A circular doubly linked list with a sentinel: O(1) unlink and append. */
    private static final class LruList<K, V> {
        final ListId id;
        final Node<K, V> head = new Node<>(null);
        int size;
        /** The sum of the weights of the keys in the list (a ghost's is its value's when evicted). */
        long weight;

        LruList(ListId id) {
            this.id = id;
            head.prev = head;
            head.next = head;
        }

        Node<K, V> lru() {
            return head.next;
        }

        void addMru(Node<K, V> node) {
            node.list = id;
            node.prev = head.prev;
            node.next = head;
            head.prev.next = node;
            head.prev = node;
            size++;
            weight += node.weight;
            ShareList<K, V> own = shareList(node);
            if (own != null) own.addMru(node);
        }

        void unlink(Node<K, V> node) {
            node.prev.next = node.next;
            node.next.prev = node.prev;
            node.prev = null;
            node.next = null;
            size--;
            weight -= node.weight;
            ShareList<K, V> own = shareList(node);
            if (own != null) own.unlink(node);
        }

        /** The share's own list that mirrors this one for {@code node}, or null (a ghost list, or no share). */
        private ShareList<K, V> shareList(Node<K, V> node) {
            if (node.share == null) return null;
            return id == ListId.T1 ? node.share.t1 : id == ListId.T2 ? node.share.t2 : null;
        }

        void clear() {
            head.prev = head;
            head.next = head;
            size = 0;
            weight = 0;
        }

        List<K> keys() {
            List<K> keys = new ArrayList<>(size);
            for (Node<K, V> e = head.next; e != head; e = e.next) {
                keys.add(e.key);
            }
            return keys;
        }
    }

    /**
     * One owner's part of a cache shared by several ({@link SharedMemory}): its resident entries,
     * in T1 and T2 order, and the cap on their weight. Changed only under the cache's lock.
     */
    static final class Share<K, V> {
        final long cap;
        final ShareList<K, V> t1 = new ShareList<>();
        final ShareList<K, V> t2 = new ShareList<>();

        Share(long cap) {
            if (cap < 1) throw new IllegalArgumentException("a share's cap must be at least 1, was " + cap);
            this.cap = cap;
        }
    }

    /** A share's view of T1 or T2: the same nodes, linked through their own fields, LRU first. */
    private static final class ShareList<K, V> {
        final Node<K, V> head = new Node<>(null);
        int size;
        long weight;

        ShareList() {
            head.sprev = head;
            head.snext = head;
        }

        Node<K, V> lru() {
            return head.snext;
        }

        void addMru(Node<K, V> node) {
            node.sprev = head.sprev;
            node.snext = head;
            head.sprev.snext = node;
            head.sprev = node;
            size++;
            weight += node.weight;
        }

        void unlink(Node<K, V> node) {
            node.sprev.snext = node.snext;
            node.snext.sprev = node.sprev;
            node.sprev = null;
            node.snext = null;
            size--;
            weight -= node.weight;
        }

        void clear() {
            head.sprev = head;
            head.snext = head;
            size = 0;
            weight = 0;
        }
    }

    /** The weight of {@code share}'s resident values. */
    long weight(Share<K, V> share) {
        lock.lock();
        try {
            return share.t1.weight + share.t2.weight;
        } finally {
            lock.unlock();
        }
    }

    /** The number of {@code share}'s resident values. */
    int size(Share<K, V> share) {
        lock.lock();
        try {
            return share.t1.size + share.t2.size;
        } finally {
            lock.unlock();
        }
    }

    /** {@code share}'s values, T1 then T2, each least recently used first. */
    List<Map.Entry<K, V>> entries(Share<K, V> share) {
        lock.lock();
        try {
            List<Map.Entry<K, V>> entries = new ArrayList<>(share.t1.size + share.t2.size);
            for (ShareList<K, V> l : List.of(share.t1, share.t2)) {
                for (Node<K, V> e = l.head.snext; e != l.head; e = e.snext) {
                    entries.add(Map.entry(e.key, e.value));
                }
            }
            return entries;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes every value and ghost of {@code share}, as {@link #remove} would one by one (an
     * owner closing or clearing); the others' entries and {@code p} stay.
     *
     * @return how many values were removed
     */
    int clear(Share<K, V> share) {
        lock.lock();
        try {
            int removed = share.t1.size + share.t2.size;
            for (LruList<K, V> l : List.of(t1, t2, b1, b2)) {
                for (Node<K, V> e = l.head.next; e != l.head; ) {
                    Node<K, V> next = e.next;
                    if (e.share == share) discard(e);
                    e = next;
                }
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Settings of an {@link ArcCache}, each refused at once if out of range.
     *
     * @param <K> the keys
     * @param <V> the values
     */
    public static final class Builder<K, V> {
        private final int maximumSize;
        private long maximumWeight = Long.MAX_VALUE;
        private ToLongFunction<? super V> weigher = v -> 1;
        private boolean weighted;
        private Stats stats = Stats.disabled();
        private BiConsumer<? super K, ? super V> evictionListener;

        private Builder(int maximumSize) {
            if (maximumSize < 1 || maximumSize > MAXIMUM_CAPACITY) {
                throw new IllegalArgumentException("maximumSize must be in 1.." + MAXIMUM_CAPACITY
                        + ", was " + maximumSize);
            }
            this.maximumSize = maximumSize;
        }

        /**
         * Also bounds the total weight of the values held; {@code weigher} is asked once per
         * {@code put} and must return zero or more.
         */
        public Builder<K, V> maximumWeight(long maximumWeight, ToLongFunction<? super V> weigher) {
            if (maximumWeight < 1) {
                throw new IllegalArgumentException("maximumWeight must be at least 1, was "
                        + maximumWeight);
            }
            this.maximumWeight = maximumWeight;
            this.weigher = Objects.requireNonNull(weigher, "weigher");
            this.weighted = true;
            return this;
        }

        public Builder<K, V> stats(Stats stats) {
            this.stats = Objects.requireNonNull(stats, "stats");
            return this;
        }

        /**
         * Called with each evicted key and value, after the cache's lock is released, on the
         * thread that evicted. It MAY call the cache; it MUST NOT throw (a throw is logged and
         * ignored). It is not called for {@link #remove}, {@link #clear} or replaced values.
         */
        public Builder<K, V> evictionListener(BiConsumer<? super K, ? super V> listener) {
            this.evictionListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public ArcCache<K, V> build() {
            return new ArcCache<>(this);
        }
    }
}
