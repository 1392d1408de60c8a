package arno.filters;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * A standard filter: tells the templates where the resource a request names is, before they
 * read it. Appends to req:request
 *
 * <pre>
 * &lt;msg:attribute name="content-peek" path="/journals/ja/v1/i1/issue.atom"&gt;store&lt;/msg:attribute&gt;
 * </pre>
 *
 * whose text is {@code store} (the store holds it: a {@code content:} URI reads the stored tree),
 * {@code file} (a file under the content folder) or {@code none}. The path is the route variable
 * {@code path} if the route has one (e.g. {@code pattern="/{path*}"}), else the path inside the
 * site; the site parameter {@code content-base} (e.g. {@code /journals/ja}) is put in front.
 * Declared in site.xml as {@code <filter java="arno.filters.ContentPeek"/>}.
 *
 * <p>Streams: it remembers the parameter and the path as they pass and writes its element just
 * before the end tag of req:request, so the request is never held as a tree. Reads only whether
 * the resource exists ({@link RequestScope#locate}), through the request's own view of the store.
 */
public final class ContentPeek implements SaxStage {
    static final String REQ = "urn:arno:request";
    static final String MSG = "urn:arno:message";

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        XMLFilterImpl f = new XMLFilterImpl() {
            private int depth;
            private String base = "";
            private String sitePath = "/";
            private String variable;
            /** Collects the text of the element being read (a site param or a route variable), or null. */
            private StringBuilder text;
            private boolean inBase;

            @Override
            public void startElement(String uri, String local, String qName, Attributes atts) throws SAXException {
                depth++;
                if (depth == 2 && REQ.equals(uri) && local.equals("path")) {
                    String v = atts.getValue("", "value");
                    if (v != null) sitePath = v;
                } else if (depth == 3 && REQ.equals(uri) && local.equals("param") && "content-base".equals(atts.getValue("", "name"))) {
                    text = new StringBuilder();
                    inBase = true;
                } else if (depth == 3 && REQ.equals(uri) && local.equals("variable") && "path".equals(atts.getValue("", "name"))) {
                    text = new StringBuilder();
                    inBase = false;
                }
                super.startElement(uri, local, qName, atts);
            }

            @Override
            public void characters(char[] ch, int start, int length) throws SAXException {
                if (text != null) text.append(ch, start, length);
                super.characters(ch, start, length);
            }

            @Override
            public void endElement(String uri, String local, String qName) throws SAXException {
                if (depth == 3 && text != null) {
                    if (inBase) base = text.toString().strip();
                    else variable = text.toString();
                    text = null;
                }
                if (--depth == 0) peek();
                super.endElement(uri, local, qName);
            }

            private void peek() throws SAXException {
                String rest = variable != null ? "/" + variable : sitePath;
                String path = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base)
                        + (rest.startsWith("/") ? rest : "/" + rest);
                if (!path.startsWith("/")) path = "/" + path;
                String where = scope.locate(path).name().toLowerCase(java.util.Locale.ROOT);
                AttributesImpl a = new AttributesImpl();
                a.addAttribute("", "name", "name", "CDATA", "content-peek");
                a.addAttribute("", "path", "path", "CDATA", path);
                super.startPrefixMapping("msg", MSG);
                super.startElement(MSG, "attribute", "msg:attribute", a);
                super.characters(where.toCharArray(), 0, where.length());
                super.endElement(MSG, "attribute", "msg:attribute");
                super.endPrefixMapping("msg");
            }
        };
        f.setContentHandler(next);
        return f;
    }
}
