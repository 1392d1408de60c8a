package arno.xml;

import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;

/**
 * Writes an {@link ArnoException} as {@code err:error} (schema: {@code arno/schema/error.xsd}), the
 * one error vocabulary of error pages, batch reports and the store's HTTP API:
 *
 * <pre>
 * &lt;err:error xmlns:err="urn:arno:error" code="stage-error" status="500" id="E-k3-1f" processor-code="XTDE0640"&gt;
 *   &lt;err:message&gt;Stage 2 (xslt site.xsl) of route 'toc' failed: ...&lt;/err:message&gt;
 *   &lt;err:location uri="file:/sites/a/site.xsl" line="12" column="5" route="toc" stage="2" step="xslt site.xsl"/&gt;
 *   &lt;err:detail code="XTSE0010" severity="error"&gt;&lt;err:message&gt;...&lt;/err:message&gt;&lt;err:location .../&gt;&lt;/err:detail&gt;
 * &lt;/err:error&gt;
 * </pre>
 *
 * With {@code internals} false (production, a server error) locations, details and the message
 * are left out and the message is the status's short phrase: they name server files and code.
 * The id names the log line that has them.
 */
public final class ErrorXml {
    public static final String NS = "urn:arno:error";
    public static final String PREFIX = "err";
    /**
     * A request attribute: the {@link ArnoException} a servlet could not write because the
     * container had already taken the response (Tomcat does when reading a request body fails, and
     * then answers it itself). The server's error report writes it as {@code err:error}, with its status.
     */
    public static final String UNSENT = "arno.error.unsent";

    private ErrorXml() {}

    /** The namespace of the W3C's XPath, XSLT and XQuery error codes. */
    private static final String W3C_ERRORS = "http://www.w3.org/2005/xqt-errors";

    /**
     * A processor's error code as {@code processor-code} carries it: the local name for the W3C's
     * codes ("XTDE0640", as the specifications write them), the EQName for any other namespace
     * (a stylesheet's own codes, SchXslt's), so no code is mistaken for another. Null for null.
     */
    public static String processorCode(net.sf.saxon.s9api.QName code) {
        return code == null ? null : processorCode(code.getStructuredQName());
    }

    /** As {@link #processorCode(net.sf.saxon.s9api.QName)}. */
    public static String processorCode(net.sf.saxon.om.StructuredQName code) {
        if (code == null) return null;
        return W3C_ERRORS.equals(code.getURI()) || code.getURI().isEmpty() ? code.getLocalPart() : code.getEQName();
    }

    /** What an error document is written to: SAX events or a streaming writer. */
    private interface Out {
        void start(String local, String... attributes) throws SAXException;
        void text(String text) throws SAXException;
        void end(String local) throws SAXException;
    }

    /**
     * Writes the error as SAX events (no startDocument/endDocument, so it can sit inside another
     * document). {@code id} may be null. Internal details go out unless the error is a server error
     * (5xx) and {@code internals} is false.
     */
    public static void write(ContentHandler h, ArnoException e, String id, boolean internals) throws SAXException {
        h.startPrefixMapping(PREFIX, NS);
        write(new Out() {
            @Override
            public void start(String local, String... attributes) throws SAXException {
                AttributesImpl a = new AttributesImpl();
                for (int i = 0; i < attributes.length; i += 2) {
                    if (attributes[i + 1] != null) a.addAttribute("", attributes[i], attributes[i], "CDATA", attributes[i + 1]);
                }
                h.startElement(NS, local, PREFIX + ":" + local, a);
            }

            @Override
            public void text(String text) throws SAXException {
                h.characters(text.toCharArray(), 0, text.length());
            }

            @Override
            public void end(String local) throws SAXException {
                h.endElement(NS, local, PREFIX + ":" + local);
            }
        }, e, id, internals, true);
        h.endPrefixMapping(PREFIX);
    }

    /** As {@link #write(ContentHandler, ArnoException, String, boolean)}, into a streaming writer. */
    public static void write(XmlWriter x, ArnoException e, String id, boolean internals) {
        try {
            write(new Out() {
                private boolean first = true;

                @Override
                public void start(String local, String... attributes) {
                    x.start(PREFIX + ":" + local);
                    if (first) x.attr("xmlns:" + PREFIX, NS);
                    first = false;
                    for (int i = 0; i < attributes.length; i += 2) x.attr(attributes[i], attributes[i + 1]);
                }

                @Override
                public void text(String text) {
                    x.text(text);
                }

                @Override
                public void end(String local) {
                    x.end();
                }
            }, e, id, internals, true);
        } catch (SAXException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** The error as a standalone UTF-8 document. */
    public static byte[] toBytes(ArnoException e, String id, boolean internals) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(512);
        XmlWriter x = new XmlWriter(out);
        x.declaration();
        write(x, e, id, internals);
        x.finish();
        return out.toByteArray();
    }

    /**
     * Reads an {@code err:error} back: {@code r} stands at its start tag and is left at its end
     * tag. The code is the catalogue's ({@link ErrorCode#INTERNAL} for a name it does not know,
     * which the message then names); elements of other namespaces (what a service adds, such as a
     * batch job's link) are handed to {@code other} at their start tag, or skipped.
     */
    public static ArnoException read(javax.xml.stream.XMLStreamReader r,
                                     java.util.function.Consumer<javax.xml.stream.XMLStreamReader> other)
            throws javax.xml.stream.XMLStreamException {
        String name = r.getAttributeValue(null, "code");
        String processorCode = r.getAttributeValue(null, "processor-code");
        String message = "";
        Where where = Where.NOWHERE;
        java.util.List<ArnoException.Detail> details = new java.util.ArrayList<>();
        String detailCode = null;
        boolean detailWarning = false;
        String detailMessage = "";
        Where detailWhere = Where.NOWHERE;
        int depth = 1;
        while (r.hasNext() && depth > 0) {
            int event = r.next();
            if (event == javax.xml.stream.XMLStreamConstants.END_ELEMENT) {
                depth--;
                if (depth == 1 && "detail".equals(r.getLocalName()) && NS.equals(r.getNamespaceURI())) {
                    details.add(new ArnoException.Detail(detailCode, detailMessage, detailWhere, detailWarning));
                }
                continue;
            }
            if (event != javax.xml.stream.XMLStreamConstants.START_ELEMENT) continue;
            depth++;
            if (!NS.equals(r.getNamespaceURI())) {
                if (other != null) other.accept(r);
                continue;
            }
            switch (r.getLocalName()) {
                case "message" -> {
                    String text = r.getElementText();
                    depth--;
                    if (depth == 1) message = text; else detailMessage = text;
                }
                case "location" -> {
                    Where w = new Where(r.getAttributeValue(null, "uri"), number(r, "line"), number(r, "column"),
                            r.getAttributeValue(null, "route"), number(r, "stage"), r.getAttributeValue(null, "step"));
                    if (depth == 2) where = w; else detailWhere = w;
                }
                case "detail" -> {
                    detailCode = r.getAttributeValue(null, "code");
                    detailWarning = "warning".equals(r.getAttributeValue(null, "severity"));
                    detailMessage = "";
                    detailWhere = Where.NOWHERE;
                }
                default -> { }
            }
        }
        ErrorCode code = name == null ? null : ErrorCode.byName(name);
        ArnoException e = new ArnoException(code != null ? code : ErrorCode.INTERNAL,
                code != null ? message : message + " [" + name + "]", null);
        return e.at(where).processorCode(processorCode).details(details);
    }

    private static int number(javax.xml.stream.XMLStreamReader r, String attribute) {
        String v = r.getAttributeValue(null, attribute);
        try {
            return v == null ? -1 : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void write(Out out, ArnoException e, String id, boolean internals, boolean root) throws SAXException {
        boolean show = internals || e.status() < 500;
        out.start("error", "code", e.code().code(), "status", Integer.toString(e.status()), "id", id,
                "processor-code", show ? e.processorCode() : null);
        out.start("message");
        out.text(show ? e.getMessage() : e.code().publicText());
        out.end("message");
        if (show) {
            location(out, e.where());
            for (ArnoException.Detail d : e.details()) {
                out.start("detail", "code", d.code(), "severity", d.warning() ? "warning" : "error");
                out.start("message");
                out.text(d.message() == null ? "" : d.message());
                out.end("message");
                location(out, d.where());
                out.end("detail");
            }
        }
        out.end("error");
    }

    private static void location(Out out, Where w) throws SAXException {
        if (w == null || !w.isKnown()) return;
        out.start("location", "uri", w.uri(), "line", w.line() > 0 ? Integer.toString(w.line()) : null,
                "column", w.column() > 0 ? Integer.toString(w.column()) : null, "route", w.route(),
                "stage", w.stage() > 0 ? Integer.toString(w.stage()) : null, "step", w.step());
        out.end("location");
    }
}
