package arno.store.atom;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javax.xml.namespace.QName;

import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.Where;
import arno.xml.XmlWriter;

/**
 * An atom:entry as the service handles it: the client's elements kept as sent (serialized, so the
 * model holds no tree and outlives the snapshot it was read from), its kind, its typed links, and,
 * for a stored entry, the parts the server manages (id, media). Immutable.
 *
 * <p>Reading sorts the entry's children into three heaps: what the server manages and so drops
 * ({@code id}, {@code updated}, the kind category, links {@code self}, {@code edit}, {@code up},
 * {@code describedby}, {@code alternate}, {@code edit-media}; the media {@code content} of a
 * media-link entry), the typed links ({@code link rel="related" arno:role="R"}), which the
 * service checks and maintains, and everything else, kept as sent. {@link #write} puts the
 * managed parts back, computed, in front of the rest.
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

    /** One kept child element: its name and its XML as sent. */
    record Kept(QName name, String xml) {
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

    /** Reads a stored entry (a tree from the store; its managed parts are taken as they are). */
    static Entry stored(AtomXml xml, XdmNode doc, String what) {
        return read(xml, documentElement(doc), what, what, true, "");
    }

    /** The kind of a stored entry (its category scheme="urn:arno:kind"), read without copying anything; null if none. */
    static String kindOf(XdmNode doc) {
        for (XdmNode c : documentElement(doc).children()) {
            if (c.getNodeKind() == XdmNodeKind.ELEMENT && "category".equals(c.getNodeName().getLocalName())
                    && Atom.NS.equals(c.getNodeName().getNamespaceUri().toString())
                    && Atom.KIND_SCHEME.equals(c.attribute("scheme"))) {
                String t = c.attribute("term");
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
            throw invalid(what, systemId, entry, "the document element is {" + n.getNamespaceUri() + "}" + n.getLocalName()
                    + "; an Atom entry is <entry xmlns=\"" + Atom.NS + "\">");
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
                    throw invalid(what, systemId, c, "atom:entry has text of its own (\"" + abbreviate(c.getStringValue().strip())
                            + "\"); text belongs in its child elements");
                }
                continue;
            }
            if (c.getNodeKind() != XdmNodeKind.ELEMENT) continue;
            String ns = c.getNodeName().getNamespaceUri().toString();
            String local = c.getNodeName().getLocalName();
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
                                throw invalid(what, systemId, c, "the kind category (scheme=\"" + Atom.KIND_SCHEME + "\") has no term");
                            }
                            if (kind != null && !kind.equals(term.strip())) {
                                throw invalid(what, systemId, c, "the entry has two kinds, '" + kind + "' and '" + term.strip()
                                        + "'; give one category scheme=\"" + Atom.KIND_SCHEME + "\"");
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
                        if (MANAGED_RELS.contains(rel)) continue;
                        String role = c.getAttributeValue(new net.sf.saxon.s9api.QName(Atom.ARNO_NS, "role"));
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
            kept.add(new Kept(name, xml.serialize(c)));
        }
        if (media != null && media.href.equals(mediaSrc)) {
            kept.removeIf(k -> k.name.getNamespaceURI().equals(Atom.NS) && k.name.getLocalPart().equals("content"));
        }
        if (!elements.contains(new QName(Atom.NS, "title"))) {
            throw ErrorCode.UNPROCESSABLE.error(what + " has no atom:title; every Atom entry needs one (RFC 4287 4.1.2)")
                    .at(Where.at(systemId, entry.getLineNumber(), entry.getColumnNumber()));
        }
        return new Entry(id, kind, kept, links, media, elements);
    }

    /** The href of a typed link as the document path of an entry ({@code /a/b.atom}). */
    private static String target(XdmNode link, String what, String systemId, boolean stored, String mount, String role) {
        String href = link.attribute("href");
        if (href == null) throw invalid(what, systemId, link, "the link with role '" + role + "' has no href");
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
        throw ErrorCode.UNPROCESSABLE.error("the link with role '" + role + "' points to '" + href
                + "', which is not the path of an entry; typed links point to entries, e.g. href=\"/journals/ja/v1/i1/a0001/f1.atom\"")
                .at(Where.at(systemId, link.getLineNumber(), link.getColumnNumber()));
    }

    /**
     * The stored form of this entry at {@code path}: RFC 4287, its hrefs store paths, the managed
     * parts computed, the rest as the client sent it.
     */
    byte[] write(ResourcePath path, Instant updated, String user, List<Alternate> alternates) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        XmlWriter w = new XmlWriter(bytes);
        w.declaration();
        w.start("entry").attr("xmlns", Atom.NS).attr("xmlns:arno", Atom.ARNO_NS);
        w.element("id", id);
        w.element("updated", TIME.format(updated.truncatedTo(ChronoUnit.MILLIS)));
        if (!has(Atom.NS, "author")) {
            w.start("author").element("name", user == null || user.isBlank() ? "arno" : user).end();
        }
        if (kind != null) w.start("category").attr("scheme", Atom.KIND_SCHEME).attr("term", kind).end();
        String self = path.entryDocument();
        w.start("link").attr("rel", Atom.REL_SELF).attr("href", self).end();
        w.start("link").attr("rel", Atom.REL_EDIT).attr("href", self).end();
        ResourcePath parent = path.parent();
        if (!parent.isRoot()) w.start("link").attr("rel", Atom.REL_UP).attr("href", parent.entryDocument()).end();
        if (kind != null) {
            w.start("link").attr("rel", Atom.REL_DESCRIBED_BY).attr("type", "application/xml")
                    .attr("href", Introspection.path(kind)).end();
        }
        for (Alternate a : alternates) {
            w.start("link").attr("rel", Atom.REL_ALTERNATE).attr("arno:role", a.role).attr("type", a.mediaType)
                    .attr("href", a.href).attr("length", a.length >= 0 ? a.length : null).end();
        }
        if (media != null) {
            w.start("link").attr("rel", Atom.REL_EDIT_MEDIA).attr("type", media.mediaType).attr("href", media.href).end();
            w.start("content").attr("type", media.mediaType).attr("src", media.href).end();
        }
        for (Link l : links) {
            w.start("link").attr("rel", Atom.REL_RELATED).attr("arno:role", l.role).attr("href", l.href)
                    .attr("title", l.title).end();
        }
        for (Kept k : kept) {
            if (media != null && k.name.getNamespaceURI().equals(Atom.NS) && k.name.getLocalPart().equals("content")) {
                continue;
            }
            w.raw(k.xml.getBytes(StandardCharsets.UTF_8));
        }
        w.end();
        w.finish();
        return bytes.toByteArray();
    }

    /** The media-link entry the server makes for a posted media resource. */
    static Entry forMedia(String title, String kind, Media media) {
        String t = "<title xmlns=\"" + Atom.NS + "\">" + escape(title) + "</title>";
        return new Entry(null, kind, List.of(new Kept(new QName(Atom.NS, "title"), t)), List.of(), media,
                Set.of(new QName(Atom.NS, "title")));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    private static ArnoException invalid(String what, String systemId, XdmNode at, String why) {
        return ErrorCode.INVALID_XML.error(what, why).at(Where.at(systemId, at.getLineNumber(), at.getColumnNumber()));
    }
}
