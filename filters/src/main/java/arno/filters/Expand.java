package arno.filters;

import arno.xml.DocumentStore;
import java.util.ArrayList;
import java.util.List;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.type.Type;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;

/**
 * INTERIM: the expansion of the spec (with-ancestors, with-descendants) written here until
 * {@code arno.store.atom.Expansion} lands in main; {@link ContentFetch} then calls that instead and
 * this class goes. Writes an entry as SAX events, copying its nodes and putting the parent entry
 * inside each {@code link rel="up"} and the children inside an added {@code link rel="down"}.
 */
final class Expand {
    static final String ATOM = "http://www.w3.org/2005/Atom";
    static final String ARNO = "urn:arno:atom";
    private final DocumentStore.View view;
    private final Configuration config;
    private final ContentHandler out;

    Expand(DocumentStore.View view, Configuration config, ContentHandler out) {
        this.view = view;
        this.config = config;
        this.out = out;
    }

    /** Options as the store's API reads them: with-ancestors=yes, with-descendants=N|all. */
    record Options(boolean ancestors, int descendants) {
        static Options parse(String query) {
            boolean ancestors = false;
            int descendants = 0;
            if (query != null) {
                for (String pair : query.split("&")) {
                    int eq = pair.indexOf('=');
                    if (eq < 0) continue;
                    String name = pair.substring(0, eq);
                    String value = pair.substring(eq + 1);
                    if (name.equals("with-ancestors")) ancestors = value.equals("yes");
                    if (name.equals("with-descendants")) descendants = value.equals("all") ? -1 : Integer.parseInt(value);
                }
            }
            return new Options(ancestors, descendants);
        }
    }

    void entry(String path, boolean ancestors, int descendants) throws SAXException {
        TreeInfo tree = view.document(path + ".atom", config);
        NodeInfo entry = null;
        for (NodeInfo n : tree.getRootNode().children()) if (n.getNodeKind() == Type.ELEMENT) entry = n;
        if (entry == null) return;
        List<String> prefixes = start(entry, NamespaceMap.emptyMap());
        for (NodeInfo c : entry.children()) {
            if (ancestors && c.getNodeKind() == Type.ELEMENT && ATOM.equals(c.getURI()) && c.getLocalPart().equals("link")
                    && "up".equals(c.getAttributeValue("", "rel"))) {
                List<String> p = start(c, entry.getAllNamespaces());
                String href = c.getAttributeValue("", "href");
                inline(true);
                entry(href.substring(0, href.length() - ".atom".length()), true, 0);
                inline(false);
                end(c, p);
            } else {
                copy(c, entry.getAllNamespaces());
            }
        }
        if (descendants != 0) {
            AttributesImpl a = new AttributesImpl();
            a.addAttribute("", "rel", "rel", "CDATA", "down");
            a.addAttribute("", "href", "href", "CDATA", path + "/");
            a.addAttribute("", "type", "type", "CDATA", "application/atom+xml;type=feed");
            out.startElement(ATOM, "link", qname(entry.getPrefix(), "link"), a);
            inline(true);
            for (String name : children(path + "/")) {
                entry(path + "/" + name, false, descendants < 0 ? -1 : descendants - 1);
            }
            inline(false);
            out.endElement(ATOM, "link", qname(entry.getPrefix(), "link"));
        }
        end(entry, prefixes);
    }

    /** The names of the child entries of a folder, without ".atom", in name order. */
    private List<String> children(String folder) {
        List<String> names = new ArrayList<>();
        List<String> all = view instanceof ContentFiles files ? files.children(folder) : view.uris(folder);
        for (String u : all) {
            String name = u.startsWith(folder) ? u.substring(folder.length()) : u;
            if (name.endsWith(".atom") && name.indexOf('/') < 0) names.add(name.substring(0, name.length() - 5));
        }
        names.sort(null);
        return names;
    }

    /** The arno:inline element that holds an inlined resource inside its link, as the store's API writes it. */
    private void inline(boolean start) throws SAXException {
        if (start) {
            out.startPrefixMapping("arno", ARNO);
            out.startElement(ARNO, "inline", "arno:inline", new AttributesImpl());
        } else {
            out.endElement(ARNO, "inline", "arno:inline");
            out.endPrefixMapping("arno");
        }
    }

    private static String qname(String prefix, String local) {
        return prefix == null || prefix.isEmpty() ? local : prefix + ":" + local;
    }

    /** Starts an element, declaring the namespaces it has that {@code outer} has not; returns their prefixes. */
    private List<String> start(NodeInfo e, NamespaceMap outer) throws SAXException {
        List<String> declared = new ArrayList<>();
        for (NamespaceBinding b : e.getAllNamespaces()) {
            String prefix = b.getPrefix();
            String uri = b.getNamespaceUri().toString();
            if (!uri.equals(String.valueOf(outer.getURIForPrefix(prefix, true)))) {
                out.startPrefixMapping(prefix, uri);
                declared.add(prefix);
            }
        }
        AttributesImpl a = new AttributesImpl();
        for (AttributeInfo ai : e.attributes()) {
            a.addAttribute(ai.getNodeName().getURI(), ai.getNodeName().getLocalPart(), ai.getNodeName().getDisplayName(),
                    "CDATA", ai.getValue());
        }
        out.startElement(e.getURI(), e.getLocalPart(), e.getDisplayName(), a);
        return declared;
    }

    private void end(NodeInfo e, List<String> declared) throws SAXException {
        out.endElement(e.getURI(), e.getLocalPart(), e.getDisplayName());
        for (String p : declared) out.endPrefixMapping(p);
    }

    private void copy(NodeInfo n, NamespaceMap outer) throws SAXException {
        switch (n.getNodeKind()) {
            case Type.ELEMENT -> {
                List<String> p = start(n, outer);
                for (NodeInfo c : n.children()) copy(c, n.getAllNamespaces());
                end(n, p);
            }
            case Type.TEXT -> {
                String s = n.getStringValue();
                out.characters(s.toCharArray(), 0, s.length());
            }
            default -> { }
        }
    }
}
