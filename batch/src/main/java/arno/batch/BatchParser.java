package arno.batch;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.FileRoots;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.ValidatorHandler;
import net.sf.saxon.s9api.BuildingContentHandler;
import net.sf.saxon.s9api.DocumentBuilder;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmAtomicValue;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import net.sf.saxon.s9api.ItemType;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.DefaultHandler;
import org.xml.sax.helpers.NamespaceSupport;

/**
 * Reads a batch document as a SAX stream: the header (stylesheet, parameters)
 * is built into small Saxon trees, the inputs are handed to the
 * {@link Batch.Listener} one at a time, so memory does not depend on the
 * number of inputs. On submission the stream also passes the batch schema's
 * validator; every error names the document, line and column.
 *
 * <p>The document is parsed by the one {@link XmlPolicy}, like every other: a DOCTYPE is
 * accepted and its DTD never read, internal entities are bounded, external ones refused.
 */
final class BatchParser {
    private static final Schema SCHEMA = loadSchema();

    private final Processor processor;
    private final Targets targets;
    private final XmlPolicy policy;

    BatchParser(Processor processor, Targets targets, XmlPolicy policy) {
        this.processor = processor;
        this.targets = targets;
        this.policy = policy;
    }

    private static Schema loadSchema() {
        try {
            SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            factory.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            var url = BatchParser.class.getResource("/arno/schema/batch.xsd");
            return factory.newSchema(new StreamSource(url.openStream(), url.toString()));
        } catch (SAXException | IOException e) {
            throw new IllegalStateException("the batch schema does not load", e);
        }
    }

    /**
     * Parses {@code in}, whose URI (for errors and relative references) is
     * {@code systemId}. With {@code validate}, the document is checked against
     * the batch schema as it streams, and the hosts of URLs are checked (their addresses looked up).
     *
     * @throws ArnoException naming line and column when the batch is malformed
     *         ({@link ErrorCode#MALFORMED_XML}), refused by the XML policy ({@link ErrorCode#REFUSED_XML}),
     *         invalid ({@link ErrorCode#INVALID_XML}), or names something it may not
     */
    void parse(InputStream in, String systemId, boolean validate, Batch.Listener listener) {
        Handler handler = new Handler(URI.create(systemId), listener, validate);
        XMLReader reader = policy.newReader();
        ContentHandler first = handler;
        if (validate) {
            ValidatorHandler validator = SCHEMA.newValidatorHandler();
            validator.setContentHandler(handler);
            // Schema errors are kept while the parse goes on: a document that is also not
            // well-formed is reported as such, which is what its author needs to fix first.
            validator.setErrorHandler(new SchemaErrors(handler));
            first = validator;
        }
        reader.setContentHandler(first);
        reader.setErrorHandler(new ParseErrors());
        InputSource source = new InputSource(in);
        source.setSystemId(systemId);
        try {
            reader.parse(source);
            if (handler.deferred != null) throw handler.deferred;
        } catch (ArnoException e) {
            throw e;
        } catch (SAXException | IOException e) {
            // A listener's own exception (one that stops the feed) passes through as it is.
            if (e instanceof SAXException s && s.getException() instanceof RuntimeException r && !(r instanceof ArnoException)
                    && XmlPolicy.refusal(e) == null) {
                throw r;
            }
            throw XmlPolicy.translate(e, "batch document");
        }
    }

    /** Well-formedness errors end the parse; {@link XmlPolicy#translate} says where. */
    private static final class ParseErrors implements ErrorHandler {
        @Override public void warning(SAXParseException e) {}

        @Override public void error(SAXParseException e) throws SAXParseException {
            throw e;
        }

        @Override public void fatalError(SAXParseException e) throws SAXParseException {
            throw e;
        }
    }

    /** Schema errors: the first is kept and thrown when the parse has ended. */
    private static final class SchemaErrors implements ErrorHandler {
        private final Handler deferTo;

        SchemaErrors(Handler deferTo) {
            this.deferTo = deferTo;
        }

        @Override public void warning(SAXParseException e) {}

        @Override public void error(SAXParseException e) {
            if (deferTo.deferred == null) deferTo.deferred = translate(e);
        }

        @Override public void fatalError(SAXParseException e) {
            error(e);
        }

        private static ArnoException translate(SAXParseException e) {
            String message = e.getMessage() == null ? "error" : e.getMessage();
            // Xerces prefixes schema errors with the rule's number ("cvc-complex-type.2.4.a: ..."), noise to a reader.
            message = message.replaceFirst("^cvc-[\\w.-]+: ", "");
            return ErrorMessage.BATCH_INVALID.error(message)
                    .at(Where.of(e, null));
        }
    }

    /** The SAX handler proper. Thread rule: one handler per parse. */
    private final class Handler extends DefaultHandler {
        private final URI documentUri;
        private final Batch.Listener listener;
        /** The first schema error; once set, events are no longer interpreted, only checked for well-formedness. */
        ArnoException deferred;
        /** Whether this parse is the submission's: URLs' hosts are checked now. */
        private final boolean submitting;
        private final NamespaceSupport namespaces = new NamespaceSupport();
        private boolean contextPushed;
        private Locator locator;
        private int depth;

        private URI base;
        private String name;
        private int priority;
        private Integer parallelism;
        private java.time.Duration timeLimit;
        private Batch.Code code;
        private final List<Batch.Param> params = new ArrayList<>();
        private boolean headerSent;
        private long inputs;

        // The subtree being captured (inline stylesheet or parameter content), if any.
        private BuildingContentHandler capture;
        private int captureDepth;
        private Attributes captureAttributes;
        private int captureLine;
        private int captureColumn;
        private String captureElement;
        private boolean captureHasElement;

        Handler(URI documentUri, Batch.Listener listener, boolean submitting) {
            this.submitting = submitting;
            this.documentUri = documentUri;
            this.base = documentUri;
            this.listener = listener;
        }

        @Override public void setDocumentLocator(Locator locator) {
            this.locator = locator;
        }

        @Override public void startPrefixMapping(String prefix, String uri) throws SAXException {
            if (deferred != null) return;
            if (!contextPushed) {
                namespaces.pushContext();
                contextPushed = true;
            }
            namespaces.declarePrefix(prefix, uri);
            // Mappings arrive before their element's startElement, so at the parent's depth.
            if (capture != null && depth >= captureDepth) {
                capture.startPrefixMapping(prefix, uri);
            }
        }

        @Override public void endPrefixMapping(String prefix) throws SAXException {
            if (deferred != null) return;
            if (capture != null && depth >= captureDepth) {
                capture.endPrefixMapping(prefix);
            }
        }

        @Override public void startElement(String uri, String local, String qName, Attributes atts) throws SAXException {
            if (deferred != null) return;
            if (!contextPushed) namespaces.pushContext();
            contextPushed = false;
            depth++;
            if (capture != null) {
                if (depth > captureDepth) {
                    captureHasElement = true;
                    capture.startElement(uri, local, qName, atts);
                    return;
                }
            }
            if (depth == 1) {
                root(uri, local, atts);
            } else if (depth == 2 && Batch.NS.equals(uri)) {
                switch (local) {
                    case "stylesheet", "schematron", "param" -> startCapture(local, atts);
                    case "input" -> input(atts);
                    default -> throw invalid(ErrorMessage.BATCH_UNEXPECTED_ELEMENT, local);
                }
            } else {
                throw invalid(ErrorMessage.BATCH_UNEXPECTED_ELEMENT, "{" + uri + "}" + local);
            }
        }

        @Override public void endElement(String uri, String local, String qName) throws SAXException {
            if (deferred != null) return;
            try {
                if (capture != null) {
                    if (depth > captureDepth) {
                        capture.endElement(uri, local, qName);
                    } else {
                        endCapture();
                    }
                } else if (depth == 1 && !headerSent) {
                    throw invalid(ErrorMessage.BATCH_NO_INPUT);
                }
            } finally {
                namespaces.popContext();
                depth--;
            }
        }

        @Override public void characters(char[] ch, int start, int length) throws SAXException {
            if (deferred != null) return;
            if (capture != null && depth >= captureDepth) {
                capture.characters(ch, start, length);
            }
        }

        @Override public void ignorableWhitespace(char[] ch, int start, int length) throws SAXException {
            characters(ch, start, length);
        }

        @Override public void processingInstruction(String target, String data) throws SAXException {
            if (deferred != null) return;
            if (capture != null && depth >= captureDepth) {
                capture.processingInstruction(target, data);
            }
        }

        private void root(String uri, String local, Attributes atts) {
            if (!Batch.NS.equals(uri) || !"batch".equals(local)) {
                throw invalid(ErrorMessage.BATCH_ROOT, Batch.NS, uri, local);
            }
            String xmlBase = atts.getValue(XMLConstants.XML_NS_URI, "base");
            if (xmlBase != null) {
                try {
                    base = FileRoots.toUri(xmlBase, documentUri, "xml:base");
                } catch (ArnoException e) {
                    throw e.at(here());
                }
            }
            name = atts.getValue("", "name");
            priority = integer(atts, "priority", 0, Integer.MIN_VALUE);
            String p = atts.getValue("", "parallelism");
            parallelism = p == null ? null : integer(atts, "parallelism", 1, 1);
            String t = atts.getValue("", "time-limit");
            if (t != null) {
                try {
                    timeLimit = java.time.Duration.parse(t.strip());
                } catch (java.time.format.DateTimeParseException e) {
                    timeLimit = null;
                }
                if (timeLimit == null || timeLimit.isNegative() || timeLimit.isZero()) {
                    throw invalid(ErrorMessage.BATCH_TIME_LIMIT, t);
                }
            }
        }

        private int integer(Attributes atts, String attribute, int defaultValue, int min) {
            String value = atts.getValue("", attribute);
            if (value == null) return defaultValue;
            try {
                int i = Integer.parseInt(value.strip());
                if (i < min) throw new NumberFormatException();
                return i;
            } catch (NumberFormatException e) {
                throw min > Integer.MIN_VALUE ? invalid(ErrorMessage.BATCH_INTEGER_AT_LEAST, attribute, min, value)
                        : invalid(ErrorMessage.BATCH_INTEGER, attribute, value);
            }
        }

        private void startCapture(String local, Attributes atts) throws SAXException {
            if (headerSent) {
                throw invalid(ErrorMessage.BATCH_BEFORE_INPUT, local);
            }
            if (!"param".equals(local) && code != null) {
                throw invalid(ErrorMessage.BATCH_SECOND_CODE);
            }
            if ("param".equals(local) && code == null) {
                throw invalid(ErrorMessage.BATCH_PARAM_ORDER);
            }
            try {
                DocumentBuilder builder = processor.newDocumentBuilder();
                builder.setBaseURI(base);
                builder.setLineNumbering(true);
                capture = builder.newBuildingContentHandler();
            } catch (SaxonApiException e) {
                throw new IllegalStateException(e);
            }
            capture.setDocumentLocator(locator);
            capture.startDocument();
            // The captured tree sees every namespace in scope, as the original did.
            for (Enumeration<?> e = namespaces.getPrefixes(); e.hasMoreElements(); ) {
                String prefix = (String) e.nextElement();
                if (!"xml".equals(prefix)) capture.startPrefixMapping(prefix, namespaces.getURI(prefix));
            }
            String defaultNs = namespaces.getURI("");
            if (defaultNs != null && !defaultNs.isEmpty()) {
                capture.startPrefixMapping("", defaultNs);
            }
            captureDepth = depth;
            captureElement = local;
            captureAttributes = new org.xml.sax.helpers.AttributesImpl(atts);
            captureLine = locator.getLineNumber();
            captureColumn = locator.getColumnNumber();
            captureHasElement = false;
        }

        private void endCapture() throws SAXException {
            capture.endDocument();
            XdmNode document;
            try {
                document = capture.getDocumentNode();
            } catch (SaxonApiException e) {
                throw new IllegalStateException(e);
            }
            capture = null;
            if ("param".equals(captureElement)) {
                params.add(param(document));
            } else {
                code = code(document);
            }
        }

        private Batch.Code code(XdmNode document) {
            Batch.Kind kind = "stylesheet".equals(captureElement) ? Batch.Kind.XSLT : Batch.Kind.SCHEMATRON;
            String href = captureAttributes.getValue("", "href");
            XdmNode element = null;
            for (XdmNode child : document.children()) {
                if (child.getNodeKind() == XdmNodeKind.ELEMENT) {
                    if (element != null) {
                        throw invalidAtCapture(ErrorMessage.BATCH_TWO_ELEMENTS, captureElement);
                    }
                    element = child;
                } else if (child.getNodeKind() == XdmNodeKind.TEXT && !child.getStringValue().isBlank()) {
                    throw invalidAtCapture(ErrorMessage.BATCH_TEXT, captureElement);
                }
            }
            if ((href == null) == (element == null)) {
                throw invalidAtCapture(kind == Batch.Kind.XSLT ? ErrorMessage.BATCH_STYLESHEET_ONCE : ErrorMessage.BATCH_SCHEMA_ONCE,
                        captureElement);
            }
            if (element != null && kind == Batch.Kind.SCHEMATRON
                    && !"http://purl.oclc.org/dsdl/schematron".equals(element.getNodeName().getNamespace())) {
 throw invalidAtCapture(ErrorMessage.BATCH_NOT_SCHEMATRON, element.getNodeName().getEQName());
            }
            Batch.Target target = null;
            if (href != null) {
                try {
                    target = targets.resolve(href, base, captureElement, submitting);
                } catch (ArnoException e) {
                    throw e.at(captureWhere());
                }
            }
            String phase = captureAttributes.getValue("", "phase");
            return new Batch.Code(kind, target, element == null ? null : document,
                    phase == null ? null : phase.strip(), captureWhere());
        }

        private Batch.Param param(XdmNode document) {
            String nameAttr = captureAttributes.getValue("", "name");
            QName qname;
            try {
                qname = nameAttr.startsWith("Q{") ? QName.fromEQName(nameAttr) : qname(nameAttr.strip());
            } catch (IllegalArgumentException e) {
                throw ErrorMessage.PARAM_NOT_QNAME.error(nameAttr, e.getMessage())
                        .at(captureWhere());
            }
            String select = captureAttributes.getValue("", "select");
            if (select != null) {
                XPathCompiler xpath = processor.newXPathCompiler();
                for (Enumeration<?> e = namespaces.getPrefixes(); e.hasMoreElements(); ) {
                    String prefix = (String) e.nextElement();
                    xpath.declareNamespace(prefix, namespaces.getURI(prefix));
                }
                try {
                    XPathSelector selector = xpath.compile(select).load();
                    selector.setContextItem(document);
                    return new Batch.Param(qname, selector.evaluate());
                } catch (SaxonApiException e) {
                    // A read the roots or the outbound policy refused keeps its own code.
                    ArnoException refused = ArnoException.find(e);
                    ArnoException error = refused != null ? refused
                            : ErrorMessage.PARAM_SELECT_FAILS.error(e, nameAttr, select, e.getMessage()).processorCode(arno.xml.ErrorXml.processorCode(e.getErrorCode()));
                    throw error.at(captureWhere());
                }
            }
            if (captureHasElement) return new Batch.Param(qname, document);
            try {
                return new Batch.Param(qname, new XdmAtomicValue(document.getStringValue(), ItemType.UNTYPED_ATOMIC));
            } catch (SaxonApiException e) {
                throw new IllegalStateException("any string is an xs:untypedAtomic", e);
            }
        }

        private QName qname(String lexical) {
            int colon = lexical.indexOf(':');
            if (colon < 0) {
                if (!net.sf.saxon.om.NameChecker.isValidNCName(lexical)) throw new IllegalArgumentException("invalid name");
                return new QName(lexical);
            }
            String prefix = lexical.substring(0, colon);
            String uri = namespaces.getURI(prefix);
            if (uri == null) throw new IllegalArgumentException("prefix " + prefix + " is not declared");
            return new QName(prefix, uri, lexical.substring(colon + 1));
        }

        private void input(Attributes atts) {
            if (code == null) {
                throw invalid(ErrorMessage.BATCH_INPUT_ORDER);
            }
            if (!headerSent) {
                headerSent = true;
                listener.header(new Batch.Header(name, priority, parallelism, base, code, List.copyOf(params), timeLimit));
            }
            String href = atts.getValue("", "href");
            String output = atts.getValue("", "output");
            if (href == null) throw invalid(ErrorMessage.BATCH_INPUT_HREF);
            Batch.Target source;
            Batch.Target target = null;
            try {
                source = targets.resolve(href, base, "input", submitting);
                if (output != null) target = targets.resolve(output, base, "output", submitting);
            } catch (ArnoException e) {
                throw e.at(here());
            }
            listener.input(new Batch.Input(++inputs, source, target, locator.getLineNumber()));
        }

        private Where here() {
            return Where.at(documentUri.toString(), locator == null ? -1 : locator.getLineNumber(),
                    locator == null ? -1 : locator.getColumnNumber());
        }

        private Where captureWhere() {
            return Where.at(documentUri.toString(), captureLine, captureColumn);
        }

        private ArnoException invalid(ErrorMessage message, Object... values) {
            return message.error(values).at(here());
        }

        private ArnoException invalidAtCapture(ErrorMessage message, Object... values) {
            return message.error(values).at(captureWhere());
        }
    }
}
