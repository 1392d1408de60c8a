package arno.store;

import arno.xml.ErrorMessage;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;


/**
 * One value index of a store: the elements that {@link #match()} selects, each indexed under the
 * typed value(s) of its {@link #value()} path, and, for a <i>correlated</i> index, under a pair
 * (the string value of {@link #key()}, the value): "an atom:category whose scheme is S and term
 * is T" is then one lookup, not an intersection of two.
 *
 * <h2>Paths</h2>
 * Deliberately small, so that matching is a comparison of element paths (see {@link ValueWalk}):
 * {@code match} is a path of element names from the document element ({@code atom:entry/atom:category}),
 * or, starting with {@code //}, a path that may begin at any depth ({@code //contrib}); {@code value}
 * and {@code key} are relative to the matched element: {@code .} (the element itself), child
 * element steps ({@code name/surname}), optionally ending in an attribute ({@code @term},
 * {@code link/@href}). No wildcards, no predicates. An element's value is its string value (all its
 * text); where a path selects several nodes each is indexed, as XPath's {@code =} compares each.
 *
 * <h2>Types</h2>
 * {@link Type#STRING}: compared by code point, after the optional normalisations (case: lower case
 * as {@code lower-case()}; space: as {@code normalize-space()}). {@link Type#NUMBER}: as
 * {@code number()} converts (values that are NaN are not indexed). {@link Type#DATE}: an
 * {@code xs:date} or {@code xs:dateTime} (whitespace trimmed), indexed by its date
 * (year-month-day as written, the timezone ignored); other values are not indexed. A key is always
 * a string, normalised as a string index's value.
 *
 * @param name      the index's name, used by lookups ({@code doi})
 * @param match     the elements indexed
 * @param value     the value, relative to a matched element
 * @param key       the first part of a correlated index's pair, or null
 */
public record IndexDefinition(String name, Type type, Set<Normalise> normalise, Path match, Path value, Path key) {

    /** How values are typed and ordered. */
    public enum Type { STRING, NUMBER, DATE }

    /** String normalisations, applied in this order: space, then case. */
    public enum Normalise { CASE, SPACE }

    public IndexDefinition {
        normalise = normalise.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(normalise));
        if (!name.matches("[A-Za-z_][A-Za-z0-9_.-]{0,63}")) {
            throw ErrorMessage.INDEX_NAME_BAD.error(name);
        }
        if (match.attribute() != null || match.self() || match.steps().isEmpty()) {
            throw ErrorMessage.INDEX_MATCH_BAD.error(name);
        }
        if (value.anywhere() || (key != null && key.anywhere())) {
            throw ErrorMessage.INDEX_VALUE_PATH_BAD.error(name);
        }
    }

    /** One name: a namespace URI ("" for none) and a local name; the prefix is kept for display only. */
    public record Name(String prefix, String uri, String local) {
        String eqName() {
            return "Q{" + uri + "}" + local;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Name n && n.uri.equals(uri) && n.local.equals(local);
        }

        @Override
        public int hashCode() {
            return uri.hashCode() * 31 + local.hashCode();
        }

        String display() {
            return prefix.isEmpty() ? local : prefix + ":" + local;
        }
    }

    /**
     * A path: element steps, then optionally an attribute. {@code anywhere} ({@code //} first, for
     * match only) lets the steps start at any depth; {@code self} is the path {@code .}.
     */
    public record Path(boolean anywhere, List<Name> steps, Name attribute) {
        public Path {
            steps = List.copyOf(steps);
        }

        boolean self() {
            return steps.isEmpty() && attribute == null;
        }

        /** As written in the configuration, with the prefixes it was given. */
        public String display() {
            if (self()) {
                return ".";
            }
            StringBuilder b = new StringBuilder(anywhere ? "//" : "");
            for (Name n : steps) {
                if (b.length() > 0 && b.charAt(b.length() - 1) != '/') {
                    b.append('/');
                }
                b.append(n.display());
            }
            if (attribute != null) {
                b.append(steps.isEmpty() ? "@" : "/@").append(attribute.display());
            }
            return b.toString();
        }

        /**
         * Parses {@code text}; {@code prefixes} gives a prefix's namespace URI (null when it is
         * undeclared). Unprefixed names are in no namespace, as in XPath.
         */
        static Path parse(String text, Function<String, String> prefixes, String what) {
            String t = text.strip();
            if (t.equals(".")) {
                return new Path(false, List.of(), null);
            }
            boolean anywhere = t.startsWith("//");
            String rest = anywhere ? t.substring(2) : t.startsWith("/") ? t.substring(1) : t;
            if (rest.isEmpty()) {
                throw ErrorMessage.PATH_EMPTY.error(what, text);
            }
            List<Name> steps = new ArrayList<>();
            Name attribute = null;
            String[] parts = rest.split("/", -1);
            for (int i = 0; i < parts.length; i++) {
                String p = parts[i];
                if (p.startsWith("@")) {
                    if (i != parts.length - 1) {
                        throw ErrorMessage.PATH_ATTRIBUTE_NOT_LAST.error(what, text);
                    }
                    attribute = name(p.substring(1), prefixes, what, text, true);
                } else {
                    steps.add(name(p, prefixes, what, text, false));
                }
            }
            return new Path(anywhere, steps, attribute);
        }

        private static Name name(String qname, Function<String, String> prefixes, String what, String text,
                boolean attribute) {
            if (qname.isEmpty()) {
                throw ErrorMessage.PATH_EMPTY_STEP.error(what, text);
            }
            int colon = qname.indexOf(':');
            String prefix = colon < 0 ? "" : qname.substring(0, colon);
            String local = colon < 0 ? qname : qname.substring(colon + 1);
            if (!net.sf.saxon.om.NameChecker.isValidNCName(local)
                    || (!prefix.isEmpty() && !net.sf.saxon.om.NameChecker.isValidNCName(prefix))) {
                throw ErrorMessage.PATH_NOT_NAME.error(what, text, qname);
            }
            String uri = "";
            if (!prefix.isEmpty()) {
                uri = prefixes.apply(prefix);
                if (uri == null) {
                    throw ErrorMessage.PATH_PREFIX_UNDECLARED.error(what, text, prefix, prefix);
                }
            }
            return new Name(prefix, uri, local);
        }

        /** One line, namespace URIs in full, for the store's catalogue. */
        String canonical() {
            StringBuilder b = new StringBuilder(anywhere ? "//" : "/");
            for (Name n : steps) {
                b.append(n.prefix()).append(' ').append(n.eqName()).append('\t');
            }
            if (attribute != null) {
                b.append('@').append(attribute.prefix()).append(' ').append(attribute.eqName());
            }
            return b.toString();
        }

        static Path fromCanonical(String s) {
            boolean anywhere = s.startsWith("//");
            String rest = s.substring(anywhere ? 2 : 1);
            List<Name> steps = new ArrayList<>();
            Name attr = null;
            for (String part : rest.split("\t", -1)) {
                if (part.isEmpty()) {
                    continue;
                }
                boolean isAttr = part.startsWith("@");
                String p = isAttr ? part.substring(1) : part;
                int sp = p.indexOf(' ');
                int close = p.lastIndexOf('}');
                Name n = new Name(p.substring(0, sp), p.substring(sp + 3, close), p.substring(close + 1));
                if (isAttr) {
                    attr = n;
                } else {
                    steps.add(n);
                }
            }
            return new Path(anywhere, steps, attr);
        }
    }

    /** Whether this is a correlated (key, value) index. */
    public boolean correlated() {
        return key != null;
    }

    /** The catalogue form: one field a line. Equal definitions have equal canonical forms. */
    String canonical() {
        List<String> n = new ArrayList<>();
        for (Normalise x : Normalise.values()) {
            if (normalise.contains(x)) {
                n.add(x.name());
            }
        }
        return type.name() + "\n" + String.join(" ", n) + "\n" + match.canonical() + "\n" + value.canonical() + "\n"
                + (key == null ? "" : key.canonical());
    }

    static IndexDefinition fromCanonical(String name, String s) {
        String[] f = s.split("\n", -1);
        Set<Normalise> norm = EnumSet.noneOf(Normalise.class);
        for (String x : f[1].split(" ")) {
            if (!x.isEmpty()) {
                norm.add(Normalise.valueOf(x));
            }
        }
        return new IndexDefinition(name, Type.valueOf(f[0]), norm, Path.fromCanonical(f[2]), Path.fromCanonical(f[3]),
                f[4].isEmpty() ? null : Path.fromCanonical(f[4]));
    }

    /** Applies this index's string normalisations (space, then case) to {@code s}. */
    String normalised(String s) {
        String r = s;
        if (normalise.contains(Normalise.SPACE)) {
            r = net.sf.saxon.value.Whitespace.collapseWhitespace(r).toString();
        }
        if (normalise.contains(Normalise.CASE)) {
            r = r.toLowerCase(Locale.ROOT);
        }
        return r;
    }

    /** The configuration attribute {@code normalise}: "case", "space", "case space" or "". */
    String normaliseAttribute() {
        List<String> n = new ArrayList<>();
        for (Normalise x : Normalise.values()) {
            if (normalise.contains(x)) {
                n.add(x.name().toLowerCase(Locale.ROOT));
            }
        }
        return String.join(" ", n);
    }
}
