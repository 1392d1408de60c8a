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
    /** Shared use: each key's owner, and each owner's cap on its values' weight (none: not shared). */
    java.util.function.Function<K, Object> ownerOf = k -> null;
    final Map<Object, Long> caps = new HashMap<>();

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
        Object owner = ownerOf.apply(key);
        if (w > maximumWeight || (owner != null && w > caps.get(owner))) {
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
            fitOwner(owner, w);
            room(w, false);
            t2.addLast(key);
        } else if (b1.contains(key)) {
            // Case II
            p = Math.min(p + step(key, b1, b2), limit);
            b1.remove(key);
            weights.remove(key);
            fitOwner(owner, w);
            paperReplace(w, false);
            t2.addLast(key);
        } else if (b2.contains(key)) {
            // Case III
            p = Math.max(p - step(key, b2, b1), 0);
            b2.remove(key);
            weights.remove(key);
            fitOwner(owner, w);
            paperReplace(w, true);
            t2.addLast(key);
        } else {
            // Case IV: an owner at its cap first gives up its own entries.
            fitOwner(owner, w);
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

    /**
     * A shared cache: an owner over its cap gives up its own entries, from T1 while its T1 is
     * over its part of p (p scaled by its cap against c) or its T2 is empty, else from T2, to the
     * ghost lists as REPLACE does.
     */
    private void fitOwner(Object owner, long w) {
        if (owner == null) return;
        long cap = caps.get(owner);
        double target = p * ((double) Math.min(cap, limit) / limit);
        while (true) {
            List<K> own1 = owned(t1, owner);
            List<K> own2 = owned(t2, owner);
            if (own1.isEmpty() && own2.isEmpty() || w(own1) + w(own2) + w <= cap) return;
            boolean fromT1 = !own1.isEmpty() && (w(own1) > target || own2.isEmpty());
            K lru = fromT1 ? own1.get(0) : own2.get(0);
            (fromT1 ? t1 : t2).remove(lru);
            (fromT1 ? b1 : b2).addLast(lru);
            evicted.add(Map.entry(lru, values.remove(lru)));
        }
    }

    /** The keys of {@code owner} in {@code list}, in its order. */
    List<K> owned(List<K> list, Object owner) {
        List<K> out = new ArrayList<>();
        for (K k : list) if (owner.equals(ownerOf.apply(k))) out.add(k);
        return out;
    }

    /** Removes every key of {@code owner}, values and ghosts; returns how many values went. */
    int clear(Object owner) {
        int n = owned(t1, owner).size() + owned(t2, owner).size();
        for (List<K> l : List.of(t1, t2, b1, b2)) {
            for (K k : new ArrayList<>(l)) if (owner.equals(ownerOf.apply(k))) remove(k);
        }
        return n;
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
