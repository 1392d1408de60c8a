package arno.pipeline;

import arno.pipeline.RequestParts.Kind;
import net.sf.saxon.Configuration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.om.AtomicSequence;
import net.sf.saxon.om.AttributeInfo;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.FingerprintedQName;
import net.sf.saxon.om.GenericTreeInfo;
import net.sf.saxon.om.NamespaceBinding;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.pattern.AnyNodeTest;
import net.sf.saxon.pattern.CombinedNodeTest;
import net.sf.saxon.pattern.LocalNameTest;
import net.sf.saxon.pattern.MultipleNodeKindTest;
import net.sf.saxon.pattern.NameTest;
import net.sf.saxon.pattern.NamespaceTest;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.pattern.NodePredicate;
import net.sf.saxon.pattern.NodeTest;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.tree.util.Navigator;
import net.sf.saxon.type.BuiltInAtomicType;
import net.sf.saxon.type.SchemaType;
import net.sf.saxon.type.Type;
import net.sf.saxon.type.Untyped;

/**
 * A stage's input document seen through a view that records which parts of the HTTP request
 * ({@link RequestParts}) the stage read from req:request, into the request's {@link Reads}: the
 * page cache keys the page on them. Used only when a page is built for the page cache; otherwise
 * stages get the tree as it is.
 *
 * <h2>What counts as reading a part</h2>
 * XPath reaches a tree only through {@link NodeInfo}: its axes, its string and typed values, its
 * attributes and copying it. Every node of the view wraps the stage's TinyTree node and knows
 * its place in req:request (its {@link Role}); the view records
 * <ul>
 * <li>the value of a part when the string value, typed value or a copy of a node that holds it is
 * taken (a header's text, an ancestor's string value, {@code xsl:copy-of} of req:request, a
 * comparison, {@code xsl:value-of}), and an attribute of req:request when it is read;</li>
 * <li>which parts of a kind there are ({@code header-names}) when a child, descendant or sibling
 * axis could return one of them (finding req:header[@name = 'x'] looks at every header's name,
 * and the answer "none" depends on there being none); an axis whose node test cannot match a
 * part (content templates' {@code //atom:entry}, {@code xsl:number}'s {@code preceding::fig}) records nothing;</li>
 * <li>the presence of req:query when an axis could return it.</li>
 * </ul>
 * A part's {@code @name} is not a read: the axis that reached the part recorded the names.
 * Copying counts as reading in every stage, filters included: what a filter copies into the next
 * stage's input is read there by whatever reads it, which this view of the first stage cannot see,
 * so a filter that copies all of req:request on reads all of it. Java stages see SAX events, not
 * nodes: what they read is not recorded (see {@link SaxStage}).
 *
 * <h2>Cost</h2>
 * One wrapper object per node the stage visits, on top of the TinyTree's own node object. A node
 * reached from its parent takes its role from the parent; one reached otherwise (a descendant or
 * following axis) is placed by at most a few document-order comparisons, O(1) each in a TinyTree.
 * Axes are evaluated by the TinyTree with the stage's node test, so its indexes still serve
 * {@code //name}.
 */
final class WatchedRequest extends GenericTreeInfo {
    private static final NamespaceUri REQ = NamespaceUri.of(RequestReader.NS);
    private static final NodeName QUERY = name("query");
    private static final NodeName VALUE = name("value");
    private static final NodeName[] PART = {name("parameter"), name("header"), name("cookie")};

    private final Reads reads;
    private final TreeInfo underlying;
    private final NodeInfo request;
    /** The children of req:request that hold parts, in document order; each one's kind (null: req:query) and the node after it (null: none). */
    private final NodeInfo[] watched = new NodeInfo[4];
    private final Kind[] kinds = new Kind[4];
    private final NodeInfo[] after = new NodeInfo[4];
    private int count;

    private WatchedRequest(Configuration config, TreeInfo underlying, NodeInfo request, Reads reads) {
        super(config);
        this.underlying = underlying;
        this.request = request;
        this.reads = reads;
        for (NodeInfo child : request.children()) {
            if (count > 0 && after[count - 1] == null) after[count - 1] = child;
            if (child.getNodeKind() != Type.ELEMENT || !child.getNamespaceUri().equals(REQ) || count == watched.length) continue;
            Kind kind = switch (child.getLocalPart()) {
                case "parameters" -> Kind.PARAMETERS;
                case "headers" -> Kind.HEADERS;
                case "cookies" -> Kind.COOKIES;
                default -> null;
            };
            if (kind == null && !child.getLocalPart().equals("query")) continue;
            watched[count] = child;
            kinds[count] = kind;
            count++;
        }
    }

    /**
     * The view of {@code document} that records into {@code reads}, or {@code document} itself
     * when it is not a req:request (a filter may pass on something else).
     */
    static NodeInfo watch(NodeInfo document, Reads reads) {
        if (document.getNodeKind() != Type.DOCUMENT) return document;
        NodeInfo element = null;
        for (NodeInfo child : document.children()) {
            if (child.getNodeKind() == Type.ELEMENT) {
                element = child;
                break;
            }
        }
        if (element == null || !element.getNamespaceUri().equals(REQ) || !element.getLocalPart().equals("request")) return document;
        TreeInfo tree = document.getTreeInfo();
        WatchedRequest view = new WatchedRequest(tree.getConfiguration(), tree, element, reads);
        view.setSystemId(document.getSystemId());
        view.setSpaceStrippingRule(tree.getSpaceStrippingRule());
        view.setDurability(tree.getDurability());
        view.setRootNode(new Node(view, document, null, Role.DOCUMENT, null, null));
        return view.getRootNode();
    }

    private static NodeName name(String local) {
        return new FingerprintedQName("req", REQ, local);
    }

    @Override
    public NodeInfo selectID(String id, boolean getParent) {
        NodeInfo n = underlying.selectID(id, getParent);
        return n == null ? null : place(n);
    }

    private void read(String part) {
        reads.requestPart(part);
    }

    /** Records the parts of {@code kind} an axis with {@code test} could show: which there are, and their values. */
    private void readKind(Kind kind, NodePredicate test) {
        if (mayMatch(test, Type.ELEMENT, PART[kind.ordinal()])) read(kind.names);
        if (mayMatch(test, Type.TEXT, null) || kind == Kind.PARAMETERS && mayMatch(test, Type.ELEMENT, VALUE)) read(kind.all);
    }

    /** Records what an axis over all of req:request with {@code test} could show. */
    private void readEverything(NodePredicate test) {
        if (mayMatch(test, Type.ELEMENT, QUERY) || mayMatch(test, Type.TEXT, null)) read(RequestParts.QUERY);
        for (int i = 0; i < count; i++) if (kinds[i] != null) readKind(kinds[i], test);
    }

    /** Whether {@code test} could match a node of {@code kind} named {@code name}; true when it is not a plain kind or name test. */
    private static boolean mayMatch(NodePredicate test, int kind, NodeName name) {
        if (!plain(test)) return true;
        try {
            return ((NodeTest) test).matches(kind, name, kind == Type.ELEMENT ? Untyped.getInstance() : BuiltInAtomicType.UNTYPED_ATOMIC);
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** A test of a node's kind and name only, so safe to give the TinyTree: it cannot read a value behind this view's back. */
    private static boolean plain(NodePredicate test) {
        if (test instanceof AnyNodeTest || test instanceof NameTest || test instanceof NodeKindTest || test instanceof LocalNameTest
                || test instanceof NamespaceTest || test instanceof MultipleNodeKindTest) {
            return true;
        }
        if (test instanceof CombinedNodeTest c) {
            for (NodeTest t : c.getComponentNodeTests()) if (!plain(t)) return false;
            return true;
        }
        return false;
    }

    /** The view of underlying node {@code n}, whose parent's view is not at hand: placed by document order. */
    Node place(NodeInfo n) {
        int kind = n.getNodeKind();
        if (kind == Type.DOCUMENT) return (Node) getRootNode();
        if (kind == Type.NAMESPACE) return new Node(this, n, null, Role.OTHER, null, null);
        if (kind == Type.ATTRIBUTE) {
            Node element = place(n.getParent());
            return element.child(n);
        }
        if (n.equals(request)) return new Node(this, n, null, Role.REQUEST, null, null);
        int i = region(n);
        if (i < 0) return new Node(this, n, null, Role.OTHER, null, null);
        Kind k = kinds[i];
        NodeInfo top = watched[i];
        if (n.equals(top)) return new Node(this, n, null, k == null ? Role.QUERY : Role.CONTAINER, k, null);
        if (k == null) return new Node(this, n, null, Role.QUERY, null, null);
        // Inside a list: the part is the ancestor-or-self whose parent is the list (at most three steps up).
        NodeInfo part = n;
        for (NodeInfo up = part.getParent(); up != null && !up.equals(top); up = up.getParent()) part = up;
        String name = part.getNodeKind() == Type.ELEMENT ? part.getAttributeValue(NamespaceUri.NULL, "name") : null;
        return new Node(this, n, null, n.equals(part) && name != null ? Role.PART : Role.INSIDE, k, name);
    }

    /** The index of the watched child of req:request whose subtree holds {@code n}, or -1. */
    private int region(NodeInfo n) {
        if (count == 0 || n.compareOrder(watched[0]) < 0) return -1;
        NodeInfo end = after[count - 1];
        if (end != null && n.compareOrder(end) >= 0) return -1;
        for (int i = 0; i < count; i++) {
            if (n.compareOrder(watched[i]) < 0) return -1;
            boolean inside = after[i] == null ? Navigator.isAncestorOrSelf(watched[i], n) : n.compareOrder(after[i]) < 0;
            if (inside) return i;
        }
        return -1;
    }

    /** Where a node is in req:request, which says what reading it reads. */
    enum Role {
        /** The document node and req:request: their string value is every part. */
        DOCUMENT, REQUEST,
        /** An attribute of req:request that is a part ({@code name}: its local name). */
        ATTRIBUTE,
        /** req:query and its text. */
        QUERY,
        /** req:headers, req:cookies, req:parameters. */
        CONTAINER,
        /** One req:header, req:cookie or req:parameter ({@code name}: its @name). */
        PART,
        /** Below a part: its text, a parameter's req:value; {@code name} null when the part has no name. */
        INSIDE,
        /** A part's @name: reading it is not a read (the axis that found the part was). */
        NAME,
        /** Anything else: the site, path, route, body, msg:attribute and what filters fetched. */
        OTHER
    }

    /** A node of the view. Equal to another when they wrap the same node. */
    static final class Node implements NodeInfo {
        private final WatchedRequest tree;
        private final NodeInfo node;
        private Node parent;
        private final Role role;
        private final Kind kind;
        private final String name;

        Node(WatchedRequest tree, NodeInfo node, Node parent, Role role, Kind kind, String name) {
            this.tree = tree;
            this.node = node;
            this.parent = parent;
            this.role = role;
            this.kind = kind;
            this.name = name;
        }

        /** The view of {@code n}, a child or attribute of this node. */
        Node child(NodeInfo n) {
            int k = n.getNodeKind();
            Role r = Role.OTHER;
            Kind kd = null;
            String nm = null;
            switch (role) {
                case DOCUMENT -> r = n.equals(tree.request) ? Role.REQUEST : Role.OTHER;
                case REQUEST -> {
                    if (k == Type.ATTRIBUTE) {
                        if (n.getNamespaceUri().isEmpty() && RequestParts.ATTRIBUTES.contains(n.getLocalPart())) {
                            r = Role.ATTRIBUTE;
                            nm = n.getLocalPart();
                        }
                    } else if (k == Type.ELEMENT) {
                        for (int i = 0; i < tree.count; i++) {
                            if (n.equals(tree.watched[i])) {
                                kd = tree.kinds[i];
                                r = kd == null ? Role.QUERY : Role.CONTAINER;
                                break;
                            }
                        }
                    }
                }
                case QUERY -> r = Role.QUERY;
                case CONTAINER -> {
                    kd = kind;
                    if (k == Type.ELEMENT) {
                        nm = n.getAttributeValue(NamespaceUri.NULL, "name");
                        r = nm == null ? Role.INSIDE : Role.PART;
                    } else if (k != Type.ATTRIBUTE && k != Type.NAMESPACE) {
                        r = Role.INSIDE;
                    }
                }
                case PART -> {
                    kd = kind;
                    nm = name;
                    boolean isName = k == Type.ATTRIBUTE && n.getNamespaceUri().isEmpty() && n.getLocalPart().equals("name");
                    r = isName ? Role.NAME : k == Type.NAMESPACE ? Role.OTHER : Role.INSIDE;
                }
                case INSIDE -> {
                    kd = kind;
                    nm = name;
                    r = k == Type.NAMESPACE ? Role.OTHER : Role.INSIDE;
                }
                default -> { }
            }
            return new Node(tree, n, this, r, kd, nm);
        }

        // ----- What reading this node reads

        /** Its string value or typed value is taken. */
        private void readValue() {
            switch (role) {
                case DOCUMENT, REQUEST -> {
                    tree.read(RequestParts.QUERY);
                    for (Kind k : Kind.values()) tree.read(k.all);
                }
                case QUERY -> tree.read(RequestParts.QUERY);
                case CONTAINER -> tree.read(kind.all);
                case PART, INSIDE -> tree.read(name == null ? kind.all : kind.value(name));
                case ATTRIBUTE -> tree.read(RequestParts.attribute(name));
                default -> { }
            }
        }

        /** It is copied: its value and, for req:request, its attributes. */
        private void readCopy() {
            readValue();
            if (role == Role.DOCUMENT || role == Role.REQUEST) {
                for (String a : RequestParts.ATTRIBUTES) tree.read(RequestParts.attribute(a));
            }
        }

        /** An axis from this node with {@code test} is about to be walked. */
        private void readAxis(int axis, NodePredicate test) {
            switch (axis) {
                case AxisInfo.CHILD -> readChildren(test);
                case AxisInfo.DESCENDANT, AxisInfo.DESCENDANT_OR_SELF -> readDescendants(test);
                case AxisInfo.FOLLOWING_SIBLING, AxisInfo.PRECEDING_SIBLING -> readSiblings(test);
                case AxisInfo.ANCESTOR, AxisInfo.ANCESTOR_OR_SELF, AxisInfo.PARENT, AxisInfo.SELF, AxisInfo.ATTRIBUTE,
                     AxisInfo.NAMESPACE -> { }
                // following, preceding and any other: they may cross all of req:request.
                default -> tree.readEverything(test);
            }
        }

        private void readChildren(NodePredicate test) {
            switch (role) {
                case REQUEST -> {
                    if (mayMatch(test, Type.ELEMENT, QUERY)) tree.read(RequestParts.QUERY);
                }
                case QUERY -> tree.read(RequestParts.QUERY);
                case CONTAINER -> {
                    if (mayMatch(test, Type.ELEMENT, PART[kind.ordinal()]) || mayMatch(test, Type.TEXT, null)) tree.read(kind.names);
                }
                case PART, INSIDE -> readValue();
                default -> { }
            }
        }

        private void readDescendants(NodePredicate test) {
            switch (role) {
                case DOCUMENT, REQUEST -> tree.readEverything(test);
                case QUERY -> tree.read(RequestParts.QUERY);
                case CONTAINER -> tree.readKind(kind, test);
                case PART, INSIDE -> readValue();
                default -> { }
            }
        }

        private void readSiblings(NodePredicate test) {
            switch (role) {
                case QUERY, CONTAINER -> {
                    if (node.getNodeKind() == Type.ELEMENT) {
                        if (mayMatch(test, Type.ELEMENT, QUERY)) tree.read(RequestParts.QUERY);
                    } else {
                        tree.read(RequestParts.QUERY);
                    }
                }
                case PART -> {
                    if (mayMatch(test, Type.ELEMENT, PART[kind.ordinal()]) || mayMatch(test, Type.TEXT, null)) tree.read(kind.names);
                }
                case INSIDE -> {
                    // A node right inside a list (no name) stands among the parts; else among a part's text and values.
                    if (name == null) tree.read(kind.all);
                    else readValue();
                }
                case OTHER -> {
                    // Only a child of req:request has req:query among its siblings.
                    if (mayMatch(test, Type.ELEMENT, QUERY)
                            && (parent != null ? parent.role == Role.REQUEST : tree.request.equals(node.getParent()))) {
                        tree.read(RequestParts.QUERY);
                    }
                }
                default -> { }
            }
        }

        // ----- NodeInfo: values

        @Override
        public UnicodeString getUnicodeStringValue() {
            readValue();
            return node.getUnicodeStringValue();
        }

        @Override
        public String getStringValue() {
            readValue();
            return node.getStringValue();
        }

        @Override
        public AtomicSequence atomize() throws XPathException {
            readValue();
            return node.atomize();
        }

        @Override
        public void copy(Receiver out, int copyOptions, Location locationId) throws XPathException {
            readCopy();
            node.copy(out, copyOptions, locationId);
        }

        @Override
        public String getAttributeValue(NamespaceUri uri, String local) {
            switch (role) {
                case REQUEST -> {
                    if (uri.isEmpty() && RequestParts.ATTRIBUTES.contains(local)) tree.read(RequestParts.attribute(local));
                }
                case PART -> {
                    if (!(uri.isEmpty() && local.equals("name"))) readValue();
                }
                case INSIDE -> readValue();
                default -> { }
            }
            return node.getAttributeValue(uri, local);
        }

        @Override
        public AttributeMap attributes() {
            AttributeMap map = node.attributes();
            switch (role) {
                case REQUEST -> {
                    for (AttributeInfo a : map) {
                        NodeName n = a.getNodeName();
                        if (n.getNamespaceUri().isEmpty() && RequestParts.ATTRIBUTES.contains(n.getLocalPart())) {
                            tree.read(RequestParts.attribute(n.getLocalPart()));
                        }
                    }
                }
                case PART -> {
                    if (map.size() > (map.get(NamespaceUri.NULL, "name") == null ? 0 : 1)) readValue();
                }
                case INSIDE -> {
                    if (map.size() > 0) readValue();
                }
                default -> { }
            }
            return map;
        }

        @Override
        public boolean hasChildNodes() {
            readChildren(AnyNodeTest.getInstance());
            return node.hasChildNodes();
        }

        // ----- NodeInfo: navigation

        @Override
        public AxisIterator iterateAxis(int axis, NodePredicate test) {
            readAxis(axis, test);
            if (axis == AxisInfo.SELF) return Navigator.filteredSingleton(this, test);
            if (axis == AxisInfo.PARENT) return Navigator.filteredSingleton(getParent(), test);
            boolean plain = plain(test);
            AxisIterator base = node.iterateAxis(axis, plain ? test : AnyNodeTest.getInstance());
            boolean known = axis == AxisInfo.CHILD || axis == AxisInfo.ATTRIBUTE || axis == AxisInfo.NAMESPACE;
            Role below = axis == AxisInfo.DESCENDANT || axis == AxisInfo.DESCENDANT_OR_SELF ? below() : null;
            AxisIterator wrapped = new Wrapping(base, known ? this : null, below, axis == AxisInfo.DESCENDANT_OR_SELF ? this : null);
            // A test that is not a plain kind or name test sees this view's nodes, so what it reads is recorded.
            return plain ? wrapped : new Navigator.AxisFilter(wrapped, test);
        }

        /** The role every descendant of this node has, or null when it depends on the descendant. */
        private Role below() {
            return switch (role) {
                case QUERY -> Role.QUERY;
                case PART, INSIDE -> Role.INSIDE;
                case OTHER, NAME, ATTRIBUTE -> Role.OTHER;
                default -> null;
            };
        }

        /** Wraps the nodes of an axis: as children of {@code parent}, all with {@code fixed}, or placed one by one. */
        private final class Wrapping implements AxisIterator {
            private final AxisIterator base;
            private final Node parent;
            private final Role fixed;
            private final Node self;

            Wrapping(AxisIterator base, Node parent, Role fixed, Node self) {
                this.base = base;
                this.parent = parent;
                this.fixed = fixed;
                this.self = self;
            }

            @Override
            public NodeInfo next() {
                NodeInfo n = base.next();
                if (n == null) return null;
                if (parent != null) return parent.child(n);
                if (self != null && n.equals(node)) return self;
                if (fixed != null) return new Node(tree, n, null, fixed, fixed == Role.OTHER ? null : kind, fixed == Role.OTHER ? null : name);
                return tree.place(n);
            }

            @Override
            public void close() {
                base.close();
            }
        }

        @Override
        public NodeInfo getParent() {
            if (parent == null) {
                NodeInfo p = node.getParent();
                if (p != null) parent = tree.place(p);
            }
            return parent;
        }

        @Override
        public NodeInfo getRoot() {
            return tree.getRootNode();
        }

        @Override
        public TreeInfo getTreeInfo() {
            return tree;
        }

        // ----- NodeInfo: identity, names and the rest, as the node's

        @Override
        public boolean equals(Object other) {
            return other instanceof Node n && node.equals(n.node);
        }

        @Override
        public int hashCode() {
            return node.hashCode();
        }

        @Override
        public int compareOrder(NodeInfo other) {
            return node.compareOrder(other instanceof Node n ? n.node : other);
        }

        @Override
        public int getNodeKind() {
            return node.getNodeKind();
        }

        @Override
        public String getSystemId() {
            return node.getSystemId();
        }

        @Override
        public String getPublicId() {
            return node.getPublicId();
        }

        @Override
        public void setSystemId(String systemId) {
            node.setSystemId(systemId);
        }

        @Override
        public String getBaseURI() {
            return node.getBaseURI();
        }

        @Override
        public int getLineNumber() {
            return node.getLineNumber();
        }

        @Override
        public int getColumnNumber() {
            return node.getColumnNumber();
        }

        @Override
        public Location saveLocation() {
            return this;
        }

        @Override
        public boolean hasFingerprint() {
            return node.hasFingerprint();
        }

        @Override
        public int getFingerprint() {
            return node.getFingerprint();
        }

        @Override
        public String getLocalPart() {
            return node.getLocalPart();
        }

        @Override
        public NamespaceUri getNamespaceUri() {
            return node.getNamespaceUri();
        }

        @Override
        public String getDisplayName() {
            return node.getDisplayName();
        }

        @Override
        public String getPrefix() {
            return node.getPrefix();
        }

        @Override
        public SchemaType getSchemaType() {
            return node.getSchemaType();
        }

        @Override
        public void generateId(StringBuilder buffer) {
            node.generateId(buffer);
        }

        @Override
        @SuppressWarnings("deprecation")
        public NamespaceBinding[] getDeclaredNamespaces(NamespaceBinding[] buffer) {
            return node.getDeclaredNamespaces(buffer);
        }

        @Override
        public NamespaceMap getAllNamespaces() {
            return node.getAllNamespaces();
        }

        @Override
        public boolean isId() {
            return node.isId();
        }

        @Override
        public boolean isIdref() {
            return node.isIdref();
        }

        @Override
        public boolean isNilled() {
            return node.isNilled();
        }

        @Override
        public String toString() {
            return node.toString();
        }
    }
}
