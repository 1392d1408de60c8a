package arno.store.atom;

import java.text.Normalizer;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import arno.store.Snapshot;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * How a new child is named (introspection {@code naming}): from the {@code Slug} header
 * ({@code slug}), from a pattern ({@code {n}} the next free integer, {@code {slug}} the cleaned
 * Slug), or by a counter (the pattern {@code {n}}).
 *
 * <p>A Slug is a client's hint (RFC 5023 9.7), never required: where a collection names from it
 * and there is none (or none with a letter or digit), the server names the child from its
 * {@code atom:title}, cleaned the same way ({@code "Journal of Tides"} → {@code Journal-of-Tides},
 * then {@code Journal-of-Tides-2} when that is taken), and a media resource, which has no title
 * yet, by the next free number. A Slug that names a child that exists is a conflict; a name the
 * server chose never is.
 *
 * <p>"Next free" is one more than the largest number any child of the collection's pattern has,
 * so a deleted child's name is not given to a new one while a later one exists (links and caches
 * may still name it). It is found by listing the children whose names start with the pattern's
 * literal head, through the path B+tree ({@link Snapshot#children(String, String, int)}): cost
 * O(matching children · log n).
 */
final class Naming {
    private Naming() {
    }

    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_-]+");
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern LEADING = Pattern.compile("^[-_]+");
    private static final Pattern TRAILING = Pattern.compile("-+$");

    /**
     * The Slug cleaned to the name syntax: accents stripped, every run of other characters one
     * '-', no leading '-' or '_', at most 100 characters; null if nothing is left.
     */
    static String clean(String slug) {
        if (slug == null) return null;
        if (isName(slug)) return slug;
        String s = MARKS.matcher(Normalizer.normalize(slug.strip(), Normalizer.Form.NFKD)).replaceAll("");
        s = UNSAFE.matcher(s).replaceAll("-");
        s = TRAILING.matcher(LEADING.matcher(s).replaceAll("")).replaceAll("");
        if (s.length() > 100) s = TRAILING.matcher(s.substring(0, 100)).replaceAll("");
        return s.isEmpty() ? null : s;
    }

    /** Whether the slug is a name already, which cleaning leaves as it is (the usual case, without a regex). */
    private static boolean isName(String s) {
        int n = s.length();
        if (n == 0 || n > 100 || s.charAt(n - 1) == '-') return false;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean alnum = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
            if (!alnum && (i == 0 || c != '-' && c != '_')) return false;
        }
        return true;
    }

    /**
     * The name of a new child of {@code parent} in collection {@code c}: CONFLICT when a Slug
     * names a child that exists, UNPROCESSABLE when the pattern makes no name of it. {@code title}
     * is the new entry's title (null for a media resource), for a name the server chooses.
     */
    static String name(Snapshot view, ResourcePath parent, Kind.Collection c, String slug, String title, String modelDoc) {
        String pattern = c.effectivePattern();
        String cleaned = clean(slug);
        if (pattern.contains("{slug}") && cleaned == null) {
            return chosen(view, parent, pattern, clean(title), modelDoc);
        }
        String named = pattern.replace("{slug}", cleaned == null ? "" : cleaned);
        if (!named.contains("{n}")) {
            check(named, "made from the Slug '" + slug + "'");
            if (taken(view, parent, named)) {
                throw ErrorMessage.CHILD_EXISTS.error(parent.child(named), parent.child(named).entryDocument()).at(Where.at("store:" + parent.child(named).entryDocument()));
            }
            return named;
        }
        return next(view, parent, named, 1, "made from the Slug '" + slug + "'");
    }

    /**
     * A name the server chooses where the Slug would have gone: the title as a Slug would be
     * cleaned, or with {@code -N} (the next free N from 2) when that is taken; without a title the
     * next free number.
     */
    private static String chosen(Snapshot view, ResourcePath parent, String pattern, String title, String modelDoc) {
        String what = "chosen by the collection's pattern '" + pattern + "' (see " + modelDoc + ")";
        if (title == null) return next(view, parent, pattern.replace("{slug}", "{n}"), 1, what);
        String named = pattern.replace("{slug}", title);
        if (ResourcePath.isName(named) && !taken(view, parent, named)) return named;
        // room for "-N" within the 100 characters of a name
        String base = title.length() > 90 ? TRAILING.matcher(title.substring(0, 90)).replaceAll("") : title;
        return next(view, parent, pattern.replace("{slug}", base + "-{n}"), 2, what);
    }

    /** {@code named} with its {@code {n}} the next free number, at least {@code min}. */
    private static String next(Snapshot view, ResourcePath parent, String named, long min, String from) {
        int at = named.indexOf("{n}");
        String head = named.substring(0, at);
        String tail = named.substring(at + 3);
        Pattern number = Pattern.compile(Pattern.quote(head) + "([0-9]{1,18})" + Pattern.quote(tail));
        long max = 0;
        String folder = parent.childrenFolder();
        // The listing starts after folder + head + NUL, so at the first name that starts with head.
        String after = head.isEmpty() ? null : head;
        for (boolean more = true; more; ) {
            List<String> names = view.children(folder, after, 1000);
            more = names.size() == 1000;
            for (String n : names) {
                after = n;
                if (!n.startsWith(head)) {
                    more = false;
                    break;
                }
                String base = n.endsWith("/") ? n.substring(0, n.length() - 1) : n.substring(0, Math.max(0, n.lastIndexOf('.')));
                Matcher m = number.matcher(base);
                if (m.matches()) max = Math.max(max, Long.parseLong(m.group(1)));
            }
        }
        String name = head + Math.max(min, max + 1) + tail;
        check(name, from);
        return name;
    }

    /** Whether a child of that name exists: its entry or any variant. */
    static boolean taken(Snapshot view, ResourcePath parent, String name) {
        return !view.uris(parent.child(name).path() + ".").isEmpty();
    }

    /** UNPROCESSABLE unless {@code name} ({@code from} says how it was made) is a name. */
    private static void check(String name, String from) {
        if (!ResourcePath.isName(name)) {
            throw ErrorMessage.NOT_A_NAME.error(name, from);
        }
    }
}
