package arno.store;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.sf.saxon.lib.ConversionRules;

import arno.store.SearchParser.Axis;
import arno.store.SearchParser.Expr;
import arno.store.SearchParser.Literal;
import arno.store.SearchParser.Op;
import arno.store.SearchParser.Test;

/**
 * Plans a search: which value indexes narrow it, in which order.
 *
 * <h2>Normal form: a tree of existential nodes</h2>
 * A condition's conjunctive part says "there are nodes, related so, whose values compare so". Its
 * normal form is a tree: each node is one such node (reached from its parent by one step: child,
 * descendant, attribute), carrying the comparisons of its own value; a predicate adds to the
 * node of the step it follows, a path adds a chain of nodes. So {@code a[b[c = '1']]},
 * {@code a/b[c = '1']}, {@code a[b/c = '1']} and {@code a/b/c = '1'} all give
 * root → a → b → c (= '1'). Two merges are exact: a document node has one element child, so the
 * root's child steps of one name are one node ({@code /e/x = 1 and /e/y = 2} is {@code /e[x = 1][y = 2]});
 * an element has one attribute of a name. Self steps stay on their node. Nothing else is merged:
 * {@code a[b = 1][b = 2]} may be two different b's. Negations and disjunctions are kept aside,
 * displayed in the same normal form, and decided by verification only.
 *
 * <h2>Matching indexes</h2>
 * For each element node M and each index whose match path covers M's path (an anchored index: the
 * same child steps from the root; a {@code //} index: the same trailing steps, the first reached
 * by any axis), the index's value (and key) path is followed down the tree by child steps, and
 * each comparison found there becomes a lookup, if and only if the lookup's answer contains every
 * element the comparison can be true of (see {@link #lookup}); a correlated index needs its key
 * compared with {@code =} on the same M. Anything in doubt is left to verification.
 *
 * <h2>Ordering by a bounded race</h2>
 * Every usable lookup reads at most L entries (L = {@value #FIRST_LIMIT}, then ×8 each round)
 * until one of them ends within its bound: that one, the smallest, drives; every other that ended
 * too is intersected (it is already read); those that did not end have more entries than the
 * driver, and verification decides them. The cost is at most (lookups × 8 × the driver's
 * entries), and the estimates are exact counts where they matter.
 */
final class Planner {

    static final int FIRST_LIMIT = 256;

    private Planner() {
    }

    /** One node of the normal form. */
    static final class Node {
        final Node parent;
        final Axis axis;
        final Test test;
        final IndexDefinition.Name name;
        final List<Node> children = new ArrayList<>();
        final List<Cond> conds = new ArrayList<>();
        final List<String> residuals = new ArrayList<>();
        final List<String> selfTests = new ArrayList<>();

        Node(Node parent, Axis axis, Test test, IndexDefinition.Name name) {
            this.parent = parent;
            this.axis = axis;
            this.test = test;
            this.name = name;
        }

        boolean isRoot() {
            return parent == null;
        }

        /** The child by this step: an existing one where the merge is exact, else a new one. */
        Node child(Axis a, Test t, IndexDefinition.Name n) {
            boolean unique = t == Test.NAME && (a == Axis.ATTRIBUTE || (a == Axis.CHILD && isRoot()));
            if (unique) {
                for (Node c : children) {
                    if (c.axis == a && c.test == t && c.name.equals(n)) {
                        return c;
                    }
                }
            }
            Node c = new Node(this, a, t, n);
            children.add(c);
            return c;
        }

        boolean element() {
            return test == Test.NAME && axis != Axis.ATTRIBUTE && axis != null;
        }
    }

    record Cond(Op op, Literal literal) {
        String text() {
            return op.text + " " + literal.xpath();
        }
    }

    /** The normal form of {@code e}. */
    static Node tree(Expr e) {
        Node root = new Node(null, null, null, null);
        add(e, root, root);
        return root;
    }

    private static void add(Expr e, Node at, Node root) {
        if (e instanceof SearchParser.And a) {
            for (Expr p : a.parts()) {
                add(p, at, root);
            }
        } else if (e instanceof SearchParser.Exists x) {
            walk(x.path(), at, root);
        } else if (e instanceof SearchParser.Compare c) {
            walk(c.path(), at, root).conds.add(new Cond(c.op(), c.literal()));
        } else if (e instanceof SearchParser.Not n) {
            at.residuals.add("not(" + aside(n.inner(), at) + ")");
        } else if (e instanceof SearchParser.Or o) {
            List<String> parts = new ArrayList<>();
            for (Expr p : o.parts()) {
                parts.add(aside(p, at));
            }
            parts.sort(Comparator.naturalOrder());
            at.residuals.add("(" + String.join(" or ", parts) + ")");
        }
    }

    /** A condition kept aside (under not() or or), in normal form, as an absolute expression. */
    private static String aside(Expr e, Node at) {
        Node[] copy = copyChain(at);
        add(e, copy[1], copy[0]);
        return absolute(copy[0]);
    }

    /** A fresh root and a copy of the chain of steps to {@code at}: {root, copy of at}. */
    private static Node[] copyChain(Node at) {
        if (at.isRoot()) {
            Node r = new Node(null, null, null, null);
            return new Node[] {r, r};
        }
        Node[] up = copyChain(at.parent);
        Node c = new Node(up[1], at.axis, at.test, at.name);
        up[1].children.add(c);
        return new Node[] {up[0], c};
    }

    private static Node walk(SearchParser.PathExpr path, Node at, Node root) {
        Node cur = path.absolute() ? root : at;
        List<SearchParser.Step> steps = path.steps();
        for (int i = 0; i < steps.size(); i++) {
            SearchParser.Step s = steps.get(i);
            if (s.axis() == Axis.DESCENDANT_OR_SELF && s.test() == Test.ANY_NODE && s.predicates().isEmpty()
                    && i + 1 < steps.size() && steps.get(i + 1).axis() == Axis.CHILD) {
                // descendant-or-self::node()/child::x is descendant::x
                SearchParser.Step next = steps.get(++i);
                cur = cur.child(Axis.DESCENDANT, next.test(), next.name());
                s = next;
            } else if (s.axis() == Axis.SELF) {
                if (s.test() != Test.ANY_NODE) {
                    cur.selfTests.add("self::" + (s.test() == Test.NAME ? s.name().display() : "*"));
                }
            } else {
                cur = cur.child(s.axis(), s.test(), s.name());
            }
            for (Expr p : s.predicates()) {
                add(p, cur, root);
            }
        }
        return cur;
    }

    // ---- display of the normal form

    private static String stepText(Node n) {
        String t = n.test == Test.NAME ? n.name.display() : n.test == Test.ANY_NAME ? "*" : "node()";
        return switch (n.axis) {
            case ATTRIBUTE -> "@" + t;
            case DESCENDANT_OR_SELF -> "descendant-or-self::" + t;
            default -> t;
        };
    }

    /** The separator before {@code n}'s step in a path. */
    private static String separator(Node n) {
        return n.axis == Axis.DESCENDANT ? "//" : "/";
    }

    /** The items a node's predicate holds, sorted: comparisons, children, what is aside. */
    private static List<String> items(Node n) {
        List<String> out = new ArrayList<>();
        for (Cond c : n.conds) {
            out.add(". " + c.text());
        }
        for (Node c : n.children) {
            out.add((c.axis == Axis.DESCENDANT ? ".//" : "") + relative(c));
        }
        out.addAll(n.residuals);
        out.addAll(n.selfTests);
        out.sort(Comparator.naturalOrder());
        return out;
    }

    /** The child {@code c} and what it holds, relative to its parent. */
    private static String relative(Node c) {
        String step = stepText(c);
        if (c.children.size() == 1 && c.conds.isEmpty() && c.residuals.isEmpty() && c.selfTests.isEmpty()) {
            Node only = c.children.get(0);
            return step + separator(only) + relative(only);
        }
        if (c.conds.size() == 1 && c.children.isEmpty() && c.residuals.isEmpty() && c.selfTests.isEmpty()) {
            return step + " " + c.conds.get(0).text();
        }
        StringBuilder b = new StringBuilder(step);
        for (String i : items(c)) {
            b.append('[').append(i).append(']');
        }
        return b.toString();
    }

    /** A whole tree as one absolute expression. */
    static String absolute(Node root) {
        List<String> parts = new ArrayList<>();
        for (Node c : root.children) {
            parts.add(separator(c) + relative(c));
        }
        for (Cond c : root.conds) {
            parts.add("/ " + c.text());
        }
        parts.addAll(root.residuals);
        parts.sort(Comparator.naturalOrder());
        return parts.isEmpty() ? "/" : String.join(" and ", parts);
    }

    /** The absolute path of a node: {@code /atom:entry/atom:category}. */
    static String path(Node n) {
        if (n.isRoot()) {
            return "";
        }
        return path(n.parent) + separator(n) + stepText(n);
    }

    /** The path from {@code from} down to {@code to}. */
    private static String pathBetween(Node from, Node to) {
        if (to == from) {
            return ".";
        }
        String rest = "";
        Node n = to;
        while (n != from) {
            rest = (n.parent == from ? (n.axis == Axis.DESCENDANT ? ".//" : "") : separator(n)) + stepText(n) + rest;
            n = n.parent;
        }
        return rest;
    }

    // ---- matching indexes

    /** One index lookup that answers a conjunct: a superset of its documents. */
    record Lookup(String index, String key, String low, String high, String condition, String display) {
    }

    /** What the tree asks of the indexes: lookups, and the comparisons no lookup answers with a reason. */
    record Matches(List<Lookup> lookups, Map<String, String> unanswered) {
    }

    static Matches match(Node root, List<IndexDefinition> indexes, ConversionRules rules) {
        Map<String, Lookup> lookups = new LinkedHashMap<>();
        Map<Cond, Node> condNodes = new java.util.IdentityHashMap<>();
        Map<Object, String> reasons = new java.util.IdentityHashMap<>();
        Set<Object> answered = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        List<Node> all = new ArrayList<>();
        collect(root, all);
        for (Node m : all) {
            for (Cond c : m.conds) {
                condNodes.put(c, m);
            }
        }
        for (Node m : all) {
            if (!m.element()) {
                continue;
            }
            for (IndexDefinition d : indexes) {
                if (!covers(d.match(), m)) {
                    continue;
                }
                List<Node> valueNodes = follow(m, d.value());
                List<Object[]> values = new ArrayList<>(); // {Cond, Node, low, high}
                for (Node v : valueNodes) {
                    for (Cond c : v.conds) {
                        String[] range = lookup(d, c, rules);
                        if (range == null) {
                            reasons.putIfAbsent(c, why(d, c));
                        } else {
                            values.add(new Object[] {c, v, range[0], range[1]});
                        }
                    }
                }
                if (!d.correlated()) {
                    for (Object[] v : values) {
                        Cond c = (Cond) v[0];
                        String cond = path((Node) v[1]) + " " + c.text();
                        add(lookups, new Lookup(d.name(), null, (String) v[2], (String) v[3], cond,
                                d.name() + " " + bounds((String) v[2], (String) v[3])));
                        answered.add(c);
                    }
                    continue;
                }
                List<Object[]> keys = new ArrayList<>(); // {Cond, Node}
                for (Node k : follow(m, d.key())) {
                    for (Cond c : k.conds) {
                        if (c.op() == Op.EQ && c.literal() instanceof SearchParser.Str) {
                            keys.add(new Object[] {c, k});
                        } else {
                            reasons.putIfAbsent(c, "the key of index '" + d.name() + "' is a string: only '=' with a"
                                    + " string literal uses it");
                        }
                    }
                }
                if (keys.isEmpty()) {
                    for (Object[] v : values) {
                        reasons.putIfAbsent(v[0], "index '" + d.name() + "' is correlated: it needs its key "
                                + d.key().display() + " compared with '=' to a string on the same element");
                    }
                    continue;
                }
                for (Object[] k : keys) {
                    Cond kc = (Cond) k[0];
                    String key = ((SearchParser.Str) kc.literal()).value();
                    String keyText = "[" + pathBetween(m, (Node) k[1]) + " " + kc.text() + "]";
                    answered.add(kc);
                    if (values.isEmpty()) {
                        add(lookups, new Lookup(d.name(), key, null, null, path(m) + keyText,
                                d.name() + " key " + quote(key)));
                    }
                    for (Object[] v : values) {
                        Cond vc = (Cond) v[0];
                        String cond = path(m) + keyText + "[" + pathBetween(m, (Node) v[1]) + " " + vc.text() + "]";
                        add(lookups, new Lookup(d.name(), key, (String) v[2], (String) v[3], cond,
                                d.name() + " key " + quote(key) + " " + bounds((String) v[2], (String) v[3])));
                        answered.add(vc);
                    }
                }
            }
        }
        Map<String, String> unanswered = new java.util.TreeMap<>();
        for (Node n : all) {
            for (Cond c : n.conds) {
                if (!answered.contains(c)) {
                    String r = reasons.get(c);
                    unanswered.put(path(n) + " " + c.text(), r != null ? r
                            : c.op() == Op.NE ? "'!=' is verified" : "no index on " + (path(n).isEmpty() ? "/" : path(n)));
                }
            }
        }
        List<Lookup> sorted = new ArrayList<>(lookups.values());
        sorted.sort(Comparator.comparing(Lookup::condition).thenComparing(Lookup::display));
        return new Matches(sorted, unanswered);
    }

    private static void add(Map<String, Lookup> lookups, Lookup l) {
        String id = l.index() + "\0" + l.key() + "\0" + l.low() + "\0" + l.high();
        Lookup old = lookups.get(id);
        if (old == null || l.condition().compareTo(old.condition()) < 0) {
            lookups.put(id, l);
        }
    }

    private static void collect(Node n, List<Node> out) {
        out.add(n);
        for (Node c : n.children) {
            collect(c, out);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static String bounds(String low, String high) {
        if (low != null && low.equals(high)) {
            return "= " + quote(low);
        }
        return "in [" + (low == null ? "" : quote(low)) + ", " + (high == null ? "" : quote(high)) + "]";
    }

    /**
     * Whether index match path {@code p} selects every element M can be: an anchored path the same
     * child steps from the root; a {@code //} path the same trailing steps, all child steps but the
     * first, which may be reached any way.
     */
    static boolean covers(IndexDefinition.Path p, Node m) {
        List<IndexDefinition.Name> steps = p.steps();
        Node n = m;
        for (int i = steps.size() - 1; i >= 0; i--) {
            if (n == null || n.isRoot() || n.test != Test.NAME || !n.name.equals(steps.get(i))
                    || n.axis == Axis.ATTRIBUTE) {
                return false;
            }
            boolean first = i == 0;
            if (!(first && p.anywhere()) && n.axis != Axis.CHILD) {
                return false;
            }
            n = n.parent;
        }
        return p.anywhere() || (n != null && n.isRoot());
    }

    /** The nodes that value path {@code p} reaches from {@code m} in the tree by child steps (and its attribute). */
    private static List<Node> follow(Node m, IndexDefinition.Path p) {
        List<Node> cur = List.of(m);
        for (IndexDefinition.Name step : p.steps()) {
            List<Node> next = new ArrayList<>();
            for (Node n : cur) {
                for (Node c : n.children) {
                    if (c.axis == Axis.CHILD && c.test == Test.NAME && c.name.equals(step)) {
                        next.add(c);
                    }
                }
            }
            cur = next;
        }
        if (p.attribute() == null) {
            return cur;
        }
        List<Node> attrs = new ArrayList<>();
        for (Node n : cur) {
            for (Node c : n.children) {
                if (c.axis == Axis.ATTRIBUTE && c.test == Test.NAME && c.name.equals(p.attribute())) {
                    attrs.add(c);
                }
            }
        }
        return attrs;
    }

    /**
     * The bounds [low, high] (null: open) of a lookup in index {@code d} whose answer holds every
     * element for which the comparison {@code c} of its value can be true, or null when there is
     * none that is sure to. XPath compares an untyped value with a string as strings, with a number
     * as xs:double (the index's number() is the same conversion), with an xs:date as xs:date
     * (instants: a timezone may move the day by one, so the bounds are widened by a day).
     */
    static String[] lookup(IndexDefinition d, Cond c, ConversionRules rules) {
        Op op = c.op();
        Literal lit = c.literal();
        if (op == Op.NE) {
            return null;
        }
        switch (d.type()) {
            case STRING: {
                if (!(lit instanceof SearchParser.Str s)) {
                    return null;
                }
                if (!d.normalise().isEmpty()) {
                    // f(v) = f(lit) follows from v = lit; no order survives a normalisation
                    return op == Op.EQ ? new String[] {s.value(), s.value()} : null;
                }
                return range(op, s.value(), s.value());
            }
            case NUMBER: {
                if (lit instanceof SearchParser.Num n) {
                    return range(op, n.lexical(), n.lexical());
                }
                if (lit instanceof SearchParser.Str s && op == Op.EQ && !Double.isNaN(ValueKeys.number(s.value(), rules))) {
                    return new String[] {s.value(), s.value()};
                }
                return null;
            }
            default: {
                if (lit instanceof SearchParser.Date dt) {
                    String before = day(dt.epochDay() - 1);
                    String after = day(dt.epochDay() + 1);
                    if (before == null || after == null) {
                        return null;
                    }
                    return range(op, before, after);
                }
                if (lit instanceof SearchParser.Str s && op == Op.EQ && ValueKeys.date(s.value(), rules) != null) {
                    return new String[] {s.value(), s.value()};
                }
                return null;
            }
        }
    }

    private static String[] range(Op op, String low, String high) {
        return switch (op) {
            case EQ -> new String[] {low, high};
            case LT, LE -> new String[] {null, high};
            case GT, GE -> new String[] {low, null};
            default -> null;
        };
    }

    private static String day(long epochDay) {
        LocalDate d = LocalDate.ofEpochDay(epochDay);
        return d.getYear() < 1 || d.getYear() > 9999 ? null : d.toString();
    }

    private static String why(IndexDefinition d, Cond c) {
        String type = d.type().name().toLowerCase(java.util.Locale.ROOT);
        String lit = c.literal() instanceof SearchParser.Str ? "a string" : c.literal() instanceof SearchParser.Num
                ? "a number" : "a date";
        if (c.op() == Op.NE) {
            return "'!=' is verified";
        }
        if (d.type() == IndexDefinition.Type.STRING && !d.normalise().isEmpty() && lit.equals("a string")) {
            return "index '" + d.name() + "' is normalised (" + d.normaliseAttribute() + "): only '=' uses it";
        }
        if (d.type() != IndexDefinition.Type.STRING && lit.equals("a string")) {
            return "index '" + d.name() + "' holds " + type + "s: a string compared with it uses it only with '='"
                    + " and a literal that is a " + type;
        }
        return "index '" + d.name() + "' holds " + (d.type() == IndexDefinition.Type.STRING ? "strings" : type + "s")
                + ", and XPath compares " + lit + " with them differently";
    }

    // ---- ordering

    /** A planned search: the plan and its candidates (in byte order), or null candidates for a scan. */
    record Planned(Plan plan, List<String> candidates) {
    }

    static Planned plan(Snapshot s, String under, Node root, Matches m) {
        List<Lookup> lookups = m.lookups();
        List<Plan.Conjunct> conjuncts = new ArrayList<>();
        List<String> candidates = null;
        if (!lookups.isEmpty()) {
            Map<Lookup, List<IndexHit>> done = new LinkedHashMap<>();
            int limit = FIRST_LIMIT;
            while (done.isEmpty()) {
                for (Lookup l : lookups) {
                    List<IndexHit> hits = ValueLookup.find(s, l.index(), l.key(), l.low(), l.high(), limit);
                    if (hits.size() <= limit) {
                        done.put(l, hits);
                    }
                }
                if (done.isEmpty()) {
                    limit = limit > Integer.MAX_VALUE / 8 ? Integer.MAX_VALUE - 1 : limit * 8;
                }
            }
            record Read(Lookup lookup, int entries, Set<String> docs) {
            }
            List<Read> reads = new ArrayList<>();
            for (Map.Entry<Lookup, List<IndexHit>> e : done.entrySet()) {
                Set<String> docs = new HashSet<>();
                for (IndexHit h : e.getValue()) {
                    if (h.uri().startsWith(under)) {
                        docs.add(h.uri());
                    }
                }
                reads.add(new Read(e.getKey(), e.getValue().size(), docs));
            }
            reads.sort(Comparator.comparingInt((Read r) -> r.docs().size()).thenComparingInt(Read::entries)
                    .thenComparing(r -> r.lookup().condition()).thenComparing(r -> r.lookup().display()));
            Set<String> result = null;
            for (Read r : reads) {
                Plan.Role role = result == null ? Plan.Role.DRIVE : Plan.Role.INTERSECT;
                if (result == null) {
                    result = new HashSet<>(r.docs());
                } else {
                    result.retainAll(r.docs());
                }
                conjuncts.add(new Plan.Conjunct(r.lookup().condition(), r.lookup().index(), r.lookup().display(), role,
                        r.entries(), r.docs().size(), true));
            }
            for (Lookup l : lookups) {
                if (!done.containsKey(l)) {
                    conjuncts.add(new Plan.Conjunct(l.condition(), l.index(), l.display(), Plan.Role.VERIFY, limit, -1,
                            false));
                }
            }
            candidates = new ArrayList<>(result);
            candidates.sort(Snapshot.BYTE_ORDER);
        }
        for (Map.Entry<String, String> e : m.unanswered().entrySet()) {
            conjuncts.add(new Plan.Conjunct(e.getKey(), null, e.getValue(), Plan.Role.NO_INDEX, 0, 0, false));
        }
        return new Planned(new Plan(under, conjuncts, aside(root), candidates == null), candidates);
    }

    /** Negations and disjunctions anywhere in the conjunctive tree, as displayed. */
    static List<String> aside(Node root) {
        List<Node> all = new ArrayList<>();
        collect(root, all);
        List<String> out = new ArrayList<>();
        for (Node n : all) {
            out.addAll(n.residuals); // each displayed as an absolute expression
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }
}
