package arno.pipeline;

import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.SAXDestination;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;

/**
 * The development routes every site gets: {@code SITE/_debug/request} answers with the
 * req:request that the site's pipelines receive for that request, and
 * {@code SITE/_debug/response/PATH} with the rsp:response that PATH's pipeline yields, both as
 * indented XML. In production they do not exist (the paths are routed like any other).
 */
final class DebugRoutes {
    static final String REQUEST = "/_debug/request";
    static final String RESPONSE = "/_debug/response/";

    private DebugRoutes() {}

    static void request(Sites sites, RequestReader reader, Destination out) {
        ResponseEvents.write(sites.engine.processor.getUnderlyingConfiguration(), out, 200, e -> {
            e.start(ResponseEvents.RSP, "rsp:body", "method", "xml", "indent", "true", "media-type", "application/xml");
            reader.write(e.inner(), null);
            e.end(ResponseEvents.RSP, "rsp:body");
        });
    }

    static void response(Sites sites, XdmNode response, Destination out) {
        ResponseEvents.write(sites.engine.processor.getUnderlyingConfiguration(), out, 200, e -> {
            e.start(ResponseEvents.RSP, "rsp:body", "method", "xml", "indent", "true", "media-type", "application/xml");
            try {
                sites.engine.processor.writeXdmValue(response, new SAXDestination(e.inner()));
            } catch (SaxonApiException x) {
                throw new org.xml.sax.SAXException(x);
            }
            e.end(ResponseEvents.RSP, "rsp:body");
        });
    }
}
