package arno.store.http;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.atom.Atom;
import arno.store.atom.Kind;
import arno.store.atom.Model;
import arno.store.atom.ResourcePath;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * What the API adds to every stored entry it serves (the entry itself, the members of a feed, the
 * entries an expansion inlines), computed from the snapshot at the end of each atom:entry, so that
 * a generic AtomPub client finds what RFC 4287 and RFC 5023 promise it:
 * <ul>
 * <li>{@code app:edited} (RFC 5023 10.2): the commit time of the version that last wrote the
 * entry, which also orders the feeds ({@link Feeds});</li>
 * <li>one {@code app:collection} per collection of the entry's kind, at
 * {@code MOUNT/P/?collection=NAME}: where its children are listed and posted;</li>
 * <li>RFC 4287 4.1.2: an empty {@code <content type="text"/>} when the entry has neither content nor
 * an alternate link (a journal, a volume, an issue; an article before its variants), and an empty
 * {@code <summary type="text"/>} when its content is out of line ({@code src}, a media-link entry)
 * and it has no summary (as in RFC 5023's own example of a media-link entry).</li>
 * </ul>
 * An {@code app:edited} or {@code app:collection} stored in an entry (the service drops them from
 * what clients send; a document loaded around it may have them) is left out, so each is the
 * server's and there is one {@code app:edited}. Then {@link Hrefs} makes store paths URLs.
 * The stored documents are not changed: pipelines read entries as they are stored.
 */
final class Served extends XMLFilterImpl {
    private final Snapshot s;
    private final Model model;
    private final String mount;
    /** The atom:entry elements open, innermost first. */
    private final Deque<Open> entries = new ArrayDeque<>();
    private int depth;
    /** The depth of a stored app element being left out, or -1. */
    private int skipping = -1;
    /** Prefix mappings before the next element, held until it is known whether it is left out. */
    private final List<String[]> mappings = new ArrayList<>();
    /** endPrefixMapping events still to drop, those of the last element left out. */
    private int droppedEnds;

    /** One open entry: what its children say, at its own depth. */
    private static final class Open {
        final int depth;
        String self;
        String kind;
        boolean content;
        boolean alternate;
        boolean outOfLine;
        boolean summary;

        Open(int depth) {
            this.depth = depth;
        }
    }

    private Served(Snapshot s, Model model, String mount, ContentHandler out) {
        this.s = s;
        this.model = model;
        this.mount = mount;
        setContentHandler(out);
    }

    /** Events to {@code out} with the managed parts added, and store paths made URLs under {@code mount}. */
    static ContentHandler of(Snapshot s, Model model, String mount, ContentHandler out) {
        return new Served(s, model, mount, new Hrefs(mount, out));
    }

    @Override
    public void startPrefixMapping(String prefix, String uri) {
        if (skipping < 0) mappings.add(new String[] {prefix, uri});
    }

    @Override
    public void endPrefixMapping(String prefix) throws SAXException {
        if (skipping >= 0) return;
        if (droppedEnds > 0) {
            droppedEnds--;
            return;
        }
        super.endPrefixMapping(prefix);
    }

    @Override
    public void startElement(String uri, String local, String qname, Attributes atts) throws SAXException {
        depth++;
        if (skipping >= 0) return;
        Open e = entries.peek();
        if (e != null && depth == e.depth + 1) {
            if (Atom.APP_NS.equals(uri) && (local.equals("edited") || local.equals("collection"))) {
                skipping = depth;
                droppedEnds = mappings.size();
                mappings.clear();
                return;
            }
            if (Atom.NS.equals(uri)) see(e, local, atts);
        }
        if (Atom.NS.equals(uri) && local.equals("entry")) entries.push(new Open(depth));
        for (String[] m : mappings) super.startPrefixMapping(m[0], m[1]);
        mappings.clear();
        super.startElement(uri, local, qname, atts);
    }

    @Override
    public void endElement(String uri, String local, String qname) throws SAXException {
        if (skipping >= 0) {
            if (depth == skipping) skipping = -1;
            depth--;
            return;
        }
        Open e = entries.peek();
        if (e != null && depth == e.depth) {
            entries.pop();
            add(e);
        }
        depth--;
        super.endElement(uri, local, qname);
    }

    @Override
    public void characters(char[] ch, int start, int length) throws SAXException {
        if (skipping < 0) super.characters(ch, start, length);
    }

    @Override
    public void ignorableWhitespace(char[] ch, int start, int length) throws SAXException {
        if (skipping < 0) super.ignorableWhitespace(ch, start, length);
    }

    @Override
    public void processingInstruction(String target, String data) throws SAXException {
        if (skipping < 0) super.processingInstruction(target, data);
    }

    private static void see(Open e, String local, Attributes atts) {
        switch (local) {
            case "link" -> {
                String rel = atts.getValue("", "rel");
                rel = rel == null ? Atom.REL_ALTERNATE : rel.strip();
                if (rel.equals(Atom.REL_ALTERNATE)) e.alternate = true;
                if (rel.equals(Atom.REL_SELF) && e.self == null) e.self = atts.getValue("", "href");
            }
            case "content" -> {
                e.content = true;
                e.outOfLine = atts.getValue("", "src") != null;
            }
            case "summary" -> e.summary = true;
            case "category" -> {
                if (e.kind == null && Atom.KIND_SCHEME.equals(atts.getValue("", "scheme"))) {
                    String t = atts.getValue("", "term");
                    e.kind = t == null ? null : t.strip();
                }
            }
            default -> { }
        }
    }

    /**
     * The managed parts of the entry {@code e}, just before it ends. Each added element declares
     * the prefixes it uses itself, whatever the entry binds (a SAX mapping applies to the next
     * element only; the serializer drops a declaration already in scope, as in a feed).
     */
    private void add(Open e) throws SAXException {
        Sax x = new Sax(getContentHandler());
        if (!e.content && !e.alternate) atom(x, "content");
        if (e.outOfLine && !e.summary) atom(x, "summary");
        ResourcePath.Document doc = e.self == null ? null : ResourcePath.document(e.self);
        if (doc == null || !doc.isEntry()) return;
        DocumentInfo info = s.info(doc.storePath());
        if (info != null && info.modified() != null) {
            declare("app", Atom.APP_NS);
            x.element(Atom.APP_NS, "app:edited", Feeds.time(info.modified()));
            undeclare("app");
        }
        Kind k = e.kind == null ? null : model.kind(e.kind);
        if (k == null) return;
        for (Kind.Collection c : k.collections()) {
            declare("app", Atom.APP_NS);
            declare("atom", Atom.NS);
            Feeds.collection(x, "app:", Feeds.collectionUrl(mount, doc.resource(), c), c);
            undeclare("atom");
            undeclare("app");
        }
    }

    /** An empty Atom text construct, {@code <content type="text"/>}. */
    private void atom(Sax x, String local) throws SAXException {
        declare("", Atom.NS);
        x.element(Atom.NS, local, null, "type", "text");
        undeclare("");
    }

    private void declare(String prefix, String uri) throws SAXException {
        getContentHandler().startPrefixMapping(prefix, uri);
    }

    private void undeclare(String prefix) throws SAXException {
        getContentHandler().endPrefixMapping(prefix);
    }
}
