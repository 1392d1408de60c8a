package arno.cache;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * ARC written as plainly as possible, for differential tests of {@link ArcCache}: four
 * {@link LinkedList}s of keys searched linearly, values in a map, the paper's cases in order.
 * It carries the same extensions as ArcCache (removal, a weight bound, REPLACE only while the
 * cache is full), and counts the REPLACE calls that the paper makes but the guard skips: for a
 * stream of requests without removals or weights that count must stay 0, which shows the
 * guarded algorithm is the paper's.
 */
final class ArcModel<K, V> {
    final int c;
    final long maximumWeight;
    final ToLongFunction<V> weigher;

    /** Least recently used first. */
    final LinkedList<K> t1 = new LinkedList<>();
    final LinkedList<K> t2 = new LinkedList<>();
    final LinkedList<K> b1 = new LinkedList<>();
    final LinkedList<K> b2 = new LinkedList<>();
    final Map<K, V> values = new HashMap<>();
    final Map<K, Long> weights = new HashMap<>();
    double p;
    long weight;
    int skippedReplaces;
    final List<Map.Entry<K, V>> evicted = new ArrayList<>();

    ArcModel(int c, long maximumWeight, ToLongFunction<V> weigher) {
        this.c = c;
        this.maximumWeight = maximumWeight;
        this.weigher = weigher;
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
            weight -= weights.remove(key);
            values.remove(key);
            room(w, false);
            t2.addLast(key);
        } else if (b1.contains(key)) {
            // Case II
            double d = b1.size() >= b2.size() ? 1 : (double) b2.size() / b1.size();
            p = Math.min(p + d, c);
            b1.remove(key);
            paperReplace(w, false);
            t2.addLast(key);
        } else if (b2.contains(key)) {
            // Case III
            double d = b2.size() >= b1.size() ? 1 : (double) b1.size() / b2.size();
            p = Math.max(p - d, 0);
            b2.remove(key);
            paperReplace(w, true);
            t2.addLast(key);
        } else {
            // Case IV
            if (t1.size() + b1.size() == c) {
                if (t1.size() < c) {
                    b1.removeFirst();
                    paperReplace(w, false);
                } else {
                    K lru = t1.removeFirst();
                    evicted.add(Map.entry(lru, values.remove(lru)));
                    weight -= weights.remove(lru);
                    room(w, false);
                }
            } else {
                int total = t1.size() + t2.size() + b1.size() + b2.size();
                if (total >= c) {
                    if (total == 2 * c) {
                        b2.removeFirst();
                    }
                    paperReplace(w, false);
                } else {
                    room(w, false);
                }
            }
            t1.addLast(key);
        }
        values.put(key, value);
        weights.put(key, w);
        weight += w;
        return previous;
    }

    V remove(K key) {
        boolean resident = t1.contains(key) || t2.contains(key);
        t1.remove(key);
        t2.remove(key);
        b1.remove(key);
        b2.remove(key);
        if (!resident) {
            return null;
        }
        weight -= weights.remove(key);
        return values.remove(key);
    }

    /** A point where the paper calls REPLACE. */
    private void paperReplace(long w, boolean xInB2) {
        if (t1.size() + t2.size() < c) {
            skippedReplaces++;
        }
        room(w, xInB2);
    }

    private void room(long w, boolean xInB2) {
        while (t1.size() + t2.size() >= c || (!values.isEmpty() && weight + w > maximumWeight)) {
            if (!t1.isEmpty() && (t1.size() > p || (xInB2 && t1.size() == p)) || t2.isEmpty()) {
                K lru = t1.removeFirst();
                b1.addLast(lru);
                evict(lru);
            } else {
                K lru = t2.removeFirst();
                b2.addLast(lru);
                evict(lru);
            }
        }
    }

    private void evict(K key) {
        evicted.add(Map.entry(key, values.remove(key)));
        weight -= weights.remove(key);
    }
}
