package arno.store.atom;

import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.util.regex.Pattern;

/**
 * A resource's path in the hierarchy ({@code /journals/ja/v1}) and the store documents that hold
 * it: the entry {@code PATH.atom}, the variants {@code PATH.EXT}, the children under
 * {@code PATH/}. Names have no dots, so the last dot of a document path always separates the
 * resource from the extension. The root is the path {@code ""} (it has children, no entry).
 */
public record ResourcePath(String path) {

    /** The longest name, in characters. */
    private static final int MAX_NAME = 100;
    private static final Pattern EXTENSION = Pattern.compile("[a-z0-9]{1,10}");
    /** The root of the hierarchy. */
    public static final ResourcePath ROOT = new ResourcePath("");

    public ResourcePath {
        if (!path.isEmpty()) {
            if (path.charAt(0) != '/' || path.endsWith("/")) {
                throw bad(path, ErrorMessage.PATH_NOT_ROOTED.error(path));
            }
            for (int start = 1, end; start <= path.length(); start = end + 1) {
                end = path.indexOf('/', start);
                if (end < 0) end = path.length();
                if (!isName(path, start, end)) {
                    throw bad(path, ErrorMessage.PATH_BAD_SEGMENT.error(path, path.substring(start, end)));
                }
            }
        }
    }

    /**
     * Whether {@code s} is a name, the syntax of one path segment and what a Slug is cleaned to:
     * {@code [A-Za-z0-9][A-Za-z0-9_-]{0,99}}. Checked by hand rather than by that pattern: every
     * page asks it of each segment of the path it names, and every expansion of each child.
     */
    public static boolean isName(CharSequence s) {
        return isName(s, 0, s.length());
    }

    /** {@link #isName(CharSequence)} of the characters {@code from} (inclusive) to {@code to} (exclusive) of {@code s}. */
    public static boolean isName(CharSequence s, int from, int to) {
        if (to <= from || to - from > MAX_NAME) return false;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            boolean alnum = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
            if (!alnum && (i == from || c != '_' && c != '-')) return false;
        }
        return true;
    }

    /** Parses a resource path, e.g. {@code /journals/ja}; {@code /} or {@code ""} is the root. */
    public static ResourcePath of(String path) {
        return path.equals("/") ? ROOT : new ResourcePath(path);
    }

    /** Checks an extension ({@code atom}, {@code xml}, {@code pdf}): 1-10 lower-case letters or digits. */
    public static String checkExtension(String ext) {
        if (!EXTENSION.matcher(ext).matches()) {
            throw bad(ext, ErrorMessage.BAD_EXTENSION.error(ext));
        }
        return ext;
    }

    /**
     * Splits a store document path ({@code /journals/ja/v1.atom}) into its resource and extension;
     * null if it is not a resource document (no extension, or a reserved folder such as {@code /_model/}).
     */
    public static Document document(String storePath) {
        int slash = storePath.lastIndexOf('/');
        int dot = storePath.lastIndexOf('.');
        if (!storePath.startsWith("/") || storePath.startsWith("/_") || dot < slash) return null;
        try {
            return new Document(new ResourcePath(storePath.substring(0, dot)), checkExtension(storePath.substring(dot + 1)));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** A store document of a resource: its entry ({@code atom}) or one variant. */
    public record Document(ResourcePath resource, String extension) {
        public boolean isEntry() {
            return extension.equals(Atom.ENTRY_EXTENSION);
        }

        public String storePath() {
            return resource.path + "." + extension;
        }
    }

    public boolean isRoot() {
        return path.isEmpty();
    }

    /** The last segment; "" for the root. */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The parent; null for the root. Top-level entries have the root as parent. */
    public ResourcePath parent() {
        if (isRoot()) return null;
        int slash = path.lastIndexOf('/');
        return slash == 0 ? ROOT : new ResourcePath(path.substring(0, slash));
    }

    public ResourcePath child(String name) {
        return new ResourcePath(path + "/" + name);
    }

    /** The store document of the entry: {@code PATH.atom}. */
    public String entryDocument() {
        if (isRoot()) throw new IllegalStateException("the root has no entry");
        return path + "." + Atom.ENTRY_EXTENSION;
    }

    /** The store document of a variant: {@code PATH.EXT}. */
    public String variantDocument(String extension) {
        if (isRoot()) throw new IllegalStateException("the root has no variants");
        return path + "." + checkExtension(extension);
    }

    /** The store folder of the children: {@code PATH/} ({@code /} for the root). */
    public String childrenFolder() {
        return path + "/";
    }

    /** Depth: 0 for the root, 1 for a top-level entry. */
    public int depth() {
        int d = 0;
        for (int i = 0; i < path.length(); i++) if (path.charAt(i) == '/') d++;
        return d;
    }

    /** Whether {@code other} is this resource or lies below it. */
    public boolean contains(ResourcePath other) {
        return isRoot() || other.path.equals(path) || other.path.startsWith(path + "/");
    }

    @Override
    public String toString() {
        return isRoot() ? "/" : path;
    }

    private static RuntimeException bad(String path, ArnoException e) {
        return e.at(Where.at("store:" + path));
    }
}
