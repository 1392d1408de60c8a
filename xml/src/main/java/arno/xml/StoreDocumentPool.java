package arno.xml;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import net.sf.saxon.om.DocumentKey;
import net.sf.saxon.om.DocumentPool;
import net.sf.saxon.om.TreeInfo;

/**
 * Makes a query's document pool hold stored documents ({@code store:} URIs) weakly, so that a
 * report over a whole store in one query keeps only the documents it still uses.
 *
 * <p>Saxon's pool is what makes {@code doc()} stable and is the only place {@code document-uri()}
 * looks, so every document a collection gives must be in it; but it holds them strongly to the end
 * of the query, and {@code document-uri()} walks all of it (one lookup per document in the pool):
 * a report over a million documents would keep them all and slow down as it goes. Held weakly, a
 * stored document stays in the pool, with its identity, as long as anything in the query holds one
 * of its nodes; once nothing does, nobody can compare it with a later {@code doc()} of the same URI,
 * which reads it again from the same snapshot. (Only a {@code generate-id()} kept as a string
 * could tell.) Other documents (files, fetched URIs) stay strongly held, as Saxon holds them:
 * reading them again would mean parsing again.
 *
 * <p>Saxon-HE has no setting for this, so {@link #install} replaces the pool's map by reflection;
 * if a later Saxon renames the field, it says so once and leaves the pool as it is.
 */
public final class StoreDocumentPool {
    private static final System.Logger LOG = System.getLogger(StoreDocumentPool.class.getName());
    private static final Field MAP = mapField();

    private StoreDocumentPool() {}

    private static Field mapField() {
        try {
            Field f = DocumentPool.class.getDeclaredField("documentNameMap");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "queries over the store keep every document they read to their end:"
                    + " this Saxon's DocumentPool has no field documentNameMap (" + e + ")");
            return null;
        }
    }

    /** Makes {@code pool} hold stored documents weakly; once per pool, then nothing. Whether it does now. */
    @SuppressWarnings("unchecked")
    public static boolean install(DocumentPool pool) {
        if (MAP == null) return false;
        synchronized (pool) { // DocumentPool's methods synchronize on it
            try {
                Map<DocumentKey, TreeInfo> now = (Map<DocumentKey, TreeInfo>) MAP.get(pool);
                if (now instanceof Weak) return true;
                Weak weak = new Weak();
                weak.putAll(now);
                MAP.set(pool, weak);
                return true;
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e); // setAccessible succeeded
            }
        }
    }

    /** Stored documents held weakly, the rest strongly; cleared entries purged at each change and count. */
    static final class Weak extends AbstractMap<DocumentKey, TreeInfo> {
        private final Map<DocumentKey, Object> map = new HashMap<>();
        private final ReferenceQueue<TreeInfo> cleared = new ReferenceQueue<>();

        private static final class Ref extends WeakReference<TreeInfo> {
            final DocumentKey key;

            Ref(TreeInfo t, DocumentKey key, ReferenceQueue<TreeInfo> q) {
                super(t, q);
                this.key = key;
            }
        }

        private void purge() {
            for (java.lang.ref.Reference<? extends TreeInfo> r; (r = cleared.poll()) != null; ) {
                map.remove(((Ref) r).key, r);
            }
        }

        private static TreeInfo value(Object o) {
            return o instanceof Ref r ? r.get() : (TreeInfo) o;
        }

        @Override
        public TreeInfo get(Object key) {
            return value(map.get(key));
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;
        }

        @Override
        public TreeInfo put(DocumentKey key, TreeInfo value) {
            purge();
            boolean stored = key.getAbsoluteURI().startsWith(DocumentStore.SCHEME);
            return value(map.put(key, stored ? new Ref(value, key, cleared) : value));
        }

        @Override
        public TreeInfo remove(Object key) {
            purge();
            return value(map.remove(key));
        }

        @Override
        public int size() {
            purge();
            return map.size();
        }

        @Override
        public Set<Entry<DocumentKey, TreeInfo>> entrySet() {
            purge();
            return new AbstractSet<>() {
                @Override
                public int size() {
                    return map.size();
                }

                @Override
                public Iterator<Entry<DocumentKey, TreeInfo>> iterator() {
                    Iterator<Entry<DocumentKey, Object>> all = map.entrySet().iterator();
                    return new Iterator<>() {
                        Entry<DocumentKey, TreeInfo> next;

                        @Override
                        public boolean hasNext() {
                            while (next == null && all.hasNext()) {
                                Entry<DocumentKey, Object> e = all.next();
                                TreeInfo t = value(e.getValue());
                                if (t != null) next = new SimpleImmutableEntry<>(e.getKey(), t);
                            }
                            return next != null;
                        }

                        @Override
                        public Entry<DocumentKey, TreeInfo> next() {
                            if (!hasNext()) throw new NoSuchElementException();
                            Entry<DocumentKey, TreeInfo> e = next;
                            next = null;
                            return e;
                        }

                        @Override
                        public void remove() {
                            // the look-ahead has moved past the entry returned; Saxon removes by key
                            throw new UnsupportedOperationException("remove by key");
                        }
                    };
                }
            };
        }
    }
}
