package arno.pipeline;

import arno.xml.ArnoException;
import java.net.URI;
import net.sf.saxon.event.ContentHandlerProxy;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.ProxyReceiver;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceivingContentHandler;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.s9api.AbstractDestination;
import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XQueryEvaluator;
import net.sf.saxon.s9api.XQueryExecutable;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.serialize.SerializationProperties;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.SchemaType;
import org.xml.sax.ContentHandler;
import org.xml.sax.ext.LexicalHandler;

/**
 * One compiled step of a pipeline: XSLT, XQuery or Java. A stage is compiled
 * once (the executables are immutable and thread-safe) and {@link #open}ed
 * per request, which returns the destination that takes the stage's input
 * document and writes its output into {@code next}: stages chain as event
 * streams, without serializing between them.
 *
 * <p>Contract of a stage, whatever its language. It MAY read documents (through the server's
 * resources only: the roots, the store, the outbound policy) and MAY fail; it MUST NOT write
 * anywhere but into {@code next} (xsl:result-document is refused), MUST NOT keep per-request state
 * beyond the destination it returns, and MUST leave the time limit to the event stream (the
 * {@link Guard} and {@link DeadlineTreeModel} check it). A failure is translated by
 * {@link Pipeline} into an {@link ArnoException} naming the stage.
 */
abstract class Stage {
    final String description;

    Stage(String description) {
        this.description = description;
    }

    /** Opens the stage at position {@code index} of its pipeline for one request. */
    abstract Destination open(RequestScope scope, Destination next, int index) throws SaxonApiException;

    @Override
    public String toString() {
        return description;
    }

    /** Refuses xsl:result-document: Saxon's default writes the result to a file beside the output URI. */
    private static final java.util.function.Function<URI, Destination> NO_RESULT_DOCUMENTS = uri -> {
        XPathException x = new XPathException("xsl:result-document (" + uri + ") is not allowed in a page:"
                + " a stage's only output is the next stage's input", "XTDE1480");
        throw new net.sf.saxon.trans.UncheckedXPathException(x);
    };

    /** XSLT: applies templates to the input document in the stage's mode. */
    static final class Xslt extends Stage {
        private final XsltExecutable executable;
        private final QName mode;

        Xslt(String description, XsltExecutable executable, QName mode) {
            super(description);
            this.executable = executable;
            this.mode = mode;
        }

        @Override
        Destination open(RequestScope scope, Destination next, int index) throws SaxonApiException {
            Xslt30Transformer t = executable.load30();
            if (mode != null) t.setInitialMode(mode);
            t.setMessageHandler(scope.messages());
            t.setTraceFunctionDestination(scope.trace());
            t.setErrorReporter(scope.warnings());
            // The request's resolvers for this run: Saxon asks a transformer's own before the configuration's.
            t.setResourceResolver(scope.resolver());
            t.setUnparsedTextResolver(scope.resolver());
            t.getUnderlyingController().setCollectionFinder(scope.resolver());
            t.getUnderlyingController().setModel(scope.treeModel());
            // A page writes one response; xsl:result-document would write files on the server.
            t.setResultDocumentHandler(NO_RESULT_DOCUMENTS);
            if (!scope.watch) return t.asDocumentDestination(next);
            // What asDocumentDestination does (strip space as the stylesheet says, then apply
            // templates to the document, the global context item too), on a watched view of it.
            net.sf.saxon.trans.XsltController c = t.getUnderlyingController();
            return new WatchedInput(scope, c::makeStripper, c.getSpaceStrippingRule(), input -> {
                XdmNode document = new XdmNode(input);
                t.setGlobalContextItem(document, true);
                t.applyTemplates(document, next);
            });
        }
    }

    /** XQuery: builds the input document, then runs the query with it as context item. */
    static final class XQuery extends Stage {
        private final XQueryExecutable executable;

        XQuery(String description, XQueryExecutable executable) {
            super(description);
            this.executable = executable;
        }

        @Override
        Destination open(RequestScope scope, Destination next, int index) {
            XQueryEvaluator q = executable.load();
            // The request's resolvers for this run; collection() goes to the configuration's finder,
            // which finds the run by this resolver (Resources.scope).
            q.setResourceResolver(scope.resolver());
            q.setUnparsedTextResolver(scope.resolver());
            q.setErrorReporter(scope.warnings());
            q.setTraceFunctionDestination(scope.trace());
            if (scope.watch) {
                return new WatchedInput(scope, null, null, document -> {
                    q.setContextItem(new XdmNode(document));
                    q.run(next);
                });
            }
            XdmDestination input = new XdmDestination();
            input.onClose(() -> {
                q.setContextItem(input.getXdmNode());
                q.run(next);
            });
            return input;
        }
    }

    /**
     * Java: a {@link SaxStage} behind a guard ({@link #open(RequestScope, ContentHandler, int)}). At
     * the head of a pipeline it takes the request's SAX events directly; after an XSLT or XQuery
     * stage it sits between two SAX adapters.
     */
    static final class Java extends Stage {
        private final SaxStage filter;

        Java(String description, SaxStage filter) {
            super(description);
            this.filter = filter;
        }

        /**
         * The stage at position {@code index}, on SAX events, behind a guard: the deadline checked
         * every few hundred events (at the head no {@link Guard} does it), and the stage named in
         * the error when it fails. A filter runs while its input streams, not after it, so it cannot
         * be marked as started when its input is complete as other stages are: instead, whatever
         * fails below this guard before any later stage has started is this stage's failure.
         */
        org.xml.sax.helpers.XMLFilterImpl open(RequestScope scope, ContentHandler next, int index) {
            ContentHandler in = filter.open(scope, next);
            org.xml.sax.helpers.XMLFilterImpl guard = new org.xml.sax.helpers.XMLFilterImpl() {
                private int events;

                private void mark() {
                    if (scope.stage < index) {
                        scope.stage = index;
                        scope.stageName = description;
                    }
                }

                @Override
                public void startElement(String uri, String local, String qName, org.xml.sax.Attributes atts)
                        throws org.xml.sax.SAXException {
                    if (++events % Guard.CHECK_EVERY == 0) scope.checkDeadline();
                    try {
                        super.startElement(uri, local, qName, atts);
                    } catch (org.xml.sax.SAXException | RuntimeException e) {
                        mark();
                        throw e;
                    }
                }

                @Override
                public void endElement(String uri, String local, String qName) throws org.xml.sax.SAXException {
                    try {
                        super.endElement(uri, local, qName);
                    } catch (org.xml.sax.SAXException | RuntimeException e) {
                        mark();
                        throw e;
                    }
                }

                @Override
                public void characters(char[] ch, int start, int length) throws org.xml.sax.SAXException {
                    try {
                        super.characters(ch, start, length);
                    } catch (org.xml.sax.SAXException | RuntimeException e) {
                        mark();
                        throw e;
                    }
                }

                @Override
                public void startDocument() throws org.xml.sax.SAXException {
                    try {
                        super.startDocument();
                    } catch (org.xml.sax.SAXException | RuntimeException e) {
                        mark();
                        throw e;
                    }
                }

                @Override
                public void endDocument() throws org.xml.sax.SAXException {
                    scope.checkDeadline();
                    try {
                        super.endDocument();
                    } catch (org.xml.sax.SAXException | RuntimeException e) {
                        mark();
                        throw e;
                    }
                }
            };
            guard.setContentHandler(in);
            return guard;
        }

        @Override
        Destination open(RequestScope scope, Destination next, int index) {
            return new AbstractDestination() {
                @Override
                public Receiver getReceiver(PipelineConfiguration pipe, SerializationProperties params) throws SaxonApiException {
                    ReceivingContentHandler out = new ReceivingContentHandler();
                    out.setPipelineConfiguration(pipe);
                    out.setReceiver(next.getReceiver(pipe, params));
                    org.xml.sax.helpers.XMLFilterImpl in = open(scope, out, index);
                    ContentHandlerProxy proxy = new ContentHandlerProxy(in) {
                        // Saxon's SAX bridge passes text without a location, and its locator then fails
                        // on an element the stage writes next (an element appended after a cookie's text).
                        @Override
                        public Location getCurrentLocation() {
                            Location at = super.getCurrentLocation();
                            return at != null ? at : net.sf.saxon.expr.parser.Loc.NONE;
                        }
                    };
                    proxy.setPipelineConfiguration(pipe);
                    // Comments and CDATA marks go to the stage itself when it takes them (the guard takes none).
                    if (in.getContentHandler() instanceof LexicalHandler lexical) proxy.setLexicalHandler(lexical);
                    return proxy;
                }

                @Override
                public void close() throws SaxonApiException {
                    next.close();
                }
            };
        }
    }

    /**
     * A stage's input document for a page built for the page cache: built by the request's tree
     * model (so the time limit holds), with its space stripped by {@code stripper} (null: none),
     * then handed to {@code run} as a {@link WatchedRequest}, which records what of the HTTP
     * request the stage reads.
     */
    static final class WatchedInput extends AbstractDestination {
        private final RequestScope scope;
        private final java.util.function.UnaryOperator<Receiver> stripper;
        private final net.sf.saxon.om.SpaceStrippingRule rule;
        private final Run run;

        /** Runs the stage on its input. */
        interface Run {
            void run(net.sf.saxon.om.NodeInfo input) throws SaxonApiException;
        }

        WatchedInput(RequestScope scope, java.util.function.UnaryOperator<Receiver> stripper,
                     net.sf.saxon.om.SpaceStrippingRule rule, Run run) {
            this.scope = scope;
            this.stripper = stripper;
            this.rule = rule;
            this.run = run;
        }

        @Override
        public Receiver getReceiver(PipelineConfiguration pipe, SerializationProperties params) {
            net.sf.saxon.event.Builder builder = scope.treeModel().makeBuilder(pipe);
            Receiver into = stripper == null ? builder : stripper.apply(builder);
            net.sf.saxon.event.TreeReceiver tree = new net.sf.saxon.event.TreeReceiver(into) {
                private boolean closed;

                @Override
                public void close() throws XPathException {
                    if (closed) return;
                    closed = true;
                    super.close();
                    net.sf.saxon.om.NodeInfo root = builder.getCurrentRoot();
                    if (rule != null) root.getTreeInfo().setSpaceStrippingRule(rule);
                    try {
                        run.run(WatchedRequest.watch(root, scope.reads));
                    } catch (SaxonApiException e) {
                        throw XPathException.makeXPathException(e);
                    }
                }
            };
            Receiver in = new net.sf.saxon.event.SequenceNormalizerWithSpaceSeparator(tree);
            in.setPipelineConfiguration(pipe);
            return in;
        }

        @Override
        public void close() {
            // The stage ran when its input was complete (the receiver's close); nothing is held here.
        }
    }

    /** A stage that did not compile: every request gets the compiler's messages. */
    static final class Broken extends Stage {
        private final ArnoException error;

        Broken(String description, ArnoException error) {
            super(description);
            this.error = error;
        }

        ArnoException error() {
            return error;
        }

        @Override
        Destination open(RequestScope scope, Destination next, int index) {
            throw new CompileFailure(error);
        }
    }

    /** Carries a compile error through Saxon's call stack. */
    static final class CompileFailure extends RuntimeException {
        final ArnoException error;

        CompileFailure(ArnoException error) {
            super(error.getMessage(), error, false, false);
            this.error = error;
        }
    }

    /**
     * Sits in front of a stage's input: checks the deadline every few hundred
     * events (so a stylesheet that loops while producing output is stopped),
     * and marks the stage as started when its input document is complete,
     * which is when an XSLT or XQuery stage begins to run.
     */
    static final class Guard extends AbstractDestination {
        static final int CHECK_EVERY = 256;
        private final Destination inner;
        private final RequestScope scope;
        private final int index;
        private final String name;

        Guard(Destination inner, RequestScope scope, int index, String name) {
            this.inner = inner;
            this.scope = scope;
            this.index = index;
            this.name = name;
        }

        @Override
        public void setDestinationBaseURI(URI base) {
            inner.setDestinationBaseURI(base);
        }

        @Override
        public Receiver getReceiver(PipelineConfiguration pipe, SerializationProperties params) throws SaxonApiException {
            return new ProxyReceiver(inner.getReceiver(pipe, params)) {
                private int events;

                private void tick() {
                    if (++events % CHECK_EVERY == 0) scope.checkDeadline();
                }

                // The hot events call the next receiver from here, not through ProxyReceiver's methods: their
                // one call site is shared by every proxy in the JVM and dispatches through an itable stub,
                // where this one sees only what follows a stage (async-profiler, large pages: 17 µs a page).
                @Override
                public void startElement(NodeName name, SchemaType type, AttributeMap attributes,
                                         NamespaceMap namespaces, Location location, int properties) throws XPathException {
                    tick();
                    nextReceiver.startElement(name, type, attributes, namespaces, location, properties);
                }

                @Override
                public void endElement() throws XPathException {
                    nextReceiver.endElement();
                }

                @Override
                public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
                    tick();
                    nextReceiver.characters(chars, location, properties);
                }

                @Override
                public void endDocument() throws XPathException {
                    scope.checkDeadline();
                    if (index >= 0) {
                        scope.stage = index;
                        scope.stageName = name;
                    }
                    super.endDocument();
                }
            };
        }

        @Override
        public void close() throws SaxonApiException {
            inner.close();
        }
    }
}
