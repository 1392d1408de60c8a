package arno.store.atom;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.XMLConstants;
import javax.xml.namespace.QName;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;

import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;

import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * Reads introspection documents into {@link Kind}s: parsed by the policy (MALFORMED_XML with
 * line and column), validated against {@code arno/schema/introspection.xsd} (INVALID_XML with
 * line and column), then checked for what XSD 1.0 cannot say. Also ships the default documents
 * of the journal hierarchy ({@code arno/model/*.xml}) that {@link AtomStore#open} installs into
 * an empty store.
 */
final class Introspection {
    private Introspection() {
    }

    /** The kinds whose documents ship in {@code arno/model/}. */
    static final List<String> DEFAULT_KINDS = List.of("root", "journals", "journal", "volume", "issue", "article",
            "figure", "table");

    private static final String SCHEMA_RESOURCE = "/arno/schema/introspection.xsd";
    private static final Schema SCHEMA = loadSchema();

    private static Schema loadSchema() {
        try {
            SchemaFactory f = SchemaFactory.newDefaultInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            URL xsd = Introspection.class.getResource(SCHEMA_RESOURCE);
            if (xsd == null) throw new IllegalStateException(SCHEMA_RESOURCE + " is missing from the class path");
            return f.newSchema(xsd);
        } catch (SAXException e) {
            throw new IllegalStateException("the introspection schema does not compile: " + e.getMessage(), e);
        }
    }

    /** The default document of {@code kind}, from the class path. */
    static byte[] defaultDocument(String kind) {
        try (InputStream in = Introspection.class.getResourceAsStream("/arno/model/" + kind + ".xml")) {
            if (in == null) throw new IllegalStateException("no default introspection document for kind " + kind);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The store path of the introspection document of {@code kind}. */
    static String path(String kind) {
        return Atom.MODEL_FOLDER + kind + ".xml";
    }

    /** The kind a model document path names ({@code /_model/article.xml} → article), or null. */
    static String kindOf(String path) {
        if (!path.startsWith(Atom.MODEL_FOLDER) || !path.endsWith(".xml")) return null;
        String k = path.substring(Atom.MODEL_FOLDER.length(), path.length() - 4);
        return k.indexOf('/') >= 0 || k.isEmpty() ? null : k;
    }

    /**
     * Parses and checks the introspection document of {@code kind} (the name it must declare);
     * {@code uri} names it in errors ({@code store:/_model/article.xml}).
     */
    static Kind parse(AtomXml xml, byte[] bytes, String kind, String uri) {
        XdmNode doc = xml.parse(bytes, uri, uri);
        validate(xml, bytes, uri);
        return read(doc, kind, uri);
    }

    private static void validate(AtomXml xml, byte[] bytes, String uri) {
        Validator v = SCHEMA.newValidator();
        List<SAXParseException> errors = new ArrayList<>();
        v.setErrorHandler(new ErrorHandler() {
            @Override
            public void warning(SAXParseException e) {
            }

            @Override
            public void error(SAXParseException e) {
                errors.add(e);
            }

            @Override
            public void fatalError(SAXParseException e) throws SAXException {
                throw e;
            }
        });
        try {
            v.validate(xml.policy.source(new ByteArrayInputStream(bytes), uri));
        } catch (SAXException | IOException e) {
            throw arno.xml.XmlPolicy.translate(e, uri);
        }
        if (!errors.isEmpty()) {
            SAXParseException first = errors.get(0);
            ArnoException a = ErrorMessage.INTROSPECTION_INVALID.error(uri, first.getMessage())
                    .at(Where.of(first, uri));
            for (SAXParseException e : errors.subList(1, errors.size())) {
                a.detail(new ArnoException.Detail(null, e.getMessage(), Where.of(e, uri), false));
            }
            throw a;
        }
    }

    private static Kind read(XdmNode doc, String kind, String uri) {
        XdmNode root = null;
        for (XdmNode c : doc.children()) if (c.getNodeKind() == XdmNodeKind.ELEMENT) root = c;
        String name = root.attribute("name");
        if (kind != null && !name.equals(kind)) {
            throw invalid(uri, root, ErrorMessage.KIND_NAME_MISMATCH, kind, name, path(kind));
        }
        String title = name;
        List<QName> requires = new ArrayList<>();
        List<Kind.Variant> variants = new ArrayList<>();
        List<Kind.Collection> collections = new ArrayList<>();
        List<Kind.LinkRule> links = new ArrayList<>();
        for (XdmNode e : root.children()) {
            if (e.getNodeKind() != XdmNodeKind.ELEMENT) continue;
            switch (e.getNodeName().getLocalName()) {
                case "title" -> title = e.getStringValue().strip();
                case "require" -> requires.add(qname(e, e.attribute("element")));
                case "variant" -> variants.add(new Kind.Variant(e.attribute("role"),
                        MediaTypes.essence(e.attribute("media-type")), e.attribute("extension")));
                case "collection" -> collections.add(collection(e, uri));
                case "link" -> links.add(new Kind.LinkRule(e.attribute("role"), list(e.attribute("kinds")),
                        e.attribute("reciprocal")));
                default -> throw new IllegalStateException("schema let through " + e.getNodeName());
            }
        }
        Map<String, Kind.Variant> byExtension = new LinkedHashMap<>();
        for (Kind.Variant v : variants) byExtension.put(v.extension(), v);
        if (byExtension.containsKey(Atom.ENTRY_EXTENSION)) {
            throw invalid(uri, root, ErrorMessage.VARIANT_ATOM_EXTENSION, Atom.ENTRY_EXTENSION);
        }
        return new Kind(name, title, requires, variants, collections, links, path(name));
    }

    private static Kind.Collection collection(XdmNode e, String uri) {
        List<String> kinds = list(e.attribute("kinds"));
        List<String> types = list(e.attribute("media-types"));
        if (kinds.isEmpty() && types.isEmpty()) {
            throw invalid(uri, e, ErrorMessage.COLLECTION_ACCEPTS_NOTHING, e.attribute("name"));
        }
        Kind.Naming naming = Kind.Naming.valueOf(e.attribute("naming").strip().toUpperCase(java.util.Locale.ROOT));
        String pattern = e.attribute("pattern");
        if (naming == Kind.Naming.PATTERN) {
            if (pattern == null) {
                throw invalid(uri, e, ErrorMessage.PATTERN_MISSING, e.attribute("name"));
            }
            if (!pattern.contains("{n}") && !pattern.contains("{slug}")) {
                throw invalid(uri, e, ErrorMessage.PATTERN_NAMES_ONE, pattern, e.attribute("name"));
            }
            String sample = pattern.replace("{n}", "1").replace("{slug}", "x");
            if (!ResourcePath.isName(sample)) {
                throw invalid(uri, e, ErrorMessage.PATTERN_NOT_NAMES, pattern, e.attribute("name"));
            }
        } else if (pattern != null) {
            throw invalid(uri, e, ErrorMessage.PATTERN_UNUSED, e.attribute("name"), naming.name().toLowerCase(java.util.Locale.ROOT));
        }
        List<String> essences = new ArrayList<>();
        for (String t : types) essences.add(MediaTypes.essence(t));
        return new Kind.Collection(e.attribute("name"), kinds, essences, naming, pattern);
    }

    private static List<String> list(String value) {
        if (value == null || value.isBlank()) return List.of();
        return List.of(value.strip().split("\\s+"));
    }

    private static QName qname(XdmNode e, String lexical) {
        String v = lexical.strip();
        int colon = v.indexOf(':');
        String prefix = colon < 0 ? "" : v.substring(0, colon);
        String local = colon < 0 ? v : v.substring(colon + 1);
        NodeInfo n = e.getUnderlyingNode();
        var ns = n.getAllNamespaces().getURIForPrefix(prefix, true);
        return new QName(ns == null ? "" : ns.toString(), local, prefix);
    }

    /** {@code message} about the document {@code uri}, its first value, then {@code values}; located at {@code at}. */
    private static ArnoException invalid(String uri, XdmNode at, ErrorMessage message, Object... values) {
        return message.error(ErrorMessage.prepend(uri, values)).at(Where.at(uri, at.getLineNumber(), at.getColumnNumber()));
    }
}
