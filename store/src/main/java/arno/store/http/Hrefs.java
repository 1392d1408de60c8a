package arno.store.http;

import arno.store.atom.Atom;
import org.xml.sax.Attributes;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * Rewrites the store paths of Atom documents into the API's URLs on their way out: stored hrefs
 * are absolute store paths ({@code /journals/ja.atom}, so that they resolve against a
 * {@code store:} base too); over HTTP they become {@code MOUNT/journals/ja.atom}, where MOUNT is
 * the servlet's context and servlet path. Only {@code atom:link/@href} and
 * {@code atom:content/@src} that start with one '/' are store paths; inlined variants (JATS, SVG)
 * and absolute URLs pass unchanged.
 */
final class Hrefs extends XMLFilterImpl {
    private final String mount;

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
        if (Atom.NS.equals(uri) && (local.equals("link") || local.equals("content"))) {
            String name = local.equals("link") ? "href" : "src";
            int i = atts.getIndex("", name);
            if (i >= 0) {
                AttributesImpl copy = new AttributesImpl(atts);
                copy.setValue(i, url(mount, atts.getValue(i)));
                atts = copy;
            }
        }
        super.startElement(uri, local, qname, atts);
    }
}
