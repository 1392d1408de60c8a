package arno.store.http;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.atom.Atom;
import arno.store.atom.Expansion;
import arno.store.atom.ResourcePath;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.type.Type;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;

/**
 * The documents the API composes rather than stores: the children feed, the change feed and the
 * AtomPub service document. Each is written as SAX events from one snapshot; hrefs given here are
 * already URLs, the stored entries inside go through {@link Hrefs}.
 */
final class Feeds {
    private static final String ARNO = "arno";
    private static final int LISTING_BATCH = 256;

    private Feeds() {}

    /**
     * Up to {@code max} names of the children of {@code parent} that have an entry, after the
     * name {@code after} (exclusive; null from the first), in the order of the store's hierarchy
     * index (the bytes of {@code NAME.atom}). Variants and sub-folders in the listing are stepped
     * over, so a page costs O(page · log n) plus the variants between its entries.
     */
    static List<String> childNames(Snapshot s, ResourcePath parent, String after, int max) {
        String folder = parent.childrenFolder();
        List<String> names = new ArrayList<>();
        String cursor = after == null ? null : after + "." + Atom.ENTRY_EXTENSION;
        while (names.size() < max) {
            List<String> items = s.children(folder, cursor, LISTING_BATCH);
            for (String item : items) {
                if (!item.endsWith("." + Atom.ENTRY_EXTENSION)) continue;
                String name = item.substring(0, item.length() - Atom.ENTRY_EXTENSION.length() - 1);
                if (ResourcePath.NAME.matcher(name).matches()) {
                    names.add(name);
                    if (names.size() == max) break;
                }
            }
            if (items.size() < LISTING_BATCH) break;
            cursor = items.get(items.size() - 1);
        }
        return names;
    }

    /** The children of {@code parent} named {@code names}, each expanded by {@code o}, as an Atom feed. */
    static void children(Snapshot s, Configuration config, ResourcePath parent, List<String> names,
                         Expansion.Options o, String mount, String self, String next, ContentHandler h)
            throws SAXException {
        Sax x = new Sax(h);
        h.startPrefixMapping("", Atom.NS);
        h.startPrefixMapping(ARNO, Atom.ARNO_NS);
        x.start(Atom.NS, "feed");
        x.element(Atom.NS, "id", "urn:arno:children:" + parent.childrenFolder());
        x.element(Atom.NS, "title", parent.isRoot() ? "Top-level entries" : "Children of " + parent);
        x.element(Atom.NS, "updated", time(s.committedAt(s.version())));
        x.element(Atom.NS, "link", null, "rel", Atom.REL_SELF, "href", self, "type", Atom.FEED_TYPE);
        if (!parent.isRoot()) {
            x.element(Atom.NS, "link", null, "rel", Atom.REL_UP, "href", mount + parent.entryDocument(), "type", Atom.ENTRY_TYPE);
        }
        if (next != null) x.element(Atom.NS, "link", null, "rel", Atom.REL_NEXT, "href", next, "type", Atom.FEED_TYPE);
        Hrefs hrefs = new Hrefs(mount, h);
        for (String name : names) Expansion.write(s, config, parent.child(name), o, hrefs);
        x.end(Atom.NS, "feed");
        h.endPrefixMapping(ARNO);
        h.endPrefixMapping("");
    }

    /** One page of the change feed. */
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
            x.end(Atom.NS, "entry");
        }
        x.end(Atom.NS, "feed");
        h.endPrefixMapping(ARNO);
        h.endPrefixMapping("");
    }

    /**
     * The AtomPub service document: one workspace whose collections are those of the root's
     * introspection document ({@code /_model/root.xml}). Each collection's href names it
     * explicitly ({@code MOUNT/?collection=NAME}), so a POST there picks it; it accepts Atom
     * entries of its kinds (listed as fixed categories of the kind scheme) or its media types.
     */
    static void service(Snapshot s, Configuration config, String mount, ContentHandler h) throws SAXException {
        Sax x = new Sax(h);
        h.startPrefixMapping("", Atom.APP_NS);
        h.startPrefixMapping("atom", Atom.NS);
        x.start(Atom.APP_NS, "service");
        x.start(Atom.APP_NS, "workspace");
        x.element(Atom.NS, "atom:title", "Arno store");
        String rootModel = Atom.MODEL_FOLDER + Atom.ROOT_KIND + ".xml";
        if (s.exists(rootModel)) {
            NodeInfo kind = null;
            for (NodeInfo c : s.document(rootModel, config).getRootNode().children()) {
                if (c.getNodeKind() == Type.ELEMENT) kind = c;
            }
            for (NodeInfo c : kind == null ? List.<NodeInfo>of() : kind.children()) {
                if (c.getNodeKind() != Type.ELEMENT || !Atom.INTROSPECTION_NS.equals(c.getURI())
                        || !c.getLocalPart().equals("collection")) {
                    continue;
                }
                String name = c.getAttributeValue("", "name");
                String kinds = c.getAttributeValue("", "kinds");
                String media = c.getAttributeValue("", "media-types");
                x.start(Atom.APP_NS, "collection", "href",
                        mount + "/?collection=" + URLEncoder.encode(name == null ? "" : name, StandardCharsets.UTF_8));
                x.element(Atom.NS, "atom:title", name);
                if (kinds != null && !kinds.isBlank()) {
                    x.element(Atom.APP_NS, "accept", Atom.ENTRY_TYPE);
                    x.start(Atom.APP_NS, "categories", "fixed", "yes", "scheme", Atom.KIND_SCHEME);
                    for (String k : kinds.strip().split("\\s+")) {
                        x.element(Atom.NS, "atom:category", null, "term", k, "scheme", Atom.KIND_SCHEME);
                    }
                    x.end(Atom.APP_NS, "categories");
                }
                if (media != null && !media.isBlank()) {
                    for (String m : media.strip().split("\\s+")) x.element(Atom.APP_NS, "accept", m);
                }
                x.end(Atom.APP_NS, "collection");
            }
        }
        x.end(Atom.APP_NS, "workspace");
        x.end(Atom.APP_NS, "service");
        h.endPrefixMapping("atom");
        h.endPrefixMapping("");
    }

    /** The kind of the entry at {@code path} (its category of the kind scheme), or null. */
    static String kindOf(Snapshot s, Configuration config, ResourcePath path) {
        for (NodeInfo e : s.document(path.entryDocument(), config).getRootNode().children()) {
            if (e.getNodeKind() != Type.ELEMENT) continue;
            for (NodeInfo c : e.children()) {
                if (c.getNodeKind() == Type.ELEMENT && Atom.NS.equals(c.getURI()) && c.getLocalPart().equals("category")
                        && Atom.KIND_SCHEME.equals(c.getAttributeValue("", "scheme"))) {
                    return c.getAttributeValue("", "term");
                }
            }
        }
        return null;
    }

    private static String time(Instant t) {
        return (t == null ? Instant.EPOCH : t).toString();
    }
}
