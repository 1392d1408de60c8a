package arno.pipeline;

import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/** A Java stage for the case files: appends msg:attribute name="stamp" ("java" and the request id) to req:request. */
public final class StampStage implements SaxStage {
    private static final String MSG = "urn:arno:message";

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        XMLFilterImpl f = new XMLFilterImpl() {
            private int depth;

            @Override
            public void startElement(String uri, String local, String qName, Attributes atts) throws SAXException {
                depth++;
                super.startElement(uri, local, qName, atts);
            }

            @Override
            public void endElement(String uri, String local, String qName) throws SAXException {
                if (--depth == 0) {
                    AttributesImpl a = new AttributesImpl();
                    a.addAttribute("", "name", "name", "CDATA", "stamp");
                    super.startElement(MSG, "attribute", "msg:attribute", a);
                    String text = "java " + scope.id();
                    super.characters(text.toCharArray(), 0, text.length());
                    super.endElement(MSG, "attribute", "msg:attribute");
                }
                super.endElement(uri, local, qName);
            }
        };
        f.setContentHandler(next);
        return f;
    }
}
