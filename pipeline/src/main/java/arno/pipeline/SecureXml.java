package arno.pipeline;

import java.io.IOException;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.SAXException;
import org.xml.sax.SAXNotRecognizedException;
import org.xml.sax.SAXNotSupportedException;
import org.xml.sax.XMLReader;

/**
 * XML parsing for untrusted input (request bodies, site.xml): a DOCTYPE may
 * declare internal entities, but nothing external is ever loaded: the entity
 * resolver refuses every external DTD and entity with an error naming it,
 * before any file or network is touched, and JAXP's access properties are
 * empty as a second barrier. Entity expansion is bounded, so a "billion
 * laughs" fails after a few thousand expansions instead of exhausting memory.
 */
public final class SecureXml {
    /** Far above what real documents use, far below what hurts. */
    static final int ENTITY_EXPANSION_LIMIT = 2_000;
    static final int TOTAL_ENTITY_SIZE_LIMIT = 1 << 20;

    private static final String JDK_PROPERTY = "http://www.oracle.com/xml/jaxp/properties/";
    private static final SAXParserFactory FACTORY = factory();

    private SecureXml() {}

    private static SAXParserFactory factory() {
        try {
            // The JDK's own parser: its limits below are documented JAXP properties.
            SAXParserFactory f = SAXParserFactory.newDefaultNSInstance();
            f.setXIncludeAware(false);
            // External entities stay "on" so that the parser asks our entity resolver, which
            // refuses them with a message naming them; turned off, the parser would skip
            // them silently and the document would lose content without an error.
            f.setFeature("http://xml.org/sax/features/external-general-entities", true);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", true);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", true);
            return f;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("The JDK's SAX parser lacks a security feature", e);
        }
    }

    /** A new namespace-aware reader with the limits set; readers are not thread-safe. */
    public static XMLReader newReader() {
        try {
            XMLReader reader = FACTORY.newSAXParser().getXMLReader();
            setProperty(reader, JDK_PROPERTY + "entityExpansionLimit", ENTITY_EXPANSION_LIMIT);
            setProperty(reader, JDK_PROPERTY + "totalEntitySizeLimit", TOTAL_ENTITY_SIZE_LIMIT);
            setProperty(reader, XMLConstants.ACCESS_EXTERNAL_DTD, "");
            setProperty(reader, XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            reader.setFeature("http://xml.org/sax/features/namespace-prefixes", false);
            // Belt and braces: should anything still ask for an external resource, refuse it.
            reader.setEntityResolver((publicId, systemId) -> {
                throw new SAXException(new RefusedEntity(publicId, systemId));
            });
            return reader;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("Cannot create a secure XML reader", e);
        }
    }

    private static void setProperty(XMLReader reader, String name, Object value) {
        try {
            reader.setProperty(name, value);
        } catch (SAXNotRecognizedException | SAXNotSupportedException e) {
            throw new IllegalStateException("The XML parser does not support " + name, e);
        }
    }

    /** True when a parse failure was a refused external entity or an exceeded limit, not a syntax error. */
    static boolean isHostile(SAXException e) {
        if (e.getException() instanceof RefusedEntity || e.getCause() instanceof RefusedEntity) return true;
        String m = String.valueOf(e.getMessage());
        // The JDK reports its limits with JAXP00010xxx codes; external access with "accessExternal".
        return m.contains("JAXP0001") || m.contains("accessExternal") || m.contains("External Entity")
                || m.contains("external entity") || m.contains("DOCTYPE is disallowed");
    }

    /** Thrown from the entity resolver: the document asked for something outside itself. */
    static final class RefusedEntity extends IOException {
        RefusedEntity(String publicId, String systemId) {
            super("external entity or DTD refused: " + (systemId != null ? systemId : publicId));
        }
    }
}
