package arno.store.atom;

import java.util.List;

import javax.xml.namespace.QName;

/**
 * One kind of entry as its introspection document ({@code /_model/NAME.xml}) describes it: the
 * elements its entries must have, the variants they may have, the collections of children they
 * hold and the typed links they may carry. Immutable; read by {@link Model}.
 *
 * @param name        the kind (the term of the entry's {@code category scheme="urn:arno:kind"})
 * @param title       a human name, or the name
 * @param requires    child elements every entry of the kind must have
 * @param variants    the variants, by role
 * @param collections the child collections
 * @param links       the typed links it may carry
 * @param source      the store path of its introspection document, for messages
 */
public record Kind(String name, String title, List<QName> requires, List<Variant> variants,
        List<Collection> collections, List<LinkRule> links, String source) {

    public Kind {
        requires = List.copyOf(requires);
        variants = List.copyOf(variants);
        collections = List.copyOf(collections);
        links = List.copyOf(links);
    }

    /** An alternative representation, stored as {@code PATH.EXTENSION}. */
    public record Variant(String role, String mediaType, String extension) {
    }

    /** How a collection names new children. */
    public enum Naming {
        SLUG, PATTERN, COUNTER
    }

    /**
     * A collection of children: entries of {@code kinds}, or media resources of {@code mediaTypes}
     * (each {@code type/subtype}, or {@code type/*}), named by {@code naming}.
     */
    public record Collection(String name, List<String> kinds, List<String> mediaTypes, Naming naming, String pattern) {
        public Collection {
            kinds = List.copyOf(kinds);
            mediaTypes = List.copyOf(mediaTypes);
        }

        public boolean acceptsKind(String kind) {
            return kinds.contains(kind);
        }

        /** Whether a media resource of this type may be posted here; parameters are ignored. */
        public boolean acceptsMediaType(String mediaType) {
            String t = MediaTypes.essence(mediaType);
            for (String m : mediaTypes) {
                if (m.equals(t) || m.endsWith("/*") && t.startsWith(m.substring(0, m.length() - 1))) return true;
            }
            return false;
        }

        /** The naming pattern: {@code {n}} for counters, the Slug for slugs. */
        public String effectivePattern() {
            return switch (naming) {
                case SLUG -> "{slug}";
                case COUNTER -> "{n}";
                case PATTERN -> pattern;
            };
        }
    }

    /** A typed link ({@code link rel="related" arno:role="ROLE"}) to an entry of one of {@code kinds} (any if empty). */
    public record LinkRule(String role, List<String> kinds, String reciprocal) {
        public LinkRule {
            kinds = List.copyOf(kinds);
        }

        public boolean acceptsTarget(String kind) {
            return kinds.isEmpty() || kinds.contains(kind);
        }
    }

    public Variant variantByRole(String role) {
        for (Variant v : variants) if (v.role.equals(role)) return v;
        return null;
    }

    public Variant variantByExtension(String extension) {
        for (Variant v : variants) if (v.extension.equals(extension)) return v;
        return null;
    }

    public Collection collection(String name) {
        for (Collection c : collections) if (c.name.equals(name)) return c;
        return null;
    }

    /**
     * The collection a child of an entry of this kind belongs to: the first that accepts the
     * child's kind, or for a child without kind (a media-link entry) the first collection of media
     * that accepts its media's type; null for none. The choice a POST that names no collection makes.
     */
    public Collection holding(String childKind, String mediaType) {
        for (Collection c : collections) {
            if (childKind != null ? c.acceptsKind(childKind)
                    : c.kinds.isEmpty() && mediaType != null && c.acceptsMediaType(mediaType)) {
                return c;
            }
        }
        return null;
    }

    public LinkRule link(String role) {
        for (LinkRule l : links) if (l.role.equals(role)) return l;
        return null;
    }
}
