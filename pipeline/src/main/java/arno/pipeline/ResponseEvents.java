package arno.pipeline;

import arno.xml.ErrorMessage;
import net.sf.saxon.Configuration;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.ReceivingContentHandler;
import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.serialize.SerializationProperties;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * Writes the small rsp:response documents the pipeline makes itself (the index page, plain error
 * pages, the debug routes) as SAX events into a {@link Destination}, so they reach HTTP through
 * the same response writer as a page, and a test through the same tree.
 */
final class ResponseEvents {
    static final String RSP = ResponseWriter.NS;
    private final ContentHandler out;

    private ResponseEvents(ContentHandler out) {
        this.out = out;
    }

    interface Body {
        void write(ResponseEvents e) throws SAXException;
    }

    /** One rsp:response document into {@code d}: {@code body} writes its children. */
    static void write(Configuration config, Destination d, int status, Body body) {
        try {
            PipelineConfiguration pipe = config.makePipelineConfiguration();
            ReceivingContentHandler h = new ReceivingContentHandler();
            h.setPipelineConfiguration(pipe);
            h.setReceiver(d.getReceiver(pipe, new SerializationProperties()));
            ResponseEvents e = new ResponseEvents(h);
            h.startDocument();
            h.startPrefixMapping("rsp", RSP);
            e.start(RSP, "rsp:response", "status", Integer.toString(status));
            body.write(e);
            e.end(RSP, "rsp:response");
            h.endPrefixMapping("rsp");
            h.endDocument();
            d.close();
        } catch (SAXException | SaxonApiException e) {
            throw ErrorMessage.RESPONSE_NOT_WRITTEN.error(e, e.getMessage());
        }
    }

    ContentHandler handler() {
        return out;
    }

    /** {@link #handler()} without document events: for a whole document written inside another. */
    ContentHandler inner() {
        XMLFilterImpl f = new XMLFilterImpl() {
            @Override public void startDocument() {}
            @Override public void endDocument() {}
        };
        f.setContentHandler(out);
        return f;
    }

    ResponseEvents start(String ns, String qName, String... attributes) throws SAXException {
        out.startElement(ns, qName.substring(qName.indexOf(':') + 1), qName, attributes(attributes));
        return this;
    }

    ResponseEvents end(String ns, String qName) throws SAXException {
        out.endElement(ns, qName.substring(qName.indexOf(':') + 1), qName);
        return this;
    }

    /** An element without namespace (HTML) with text content. */
    ResponseEvents html(String name, String text, String... attributes) throws SAXException {
        out.startElement("", name, name, attributes(attributes));
        text(text);
        out.endElement("", name, name);
        return this;
    }

    ResponseEvents text(String text) throws SAXException {
        if (text != null && !text.isEmpty()) out.characters(text.toCharArray(), 0, text.length());
        return this;
    }

    /** rsp:header. */
    ResponseEvents header(String name, String value) throws SAXException {
        start(RSP, "rsp:header", "name", name);
        text(value);
        return end(RSP, "rsp:header");
    }

    /** A small HTML page: title as h1, then {@code text} preformatted. */
    ResponseEvents page(String title, String text) throws SAXException {
        start(RSP, "rsp:body", "method", "html");
        out.startElement("", "html", "html", attributes("lang", "en"));
        out.startElement("", "head", "head", attributes());
        html("meta", "", "charset", "utf-8");
        html("title", title);
        out.endElement("", "head", "head");
        out.startElement("", "body", "body", attributes());
        html("h1", title);
        if (text != null) html("pre", text);
        out.endElement("", "body", "body");
        out.endElement("", "html", "html");
        return end(RSP, "rsp:body");
    }

    private static Attributes attributes(String... nameValue) {
        AttributesImpl a = new AttributesImpl();
        for (int i = 0; i < nameValue.length; i += 2) {
            if (nameValue[i + 1] != null) a.addAttribute("", nameValue[i], nameValue[i], "CDATA", nameValue[i + 1]);
        }
        return a;
    }
}
