package arno.store.http;

import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;

/** A few lines of SAX for the documents the API writes itself (feeds, the service document). */
final class Sax {
    final ContentHandler h;

    Sax(ContentHandler h) {
        this.h = h;
    }

    /** Starts {@code qname} (prefix:local or local) in {@code ns}; attributes as name, value pairs (no prefixes). */
    Sax start(String ns, String qname, String... attributes) throws SAXException {
        AttributesImpl a = new AttributesImpl();
        for (int i = 0; i < attributes.length; i += 2) {
            if (attributes[i + 1] != null) a.addAttribute("", attributes[i], attributes[i], "CDATA", attributes[i + 1]);
        }
        h.startElement(ns, local(qname), qname, a);
        return this;
    }

    Sax end(String ns, String qname) throws SAXException {
        h.endElement(ns, local(qname), qname);
        return this;
    }

    Sax text(String s) throws SAXException {
        h.characters(s.toCharArray(), 0, s.length());
        return this;
    }

    /** An element with text content only. */
    Sax element(String ns, String qname, String text, String... attributes) throws SAXException {
        start(ns, qname, attributes);
        if (text != null) text(text);
        return end(ns, qname);
    }

    private static String local(String qname) {
        return qname.substring(qname.indexOf(':') + 1);
    }
}
