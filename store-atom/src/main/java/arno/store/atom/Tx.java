package arno.store.atom;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

import javax.xml.namespace.QName;
import javax.xml.transform.stream.StreamSource;

import net.sf.saxon.s9api.XdmNode;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.WriteTransaction;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * One write transaction as the operations see it: reads through the transaction's own view (so
 * an operation sees what earlier ones in the same group wrote), the model of that view, and the
 * writes every operation shares: an entry in its stored form with its references, a variant,
 * reciprocal links. Used by the writer thread only.
 *
 * <p>The view's trees are valid only until the next write, so everything read is copied into an
 * {@link Entry} (which holds no tree of the store) before anything is written.
 *
 * <p>Per group, not per operation: the model is checked against the view once (a group's
 * operations share it until one writes a model document), and the kind of a committed entry
 * comes from {@link AtomStore}'s cache of kinds by (document, version) when it is there, so a
 * creation reads its parent's version (one B+tree lookup) instead of its tree.
 */
public final class Tx {
    /** The media type entries are stored with. */
    static final String ENTRY_MEDIA_TYPE = "application/atom+xml";

    final WriteTransaction w;
    final AtomStore atom;
    final AtomXml xml;
    private Model model;

    /**
     * The view of one group of operations over {@code w}, a write transaction of {@code atom}'s
     * store: a {@link WritePath} opens one per transaction and runs each operation through it.
     */
    public Tx(WriteTransaction w, AtomStore atom) {
        this.w = w;
        this.atom = atom;
        this.xml = atom.xml;
    }

    Snapshot view() {
        return w.view();
    }

    Model model() {
        if (model == null) model = atom.model(view());
        return model;
    }

    /** A model document was written in this transaction: read the model again. */
    void modelChanged() {
        model = null;
        atom.forgetModel();
    }

    /** The stored entry at {@code p}, or null. */
    Entry stored(ResourcePath p) {
        String doc = p.entryDocument();
        Snapshot v = view();
        if (!v.exists(doc)) return null;
        return Entry.stored(xml, new XdmNode(v.document(doc, xml.config).getRootNode()), "store:" + doc);
    }

    /** The stored entry at {@code p}; NOT_FOUND if there is none. */
    Entry require(ResourcePath p) {
        Entry e = stored(p);
        if (e == null) throw notFound(p);
        return e;
    }

    /** The kind of the stored entry at document {@code doc}, or null (no entry, or no kind). */
    String kindOf(String doc) {
        return kindOf(doc, view().documentVersion(doc));
    }

    /** The same, {@code version} being the document's ({@link Snapshot#versionOf}; -1: there is none). */
    private String kindOf(String doc, long version) {
        if (version < 0) return null;
        Snapshot v = view();
        // A version below the view's was committed: (doc, version) is one document for good. One
        // written by this transaction is read each time (a later operation may replace it).
        boolean committed = version < v.version();
        if (committed) {
            String k = atom.cachedKind(doc, version);
            if (k != null) return k.isEmpty() ? null : k;
        }
        String k = Entry.kindOf(v.document(doc, xml.config).getRootNode());
        if (committed) atom.cacheKind(doc, version, k == null ? "" : k);
        return k;
    }

    /** The kind that governs the children of {@code parent} (the root's for the root); NOT_FOUND if no entry. */
    Kind parentKind(ResourcePath parent) {
        Model m = model();
        if (parent.isRoot()) return m.root();
        String doc = parent.entryDocument();
        long version = view().documentVersion(doc);
        if (version < 0) throw notFound(parent);
        String k = kindOf(doc, version);
        if (k == null) {
            throw ErrorMessage.NO_KIND_NO_CHILDREN.error(parent, Atom.KIND_SCHEME).at(Where.at("store:" + doc));
        }
        return m.require(k, "the entry " + parent);
    }

    static arno.xml.ArnoException notFound(ResourcePath p) {
        return ErrorMessage.NO_ENTRY.error(p, p.entryDocument())
                .at(Where.at("store:" + p.entryDocument()));
    }

    /**
     * Checks a conditional write against the document's current version: {@code ifMatch} -1 is
     * unconditional, 0 means the document must not exist yet, anything else must be its version.
     */
    static void ifMatch(String doc, DocumentInfo info, long ifMatch) {
        if (ifMatch == -1) return;
        if (ifMatch == 0) {
            if (info != null) {
                throw ErrorMessage.EXISTS_ALREADY.error(doc, info.version(), info.version()).at(Where.at("store:" + doc));
            }
            return;
        }
        if (info == null) {
            throw ErrorMessage.NOT_AT_VERSION_ABSENT.error(doc, ifMatch).at(Where.at("store:" + doc));
        }
        if (info.version() != ifMatch) {
            throw ErrorMessage.NOT_AT_VERSION.error(doc, info.version(), ifMatch)
                    .at(Where.at("store:" + doc));
        }
    }

    /** Every element the kind requires is in the entry; UNPROCESSABLE naming the rule otherwise. */
    static void checkRequired(Kind k, Entry e, String what, String doc) {
        for (QName q : k.requires()) {
            if (!e.has(q.getNamespaceURI(), q.getLocalPart())) {
                String name = q.getPrefix().isEmpty() ? q.getLocalPart() : q.getPrefix() + ":" + q.getLocalPart();
                throw ErrorMessage.LACKS_REQUIRED.error(what, name, q.getNamespaceURI(), k.name(), k.source())
                        .at(Where.at("store:" + doc));
            }
        }
    }

    /**
     * The typed links of an entry of kind {@code k} (null: an entry without kind, which may carry
     * none) are declared, point to existing entries, and to entries of the kinds the rule names.
     * A role the kind does not declare is still accepted when it is the reciprocal the target's
     * kind keeps (the server adds it; a client that sends the entry back keeps it).
     */
    void checkLinks(Model m, Kind k, Entry e, String self, String what) {
        for (Entry.Link l : e.links) {
            long version = l.href().equals(self) ? 0 : view().documentVersion(l.href());
            String targetKind = l.href().equals(self) ? k == null ? null : k.name() : kindOf(l.href(), version);
            if (!l.href().equals(self) && version < 0) {
                throw ErrorMessage.LINK_TARGET_MISSING.error(l.role(), what, l.href()).at(Where.at("store:" + self));
            }
            Kind.LinkRule rule = k == null ? null : k.link(l.role());
            if (rule == null) {
                Kind tk = targetKind == null ? null : m.kind(targetKind);
                boolean reciprocal = false;
                if (tk != null && k != null) {
                    for (Kind.LinkRule r : tk.links()) {
                        if (l.role().equals(r.reciprocal()) && r.acceptsTarget(k.name())) reciprocal = true;
                    }
                }
                if (!reciprocal) {
                    throw (k == null
                            ? ErrorMessage.LINK_WITHOUT_KIND.error(what, l.role())
                            : ErrorMessage.LINK_ROLE_UNDECLARED.error(k.name(), l.role(), what, roles(k), k.source())).at(Where.at("store:" + self));
                }
            } else if (!rule.acceptsTarget(targetKind)) {
                throw ErrorMessage.LINK_TARGET_KIND.error(l.role(), k.name(), String.join(" or ", rule.kinds()), l.href(),
                        targetKind, what, k.source()).at(Where.at("store:" + self));
            }
        }
    }

    private static String roles(Kind k) {
        if (k.links().isEmpty()) return "none";
        StringJoiner j = new StringJoiner(", ");
        for (Kind.LinkRule r : k.links()) j.add(r.role());
        return j.toString();
    }

    /** Writes {@code e} as the stored entry at {@code p}, with its variants' links and its references. */
    void write(ResourcePath p, Entry e, String user) {
        Model m = model();
        Kind k = e.kind == null ? null : m.kind(e.kind);
        String doc = p.entryDocument();
        w.put(doc, e.source(p, w.time(), user, alternates(p, k, e.media), "store:" + doc), ENTRY_MEDIA_TYPE);
        w.setReferences(doc, references(p, e));
    }

    /** What an entry refers to: its parent and its typed links' targets (not itself, its variants or its model). */
    static Set<String> references(ResourcePath p, Entry e) {
        Set<String> refs = new LinkedHashSet<>();
        if (!p.parent().isRoot()) refs.add(p.parent().entryDocument());
        for (Entry.Link l : e.links) refs.add(l.href());
        refs.remove(p.entryDocument());
        return refs;
    }

    /** The variants of {@code p} as its alternate links show them, in byte order of their documents. */
    List<Entry.Alternate> alternates(ResourcePath p, Kind k, Entry.Media media) {
        List<Entry.Alternate> out = new ArrayList<>();
        Snapshot v = view();
        for (String uri : v.uris(p.path() + ".")) {
            ResourcePath.Document d = ResourcePath.document(uri);
            if (d == null || d.isEntry() || !d.resource().equals(p)) continue;
            DocumentInfo info = v.info(uri);
            Kind.Variant declared = k == null ? null : k.variantByExtension(d.extension());
            String role = declared != null ? declared.role() : media != null && media.href().equals(uri) ? "media" : d.extension();
            long length = info.binary() ? info.storedBytes() : info.xmlBytes();
            out.add(new Entry.Alternate(role, info.mediaType(), uri, length));
        }
        return out;
    }

    /** Stores a variant's body: XML media types as trees (parsed by the policy), others as bytes. */
    void putVariant(String doc, String mediaType, Body body) {
        if (Atom.isXml(mediaType)) {
            w.put(doc, new StreamSource(body.open(), "store:" + doc), mediaType);
        } else {
            w.putBinary(doc, mediaType, body.open());
        }
    }

    /**
     * Keeps the reciprocal links of the entry at {@code self} (kind {@code k}) in step with its
     * typed links going from {@code before} to {@code after}: a link with role R to B whose rule
     * names a reciprocal R' gives B a link R' back; dropping it takes that away.
     */
    void reciprocals(Kind k, String self, List<Entry.Link> before, List<Entry.Link> after) {
        if (k == null) return;
        for (Entry.Link l : before) {
            if (has(after, l)) continue;
            String r = reciprocalOf(k, l, self);
            if (r == null) continue;
            ResourcePath target = ResourcePath.document(l.href()).resource();
            Entry t = stored(target);
            if (t == null) continue;
            Entry changed = t.without(r, self);
            if (changed != t) write(target, changed, null);
        }
        for (Entry.Link l : after) {
            if (has(before, l)) continue;
            String r = reciprocalOf(k, l, self);
            if (r == null) continue;
            ResourcePath target = ResourcePath.document(l.href()).resource();
            Entry t = stored(target);
            if (t == null) continue;
            Entry changed = t.with(new Entry.Link(r, self, null));
            if (changed != t) write(target, changed, null);
        }
    }

    private static boolean has(List<Entry.Link> links, Entry.Link l) {
        for (Entry.Link x : links) if (x.role().equals(l.role()) && x.href().equals(l.href())) return true;
        return false;
    }

    private static String reciprocalOf(Kind k, Entry.Link l, String self) {
        Kind.LinkRule rule = k.link(l.role());
        if (rule == null || rule.reciprocal() == null || l.href().equals(self)) return null;
        return rule.reciprocal();
    }
}
