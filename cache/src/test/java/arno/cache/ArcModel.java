package arno.cache;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * ARC written as plainly as possible, for differential tests of {@link ArcCache}: four
 * {@link LinkedList}s of keys searched linearly and summed on every use, values and weights in
 * maps, the paper's cases in order. It carries the same extensions as ArcCache (removal, a
 * weight bound, sizes measured in weight, REPLACE only while the cache is full), and counts the
 * REPLACE calls that the paper makes but the guard skips: for a stream of requests without
 * removals or weights that count must stay 0, which shows the guarded algorithm is the paper's.
 */
final class ArcModel<K, V> {
    final int c;
    final long maximumWeight;
    final ToLongFunction<V> weigher;
    /** The paper's c in weight: the weight bound when there is one, else c (every weight is 1). */
    final long limit;

    /** Least recently used first. */
    final LinkedList<K> t1 = new LinkedList<>();
    final LinkedList<K> t2 = new LinkedList<>();
    final LinkedList<K> b1 = new LinkedList<>();
    final LinkedList<K> b2 = new LinkedList<>();
    final Map<K, V> values = new HashMap<>();
    /** The weight of every key in the directory; a ghost keeps its value's. */
    final Map<K, Long> weights = new HashMap<>();
    double p;
    int skippedReplaces;
    final List<Map.Entry<K, V>> evicted = new ArrayList<>();

    ArcModel(int c, long maximumWeight, ToLongFunction<V> weigher) {
        this.c = c;
        this.maximumWeight = maximumWeight;
        this.weigher = weigher;
        this.limit = maximumWeight == Long.MAX_VALUE ? c : maximumWeight;
    }

    /** The weight of the values held. */
    long weight() {
        return w(t1) + w(t2);
    }

    V get(K key) {
        if (t1.contains(key) || t2.contains(key)) {
            t1.remove(key);
            t2.remove(key);
            t2.addLast(key);
            return values.get(key);
        }
        return null;
    }

    /** Returns the previous value; {@link #evicted} then holds what this put evicted. */
    V put(K key, V value) {
        evicted.clear();
        long w = weigher.applyAsLong(value);
        boolean resident = t1.contains(key) || t2.contains(key);
        V previous = resident ? values.get(key) : null;
        if (w > maximumWeight) {
            remove(key);
            evicted.add(Map.entry(key, value));
            return previous;
        }
        if (resident) {
            // Case I
            t1.remove(key);
            t2.remove(key);
            weights.remove(key);
            values.remove(key);
            room(w, false);
            t2.addLast(key);
        } else if (b1.contains(key)) {
            // Case II
            p = Math.min(p + step(key, b1, b2), limit);
            b1.remove(key);
            weights.remove(key);
            paperReplace(w, false);
            t2.addLast(key);
        } else if (b2.contains(key)) {
            // Case III
            p = Math.max(p - step(key, b2, b1), 0);
            b2.remove(key);
            weights.remove(key);
            paperReplace(w, true);
            t2.addLast(key);
        } else {
            // Case IV
            boolean paperReplaces;
            if (l1Full(w)) {
                // Case A: B1's oldest ghosts go; if T1 alone leaves no room, its oldest pages go
                // without ghosts and the paper makes no REPLACE.
                while (!b1.isEmpty() && l1Full(w)) weights.remove(b1.removeFirst());
                paperReplaces = !(!t1.isEmpty() && l1Full(w));
                while (!t1.isEmpty() && l1Full(w)) {
                    K lru = t1.removeFirst();
                    evicted.add(Map.entry(lru, values.remove(lru)));
                    weights.remove(lru);
                }
            } else {
                paperReplaces = t1.size() + t2.size() + b1.size() + b2.size() >= c;
            }
            // Case B: the directory has no room: B2's oldest ghosts go.
            while (!b2.isEmpty() && (t1.size() + t2.size() + b1.size() + b2.size() >= 2 * c
                    || w(t1) + w(t2) + w(b1) + w(b2) + w > 2 * limit)) {
                weights.remove(b2.removeFirst());
            }
            if (paperReplaces) {
                paperReplace(w, false);
            } else {
                room(w, false);
            }
            t1.addLast(key);
        }
        values.put(key, value);
        weights.put(key, w);
        {
            while (w(t1) + w(t2) + w(b1) + w(b2) > 2 * limit && !(b1.isEmpty() && b2.isEmpty())) {
                weights.remove(!b2.isEmpty() ? b2.removeFirst() : b1.removeFirst());
            }
        }
        return previous;
    }

    V remove(K key) {
        boolean resident = t1.contains(key) || t2.contains(key);
        t1.remove(key);
        t2.remove(key);
        b1.remove(key);
        b2.remove(key);
        weights.remove(key);
        return resident ? values.remove(key) : null;
    }

    private boolean l1Full(long w) {
        return t1.size() + b1.size() >= c || w(t1) + w(b1) + w > limit;
    }

    /** The paper's step (1, or the ratio of the ghost lists), times the ghost's weight. */
    private double step(K key, List<K> own, List<K> other) {
        long x = weights.get(key);
        if (x == 0) return 0;
        long o = w(own);
        long t = w(other);
        return o >= t ? x : x * ((double) t / o);
    }

    /** A point where the paper calls REPLACE. */
    private void paperReplace(long w, boolean xInB2) {
        if (t1.size() + t2.size() < c) {
            skippedReplaces++;
        }
        room(w, xInB2);
    }

    private void room(long w, boolean xInB2) {
        while (t1.size() + t2.size() >= c || (!values.isEmpty() && weight() + w > maximumWeight)) {
            if (!t1.isEmpty() && (w(t1) > p || (xInB2 && w(t1) == p)) || t2.isEmpty()) {
                K lru = t1.removeFirst();
                b1.addLast(lru);
                evicted.add(Map.entry(lru, values.remove(lru)));
            } else {
                K lru = t2.removeFirst();
                b2.addLast(lru);
                evicted.add(Map.entry(lru, values.remove(lru)));
            }
        }
    }

    private long w(List<K> list) {
        long sum = 0;
        for (K k : list) sum += weights.get(k);
        return sum;
    }
}
