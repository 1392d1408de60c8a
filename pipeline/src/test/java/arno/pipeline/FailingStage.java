package arno.pipeline;

import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.XMLFilterImpl;

/** A Java stage for the case files that fails at the end of req:request, as a stage that looks something up and cannot. */
public final class FailingStage implements SaxStage {
    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        XMLFilterImpl f = new XMLFilterImpl() {
            private int depth;

            @Override
            public void startElement(String uri, String local, String qName, org.xml.sax.Attributes atts) throws SAXException {
                depth++;
                super.startElement(uri, local, qName, atts);
            }

            @Override
            public void endElement(String uri, String local, String qName) throws SAXException {
                if (--depth == 0) throw new SAXException("the lookup service did not answer");
                super.endElement(uri, local, qName);
            }
        };
        f.setContentHandler(next);
        return f;
    }
}
