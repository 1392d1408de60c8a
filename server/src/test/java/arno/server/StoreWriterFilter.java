package arno.server;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import arno.store.Store;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * A Java stage for the snapshot test: when the previous stage's output is
 * complete, another thread commits a new version of store:/docs/a.xml
 * before the next stage runs.
 */
public final class StoreWriterFilter implements SaxStage {
    static volatile Store store;
    static volatile String nextTitle;

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        XMLFilterImpl f = new XMLFilterImpl() {
            @Override
            public void endDocument() throws SAXException {
                // The previous stage has finished; the next runs once this event is passed on.
                commitElsewhere();
                super.endDocument();
            }
        };
        f.setContentHandler(next);
        return f;
    }

    private static void commitElsewhere() {
        Thread writer = new Thread(() -> {
            try (WriteTransaction w = store.write()) {
                w.put("/docs/a.xml", ("<doc><title>" + nextTitle + "</title></doc>").getBytes(StandardCharsets.UTF_8));
                w.commit();
            }
        });
        writer.start();
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
