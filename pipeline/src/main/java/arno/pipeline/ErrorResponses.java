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
 *
 * <p>A client that went away while its response was being written (a closed browser tab, a load
 * generator ending its run) is not a failure of the server: it is logged in one INFO line with
 * the request id, without an error id, and nothing more is written (there is no one to read it).
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
        String abort = clientAbort(e);
        if (abort != null) {
            LOG.log(System.Logger.Level.INFO, "[" + x.id() + "] client went away before the response was complete: " + abort);
            return;
        }
        String errorId = "E-" + x.id();
        int status = e.status();
        engine.recentErrors.record(errorId, x.site() != null ? x.site().name() : null, x.routeName(), e);
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

    /**
     * What tells that the client closed the connection, or null when {@code failure} is something
     * else. Recognised among its causes: Tomcat's ClientAbortException (what its response stream
     * throws for any failed write to the socket; matched by name, as this module compiles against
     * the servlet API only), and an IOException saying broken pipe or connection reset (as the
     * operating system words it, for containers that do not wrap it).
     */
    static String clientAbort(Throwable failure) {
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); ) {
            if (t.getClass().getName().equals("org.apache.catalina.connector.ClientAbortException")) {
                return t.getCause() != null && t.getCause().getMessage() != null ? t.getCause().getMessage() : t.toString();
            }
            if (t instanceof java.io.IOException) {
                String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
                if (m.contains("broken pipe") || m.contains("connection reset") || m.contains("connection was aborted")) {
                    return t.getMessage();
                }
            }
            t = t instanceof org.xml.sax.SAXException s && s.getException() != null ? s.getException() : t.getCause();
        }
        return null;
    }

    /**
     * {@code x}, marked as reported when {@code cause} is the client going away: Saxon then does
     * not report it again, and the request's log line says "client went away" once, at INFO.
     */
    static net.sf.saxon.trans.XPathException quietIfClientGone(net.sf.saxon.trans.XPathException x, Throwable cause) {
        if (clientAbort(cause) != null) x.setHasBeenReported(true);
        return x;
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
