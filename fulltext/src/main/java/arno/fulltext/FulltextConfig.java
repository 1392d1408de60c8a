package arno.fulltext;

import arno.store.DocumentCheck;
import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.xml.validation.Schema;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import net.sf.saxon.s9api.XdmSequenceIterator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * A store's full-text configuration: the document {@value #URI} in the store itself (so that it
 * travels with exports and with every node that follows the change feed), in the vocabulary
 * {@value #NS} whose schema is {@value #SCHEMA}: which entries are indexed and the fields taken
 * from each, by XPath over the entry or one of its XML variants.
 *
 * @param entries which entries: each an alternative (kind and/or a path prefix); empty is every entry
 * @param fields  the fields, in document order
 * @param hash    what identifies the configuration in the index's commit data: a change re-indexes
 */
public record FulltextConfig(List<Entries> entries, List<Field> fields, String hash) {

    public static final String URI = "/_config/fulltext.xml";
    public static final String NS = "urn:arno:fulltext";
    public static final String SCHEMA = "/arno/schema/fulltext.xsd";
    /** The demo's configuration, for JATS articles under Atom entries. */
    public static final String DEFAULT = "/arno/fulltext/default-fulltext.xml";

    public enum Type { TEXT, KEYWORD, YEAR, DATE }

    /**
     * Which numbers of a text field are indexed: {@code ALL}, or {@code YEARS}: a bare number
     * (digits, with a decimal point or thousands separator) only when it is four digits. The
     * numbers of an article's running text (measurements, statistics, citation marks) are a tenth of
     * its words and most of its distinct terms, and no reader finds an article by "0.03"; like stop
     * words they cost the index more than they give (measured: 12% of the index of the demo's bodies).
     * Words with digits in them ({@code CO2}, {@code H1N1}) are words, and always indexed.
     */
    public enum Numbers { ALL, YEARS }

    /** Entries of {@code kind} (null: any) under {@code under} (null: anywhere). */
    public record Entries(String kind, String under) {
        boolean matches(String path, String entryKind) {
            return (kind == null || kind.equals(entryKind))
                    && (under == null || path.equals(under) || path.startsWith(under.endsWith("/") ? under : under + "/"));
        }
    }

    /**
     * One field.
     *
     * @param variant    the extension of the XML variant {@code select} reads, or null for the entry
     * @param namespaces the prefixes in scope on the field element, for {@code select}
     */
    public record Field(String name, String select, String variant, Type type, String analyzer, boolean fold,
                        Numbers numbers, float boost, boolean facet, boolean search, Map<String, String> namespaces) {
        public Field {
            // Sorted: the hash reads it, and Map.copyOf's order changes from run to run.
            namespaces = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(namespaces));
        }
    }

    public FulltextConfig {
        entries = List.copyOf(entries);
        fields = List.copyOf(fields);
    }

    /** Whether the entry at {@code path} of kind {@code kind} is indexed. */
    public boolean indexes(String path, String kind) {
        if (entries.isEmpty()) return true;
        for (Entries e : entries) if (e.matches(path, kind)) return true;
        return false;
    }

    /** The field {@code name}, or null. */
    public Field field(String name) {
        for (Field f : fields) if (f.name.equals(name)) return f;
        return null;
    }

    /** The names of the fields, for messages. */
    public String fieldNames() {
        List<String> n = new ArrayList<>();
        for (Field f : fields) n.add(f.name);
        return String.join(", ", n);
    }

    /** The demo's configuration as bytes (to store at {@link #URI}). */
    public static byte[] defaultXml() {
        try (InputStream in = FulltextConfig.class.getResourceAsStream(DEFAULT)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The analyzers the index uses, per field (tools that analyse text as the index does: perf's IndexFloor). */
    public org.apache.lucene.analysis.Analyzer analyzer() {
        return Analyzers.of(this);
    }

    /**
     * Reads a configuration from XML bytes: parsed by {@code policy}, validated against the schema.
     * BAD_CONFIGURATION (with line and column where the schema says so) when it cannot be used.
     */
    public static FulltextConfig parse(byte[] xml, String systemId, XmlPolicy policy) {
        validate(xml, systemId, policy);
        XdmNode doc = policy.parse(xml, systemId);
        return read(doc, systemId);
    }

    /**
     * Everything the index would refuse in {@code xml}, said when it is stored (not well-formed,
     * refused by the schema, a field twice, an XPath that does not compile), each with its line.
     */
    static FulltextConfig check(byte[] xml, String systemId, XmlPolicy policy) {
        validate(xml, systemId, policy);
        XdmNode doc = policy.parse(xml, systemId);
        FulltextConfig config = read(doc, systemId);
        List<XdmNode> elements = new ArrayList<>();
        for (XdmNode e : children(root(doc))) if (e.getNodeName().getLocalName().equals("field")) elements.add(e);
        Processor p = new Processor(false);
        for (int i = 0; i < config.fields.size(); i++) {
            XdmNode e = elements.get(i);
            try {
                EntryDocuments.select(p, config.fields.get(i), systemId);
            } catch (ArnoException bad) {
                throw bad.at(Where.at(systemId, e.getLineNumber(), e.getColumnNumber()));
            }
        }
        Analyzers.of(config).close();
        return config;
    }

    /**
     * The store's check of {@value #URI} (registered for {@link java.util.ServiceLoader} in
     * {@code META-INF/services}): a configuration the index would refuse is never stored.
     */
    public static final class Check implements DocumentCheck {
        @Override
        public String uri() {
            return URI;
        }

        @Override
        public void check(byte[] xml, String systemId, XmlPolicy policy) {
            if (xml == null) throw unusable(systemId, "it is a binary document, not XML");
            FulltextConfig.check(xml, systemId, policy);
        }
    }

    private static void validate(byte[] xml, String systemId, XmlPolicy policy) {
        try {
            policy.validate(Holder.SCHEMA_INSTANCE, xml, systemId);
        } catch (SAXParseException e) {
            throw ErrorMessage.FULLTEXT_CONFIG_INVALID.error(e, systemId, e.getMessage(), SCHEMA.substring(1))
                    .at(Where.at(systemId, e.getLineNumber(), e.getColumnNumber()));
        } catch (SAXException | IOException e) {
            throw ErrorMessage.FULLTEXT_CONFIG_INVALID.error(e, systemId, e.getMessage(), SCHEMA.substring(1));
        }
    }

    private static final class Holder {
        static final Schema SCHEMA_INSTANCE = XmlPolicy.schema(FulltextConfig.class.getResource(SCHEMA));
    }

    private static XdmNode root(XdmNode doc) {
        XdmNode root = null;
        for (XdmNode n : children(doc)) root = n;
        return root;
    }

    private static List<XdmNode> children(XdmNode parent) {
        List<XdmNode> out = new ArrayList<>();
        for (XdmSequenceIterator<XdmNode> it = parent.axisIterator(net.sf.saxon.s9api.Axis.CHILD); it.hasNext(); ) {
            XdmNode n = it.next();
            if (n.getNodeKind() == XdmNodeKind.ELEMENT) out.add(n);
        }
        return out;
    }

    private static FulltextConfig read(XdmNode doc, String systemId) {
        XdmNode root = root(doc);
        List<Entries> entries = new ArrayList<>();
        List<Field> fields = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (XdmSequenceIterator<XdmNode> it = root.axisIterator(net.sf.saxon.s9api.Axis.CHILD); it.hasNext(); ) {
            XdmNode e = it.next();
            if (e.getNodeKind() != XdmNodeKind.ELEMENT) continue;
            String local = e.getNodeName().getLocalName();
            if (local.equals("entries")) {
                entries.add(new Entries(e.getAttributeValue(new QName("kind")), e.getAttributeValue(new QName("under"))));
                continue;
            }
            String name = e.getAttributeValue(new QName("name"));
            if (!names.add(name)) {
                throw ErrorMessage.FULLTEXT_FIELD_TWICE.error(systemId, name)
                        .at(Where.at(systemId, e.getLineNumber(), e.getColumnNumber()));
            }
            Type type = Type.valueOf(attr(e, "type", "text").toUpperCase(Locale.ROOT));
            Map<String, String> ns = new LinkedHashMap<>();
            net.sf.saxon.om.NamespaceMap map = e.getUnderlyingNode().getAllNamespaces();
            for (String prefix : map.getPrefixArray()) {
                if (!prefix.isEmpty()) ns.put(prefix, map.getURIForPrefix(prefix, false).toString());
            }
            String search = e.getAttributeValue(new QName("search"));
            fields.add(new Field(name, e.getAttributeValue(new QName("select")), e.getAttributeValue(new QName("variant")),
                    type, attr(e, "analyzer", "english"), Boolean.parseBoolean(attr(e, "fold", "true")),
                    Numbers.valueOf(attr(e, "numbers", "all").toUpperCase(Locale.ROOT)), Float.parseFloat(attr(e, "boost", "1")), Boolean.parseBoolean(attr(e, "facet", "false")),
                    search == null ? type == Type.TEXT : Boolean.parseBoolean(search), ns));
        }
        String canonical = FulltextIndex.FORMAT + "\n" + entries + "\n" + fields;
        return new FulltextConfig(entries, fields, sha256(canonical));
    }

    private static String attr(XdmNode e, String name, String absent) {
        String v = e.getAttributeValue(new QName(name));
        return v == null ? absent : v.strip();
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A configuration that cannot be used, said as the catalogue says it. */
    static ArnoException unusable(String systemId, String why) {
        return ErrorMessage.FULLTEXT_CONFIG_INVALID.error(systemId, why, SCHEMA.substring(1));
    }
}
