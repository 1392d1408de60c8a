package arno.store.atom;

import java.io.ByteArrayInputStream;
import java.io.StringWriter;

import net.sf.saxon.Configuration;
import net.sf.saxon.s9api.DocumentBuilder;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;

import arno.xml.ArnoException;
import arno.xml.Where;
import arno.xml.XmlPolicy;

/**
 * The service's own XML plumbing: one Saxon {@link Configuration} with the store's
 * {@link XmlPolicy} installed, for parsing what clients post (into small TinyTrees, with line
 * numbers for errors), reading stored entries in place, and serializing the elements an entry
 * keeps as sent. Thread-safe (Saxon's Processor and DocumentBuilder are).
 */
final class AtomXml {
    final XmlPolicy policy;
    final Configuration config;
    final Processor processor;

    AtomXml(XmlPolicy policy) {
        this.policy = policy;
        this.config = new Configuration();
        policy.install(config);
        // Parse errors reach the caller as ArnoExceptions; Saxon's reporter would also print them on System.err.
        config.setErrorReporterFactory(c -> error -> { });
        this.processor = new Processor(config);
    }

    /**
     * Parses {@code bytes} by the policy. MALFORMED_XML (with line and column) or REFUSED_XML
     * named {@code what} when it is not well-formed or the policy refuses it, located at
     * {@code systemId} (an absolute URI: {@code store:/journals/ja/}, {@code file:/...}).
     */
    XdmNode parse(byte[] bytes, String what, String systemId) {
        DocumentBuilder b = processor.newDocumentBuilder();
        b.setLineNumbering(true);
        try {
            return b.build(policy.source(new ByteArrayInputStream(bytes), systemId));
        } catch (SaxonApiException | RuntimeException e) {
            ArnoException a = XmlPolicy.translate(e, what);
            if (a.where().uri() == null) a.at(Where.at(systemId, a.where().line(), a.where().column()));
            throw a;
        }
    }

    /** A copy of {@code doc} (a stored tree, say) as a TinyTree of this configuration, which outlives its source. */
    XdmNode copy(XdmNode doc) {
        try {
            return processor.newDocumentBuilder().build(doc.asSource());
        } catch (SaxonApiException e) {
            throw new IllegalStateException("cannot copy a stored entry", e);
        }
    }

    /** The node as XML text without a declaration; an element carries the namespaces in scope. */
    String serialize(XdmNode node) {
        StringWriter out = new StringWriter(256);
        Serializer s = processor.newSerializer(out);
        s.setOutputProperty(Serializer.Property.METHOD, "xml");
        s.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
        s.setOutputProperty(Serializer.Property.INDENT, "no");
        try {
            s.serializeNode(node);
        } catch (SaxonApiException e) {
            throw new IllegalStateException("cannot serialize a node of an entry", e);
        }
        return out.toString();
    }
}
