package arno.perf.cache;

import arno.cache.ArcCache;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** The two contenders behind one interface: ARC, and the LRU baseline with the same locking. */
final class Policies {

    interface Policy {
        Integer get(Integer key);

        void put(Integer key, Integer value);

        /** The object graph to measure for memory per entry. */
        Object root();
    }

    private Policies() {
    }

    static Policy create(String name, int capacity) {
        switch (name) {
            case "arc": return arc(capacity);
            case "lru": return lru(capacity);
            default: throw new IllegalArgumentException("policy must be arc or lru, was " + name);
        }
    }

    static Policy arc(int capacity) {
        ArcCache<Integer, Integer> cache = ArcCache.<Integer, Integer>builder(capacity).build();
        return new Policy() {
            @Override
            public Integer get(Integer key) {
                return cache.get(key);
            }

            @Override
            public void put(Integer key, Integer value) {
                cache.put(key, value);
            }

            @Override
            public Object root() {
                return cache;
            }
        };
    }

    /** LinkedHashMap in access order under one ReentrantLock, as ArcCache is. */
    static Policy lru(int capacity) {
        ReentrantLock lock = new ReentrantLock();
        Map<Integer, Integer> map = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, Integer> eldest) {
                return size() > capacity;
            }
        };
        return new Policy() {
            @Override
            public Integer get(Integer key) {
                lock.lock();
                try {
                    return map.get(key);
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void put(Integer key, Integer value) {
                lock.lock();
                try {
                    map.put(key, value);
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public Object root() {
                return new Object[] {map, lock};
            }
        };
    }

    /** One request: a get, and on a miss a put. True on a hit. */
    static boolean request(Policy policy, Integer key) {
        if (policy.get(key) != null) {
            return true;
        }
        policy.put(key, key);
        return false;
    }
}
