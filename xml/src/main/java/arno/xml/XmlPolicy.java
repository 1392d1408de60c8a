package arno.xml;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.sax.SAXSource;
import net.sf.saxon.Configuration;
import net.sf.saxon.lib.IDynamicLoader;
import net.sf.saxon.lib.ParseOptions;
import net.sf.saxon.lib.Validation;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.trans.UncheckedXPathException;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXNotRecognizedException;
import org.xml.sax.SAXNotSupportedException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.ext.DeclHandler;
import org.xml.sax.ext.LexicalHandler;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * The one XML security policy: every parser in Arno comes from here (request bodies, site.xml,
 * batch documents and inputs, store loads, stylesheets, and whatever {@code doc()} and
 * {@code collection()} read, through {@link #install}: each Saxon Configuration parses by the
 * policy installed on it).
 *
 * <ul>
 * <li><b>Nothing external is ever fetched.</b> A DOCTYPE that names a public or system id (as
 * every PMC article does) is accepted and its DTD is not read. A reference to an external entity
 * is refused when it is met, before anything is opened; so is a reference to an entity that only
 * the unread DTD declares (skipping it would lose content without a word).</li>
 * <li><b>Bounded expansion.</b> Each internal entity's full expansion is worked out from its
 * declaration, so a "billion laughs" is refused at the declaration, before one expansion; the
 * expansions and entity characters a document actually uses are counted; element depth and
 * attribute length are bounded ({@link Limits}).</li>
 * <li><b>Recognised by signal.</b> Every refusal is a {@link Refused} with its {@link Kind},
 * thrown by this class's own checks and found again under any wrapper by {@link #refusal}; nothing
 * depends on a parser's message text. The JDK parser's own limits stay on at twice ours, as a
 * second barrier that ours always reach first for content.</li>
 * </ul>
 *
 * Instances are immutable and thread-safe; the readers they make are not (one per parse).
 */
public final class XmlPolicy {

    /**
     * The limits of one document.
     *
     * @param entityExpansions   entity references expanded, in total (each nested one counts)
     * @param entityCharacters   characters entities may expand to, in total
     * @param depth              element nesting
     * @param attributeCharacters characters of one attribute value
     */
    public record Limits(int entityExpansions, long entityCharacters, int depth, int attributeCharacters) {
        /**
         * Far above what publishing XML uses (JATS nests some 30 deep; entities, when a document
         * declares any, expand a few hundred times), far below what hurts.
         */
        public static final Limits DEFAULT = new Limits(10_000, 1_000_000, 1_000, 4 << 20);

        public Limits {
            if (entityExpansions < 0 || entityCharacters < 0 || depth < 1 || attributeCharacters < 1) {
                throw ErrorMessage.XML_LIMITS.error(entityExpansions, entityCharacters, depth, attributeCharacters);
            }
        }
    }

    /** Why a document was refused. */
    public enum Kind {
        EXTERNAL_ENTITY, UNDECLARED_ENTITY, ENTITY_EXPANSIONS, ENTITY_CHARACTERS, DEPTH, ATTRIBUTE_LENGTH
    }

    /** A document refused by the policy, at the place the parser was when it was refused. */
    public static final class Refused extends SAXParseException {
        private final Kind kind;

        Refused(Kind kind, String message, Locator locator) {
            super(message, locator);
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }
    }

    public static final XmlPolicy DEFAULT = new XmlPolicy(Limits.DEFAULT);

    private static final String JDK = "http://www.oracle.com/xml/jaxp/properties/";
    private static final String LEXICAL = "http://xml.org/sax/properties/lexical-handler";
    private static final String DECL = "http://xml.org/sax/properties/declaration-handler";
    private static final SAXParserFactory FACTORY = factory();

    private final Limits limits;
    /**
     * Each thread's idle reader for {@link #source} and Saxon's parses. Making a JDK SAXParser
     * costs more than parsing a small document (Saxon pools its own for that reason); without
     * this, every source-cache miss of the page benchmark built one, 2-3% of the server's CPU per
     * page (perf/RESULTS.md). A reader returns here when its parse ends normally; one whose parse
     * failed is dropped, since a parser's state after a fatal error is not worth trusting.
     */
    private final ThreadLocal<Guard> idle = new ThreadLocal<>();

    public XmlPolicy(Limits limits) {
        this.limits = limits;
    }

    public Limits limits() {
        return limits;
    }

    private static SAXParserFactory factory() {
        try {
            // The JDK's own parser, never one found on the class path: its limits are documented properties.
            SAXParserFactory f = SAXParserFactory.newDefaultNSInstance();
            f.setValidating(false);
            f.setXIncludeAware(false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            // On, so that a reference to an external entity reaches our resolver and is refused
            // with its name; off, the parser would skip it silently and content would be lost.
            f.setFeature("http://xml.org/sax/features/external-general-entities", true);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", true);
            // The external DTD subset is never read: JATS articles name one and must still parse.
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
            return f;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the JDK's SAX parser lacks a security feature", e);
        }
    }

    /**
     * A reader for one parse: this thread's idle one, or a new one that comes back to this thread
     * when its parse has ended normally. Use it for one parse and drop it; a reader to keep
     * comes from {@link #newReader()}.
     */
    public XMLReader borrowReader() {
        Guard g = idle.get();
        if (g != null) {
            idle.remove();
            return g;
        }
        g = new Guard(jdkReader(limits), limits);
        g.home = idle;
        return g;
    }

    /** A new namespace-aware reader under this policy, the caller's to keep. Readers are not thread-safe. */
    public XMLReader newReader() {
        return new Guard(jdkReader(limits), limits);
    }

    /** The JDK's own parser with its limits set as a second barrier behind ours. */
    private static XMLReader jdkReader(Limits limits) {
        try {
            XMLReader reader;
            synchronized (FACTORY) {
                reader = FACTORY.newSAXParser().getXMLReader();
            }
            set(reader, JDK + "entityExpansionLimit", String.valueOf(backstop(limits.entityExpansions)));
            set(reader, JDK + "totalEntitySizeLimit", String.valueOf(backstop(limits.entityCharacters)));
            set(reader, JDK + "maxGeneralEntitySizeLimit", String.valueOf(backstop(limits.entityCharacters)));
            set(reader, JDK + "maxElementDepth", String.valueOf(backstop(limits.depth)));
            set(reader, XMLConstants.ACCESS_EXTERNAL_DTD, "");
            set(reader, XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            reader.setFeature("http://xml.org/sax/features/namespace-prefixes", false);
            return reader;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("cannot configure the JDK's SAX parser", e);
        }
    }

    /**
     * Where Saxon builds a source itself and gives it no reader ({@code parse-xml()},
     * {@code parse-xml-fragment()}), it takes a parser from its Configuration's pool or makes one of
     * the Configuration's source parser class, by name, through the Configuration's
     * {@link IDynamicLoader}; the parse options' reader maker is not asked. So {@link #install} names
     * {@link Guard} as that class and wraps the Configuration's loader in one that answers that name
     * with a reader of the policy installed on that Configuration: each Configuration parses by its
     * own policy, and nothing is kept outside it. Saxon pools these readers per Configuration.
     */
    private static final String PARSER = Guard.class.getName();

    /** The Configuration's class loader, except that {@link #PARSER} is a reader of {@link #policy}. */
    private static final class Loader implements IDynamicLoader {
        final IDynamicLoader inner;
        final XmlPolicy policy;

        Loader(IDynamicLoader inner, XmlPolicy policy) {
            this.inner = inner;
            this.policy = policy;
        }

        @Override
        public void setClassLoader(ClassLoader loader) {
            inner.setClassLoader(loader);
        }

        @Override
        public Class<?> getClass(String name, net.sf.saxon.lib.Logger traceOut, ClassLoader loader) throws XPathException {
            return inner.getClass(name, traceOut, loader);
        }

        @Override
        public Object getInstance(String name, ClassLoader loader) throws XPathException {
            return PARSER.equals(name) ? policy.newReader() : inner.getInstance(name, loader);
        }

        @Override
        public Object getInstance(String name, net.sf.saxon.lib.Logger traceOut, ClassLoader loader) throws XPathException {
            return PARSER.equals(name) ? policy.newReader() : inner.getInstance(name, traceOut, loader);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            return inner.getResourceAsStream(name);
        }
    }

    private static final javax.xml.stream.XMLInputFactory STREAMS = streams();

    private static javax.xml.stream.XMLInputFactory streams() {
        javax.xml.stream.XMLInputFactory f = javax.xml.stream.XMLInputFactory.newDefaultFactory();
        f.setProperty(javax.xml.stream.XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(javax.xml.stream.XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(javax.xml.stream.XMLInputFactory.IS_NAMESPACE_AWARE, true);
        return f;
    }

    /**
     * A StAX reader for documents Arno wrote itself (batch reports, the answers of its own
     * services), read back as a stream: no DTD at all, so no entity of any kind; anything else
     * goes through {@link #newReader()}. The factory is the JDK's and is shared (creating readers
     * from it is thread-safe).
     */
    public static javax.xml.stream.XMLStreamReader streamOwn(java.io.Reader in) throws javax.xml.stream.XMLStreamException {
        return STREAMS.createXMLStreamReader(in);
    }

    /** As {@link #streamOwn(java.io.Reader)}, from bytes whose encoding the document declares. */
    public static javax.xml.stream.XMLStreamReader streamOwn(InputStream in) throws javax.xml.stream.XMLStreamException {
        return STREAMS.createXMLStreamReader(in);
    }

    private static long backstop(long limit) {
        return Math.min(Integer.MAX_VALUE, Math.max(limit * 2, 1));
    }

    private static void set(XMLReader reader, String name, Object value) throws SAXNotRecognizedException, SAXNotSupportedException {
        reader.setProperty(name, value);
    }

    /**
     * A small document (a configuration) parsed by this policy into a tree of its own processor;
     * what the parser refuses is an {@link ArnoException} naming {@code systemId} ({@link #translate}).
     */
    public net.sf.saxon.s9api.XdmNode parse(byte[] xml, String systemId) {
        net.sf.saxon.s9api.Processor p = new net.sf.saxon.s9api.Processor(false);
        install(p.getUnderlyingConfiguration());
        try {
            net.sf.saxon.s9api.DocumentBuilder b = p.newDocumentBuilder();
            b.setLineNumbering(true); // so that a reader of the configuration can say where a setting is wrong
            return b.build(source(new java.io.ByteArrayInputStream(xml), systemId));
        } catch (net.sf.saxon.s9api.SaxonApiException e) {
            throw translate(e, systemId);
        }
    }

    /**
     * A configuration document's schema (an XSD on the class path), compiled with nothing external
     * fetched: no DTD, no imported or included schema from outside.
     */
    public static javax.xml.validation.Schema schema(java.net.URL xsd) {
        try {
            javax.xml.validation.SchemaFactory f = javax.xml.validation.SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            return f.newSchema(xsd);
        } catch (SAXException e) {
            throw new IllegalStateException("the schema " + xsd + " does not load", e);
        }
    }

    /**
     * Validates {@code xml} against {@code schema}, parsed by a reader of this policy, nothing
     * external fetched. The caller translates: a {@link SAXParseException} (not well-formed, or
     * refused by the schema) carries the line and column; a {@link Refused} is this policy's.
     */
    public void validate(javax.xml.validation.Schema schema, byte[] xml, String systemId) throws SAXException, IOException {
        javax.xml.validation.Validator v = schema.newValidator();
        v.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        v.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        InputSource input = new InputSource(new java.io.ByteArrayInputStream(xml));
        input.setSystemId(systemId);
        v.validate(new SAXSource(newReader(), input));
    }

    /** A source that Saxon (or JAXP) parses with a reader of this policy. */
    public SAXSource source(InputStream in, String systemId) {
        InputSource input = new InputSource(in);
        input.setSystemId(systemId);
        SAXSource s = new SAXSource(borrowReader(), input);
        s.setSystemId(systemId);
        return s;
    }

    /**
     * Makes this policy the parser of everything {@code config} parses itself: documents given as
     * stream sources, stylesheets, queries' documents. No DTD validation, no XInclude.
     */
    public void install(Configuration config) {
        IDynamicLoader loader = config.getDynamicLoader();
        if (loader instanceof Loader ours) loader = ours.inner; // installed again: replaced, not stacked
        config.setDynamicLoader(new Loader(loader, this));
        config.setSourceParserClass(PARSER);
        ParseOptions options = config.getParseOptions()
                .withXMLReaderMaker(this::borrowReader)
                .withDTDValidationMode(Validation.SKIP)
                .withXIncludeAware(false);
        config.setParseOptions(options);
    }

    /** The policy's refusal somewhere in {@code t}'s causes (SAX's and Saxon's wrappers too), or null. */
    public static Refused refusal(Throwable t) {
        for (int depth = 0; t != null && depth < 32; depth++) {
            if (t instanceof Refused r) return r;
            if (t instanceof SAXException s && s.getException() != null && s.getException() != t) {
                Refused inner = refusal(s.getException());
                if (inner != null) return inner;
            }
            if (t instanceof UncheckedXPathException u && u.getXPathException() != t.getCause()) {
                Refused inner = refusal(u.getXPathException());
                if (inner != null) return inner;
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        return null;
    }

    /**
     * Translates a failed parse of {@code what} (a file, URI or "request body") into the error a
     * user sees: {@link ErrorCode#REFUSED_XML} for the policy's refusals,
     * {@link ErrorCode#MALFORMED_XML} with line and column for syntax errors, {@link ErrorCode#IO}
     * when the bytes could not be read. An {@link ArnoException} underneath is returned as it is.
     */
    public static ArnoException translate(Throwable t, String what) {
        ArnoException arno = ArnoException.find(t);
        if (arno != null) return arno;
        Refused refused = refusal(t);
        if (refused != null) {
            return ErrorCode.REFUSED_XML.error(t, what, refused.getMessage()).at(Where.of(refused, what));
        }
        SAXParseException parse = find(t, SAXParseException.class);
        if (parse != null) {
            return ErrorCode.MALFORMED_XML.error(t, what, parse.getMessage()).at(Where.of(parse, what));
        }
        XPathException x = find(t, XPathException.class);
        if (x != null) {
            String m = String.valueOf(x.getMessage());
            int cut = m.indexOf(SAXON_PREFIX);
            if (cut >= 0) m = m.substring(cut + SAXON_PREFIX.length());
            return ErrorCode.MALFORMED_XML.error(t, what, m).at(Where.of(x.getLocator(), what));
        }
        IOException io = find(t, IOException.class);
        if (io instanceof java.io.CharConversionException || io instanceof java.io.UnsupportedEncodingException
                || io instanceof java.nio.charset.CharacterCodingException) {
            // Bytes that are not text in the declared encoding: the document is at fault, not the disk.
            return ErrorMessage.ENCODING_UNREADABLE.error(t, what, io.getMessage()).at(Where.at(what));
        }
        if (io != null) return ErrorMessage.UNREADABLE.error(t, what, io.getMessage());
        return ErrorCode.MALFORMED_XML.error(t, what, String.valueOf(t.getMessage())).at(Where.at(what));
    }

    /** Saxon's words in front of a parser's message; the parser's own message is what the user needs. */
    private static final String SAXON_PREFIX = "Error reported by XML parser: ";

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (int depth = 0; t != null && depth < 32; depth++) {
            if (type.isInstance(t)) return type.cast(t);
            if (t instanceof SAXException s && s.getException() != null && s.getException() != t) {
                T inner = find(s.getException(), type);
                if (inner != null) return inner;
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        return null;
    }

    /**
     * Sits between the JDK parser and the consumer: sees every declaration, entity boundary and
     * element, and refuses what the policy does not allow.
     */
    static class Guard extends XMLFilterImpl implements LexicalHandler, DeclHandler {
        private final Limits limits;
        private Locator locator;
        private LexicalHandler lexical;
        private DeclHandler decl;
        /** Full expansion of each general entity declared so far: characters and expansions. */
        private final Map<String, long[]> entities = new HashMap<>();
        private long expansions;
        private long entityCharacters;
        private int entityDepth;
        private int depth;
        /** The pool this reader returns to after a parse, or null for a reader its caller keeps. */
        ThreadLocal<Guard> home;

        Guard(XMLReader parent, Limits limits) {
            super(parent);
            this.limits = limits;
        }

        @Override
        public void setProperty(String name, Object value) throws SAXNotRecognizedException, SAXNotSupportedException {
            if (LEXICAL.equals(name)) lexical = (LexicalHandler) value;
            else if (DECL.equals(name)) decl = (DeclHandler) value;
            else super.setProperty(name, value);
        }

        @Override
        public Object getProperty(String name) throws SAXNotRecognizedException, SAXNotSupportedException {
            if (LEXICAL.equals(name)) return lexical;
            if (DECL.equals(name)) return decl;
            return super.getProperty(name);
        }

        @Override
        public void parse(InputSource input) throws SAXException, IOException {
            entities.clear();
            expansions = entityCharacters = entityDepth = depth = 0;
            getParent().setProperty(LEXICAL, this);
            getParent().setProperty(DECL, this);
            boolean ended = false;
            try {
                super.parse(input);
                ended = true;
            } finally {
                if (home != null && ended) {
                    // Let go of the consumer's objects (a tree builder, its document) before idling.
                    setContentHandler(null);
                    setErrorHandler(null);
                    setDTDHandler(null);
                    lexical = null;
                    decl = null;
                    locator = null;
                    home.set(this);
                }
            }
        }

        @Override
        public void parse(String systemId) throws SAXException, IOException {
            parse(new InputSource(systemId));
        }

        private Refused refuse(Kind kind, String message) {
            return new Refused(kind, message, locator);
        }

        @Override
        public void setDocumentLocator(Locator locator) {
            this.locator = locator;
            super.setDocumentLocator(locator);
        }

        @Override
        public InputSource resolveEntity(String publicId, String systemId) throws SAXException {
            throw refuse(Kind.EXTERNAL_ENTITY, "external entity " + (systemId != null ? systemId : publicId)
                    + " refused: Arno never reads external entities or DTDs");
        }

        @Override
        public void skippedEntity(String name) throws SAXException {
            throw refuse(Kind.UNDECLARED_ENTITY, "entity reference &" + name + "; cannot be expanded: it is declared"
                    + " only in an external DTD, which Arno never reads (use a character reference)");
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes atts) throws SAXException {
            if (++depth > limits.depth) {
                throw refuse(Kind.DEPTH, "elements nest deeper than the limit of " + limits.depth);
            }
            for (int i = 0, n = atts.getLength(); i < n; i++) {
                if (atts.getValue(i).length() > limits.attributeCharacters) {
                    throw refuse(Kind.ATTRIBUTE_LENGTH, "attribute " + atts.getQName(i) + " has "
                            + atts.getValue(i).length() + " characters, over the limit of " + limits.attributeCharacters);
                }
            }
            super.startElement(uri, localName, qName, atts);
        }

        @Override
        public void endElement(String uri, String localName, String qName) throws SAXException {
            depth--;
            super.endElement(uri, localName, qName);
        }

        @Override
        public void characters(char[] ch, int start, int length) throws SAXException {
            if (entityDepth > 0 && (entityCharacters += length) > limits.entityCharacters) {
                throw refuse(Kind.ENTITY_CHARACTERS, "entities expand to more than the limit of "
                        + limits.entityCharacters + " characters");
            }
            super.characters(ch, start, length);
        }

        // ---- DeclHandler: a bomb is refused at its declaration.

        @Override
        public void internalEntityDecl(String name, String value) throws SAXException {
            if (!name.startsWith("%")) {
                long chars = 0;
                long count = 1;
                int i = 0;
                while (i < value.length()) {
                    int amp = value.indexOf('&', i);
                    if (amp < 0) {
                        chars += value.length() - i;
                        break;
                    }
                    chars += amp - i;
                    int semi = value.indexOf(';', amp);
                    if (semi < 0) {
                        chars += value.length() - amp;
                        break;
                    }
                    long[] ref = entities.get(value.substring(amp + 1, semi));
                    if (ref != null) {
                        chars += ref[0];
                        count += ref[1];
                    }
                    i = semi + 1;
                    if (chars > limits.entityCharacters || count > limits.entityExpansions) break;
                }
                if (chars > limits.entityCharacters) {
                    throw refuse(Kind.ENTITY_CHARACTERS, "entity " + name + " would expand to more than "
                            + limits.entityCharacters + " characters");
                }
                if (count > limits.entityExpansions) {
                    throw refuse(Kind.ENTITY_EXPANSIONS, "entity " + name + " would need more than "
                            + limits.entityExpansions + " entity expansions");
                }
                entities.put(name, new long[] {chars, count});
            }
            if (decl != null) decl.internalEntityDecl(name, value);
        }

        @Override
        public void externalEntityDecl(String name, String publicId, String systemId) throws SAXException {
            // Declaring is harmless; a reference is refused by resolveEntity before anything is read.
            if (decl != null) decl.externalEntityDecl(name, publicId, systemId);
        }

        @Override
        public void elementDecl(String name, String model) throws SAXException {
            if (decl != null) decl.elementDecl(name, model);
        }

        @Override
        public void attributeDecl(String eName, String aName, String type, String mode, String value) throws SAXException {
            if (decl != null) decl.attributeDecl(eName, aName, type, mode, value);
        }

        // ---- LexicalHandler: counts what is expanded, forwards the rest.

        @Override
        public void startEntity(String name) throws SAXException {
            if (!name.startsWith("%") && !name.equals("[dtd]")) {
                if (++expansions > limits.entityExpansions) {
                    throw refuse(Kind.ENTITY_EXPANSIONS, "more than " + limits.entityExpansions + " entity expansions");
                }
                entityDepth++;
            }
            if (lexical != null) lexical.startEntity(name);
        }

        @Override
        public void endEntity(String name) throws SAXException {
            if (!name.startsWith("%") && !name.equals("[dtd]")) entityDepth--;
            if (lexical != null) lexical.endEntity(name);
        }

        @Override
        public void startDTD(String name, String publicId, String systemId) throws SAXException {
            if (lexical != null) lexical.startDTD(name, publicId, systemId);
        }

        @Override
        public void endDTD() throws SAXException {
            if (lexical != null) lexical.endDTD();
        }

        @Override
        public void startCDATA() throws SAXException {
            if (lexical != null) lexical.startCDATA();
        }

        @Override
        public void endCDATA() throws SAXException {
            if (lexical != null) lexical.endCDATA();
        }

        @Override
        public void comment(char[] ch, int start, int length) throws SAXException {
            if (lexical != null) lexical.comment(ch, start, length);
        }
    }
}
