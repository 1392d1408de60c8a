package arno.store.http;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.atom.Atom;
import arno.store.atom.Expansion;
import arno.store.atom.Kind;
import arno.store.atom.Model;
import arno.store.atom.ResourcePath;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.type.Type;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;

/**
 * The documents the API composes rather than stores: the children feed (all children of an entry,
 * or one collection's), the change feed and the AtomPub service document. Each is written as SAX
 * events from one snapshot; hrefs given here are already URLs, the stored entries inside go
 * through {@link Served} and {@link Hrefs}.
 *
 * <h2>Collections</h2>
 * A collection is named by its parent and its name, {@code MOUNT/P/?collection=NAME} (the root's:
 * {@code MOUNT/?collection=NAME}): a GET there is its feed, a POST there creates a member. A child
 * belongs to the collection a POST without a named one would have put it in ({@link Kind#holding}):
 * the first of its parent's collections that accepts its kind, or for a media-link entry without
 * kind the first that accepts its media's type. The service document lists the root's collections
 * and, in a workspace each, those of the top-level entries and of their children (in the default
 * model the journals folder and each journal); every entry and every children feed lists its own
 * as {@code app:collection}, so a client reaches every collection from the service document.
 *
 * <h2>Order and paging</h2>
 * Members are ordered as RFC 5023 section 10 asks: by {@code app:edited}, newest first, which is
 * the order of the versions that last wrote their entries (versions are commits, in time order;
 * {@code app:edited} is the commit's time), ties by name. A page's next link carries the last
 * member's position ({@code after=VERSION.NAME}), so a member is on one page only, even when it is
 * edited while a client pages (it moves before the cursor; RFC 5023 10.1 has clients look again
 * from the first page for such). There is no index by version: a page lists the folder and reads
 * each child's version (one B+tree lookup each, O(n log n) for n children), and for one collection
 * of several also the kinds of the children it passes.
 */
final class Feeds {
    private static final String ARNO = "arno";
    private static final int LISTING_BATCH = 256;
    /** Workspaces of entries in the service document at most; every collection stays reachable through its entry. */
    static final int MAX_WORKSPACES = 500;

    private Feeds() {}

    /** A position in a children feed: after the member {@code name} last written at {@code version}. */
    record Cursor(long version, String name) {
        private static final Pattern FORM = Pattern.compile("([0-9]{1,18})\\.(.+)");

        /** {@code VERSION.NAME} as a next link carries it; BAD_PARAMETER for anything else. */
        static Cursor parse(String after) {
            Matcher m = FORM.matcher(after.strip());
            if (!m.matches() || !ResourcePath.isName(m.group(2))) {
                throw ErrorMessage.NOT_FEED_POSITION.error(after);
            }
            return new Cursor(Long.parseLong(m.group(1)), m.group(2));
        }

        @Override
        public String toString() {
            return version + "." + name;
        }
    }

    /** One page of a children feed: the members' names, and where the next page starts (null: this is the last). */
    record Page(List<String> names, Cursor next) {
    }

    private record Member(String name, long version) {
    }

    /** Newest first, then by name: the order of every children feed. */
    private static final Comparator<Member> ORDER =
            Comparator.comparingLong(Member::version).reversed().thenComparing(Member::name);

    /**
     * Up to {@code limit} children of {@code parent} after {@code after} (null: from the newest), of
     * collection {@code collection} of {@code parentKind} (null: every child with an entry).
     */
    static Page members(Snapshot s, Configuration config, ResourcePath parent, Kind parentKind,
                        Kind.Collection collection, Cursor after, int limit) {
        String folder = parent.childrenFolder();
        List<Member> all = new ArrayList<>();
        for (String cursor = null; ; ) {
            List<String> items = s.children(folder, cursor, LISTING_BATCH);
            for (String item : items) {
                if (!item.endsWith("." + Atom.ENTRY_EXTENSION)) continue;
                String name = item.substring(0, item.length() - Atom.ENTRY_EXTENSION.length() - 1);
                if (ResourcePath.isName(name)) all.add(new Member(name, s.documentVersion(folder + item)));
            }
            if (items.size() < LISTING_BATCH) break;
            cursor = items.get(items.size() - 1);
        }
        all.sort(ORDER);
        int from = 0;
        if (after != null) {
            Member at = new Member(after.name(), after.version());
            while (from < all.size() && ORDER.compare(all.get(from), at) <= 0) from++;
        }
        // One collection among several: each child's kind decides (a lone collection holds them all).
        boolean filter = collection != null && parentKind.collections().size() > 1;
        List<Member> page = new ArrayList<>();
        for (int i = from; i < all.size() && page.size() <= limit; i++) {
            Member m = all.get(i);
            if (filter) {
                Facts f = facts(s, config, parent.child(m.name()).entryDocument());
                Kind.Collection holding = parentKind.holding(f.kind(), f.mediaType());
                if (holding == null || !holding.name().equals(collection.name())) continue;
            }
            page.add(m);
        }
        Cursor next = null;
        if (page.size() > limit) {
            Member last = page.get(limit - 1);
            next = new Cursor(last.version(), last.name());
            page = page.subList(0, limit);
        }
        List<String> names = new ArrayList<>(page.size());
        for (Member m : page) names.add(m.name());
        return new Page(names, next);
    }

    /**
     * The children of {@code parent} named {@code names}, each expanded by {@code o}, as an Atom
     * feed; {@code collection} is the one the feed shows (null: all children). The feed names the
     * collections a member can be posted to ({@code app:collection}, RFC 5023 8.3.3).
     */
    static void children(Snapshot s, Configuration config, Model model, ResourcePath parent, Kind parentKind,
                         Kind.Collection collection, List<String> names, Expansion.Options o, String mount, String self,
                         String next, ContentHandler h) throws SAXException {
        Sax x = new Sax(h);
        h.startPrefixMapping("", Atom.NS);
        h.startPrefixMapping(ARNO, Atom.ARNO_NS);
        h.startPrefixMapping("app", Atom.APP_NS);
        h.startPrefixMapping("atom", Atom.NS);
        x.start(Atom.NS, "feed");
        String of = parent.isRoot() ? "the root" : parent.toString();
        x.element(Atom.NS, "id", "urn:arno:children:" + parent.childrenFolder()
                + (collection == null ? "" : "?collection=" + collection.name()));
        x.element(Atom.NS, "title", collection == null ? (parent.isRoot() ? "Top-level entries" : "Children of " + parent)
                : "Collection " + collection.name() + " of " + of);
        x.element(Atom.NS, "updated", time(s.committedAt(s.version())));
        x.element(Atom.NS, "link", null, "rel", Atom.REL_SELF, "href", self, "type", Atom.FEED_TYPE);
        if (!parent.isRoot()) {
            x.element(Atom.NS, "link", null, "rel", Atom.REL_UP, "href", mount + parent.entryDocument(), "type", Atom.ENTRY_TYPE);
        }
        if (next != null) x.element(Atom.NS, "link", null, "rel", Atom.REL_NEXT, "href", next, "type", Atom.FEED_TYPE);
        if (parentKind != null) {
            for (Kind.Collection c : parentKind.collections()) {
                if (collection == null || c.name().equals(collection.name())) collection(x, "app:", collectionUrl(mount, parent, c), c);
            }
        }
        ContentHandler out = Served.of(s, model, mount, h);
        for (String name : names) Expansion.write(s, config, parent.child(name), o, out);
        x.end(Atom.NS, "feed");
        h.endPrefixMapping("atom");
        h.endPrefixMapping("app");
        h.endPrefixMapping(ARNO);
        h.endPrefixMapping("");
    }

    /**
     * One page of the change feed. Each change is an entry whose content says what it did (RFC 4287
     * 4.1.2: an entry without alternate link has content); a follower reads its category and link.
     */
    static void changes(Snapshot s, List<Change> changes, String mount, String self, String next, ContentHandler h)
            throws SAXException {
        Sax x = new Sax(h);
        h.startPrefixMapping("", Atom.NS);
        h.startPrefixMapping(ARNO, Atom.ARNO_NS);
        x.start(Atom.NS, "feed");
        x.element(Atom.NS, "id", "urn:arno:changes");
        x.element(Atom.NS, "title", "Changes");
        x.element(Atom.NS, "updated", time(s.committedAt(s.version())));
        x.element(Atom.NS, "link", null, "rel", Atom.REL_SELF, "href", self, "type", Atom.FEED_TYPE);
        if (next != null) x.element(Atom.NS, "link", null, "rel", Atom.REL_NEXT, "href", next, "type", Atom.FEED_TYPE);
        x.start(Atom.NS, "author").element(Atom.NS, "name", "Arno store").end(Atom.NS, "author");
        for (Change c : changes) {
            String kind = c.kind().name().toLowerCase(Locale.ROOT);
            x.start(Atom.NS, "entry");
            x.element(Atom.NS, "id", "urn:arno:change:" + c.version() + ":" + c.seq());
            x.element(Atom.NS, "title", kind + " " + c.uri());
            x.element(Atom.NS, "updated", time(c.time()));
            x.element(Atom.NS, "category", null, "scheme", Atom.CHANGE_SCHEME, "term", kind);
            x.element(Atom.ARNO_NS, ARNO + ":version", Long.toString(c.version()));
            String type = c.mediaType() != null && c.mediaType().contains("/") ? c.mediaType() : null;
            x.element(Atom.NS, "link", null, "rel", Atom.REL_RELATED, "href", Hrefs.url(mount, c.uri()), "type", type);
            x.element(Atom.NS, "content", kind + " " + c.uri() + " (version " + c.version() + ")", "type", "text");
            x.end(Atom.NS, "entry");
        }
        x.end(Atom.NS, "feed");
        h.endPrefixMapping(ARNO);
        h.endPrefixMapping("");
    }

    /**
     * The AtomPub service document: a workspace with the root's collections ({@code /_model/root.xml}),
     * then one per top-level entry and per child of one (in name order, at most
     * {@link #MAX_WORKSPACES}) whose kind has collections, titled by the entry's title. Each
     * collection's href names it ({@code MOUNT/P/?collection=NAME}); it accepts Atom entries of its
     * kinds (fixed categories of the kind scheme) or its media types.
     */
    static void service(Snapshot s, Configuration config, Model model, String mount, ContentHandler h) throws SAXException {
        Sax x = new Sax(h);
        h.startPrefixMapping("", Atom.APP_NS);
        h.startPrefixMapping("atom", Atom.NS);
        x.start(Atom.APP_NS, "service");
        Kind root = model.kind(Atom.ROOT_KIND);
        x.start(Atom.APP_NS, "workspace");
        x.element(Atom.NS, "atom:title", "Arno store");
        if (root != null) {
            for (Kind.Collection c : root.collections()) collection(x, "", collectionUrl(mount, ResourcePath.ROOT, c), c);
        }
        x.end(Atom.APP_NS, "workspace");
        int[] left = {MAX_WORKSPACES};
        for (String top : entryNames(s, ResourcePath.ROOT)) {
            ResourcePath p = ResourcePath.ROOT.child(top);
            workspace(s, config, model, mount, p, x, left);
            for (String child : entryNames(s, p)) workspace(s, config, model, mount, p.child(child), x, left);
            if (left[0] <= 0) break;
        }
        x.end(Atom.APP_NS, "service");
        h.endPrefixMapping("atom");
        h.endPrefixMapping("");
    }

    private static void workspace(Snapshot s, Configuration config, Model model, String mount, ResourcePath p, Sax x,
                                  int[] left) throws SAXException {
        if (left[0] <= 0) return;
        Facts f = facts(s, config, p.entryDocument());
        Kind k = f.kind() == null ? null : model.kind(f.kind());
        if (k == null || k.collections().isEmpty()) return;
        left[0]--;
        x.start(Atom.APP_NS, "workspace");
        x.element(Atom.NS, "atom:title", f.title() == null || f.title().isBlank() ? p.toString() : f.title().strip());
        for (Kind.Collection c : k.collections()) collection(x, "", collectionUrl(mount, p, c), c);
        x.end(Atom.APP_NS, "workspace");
    }

    /**
     * An {@code app:collection} for {@code c} at {@code href}: its name as title, and what it
     * accepts. {@code app} is the prefix of RFC 5023's namespace ("" or "app:"); "atom" must be bound.
     */
    static void collection(Sax x, String app, String href, Kind.Collection c) throws SAXException {
        x.start(Atom.APP_NS, app + "collection", "href", href);
        x.element(Atom.NS, "atom:title", c.name());
        if (!c.kinds().isEmpty()) {
            x.element(Atom.APP_NS, app + "accept", Atom.ENTRY_TYPE);
            x.start(Atom.APP_NS, app + "categories", "fixed", "yes", "scheme", Atom.KIND_SCHEME);
            for (String k : c.kinds()) x.element(Atom.NS, "atom:category", null, "term", k, "scheme", Atom.KIND_SCHEME);
            x.end(Atom.APP_NS, app + "categories");
        }
        for (String m : c.mediaTypes()) x.element(Atom.APP_NS, app + "accept", m);
        x.end(Atom.APP_NS, app + "collection");
    }

    /** The collection {@code name} of {@code parent}, of kind {@code kind} (null: none asked); 404 when it has none so named. */
    static Kind.Collection named(ResourcePath parent, Kind kind, String name) {
        if (name == null) return null;
        Kind.Collection c = kind == null ? null : kind.collection(name);
        if (c != null) return c;
        List<String> names = new ArrayList<>();
        if (kind != null) for (Kind.Collection x : kind.collections()) names.add(x.name());
        throw (kind == null ? ErrorMessage.NO_COLLECTION_WITHOUT_KIND.error(name, parent.isRoot() ? "the root" : parent)
                : ErrorMessage.NO_COLLECTION_OF.error(name, parent.isRoot() ? "the root" : parent, kind.name(),
                        names.isEmpty() ? "none" : String.join(", ", names))).at(Where.at("store:" + parent.childrenFolder()));
    }

    /** The IRI of collection {@code c} of {@code parent}: GET its feed, POST a member. */
    static String collectionUrl(String mount, ResourcePath parent, Kind.Collection c) {
        return mount + parent.childrenFolder() + "?collection=" + URLEncoder.encode(c.name(), StandardCharsets.UTF_8);
    }

    /** The names of the children of {@code parent} that have an entry, in name order. */
    private static List<String> entryNames(Snapshot s, ResourcePath parent) {
        List<String> names = new ArrayList<>();
        for (String item : s.children(parent.childrenFolder())) {
            if (!item.endsWith("." + Atom.ENTRY_EXTENSION)) continue;
            String name = item.substring(0, item.length() - Atom.ENTRY_EXTENSION.length() - 1);
            if (ResourcePath.isName(name)) names.add(name);
        }
        names.sort(null);
        return names;
    }

    /** What a feed needs to know of a stored entry: its kind, its media's type (edit-media), its title's text. */
    record Facts(String kind, String mediaType, String title) {
    }

    /** The {@link Facts} of the entry document {@code doc}; all null when it is no entry. */
    static Facts facts(Snapshot s, Configuration config, String doc) {
        String kind = null;
        String media = null;
        String title = null;
        if (!s.exists(doc)) return new Facts(null, null, null);
        for (NodeInfo e : s.document(doc, config).getRootNode().children()) {
            if (e.getNodeKind() != Type.ELEMENT) continue;
            for (NodeInfo c : e.children()) {
                if (c.getNodeKind() != Type.ELEMENT || !Atom.NS.equals(c.getURI())) continue;
                switch (c.getLocalPart()) {
                    case "category" -> {
                        if (kind == null && Atom.KIND_SCHEME.equals(c.getAttributeValue("", "scheme"))) {
                            String t = c.getAttributeValue("", "term");
                            kind = t == null ? null : t.strip();
                        }
                    }
                    case "link" -> {
                        String rel = c.getAttributeValue("", "rel");
                        if (media == null && rel != null && rel.strip().equals(Atom.REL_EDIT_MEDIA)) {
                            media = c.getAttributeValue("", "type");
                        }
                    }
                    case "title" -> {
                        if (title == null) title = c.getStringValue();
                    }
                    default -> { }
                }
            }
            break;
        }
        return new Facts(kind, media, title);
    }

    /** The kind of the entry at {@code path} (its category of the kind scheme), or null. */
    static String kindOf(Snapshot s, Configuration config, ResourcePath path) {
        return facts(s, config, path.entryDocument()).kind();
    }

    static String time(Instant t) {
        return (t == null ? Instant.EPOCH : t).toString();
    }
}
