package arno.pipeline;

import net.sf.saxon.s9api.Destination;
import org.xml.sax.SAXException;

/** The server's own page at "/" when no site answers there: a list of the sites, linked. */
final class IndexPage {
    private IndexPage() {}

    static void write(Sites sites, HttpRequest request, Destination out) {
        ResponseEvents.write(sites.engine.processor.getUnderlyingConfiguration(), out, 200, e -> {
            e.start(ResponseEvents.RSP, "rsp:body", "method", "html");
            var h = e.handler();
            h.startElement("", "html", "html", new org.xml.sax.helpers.AttributesImpl());
            h.startElement("", "head", "head", new org.xml.sax.helpers.AttributesImpl());
            e.html("meta", "", "charset", "utf-8");
            e.html("title", "Arno");
            h.endElement("", "head", "head");
            h.startElement("", "body", "body", new org.xml.sax.helpers.AttributesImpl());
            e.html("h1", "Arno");
            h.startElement("", "ul", "ul", new org.xml.sax.helpers.AttributesImpl());
            for (Site s : sites.sites) item(e, request.contextPath() + s.prefix() + "/", s);
            h.endElement("", "ul", "ul");
            h.endElement("", "body", "body");
            h.endElement("", "html", "html");
            e.end(ResponseEvents.RSP, "rsp:body");
        });
    }

    private static void item(ResponseEvents e, String href, Site s) throws SAXException {
        var h = e.handler();
        h.startElement("", "li", "li", new org.xml.sax.helpers.AttributesImpl());
        e.html("a", s.name(), "href", href);
        if (!s.hosts().isEmpty()) e.text(" (hosts: " + String.join(", ", s.hosts()) + ")");
        h.endElement("", "li", "li");
    }
}
