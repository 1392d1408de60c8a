package arno.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * What a cache entry was built from: an immutable, duplicate-free list of
 * {@link Dependency dependencies}, each a source (kind and URI) at the version the entry saw.
 */
public final class Dependencies implements Iterable<Dependencies.Dependency> {

    private static final Dependencies NONE = new Dependencies(List.of());

    private final List<Dependency> list;

    private Dependencies(List<Dependency> list) {
        this.list = list;
    }

    /** Nothing: such an entry is always current and no invalidation reaches it. */
    public static Dependencies none() {
        return NONE;
    }

    public static Dependencies of(Dependency... dependencies) {
        return of(List.of(dependencies));
    }

    /** The given dependencies in their order, exact duplicates dropped. */
    public static Dependencies of(Collection<Dependency> dependencies) {
        if (dependencies.isEmpty()) {
            return NONE;
        }
        for (Dependency d : dependencies) {
            Objects.requireNonNull(d, "dependency");
        }
        return new Dependencies(List.copyOf(new LinkedHashSet<>(dependencies)));
    }

    /** These dependencies and one more. */
    public Dependencies and(String kind, String uri, String version) {
        List<Dependency> more = new ArrayList<>(list);
        more.add(new Dependency(kind, uri, version));
        return of(more);
    }

    public List<Dependency> asList() {
        return list;
    }

    public int size() {
        return list.size();
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    @Override
    public Iterator<Dependency> iterator() {
        return list.iterator();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Dependencies && ((Dependencies) o).list.equals(list);
    }

    @Override
    public int hashCode() {
        return list.hashCode();
    }

    @Override
    public String toString() {
        return list.toString();
    }

    /**
     * One source an entry was built from, at the version it saw. {@code kind} says where the
     * source lives and so which validator understands it (the server uses {@code "store"} for
     * store documents, versioned by their revision, and {@code "uri"} for external resources,
     * versioned by their ETag); {@code version} may be empty to record that the source was
     * absent.
     *
     * @param kind    where the source lives, not blank
     * @param uri     the source's address within its kind, not blank
     * @param version the version seen, possibly empty, never null
     */
    public record Dependency(String kind, String uri, String version) {
        public Dependency {
            if (kind == null || kind.isBlank()) {
                throw new IllegalArgumentException("dependency kind must not be blank (uri " + uri + ")");
            }
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("dependency uri must not be blank (kind " + kind + ")");
            }
            Objects.requireNonNull(version, () -> "version of " + kind + " " + uri);
        }

        /** Whether this names the same source as {@code other}, whatever the versions. */
        public boolean sameSource(Dependency other) {
            return kind.equals(other.kind) && uri.equals(other.uri);
        }
    }
}
