package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorXml;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.ProxyReceiver;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceiverOption;
import net.sf.saxon.expr.parser.Loc;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.FingerprintedQName;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NoNamespaceName;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.om.SingletonAttributeMap;
import net.sf.saxon.s9api.AbstractDestination;
import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.serialize.SerializationProperties;
import net.sf.saxon.str.StringView;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.BuiltInAtomicType;
import net.sf.saxon.type.SchemaType;
import net.sf.saxon.type.Untyped;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;

/**
 * Turns a failure into an answer. Every failure is logged once (server errors with their
 * location, reasons and cause under an error id, "E-" and the request id; client errors in one
 * line) and answered with the site's error page, else the default one (package
 * {@value #ERROR_PACKAGE}), else a plain page. The error page receives req:request with
 * {@code msg:attribute name="error"} holding {@code err:error} as {@link ErrorXml} writes it; in
 * production a server error's location, reasons and message stay in the log.
 */
final class ErrorResponses {
    private static final System.Logger LOG = System.getLogger("arno");
    static final String ERROR_PACKAGE = "urn:arno:templates:error";
    static final String MSG = "urn:arno:message";

    private final Engine engine;

    ErrorResponses(Engine engine) {
        this.engine = engine;
    }

    void answer(Exchange x, ArnoException e, ResponseTarget target) {
        String errorId = "E-" + x.id();
        int status = e.status();
        if (status >= 500) {
            LOG.log(System.Logger.Level.ERROR, "[" + errorId + "] " + e.describe(), e.getCause());
        } else {
            LOG.log(System.Logger.Level.INFO, "[" + x.id() + "] " + status + " " + e.describe());
        }
        if (!target.reset()) {
            // Part of the page is on the wire: the best we can do is cut the response short.
            LOG.log(System.Logger.Level.ERROR, "[" + errorId + "] response already committed; closing it incomplete");
            return;
        }
        Pipeline page = x.site() != null ? x.site().errorPipeline(status) : null;
        if (page == null) page = x.sites().defaultError;
        boolean internals = engine.config.development();
        if (page != null && page.compileError() == null) {
            try {
                Destination d = target.open(status);
                if (x.allow() != null) d = new WithHeader(d, "Allow", x.allow());
                x.run(page, "error", engine.config.timeout().toMillis(),
                        out -> x.source().write(out, h -> errorAttribute(h, e, errorId, internals)), d);
                return;
            } catch (RuntimeException inner) {
                LOG.log(System.Logger.Level.ERROR, "[" + errorId + "] the error page failed too: "
                        + (inner instanceof ArnoException a ? a.describe() : inner.toString()));
                if (!target.reset()) return;
            }
        }
        String text = internals || status < 500 ? e.describe() : ErrorCode.statusText(status) + " (" + errorId + ")";
        plain(target, status, "Error " + status, text, x.allow());
    }

    void plain(ResponseTarget target, int status, String title, String text, String allow) {
        ResponseEvents.write(engine.processor.getUnderlyingConfiguration(), target.open(status), status, ev -> {
            if (allow != null) ev.header("Allow", allow);
            ev.page(title, text);
        });
    }

    /** msg:attribute name="error" holding err:error. */
    static void errorAttribute(ContentHandler h, ArnoException e, String errorId, boolean internals) throws SAXException {
        AttributesImpl a = new AttributesImpl();
        a.addAttribute("", "name", "name", "CDATA", "error");
        h.startPrefixMapping("msg", MSG);
        h.startElement(MSG, "attribute", "msg:attribute", a);
        ErrorXml.write(h, e, errorId, internals);
        h.endElement(MSG, "attribute", "msg:attribute");
        h.endPrefixMapping("msg");
    }

    /**
     * Adds {@code rsp:header} to the rsp:response that an error page writes: the 405 page must
     * carry Allow whatever the site's error template writes.
     */
    private static final class WithHeader extends AbstractDestination {
        private final Destination inner;
        private final String name;
        private final String value;

        WithHeader(Destination inner, String name, String value) {
            this.inner = inner;
            this.name = name;
            this.value = value;
        }

        @Override
        public Receiver getReceiver(PipelineConfiguration pipe, SerializationProperties params) throws SaxonApiException {
            return new ProxyReceiver(inner.getReceiver(pipe, params)) {
                private int depth;

                @Override
                public void startElement(NodeName element, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                                         Location location, int properties) throws XPathException {
                    super.startElement(element, type, attributes, namespaces, location, properties);
                    if (++depth == 1) {
                        NamespaceUri rsp = NamespaceUri.of(ResponseWriter.NS);
                        NodeName header = new FingerprintedQName(element.getPrefix(), rsp, "header");
                        AttributeMap a = SingletonAttributeMap.of(new AttributeInfo(new NoNamespaceName("name"),
                                BuiltInAtomicType.UNTYPED_ATOMIC, name, Loc.NONE, ReceiverOption.NONE));
                        super.startElement(header, Untyped.getInstance(), a, namespaces, Loc.NONE, ReceiverOption.NONE);
                        super.characters(StringView.of(value), Loc.NONE, ReceiverOption.NONE);
                        super.endElement();
                    }
                }

                @Override
                public void endElement() throws XPathException {
                    depth--;
                    super.endElement();
                }
            };
        }

        @Override
        public void close() throws SaxonApiException {
            inner.close();
        }
    }
}
