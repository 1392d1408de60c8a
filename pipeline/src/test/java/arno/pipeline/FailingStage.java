package arno.pipeline;

import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.XMLFilterImpl;

/** A Java stage for the case files that fails when its input ends, as a stage that looks something up and cannot. */
public final class FailingStage implements SaxStage {
    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        XMLFilterImpl f = new XMLFilterImpl() {
            @Override
            public void endDocument() throws SAXException {
                throw new SAXException("the lookup service did not answer");
            }
        };
        f.setContentHandler(next);
        return f;
    }
}
