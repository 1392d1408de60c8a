package arno.store.atom;

import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.type.Type;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.ext.LexicalHandler;
import org.xml.sax.helpers.AttributesImpl;

/**
 * An entry expanded from one read view, as SAX events: the HTTP API serializes them, the fetch
 * filter streams them into {@code req:request}. Every document comes from the one view, so an
 * expansion is consistent however many writers commit meanwhile. Hrefs are written as stored
 * (absolute store paths); the HTTP API rewrites them on output.
 *
 * <h2>The format</h2>
 * <pre>
 * &lt;entry&gt; …
 *   &lt;link rel="up" href="/journals/ja/v1/i1.atom"&gt;&lt;arno:inline&gt;&lt;entry&gt;…the parent, expanded the same way…&lt;/entry&gt;&lt;/arno:inline&gt;&lt;/link&gt;
 *   &lt;link rel="alternate" arno:role="jats" type="application/xml" href="…/a1.xml"&gt;&lt;arno:inline&gt;&lt;article&gt;…&lt;/article&gt;&lt;/arno:inline&gt;&lt;/link&gt;
 *   &lt;link rel="down" href="/journals/ja/v1/i1/a1/" type="application/atom+xml;type=feed"&gt;&lt;arno:inline&gt;&lt;entry&gt;…&lt;/entry&gt;…&lt;/arno:inline&gt;&lt;/link&gt;
 * &lt;/entry&gt;
 * </pre>
 * Each inlined resource sits in an {@code arno:inline} element ({@link #INLINE}, namespace
 * {@link Atom#ARNO_NS}) inside its link, not directly in the link as the resource model first
 * said: RFC 4287 gives {@code atom:link} the content {@code undefinedContent}, which admits only
 * <em>foreign</em> (non-Atom) elements, so an {@code atom:entry} straight inside a link is invalid
 * by the RFC's own grammar. Inside a foreign element anything goes, so the wrapped form validates
 * (the same device as the Atom "inline" draft's {@code ae:inline}). Variants are wrapped too, so
 * that a reader finds every inlined resource at {@code atom:link/arno:inline/*}.
 *
 * <h2>Algorithm</h2>
 * A recursive copy of the stored entry's tree (walked in place, never serialized and re-parsed)
 * that, at each link it expands, descends into another stored document. Ancestors follow the
 * {@code up} links (parents expand their own ancestors only, never their descendants, so the
 * cost is the depth); descendants are listed from the store's hierarchy (the children folder),
 * in name order, each expanded to one level less and with the same variants. Namespace
 * declarations are computed against what the output has in scope, so an inlined document keeps
 * its own bindings (an unprefixed JATS article inside an Atom link gets {@code xmlns=""}).
 */
public final class Expansion {
    /** The wrapper of inlined content inside an expanded link, in {@link Atom#ARNO_NS}. */
    public static final String INLINE = "inline";
    /** Descendants to any depth. */
    public static final int ALL = -1;
    /** A bound on ancestor chains, against an {@code up} link that loops in damaged data. */
    private static final int MAX_ANCESTORS = 1000;

    private Expansion() {}

    /** How much to expand: the query parameters of the HTTP API and of the fetch filter. */
    public record Options(boolean ancestors, int descendants, Set<String> variantRoles) {
        /** No expansion: the entry as stored. */
        public static final Options NONE = new Options(false, 0, Set.of());

        public Options {
            if (descendants < ALL) throw new IllegalArgumentException("descendants: " + descendants);
            variantRoles = Collections.unmodifiableSet(new LinkedHashSet<>(variantRoles));
        }

        /**
         * Reads {@code with-ancestors=yes|no}, {@code with-descendants=N|all} and
         * {@code with-variants=ROLE} (repeatable; {@code all} for every role) from a request's
         * parameters ({@code request::getParameterValues}; null for an absent one).
         *
         * @throws arno.xml.ArnoException {@link ErrorCode#BAD_PARAMETER} for a value outside these
         */
        public static Options parse(Function<String, String[]> queryParameter) {
            boolean ancestors = false;
            String[] a = queryParameter.apply("with-ancestors");
            if (a != null) {
                for (String v : a) {
                    switch (v.strip().toLowerCase(Locale.ROOT)) {
                        case "yes", "true" -> ancestors = true;
                        case "no", "false", "" -> ancestors = false;
                        default -> throw ErrorMessage.WITH_ANCESTORS.error(v);
                    }
                }
            }
            int descendants = 0;
            String[] d = queryParameter.apply("with-descendants");
            if (d != null) {
                for (String v : d) {
                    String t = v.strip();
                    if (t.equalsIgnoreCase("all")) {
                        descendants = ALL;
                    } else if (t.matches("[0-9]{1,9}")) {
                        descendants = Integer.parseInt(t);
                    } else {
                        throw ErrorMessage.WITH_DESCENDANTS.error(v);
                    }
                }
            }
            Set<String> roles = new LinkedHashSet<>();
            String[] r = queryParameter.apply("with-variants");
            if (r != null) {
                for (String v : r) {
                    for (String role : v.split(",")) {
                        String t = role.strip();
                        if (t.isEmpty()) continue;
                        if (!t.matches("[A-Za-z0-9_.-]{1,100}")) {
                            throw ErrorMessage.WITH_VARIANTS.error(v);
                        }
                        roles.add(t);
                    }
                }
            }
            return new Options(ancestors, descendants, roles);
        }

        /** Whether nothing is expanded. */
        public boolean none() {
            return !ancestors && descendants == 0 && variantRoles.isEmpty();
        }

        boolean variant(String role) {
            return variantRoles.contains("all") || (role != null && variantRoles.contains(role));
        }
    }

    /**
     * Writes the entry at {@code entry}, expanded by {@code o}, to {@code out} as SAX events:
     * element, text, processing-instruction (and comment events when {@code out} is also a
     * {@link LexicalHandler}), without startDocument and endDocument, so that the entry can sit
     * inside another document. Prefix mappings come before each element that needs them.
     *
     * @throws arno.xml.ArnoException {@link ErrorCode#NOT_FOUND} when there is no entry there,
     *     {@link ErrorCode#STORE_CORRUPT} when the document there is not an atom:entry
     */
    public static void write(DocumentStore.View view, Configuration config, ResourcePath entry, Options o,
                             ContentHandler out) throws SAXException {
        if (entry.isRoot()) throw ErrorMessage.ROOT_HAS_NO_ENTRY.error();
        if (!view.exists(entry.entryDocument())) {
            throw ErrorMessage.NO_ENTRY_IN_VERSION.error(entry, entry.entryDocument(), view.version()).at(Where.at(DocumentStore.SCHEME + entry.entryDocument()));
        }
        new Writer(view, config, o, out).entry(entry, o.ancestors, o.descendants, true, new HashSet<>());
    }

    /** One expansion's state: the output's namespaces in scope. */
    private static final class Writer {
        private final DocumentStore.View view;
        private final Configuration config;
        private final Options o;
        private final ContentHandler out;
        private final LexicalHandler lexical;
        /** The output's in-scope bindings, one frame per open element. */
        private final Deque<Map<String, String>> scopes = new ArrayDeque<>();

        Writer(DocumentStore.View view, Configuration config, Options o, ContentHandler out) {
            this.view = view;
            this.config = config;
            this.o = o;
            this.out = out;
            this.lexical = out instanceof LexicalHandler l ? l : null;
            scopes.push(Map.of());
        }

        /**
         * Copies the entry at {@code path}; {@code ancestors} expands its up link, {@code descendants}
         * adds the children feed (0: none), {@code variants} inlines its variants of the asked roles.
         */
        void entry(ResourcePath path, boolean ancestors, int descendants, boolean variants, Set<String> seen)
                throws SAXException {
            TreeInfo tree = view.document(path.entryDocument(), config);
            NodeInfo root = documentElement(tree.getRootNode());
            if (root == null || !Atom.NS.equals(root.getURI()) || !root.getLocalPart().equals("entry")) {
                throw ErrorMessage.STORED_NOT_ENTRY.error(path.entryDocument())
                        .at(Where.at(DocumentStore.SCHEME + path.entryDocument()));
            }
            seen.add(path.path());
            List<String> added = start(root);
            for (NodeInfo child : root.children()) {
                if (child.getNodeKind() == Type.ELEMENT && Atom.NS.equals(child.getURI())
                        && child.getLocalPart().equals("link")) {
                    link(child, ancestors, variants, seen);
                } else {
                    copy(child);
                }
            }
            if (descendants != 0) children(path, descendants == ALL ? ALL : descendants - 1, variants);
            end(root, added);
        }

        private void link(NodeInfo link, boolean ancestors, boolean variants, Set<String> seen) throws SAXException {
            String rel = link.getAttributeValue("", "rel");
            String href = link.getAttributeValue("", "href");
            // Only a link this expansion may inline has its href parsed: an entry alone (a page's
            // usual fetch) is copied without a path made per link.
            boolean candidate = href != null && (ancestors && Atom.REL_UP.equals(rel)
                    || variants && !o.variantRoles.isEmpty() && Atom.REL_ALTERNATE.equals(rel));
            ResourcePath.Document target = candidate ? ResourcePath.document(href) : null;
            boolean expand = false;
            boolean up = false;
            if (target != null && Atom.REL_UP.equals(rel) && ancestors && target.isEntry()
                    && !seen.contains(target.resource().path()) && seen.size() < MAX_ANCESTORS) {
                expand = up = view.exists(href);
            } else if (target != null && Atom.REL_ALTERNATE.equals(rel) && variants && !target.isEntry()
                    && o.variant(link.getAttributeValue(Atom.ARNO_NS, "role"))
                    && Atom.isXml(link.getAttributeValue("", "type"))) {
                expand = view.exists(href);
            }
            if (!expand) {
                copy(link);
                return;
            }
            List<String> added = start(link);
            for (NodeInfo c : link.children()) copy(c);
            List<String> inline = startSynthetic(Atom.ARNO_NS, "arno", INLINE, null);
            if (up) {
                entry(target.resource(), true, 0, false, seen);
            } else {
                NodeInfo element = documentElement(view.document(href, config).getRootNode());
                if (element != null) copy(element);
            }
            endSynthetic(Atom.ARNO_NS, INLINE, inline);
            end(link, added);
        }

        private void children(ResourcePath path, int depth, boolean variants) throws SAXException {
            AttributesImpl a = new AttributesImpl();
            a.addAttribute("", "rel", "rel", "CDATA", Atom.REL_DOWN);
            a.addAttribute("", "href", "href", "CDATA", path.childrenFolder());
            a.addAttribute("", "type", "type", "CDATA", Atom.FEED_TYPE);
            List<String> link = startSynthetic(Atom.NS, "atom", "link", a);
            List<String> inline = startSynthetic(Atom.ARNO_NS, "arno", INLINE, null);
            for (String name : childEntries(view, path)) {
                entry(path.child(name), false, depth, variants, new HashSet<>());
            }
            endSynthetic(Atom.ARNO_NS, INLINE, inline);
            endSynthetic(Atom.NS, "link", link);
        }

        // ---- Copying stored nodes -------------------------------------------------------------

        private void copy(NodeInfo node) throws SAXException {
            switch (node.getNodeKind()) {
                case Type.ELEMENT -> {
                    List<String> added = start(node);
                    for (NodeInfo c : node.children()) copy(c);
                    end(node, added);
                }
                case Type.TEXT, Type.WHITESPACE_TEXT -> {
                    String s = node.getStringValue();
                    out.characters(s.toCharArray(), 0, s.length());
                }
                case Type.PROCESSING_INSTRUCTION -> out.processingInstruction(node.getLocalPart(), node.getStringValue());
                case Type.COMMENT -> {
                    if (lexical != null) {
                        String s = node.getStringValue();
                        lexical.comment(s.toCharArray(), 0, s.length());
                    }
                }
                default -> { }
            }
        }

        /** Starts a stored element, declaring what its in-scope namespaces need; returns the prefixes declared. */
        private List<String> start(NodeInfo e) throws SAXException {
            // The parent's scope is shared until this element declares something: nearly every
            // element of an entry has its parent's namespaces, and a copy of the scope per element
            // was most of what an uncached page spent expanding its entry (issue 25's profile).
            Map<String, String> parent = scopes.peek();
            Map<String, String> scope = parent;
            List<String> declared = List.of();
            String defaultNs = "";
            for (NamespaceBinding b : e.getAllNamespaces()) {
                String prefix = b.getPrefix();
                if (prefix.equals("xml")) continue;
                String uri = b.getNamespaceUri().toString();
                if (prefix.isEmpty()) {
                    defaultNs = uri;
                } else if (!uri.equals(scope.getOrDefault(prefix, ""))) {
                    if (scope == parent) {
                        scope = new HashMap<>(parent);
                        declared = new ArrayList<>();
                    }
                    declare(scope, declared, prefix, uri);
                }
            }
            // The default namespace is declared or undeclared to what the element has in scope.
            if (!defaultNs.equals(scope.getOrDefault("", ""))) {
                if (scope == parent) {
                    scope = new HashMap<>(parent);
                    declared = new ArrayList<>();
                }
                declare(scope, declared, "", defaultNs);
            }
            AttributesImpl atts = new AttributesImpl();
            for (AttributeInfo a : e.attributes()) {
                atts.addAttribute(a.getNodeName().getURI(), a.getNodeName().getLocalPart(),
                        a.getNodeName().getDisplayName(), "CDATA", a.getValue());
            }
            scopes.push(scope);
            out.startElement(e.getURI(), e.getLocalPart(), e.getDisplayName(), atts);
            return declared;
        }

        private void end(NodeInfo e, List<String> declared) throws SAXException {
            out.endElement(e.getURI(), e.getLocalPart(), e.getDisplayName());
            scopes.pop();
            for (String p : declared) out.endPrefixMapping(p);
        }

        /** Starts an element Arno adds, with {@code preferred} as prefix unless the namespace is bound already. */
        private List<String> startSynthetic(String uri, String preferred, String local, AttributesImpl atts)
                throws SAXException {
            Map<String, String> scope = new HashMap<>(scopes.peek());
            List<String> declared = new ArrayList<>();
            String prefix = null;
            for (Map.Entry<String, String> b : scope.entrySet()) {
                if (b.getValue().equals(uri)) {
                    prefix = b.getKey();
                    break;
                }
            }
            if (prefix == null) {
                prefix = preferred;
                declare(scope, declared, prefix, uri);
            }
            scopes.push(scope);
            out.startElement(uri, local, qname(prefix, local), atts == null ? new AttributesImpl() : atts);
            return declared;
        }

        private void endSynthetic(String uri, String local, List<String> declared) throws SAXException {
            String prefix = null;
            for (Map.Entry<String, String> b : scopes.peek().entrySet()) {
                if (b.getValue().equals(uri)) {
                    prefix = b.getKey();
                    break;
                }
            }
            out.endElement(uri, local, qname(prefix, local));
            scopes.pop();
            for (String p : declared) out.endPrefixMapping(p);
        }

        private void declare(Map<String, String> scope, List<String> declared, String prefix, String uri)
                throws SAXException {
            if (uri.equals(scope.getOrDefault(prefix, ""))) return;
            out.startPrefixMapping(prefix, uri);
            scope.put(prefix, uri);
            declared.add(prefix);
        }

        private static String qname(String prefix, String local) {
            return prefix == null || prefix.isEmpty() ? local : prefix + ":" + local;
        }
    }

    private static NodeInfo documentElement(NodeInfo document) {
        for (NodeInfo c : document.children()) if (c.getNodeKind() == Type.ELEMENT) return c;
        return null;
    }

    /**
     * The names of the children of {@code path} that have an entry, in name order. Read from the
     * view's listing of the children folder ({@code P/c.atom}, {@code P/c.xml}, {@code P/c/}), which
     * the store answers from its hierarchy index without visiting what lies deeper. The names are
     * sorted by name, not by listing, because {@code a-b.atom} lists before {@code a.atom} (bytes)
     * while the name {@code a} comes first.
     */
    static List<String> childEntries(DocumentStore.View view, ResourcePath path) {
        List<String> names = new ArrayList<>();
        for (String item : view.children(path.childrenFolder())) {
            if (!item.endsWith("." + Atom.ENTRY_EXTENSION)) continue;
            String name = item.substring(0, item.length() - Atom.ENTRY_EXTENSION.length() - 1);
            if (ResourcePath.isName(name)) names.add(name);
        }
        Collections.sort(names);
        return names;
    }
}
