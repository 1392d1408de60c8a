package arno.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import javax.xml.validation.Schema;

import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.type.Type;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import arno.xml.XmlWriter;

/**
 * A store's value index configuration: the document {@value #URI} in the store itself (so that it
 * travels with the store, its exports and any node that follows its change feed), in the
 * vocabulary {@value #NS} whose schema is {@code arno/schema/indexes.xsd}:
 *
 * <pre>{@code
 * <indexes xmlns="urn:arno:indexes" xmlns:atom="http://www.w3.org/2005/Atom">
 *   <index name="doi" match="atom:entry" value="prism:doi"/>
 *   <index name="category" match="atom:entry/atom:category" key="@scheme" value="@term"/>
 *   <index name="surname" match="article/front/article-meta/contrib-group/contrib" value="name/surname" normalise="case"/>
 *   <index name="published" type="date" match="atom:entry" value="atom:published"/>
 * </indexes>
 * }</pre>
 *
 * Storing a new version of that document (through {@link ValueIndexes#install}, or any put, as a
 * follower replaying the feed does) rebuilds, in the same transaction, exactly the indexes whose
 * definition changed, drops those removed and leaves the others untouched.
 */
public record IndexConfig(List<IndexDefinition> indexes) {

    /** Where a store keeps its configuration. */
    public static final String URI = "/_config/indexes.xml";
    /** The configuration's namespace. */
    public static final String NS = "urn:arno:indexes";
    /** The schema, a class path resource. */
    public static final String SCHEMA = "/arno/schema/indexes.xsd";

    public IndexConfig {
        indexes = List.copyOf(indexes);
        Set<String> seen = new java.util.HashSet<>();
        for (IndexDefinition d : indexes) {
            if (!seen.add(d.name())) {
                throw ErrorMessage.INDEX_NAME_TWICE.error(d.name());
            }
        }
    }

    public static final IndexConfig EMPTY = new IndexConfig(List.of());

    /** The index named {@code name}, or null. */
    public IndexDefinition get(String name) {
        for (IndexDefinition d : indexes) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }

    /** This configuration with {@code added} (replacing indexes of the same names). */
    public IndexConfig with(IndexConfig added) {
        Map<String, IndexDefinition> all = new LinkedHashMap<>();
        for (IndexDefinition d : indexes) {
            all.put(d.name(), d);
        }
        for (IndexDefinition d : added.indexes) {
            all.put(d.name(), d);
        }
        return new IndexConfig(new ArrayList<>(all.values()));
    }

    /** This configuration without the index {@code name}; NOT_FOUND if there is none. */
    public IndexConfig without(String name) {
        if (get(name) == null) {
            throw unknown(name, ErrorMessage.NO_INDEX, ErrorMessage.NO_INDEXES);
        }
        List<IndexDefinition> rest = new ArrayList<>(indexes);
        rest.removeIf(d -> d.name().equals(name));
        return new IndexConfig(rest);
    }

    /** There is no index {@code name}: {@code named} lists the indexes there are, {@code none} says there are none. */
    ArnoException unknown(String name, ErrorMessage named, ErrorMessage none) {
        if (indexes.isEmpty()) {
            return none.error(name);
        }
        List<String> n = new ArrayList<>();
        for (IndexDefinition d : indexes) {
            n.add(d.name());
        }
        return named.error(name, String.join(", ", n));
    }

    /**
     * Reads a configuration from XML bytes: parsed by {@code policy}, validated against the schema,
     * then its paths resolved. INVALID_XML (with line and column) when the schema refuses it,
     * BAD_CONFIGURATION when a path is not supported or a prefix is undeclared.
     */
    public static IndexConfig parse(byte[] xml, String systemId, XmlPolicy policy) {
        validate(xml, systemId, policy);
        XdmNode doc = policy.parse(xml, systemId);
        return read(doc.getUnderlyingNode(), systemId);
    }

    /** Validates {@code xml} against the schema (nothing is fetched: no DTD, no external schema). */
    static void validate(byte[] xml, String systemId, XmlPolicy policy) {
        try {
            policy.validate(Holder.SCHEMA_INSTANCE, xml, systemId);
        } catch (SAXParseException e) {
            throw ErrorMessage.INDEX_CONFIG_INVALID.error(e, systemId, e.getMessage(), SCHEMA.substring(1))
                    .at(Where.at(systemId, e.getLineNumber(), e.getColumnNumber()));
        } catch (SAXException e) {
            ArnoException a = ArnoException.find(e);
            throw a != null ? a : policy.translate(e, systemId);
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, systemId, e.getMessage());
        }
    }

    /** The schema, compiled once (lazily: a store that never sees a configuration never loads it). */
    private static final class Holder {
        static final Schema SCHEMA_INSTANCE = XmlPolicy.schema(IndexConfig.class.getResource(SCHEMA));
    }

    /** Reads a parsed configuration document (already valid, or checked here as far as reading needs). */
    static IndexConfig read(NodeInfo doc, String systemId) {
        NodeInfo root = null;
        AxisIterator it = doc.iterateAxis(AxisInfo.CHILD, NodeKindTest.ELEMENT);
        for (NodeInfo n; (n = it.next()) != null; ) {
            root = n;
        }
        if (root == null || !NS.equals(root.getNamespaceUri().toString()) || !root.getLocalPart().equals("indexes")) {
            throw ErrorMessage.NOT_INDEX_CONFIG.error(systemId, NS).at(Where.at(systemId));
        }
        List<IndexDefinition> out = new ArrayList<>();
        AxisIterator children = root.iterateAxis(AxisInfo.CHILD, NodeKindTest.ELEMENT);
        for (NodeInfo e; (e = children.next()) != null; ) {
            if (!NS.equals(e.getNamespaceUri().toString()) || !e.getLocalPart().equals("index")) {
                continue;
            }
            out.add(definition(e, systemId));
        }
        return new IndexConfig(out);
    }

    private static IndexDefinition definition(NodeInfo e, String systemId) {
        String name = attr(e, "name");
        String what = "index '" + name + "' in " + systemId;
        try {
            if (name == null) {
                throw ErrorMessage.INDEX_UNNAMED.error(systemId);
            }
            String t = attr(e, "type");
            IndexDefinition.Type type;
            try {
                type = t == null ? IndexDefinition.Type.STRING : IndexDefinition.Type.valueOf(t.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException x) {
                throw ErrorMessage.INDEX_TYPE.error(what, t);
            }
            Set<IndexDefinition.Normalise> norm = EnumSet.noneOf(IndexDefinition.Normalise.class);
            String n = attr(e, "normalise");
            if (n != null) {
                for (String x : n.strip().split("\\s+")) {
                    if (x.isEmpty()) {
                        continue;
                    }
                    try {
                        norm.add(IndexDefinition.Normalise.valueOf(x.toUpperCase(Locale.ROOT)));
                    } catch (IllegalArgumentException y) {
                        throw ErrorMessage.INDEX_NORMALISE.error(what, x);
                    }
                }
                if (!norm.isEmpty() && type != IndexDefinition.Type.STRING && attr(e, "key") == null) {
                    throw ErrorMessage.INDEX_NORMALISE_TYPE.error(what, t);
                }
            }
            java.util.function.Function<String, String> prefixes = p -> {
                net.sf.saxon.om.NamespaceUri u = e.getAllNamespaces().getNamespaceUri(p);
                return u == null ? null : u.toString();
            };
            String match = attr(e, "match");
            String value = attr(e, "value");
            if (match == null || value == null) {
                throw ErrorMessage.INDEX_INCOMPLETE.error(what);
            }
            String key = attr(e, "key");
            return new IndexDefinition(name, type, norm,
                    IndexDefinition.Path.parse(match, prefixes, what + ": match"),
                    IndexDefinition.Path.parse(value, prefixes, what + ": value"),
                    key == null ? null : IndexDefinition.Path.parse(key, prefixes, what + ": key"));
        } catch (ArnoException x) {
            if (x.where() == null) {
                x.at(Where.at(systemId, e.getLineNumber(), e.getColumnNumber()));
            }
            throw x;
        }
    }

    private static String attr(NodeInfo e, String name) {
        return e.getAttributeValue(net.sf.saxon.om.NamespaceUri.NULL, name);
    }

    /** The configuration document, each index element declaring the prefixes its paths use. */
    public byte[] toXml() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        XmlWriter w = new XmlWriter(out).declaration();
        w.start("indexes").attr("xmlns", NS);
        for (IndexDefinition d : indexes) {
            w.text("\n  ");
            w.start("index").attr("name", d.name());
            if (d.type() != IndexDefinition.Type.STRING) {
                w.attr("type", d.type().name().toLowerCase(Locale.ROOT));
            }
            Map<String, String> ns = new LinkedHashMap<>();
            collect(d.match(), ns);
            collect(d.value(), ns);
            if (d.key() != null) {
                collect(d.key(), ns);
            }
            for (Map.Entry<String, String> x : ns.entrySet()) {
                w.attr("xmlns:" + x.getKey(), x.getValue());
            }
            w.attr("match", d.match().display());
            if (d.key() != null) {
                w.attr("key", d.key().display());
            }
            w.attr("value", d.value().display());
            if (!d.normalise().isEmpty()) {
                w.attr("normalise", d.normaliseAttribute());
            }
            w.end();
        }
        w.text("\n");
        w.end();
        w.finish();
        return out.toByteArray();
    }

    private static void collect(IndexDefinition.Path p, Map<String, String> ns) {
        List<IndexDefinition.Name> names = new ArrayList<>(p.steps());
        if (p.attribute() != null) {
            names.add(p.attribute());
        }
        for (IndexDefinition.Name n : names) {
            if (!n.prefix().isEmpty()) {
                String old = ns.putIfAbsent(n.prefix(), n.uri());
                if (old != null && !old.equals(n.uri())) {
                    throw ErrorMessage.INDEX_PREFIX_TWICE.error(n.prefix(), old, n.uri());
                }
            }
        }
    }

    @Override
    public String toString() {
        return new String(toXml(), StandardCharsets.UTF_8);
    }
}
