package arno.batch;

import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.SAXException;
import org.xml.sax.SAXNotRecognizedException;
import org.xml.sax.SAXNotSupportedException;
import org.xml.sax.XMLReader;

/**
 * SAX readers for XML that comes from outside: batch documents, inputs and
 * stylesheets. Nothing is ever fetched on behalf of a DTD: the external DTD
 * subset is not read (JATS articles name one and must still parse), external
 * entities are refused with an error naming them (skipping them would lose
 * content silently), JAXP's access properties are empty as a second barrier, and
 * entity expansion is bounded so that a "billion laughs" fails after a few
 * thousand expansions. Batch documents admit no DOCTYPE at all.
 */
final class SecureXml {
    static final int ENTITY_EXPANSION_LIMIT = 2_000;
    static final int TOTAL_ENTITY_SIZE_LIMIT = 1 << 20;

    private static final String JDK_PROPERTY = "http://www.oracle.com/xml/jaxp/properties/";
    private static final SAXParserFactory FACTORY = factory();

    /** Workers parse thousands of inputs each; a reader per thread saves building one per input. */
    private static final ThreadLocal<XMLReader> INPUT_READERS = ThreadLocal.withInitial(() -> newReader(true));

    private SecureXml() {}

    private static SAXParserFactory factory() {
        try {
            SAXParserFactory f = SAXParserFactory.newDefaultNSInstance();
            f.setXIncludeAware(false);
            f.setFeature("http://xml.org/sax/features/external-general-entities", true);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", true);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            return f;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the JDK's SAX parser lacks a security feature", e);
        }
    }

    /** This thread's reader for inputs and stylesheets (DOCTYPE allowed, nothing external). */
    static XMLReader inputReader() {
        return INPUT_READERS.get();
    }

    /**
     * Forgets this thread's input reader. Called after a failed parse: Saxon's
     * error handler stays on the reader and would count the old error against
     * the next document.
     */
    static void discardInputReader() {
        INPUT_READERS.remove();
    }

    /** A new reader; with {@code doctype} false, any DOCTYPE is an error. Readers are not thread-safe. */
    static XMLReader newReader(boolean doctype) {
        try {
            XMLReader reader;
            synchronized (FACTORY) {
                reader = FACTORY.newSAXParser().getXMLReader();
            }
            setProperty(reader, JDK_PROPERTY + "entityExpansionLimit", ENTITY_EXPANSION_LIMIT);
            setProperty(reader, JDK_PROPERTY + "totalEntitySizeLimit", TOTAL_ENTITY_SIZE_LIMIT);
            setProperty(reader, XMLConstants.ACCESS_EXTERNAL_DTD, "");
            setProperty(reader, XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            reader.setFeature("http://apache.org/xml/features/disallow-doctype-decl", !doctype);
            reader.setEntityResolver((publicId, systemId) -> {
                throw new SAXException("external entity refused: "
                        + (systemId != null ? systemId : publicId)
                        + " (documents may declare internal entities only)");
            });
            return reader;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("cannot configure the JDK's SAX parser", e);
        }
    }

    private static void setProperty(XMLReader reader, String name, Object value)
            throws SAXNotRecognizedException, SAXNotSupportedException {
        reader.setProperty(name, value);
    }
}
