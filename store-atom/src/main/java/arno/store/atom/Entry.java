package arno.store.atom;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javax.xml.namespace.QName;

import javax.xml.transform.Source;

import net.sf.saxon.event.EventSource;
import net.sf.saxon.event.ProxyReceiver;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.expr.parser.Loc;
import net.sf.saxon.lib.ParseOptions;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.CopyOptions;
import net.sf.saxon.om.EmptyAttributeMap;
import net.sf.saxon.om.FingerprintedQName;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NoNamespaceName;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import net.sf.saxon.str.StringView;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.BuiltInAtomicType;
import net.sf.saxon.type.SchemaType;
import net.sf.saxon.type.Untyped;

import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * An atom:entry as the service handles it: the client's elements kept as sent (as nodes of a
 * TinyTree of its own: the one the posted entry was parsed into, or a copy of the stored entry,
 * so that it outlives the snapshot it was read from), its kind, its typed links, and, for a stored
 * entry, the parts the server manages (id, media). Immutable.
 *
 * <p>Reading sorts the entry's children into three heaps: what the server manages and so drops
 * ({@code id}, {@code updated}, the kind category, links {@code self}, {@code edit}, {@code up},
 * {@code down}, {@code describedby}, {@code edit-media}, and {@code alternate} with an
 * {@code arno:role}, which is a variant's; the media {@code content} of a media-link entry;
 * {@code app:edited} and {@code app:collection}, which the HTTP API adds as it serves the entry),
 * the typed links ({@code link rel="related" arno:role="R"}), which the service checks and
 * maintains, and everything else, kept as sent: a client's own {@code link rel="alternate"}
 * (without {@code arno:role}) too. {@link #source} puts the
 * managed parts back, computed, in front of the rest.
 *
 * <h2>Writing without parsing</h2>
 * The stored form goes to the store as Saxon events ({@link #source}), never as text to parse
 * again: the writer thread, which every write of the service goes through, parsed each entry a
 * second time when this built bytes (about half of its time per created entry). The events are
 * those the parse of the same XML would give: the managed elements with the entry's two
 * namespace bindings in scope, then each kept element copied from its tree with those two
 * bindings added to its own in-scope ones, as they were inherited when the kept XML sat inside
 * the entry's text (an unprefixed element in no namespace does not inherit the default one).
 */
final class Entry {

    /** A typed link to another entry's document ({@code /a/b.atom}). */
    record Link(String role, String href, String title) {
    }

    /** The media resource of a media-link entry. */
    record Media(String href, String mediaType) {
    }

    /** A variant of the entry, as its {@code link rel="alternate"} shows it. */
    record Alternate(String role, String mediaType, String href, long length) {
    }

    /**
     * One kept child element: its name and the element as sent (a node of an immutable tree), or
     * for the title the server makes for a media-link entry, {@code node} null and its text.
     */
    record Kept(QName name, NodeInfo node, String text) {
    }

    private static final Set<String> MANAGED_RELS = Set.of(Atom.REL_SELF, Atom.REL_EDIT, Atom.REL_UP,
            Atom.REL_DESCRIBED_BY, Atom.REL_ALTERNATE, Atom.REL_EDIT_MEDIA, Atom.REL_DOWN);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_INSTANT;

    final String id;
    final String kind;
    final List<Kept> kept;
    final List<Link> links;
    final Media media;
    /** Names of the child elements as the entry had them (managed ones included). */
    final Set<QName> elements;

    private Entry(String id, String kind, List<Kept> kept, List<Link> links, Media media, Set<QName> elements) {
        this.id = id;
        this.kind = kind;
        this.kept = List.copyOf(kept);
        this.links = List.copyOf(links);
        this.media = media;
        this.elements = Set.copyOf(elements);
    }

    /** The text of the entry's atom:title (as sent, or the one the server made for media), or null. */
    String title() {
        for (Kept k : kept) {
            if (k.name.getNamespaceURI().equals(Atom.NS) && k.name.getLocalPart().equals("title")) {
                return k.node != null ? k.node.getStringValue() : k.text;
            }
        }
        return null;
    }

    boolean has(String ns, String local) {
        return elements.contains(new QName(ns, local));
    }

    Entry withLinks(List<Link> newLinks) {
        return new Entry(id, kind, kept, newLinks, media, elements);
    }

    Entry withKind(String newKind) {
        return new Entry(id, newKind, kept, links, media, elements);
    }

    Entry withId(String newId) {
        return new Entry(newId, kind, kept, links, media, elements);
    }

    Entry withMedia(Media newMedia) {
        return new Entry(id, kind, kept, links, newMedia, elements);
    }

    /** The typed links with that role and href removed; this entry when there was none. */
    Entry without(String role, String href) {
        List<Link> l = new ArrayList<>(links);
        return l.removeIf(x -> x.role.equals(role) && x.href.equals(href)) ? withLinks(l) : this;
    }

    /** This entry with one more typed link, unless it has it already. */
    Entry with(Link link) {
        for (Link l : links) if (l.role.equals(link.role) && l.href.equals(link.href)) return this;
        List<Link> l = new ArrayList<>(links);
        l.add(link);
        return withLinks(l);
    }

    /**
     * Parses a posted entry ({@code what} names it in errors): MALFORMED_XML / REFUSED_XML with
     * line and column, INVALID_XML when it is not an atom:entry or breaks Atom's own rules.
     * {@code mount}: a path prefix of the HTTP API that typed links' hrefs may carry ("" for none).
     */
    static Entry parse(AtomXml xml, byte[] bytes, String what, String systemId, String mount) {
        XdmNode doc = xml.parse(bytes, what, systemId);
        return read(xml, documentElement(doc), what, systemId, false, mount);
    }

    /**
     * Reads a stored entry (a tree from the store, copied first into a TinyTree, since the store's
     * tree is valid only until the transaction's next write; its managed parts are taken as they are).
     */
    static Entry stored(AtomXml xml, XdmNode doc, String what) {
        return read(xml, documentElement(xml.copy(doc)), what, what, true, "");
    }

    /** The kind of a stored entry (its category scheme="urn:arno:kind"), read without copying anything; null if none. */
    static String kindOf(NodeInfo doc) {
        NodeInfo entry = null;
        for (NodeInfo c : doc.children()) {
            if (c.getNodeKind() == net.sf.saxon.type.Type.ELEMENT) {
                entry = c;
                break;
            }
        }
        if (entry == null) return null;
        for (NodeInfo c : entry.children()) {
            if (c.getNodeKind() == net.sf.saxon.type.Type.ELEMENT && "category".equals(c.getLocalPart())
                    && Atom.NS.equals(c.getURI()) && Atom.KIND_SCHEME.equals(c.getAttributeValue(NamespaceUri.NULL, "scheme"))) {
                String t = c.getAttributeValue(NamespaceUri.NULL, "term");
                return t == null ? null : t.strip();
            }
        }
        return null;
    }

    private static XdmNode documentElement(XdmNode doc) {
        for (XdmNode c : doc.children()) if (c.getNodeKind() == XdmNodeKind.ELEMENT) return c;
        throw new IllegalStateException("a parsed document without an element");
    }

    private static Entry read(AtomXml xml, XdmNode entry, String what, String systemId, boolean stored, String mount) {
        net.sf.saxon.s9api.QName n = entry.getNodeName();
        if (!Atom.NS.equals(n.getNamespaceUri().toString()) || !"entry".equals(n.getLocalName())) {
            throw invalid(what, systemId, entry, ErrorMessage.NOT_ATOM_ENTRY, n.getNamespaceUri(), n.getLocalName(), Atom.NS);
        }
        String id = null;
        String kind = null;
        Media media = null;
        List<Kept> kept = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        Set<QName> elements = new LinkedHashSet<>();
        String mediaSrc = null;
        for (XdmNode c : entry.children()) {
            if (c.getNodeKind() == XdmNodeKind.TEXT) {
                if (!c.getStringValue().isBlank()) {
                    throw invalid(what, systemId, c, ErrorMessage.ENTRY_TEXT, abbreviate(c.getStringValue().strip()));
                }
                continue;
            }
            if (c.getNodeKind() != XdmNodeKind.ELEMENT) continue;
            String ns = c.getNodeName().getNamespaceUri().toString();
            String local = c.getNodeName().getLocalName();
            if (Atom.APP_NS.equals(ns) && (local.equals("edited") || local.equals("collection"))) continue;
            QName name = new QName(ns, local);
            elements.add(name);
            if (Atom.NS.equals(ns)) {
                switch (local) {
                    case "id" -> {
                        if (stored) id = c.getStringValue().strip();
                        continue;
                    }
                    case "updated" -> {
                        continue;
                    }
                    case "category" -> {
                        if (Atom.KIND_SCHEME.equals(c.attribute("scheme"))) {
                            String term = c.attribute("term");
                            if (term == null || term.isBlank()) {
                                throw invalid(what, systemId, c, ErrorMessage.KIND_WITHOUT_TERM, Atom.KIND_SCHEME);
                            }
                            if (kind != null && !kind.equals(term.strip())) {
                                throw invalid(what, systemId, c, ErrorMessage.TWO_KINDS, kind, term.strip(), Atom.KIND_SCHEME);
                            }
                            kind = term.strip();
                            continue;
                        }
                    }
                    case "link" -> {
                        String rel = c.attribute("rel");
                        rel = rel == null ? Atom.REL_ALTERNATE : rel.strip();
                        if (rel.equals(Atom.REL_EDIT_MEDIA) && stored) {
                            media = new Media(c.attribute("href"), c.attribute("type"));
                        }
                        String role = c.getAttributeValue(new net.sf.saxon.s9api.QName(Atom.ARNO_NS, "role"));
                        // an alternate link with a role is a variant's, which the server writes; a client's has none
                        if (MANAGED_RELS.contains(rel) && !(rel.equals(Atom.REL_ALTERNATE) && role == null)) continue;
                        if (rel.equals(Atom.REL_RELATED) && role != null) {
                            links.add(new Link(role.strip(), target(c, what, systemId, stored, mount, role.strip()),
                                    c.attribute("title")));
                            continue;
                        }
                    }
                    case "content" -> {
                        if (stored && c.attribute("src") != null) mediaSrc = c.attribute("src");
                    }
                    default -> {
                    }
                }
            }
            kept.add(new Kept(name, c.getUnderlyingNode(), null));
        }
        if (media != null && media.href.equals(mediaSrc)) {
            kept.removeIf(k -> k.name.getNamespaceURI().equals(Atom.NS) && k.name.getLocalPart().equals("content"));
        }
        if (!elements.contains(new QName(Atom.NS, "title"))) {
            throw ErrorMessage.NO_TITLE.error(what)
                    .at(Where.at(systemId, entry.getLineNumber(), entry.getColumnNumber()));
        }
        return new Entry(id, kind, kept, links, media, elements);
    }

    /** The href of a typed link as the document path of an entry ({@code /a/b.atom}). */
    private static String target(XdmNode link, String what, String systemId, boolean stored, String mount, String role) {
        String href = link.attribute("href");
        if (href == null) throw invalid(what, systemId, link, ErrorMessage.LINK_WITHOUT_HREF, role);
        href = href.strip();
        if (stored) return href;
        if (!mount.isEmpty() && href.startsWith(mount + "/")) href = href.substring(mount.length());
        ResourcePath.Document d = ResourcePath.document(href);
        if (d != null && d.isEntry()) return d.storePath();
        if (d == null && href.startsWith("/") && !href.startsWith("/_") && href.indexOf('.') < 0) {
            try {
                return ResourcePath.of(href).entryDocument();
            } catch (ArnoException | IllegalStateException e) {
                // fall through to the error below
            }
        }
        throw ErrorMessage.LINK_NOT_TO_ENTRY.error(role, href)
                .at(Where.at(systemId, link.getLineNumber(), link.getColumnNumber()));
    }

    /**
     * The stored form of this entry at {@code path}: RFC 4287, its hrefs store paths, the managed
     * parts computed, the rest as the client sent it; as events for
     * {@link arno.store.WriteTransaction#put(String, Source, String)} (see the class comment).
     */
    Source source(ResourcePath path, Instant updated, String user, List<Alternate> alternates, String systemId) {
        EventSource s = new EventSource() {
            @Override
            public void deliver(Receiver out, ParseOptions options) throws XPathException {
                out.open();
                out.startDocument(ReceiverOption.NONE);
                write(out, path, updated, user, alternates);
                out.endDocument();
                out.close();
            }
        };
        s.setSystemId(systemId);
        return s;
    }

    private static final NamespaceUri ATOM = NamespaceUri.of(Atom.NS);
    /** The bindings of the stored entry element, in scope on each of its children. */
    private static final NamespaceMap SCOPE = NamespaceMap.of("", ATOM).put("arno", NamespaceUri.of(Atom.ARNO_NS));
    private static final NodeName ENTRY = atom("entry");
    private static final NodeName ID = atom("id");
    private static final NodeName UPDATED = atom("updated");
    private static final NodeName AUTHOR = atom("author");
    private static final NodeName NAME = atom("name");
    private static final NodeName CATEGORY = atom("category");
    private static final NodeName LINK = atom("link");
    private static final NodeName CONTENT = atom("content");
    private static final NodeName TITLE = atom("title");
    private static final NodeName ROLE = new FingerprintedQName("arno", NamespaceUri.of(Atom.ARNO_NS), "role");

    private static NodeName atom(String local) {
        return new FingerprintedQName("", ATOM, local);
    }

    private void write(Receiver out, ResourcePath path, Instant updated, String user, List<Alternate> alternates)
            throws XPathException {
        start(out, ENTRY, EmptyAttributeMap.getInstance());
        text(out, ID, id);
        text(out, UPDATED, TIME.format(updated.truncatedTo(ChronoUnit.MILLIS)));
        if (!has(Atom.NS, "author")) {
            start(out, AUTHOR, EmptyAttributeMap.getInstance());
            text(out, NAME, user == null || user.isBlank() ? "arno" : user);
            out.endElement();
        }
        if (kind != null) empty(out, CATEGORY, attrs("scheme", Atom.KIND_SCHEME, "term", kind));
        String self = path.entryDocument();
        empty(out, LINK, attrs("rel", Atom.REL_SELF, "href", self));
        empty(out, LINK, attrs("rel", Atom.REL_EDIT, "href", self));
        ResourcePath parent = path.parent();
        if (!parent.isRoot()) empty(out, LINK, attrs("rel", Atom.REL_UP, "href", parent.entryDocument()));
        if (kind != null) {
            empty(out, LINK, attrs("rel", Atom.REL_DESCRIBED_BY, "type", "application/xml", "href", Introspection.path(kind)));
        }
        for (Alternate a : alternates) {
            empty(out, LINK, attrs("rel", Atom.REL_ALTERNATE, ROLE, a.role, "type", a.mediaType, "href", a.href,
                    "length", a.length >= 0 ? Long.toString(a.length) : null));
        }
        if (media != null) {
            empty(out, LINK, attrs("rel", Atom.REL_EDIT_MEDIA, "type", media.mediaType, "href", media.href));
            empty(out, CONTENT, attrs("type", media.mediaType, "src", media.href));
        }
        for (Link l : links) {
            empty(out, LINK, attrs("rel", Atom.REL_RELATED, ROLE, l.role, "href", l.href, "title", l.title));
        }
        Receiver inherit = new Inherit(out);
        for (Kept k : kept) {
            if (media != null && k.name.getNamespaceURI().equals(Atom.NS) && k.name.getLocalPart().equals("content")) {
                continue;
            }
            if (k.node != null) {
                k.node.copy(inherit, CopyOptions.ALL_NAMESPACES, Loc.NONE);
            } else {
                text(out, TITLE, k.text);
            }
        }
        out.endElement();
    }

    private static void start(Receiver out, NodeName name, AttributeMap atts) throws XPathException {
        out.startElement(name, Untyped.getInstance(), atts, SCOPE, Loc.NONE, ReceiverOption.NONE);
    }

    private static void empty(Receiver out, NodeName name, AttributeMap atts) throws XPathException {
        start(out, name, atts);
        out.endElement();
    }

    private static void text(Receiver out, NodeName name, String value) throws XPathException {
        start(out, name, EmptyAttributeMap.getInstance());
        if (value != null && !value.isEmpty()) out.characters(StringView.of(value), Loc.NONE, ReceiverOption.NONE);
        out.endElement();
    }

    /**
     * Attributes, in order, from name/value pairs (a name is a local name in no namespace, or a
     * NodeName); a null value leaves its attribute out.
     */
    private static AttributeMap attrs(Object... pairs) {
        AttributeMap m = EmptyAttributeMap.getInstance();
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] == null) continue;
            NodeName name = pairs[i] instanceof NodeName n ? n : new NoNamespaceName((String) pairs[i]);
            m = m.put(new AttributeInfo(name, BuiltInAtomicType.UNTYPED_ATOMIC, (String) pairs[i + 1], Loc.NONE,
                    ReceiverOption.NONE));
        }
        return m;
    }

    /**
     * Gives each copied element the entry's bindings as inherited ones, under its own; an element
     * in no namespace without prefix keeps no default binding (as xmlns="" would have said).
     */
    private static final class Inherit extends ProxyReceiver {
        Inherit(Receiver next) {
            super(next);
        }

        @Override
        public void startElement(NodeName name, SchemaType type, AttributeMap atts, NamespaceMap ns, Location location,
                int properties) throws XPathException {
            NamespaceMap scope = SCOPE;
            for (NamespaceBinding b : ns) scope = scope.put(b.getPrefix(), b.getNamespaceUri());
            if (name.getPrefix().isEmpty() && name.getNamespaceUri().isEmpty()) {
                scope = scope.remove("");
            }
            nextReceiver.startElement(name, type, atts, scope, location, properties);
        }
    }

    /** The media-link entry the server makes for a posted media resource. */
    static Entry forMedia(String title, String kind, Media media) {
        return new Entry(null, kind, List.of(new Kept(new QName(Atom.NS, "title"), null, title)), List.of(), media,
                Set.of(new QName(Atom.NS, "title")));
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    /** {@code message} about {@code what}, its first value, then {@code values}; located at {@code at}. */
    private static ArnoException invalid(String what, String systemId, XdmNode at, ErrorMessage message, Object... values) {
        return message.error(ErrorMessage.prepend(what, values)).at(Where.at(systemId, at.getLineNumber(), at.getColumnNumber()));
    }
}
