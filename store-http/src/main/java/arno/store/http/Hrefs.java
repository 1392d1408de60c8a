package arno.store.http;

import arno.store.atom.Atom;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import org.xml.sax.Attributes;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * Rewrites the store paths of Atom documents into the API's URLs on their way out: stored hrefs
 * are absolute store paths ({@code /journals/ja.atom}, so that they resolve against a
 * {@code store:} base too); over HTTP they become {@code MOUNT/journals/ja.atom}, where MOUNT is
 * the servlet's context and servlet path. Only the links the server writes are store paths: those
 * with a relation it manages ({@code self}, {@code edit}, {@code edit-media}, {@code up},
 * {@code down}, {@code describedby}) or an {@code arno:role} (a variant, a typed link), and the
 * {@code atom:content/@src} of a media-link entry (its edit-media href). A client's own links
 * ({@code <link rel="alternate" href="/about">}), inlined variants and absolute URLs pass unchanged.
 */
final class Hrefs extends XMLFilterImpl {
    private static final Set<String> SERVER_RELS = Set.of(Atom.REL_SELF, Atom.REL_EDIT, Atom.REL_EDIT_MEDIA, Atom.REL_UP,
            Atom.REL_DOWN, Atom.REL_DESCRIBED_BY);
    private final String mount;
    /** Per open atom:entry, the stored href of its edit-media link (index 0), or null. */
    private final Deque<String[]> media = new ArrayDeque<>();

    Hrefs(String mount, org.xml.sax.ContentHandler out) {
        this.mount = mount;
        setContentHandler(out);
    }

    /** The URL of a store path ({@code /a/b.atom} → {@code MOUNT/a/b.atom}); other values unchanged. */
    static String url(String mount, String storePath) {
        return storePath.startsWith("/") && !storePath.startsWith("//") ? mount + storePath : storePath;
    }

    @Override
    public void startElement(String uri, String local, String qname, Attributes atts) throws SAXException {
        if (Atom.NS.equals(uri)) {
            switch (local) {
                case "entry" -> media.push(new String[1]);
                case "link" -> {
                    String rel = atts.getValue("", "rel");
                    rel = rel == null ? Atom.REL_ALTERNATE : rel.strip();
                    int href = atts.getIndex("", "href");
                    if (href >= 0 && (atts.getIndex(Atom.ARNO_NS, "role") >= 0 || SERVER_RELS.contains(rel))) {
                        if (rel.equals(Atom.REL_EDIT_MEDIA) && !media.isEmpty()) media.peek()[0] = atts.getValue(href);
                        atts = rewritten(atts, href);
                    }
                }
                case "content" -> {
                    int src = atts.getIndex("", "src");
                    if (src >= 0 && !media.isEmpty() && atts.getValue(src).equals(media.peek()[0])) atts = rewritten(atts, src);
                }
                default -> { }
            }
        }
        super.startElement(uri, local, qname, atts);
    }

    @Override
    public void endElement(String uri, String local, String qname) throws SAXException {
        if (Atom.NS.equals(uri) && local.equals("entry") && !media.isEmpty()) media.pop();
        super.endElement(uri, local, qname);
    }

    private Attributes rewritten(Attributes atts, int i) {
        AttributesImpl copy = new AttributesImpl(atts);
        copy.setValue(i, url(mount, atts.getValue(i)));
        return copy;
    }
}
