package arno.store;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import net.sf.saxon.lib.ConversionRules;
import net.sf.saxon.lib.NamespaceConstant;
import net.sf.saxon.om.NameChecker;
import net.sf.saxon.str.StringView;
import net.sf.saxon.type.ConversionResult;
import net.sf.saxon.value.DateValue;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * Parses a search condition: the XPath subset a {@link Planner} can plan, so that a search is by
 * definition {@code collection(…)[CONDITION]} and checkable against it. A recursive-descent parser
 * of XPath 3.1's grammar restricted to:
 *
 * <pre>
 * Or       := And ('or' And)*
 * And      := Cmp ('and' Cmp)*
 * Cmp      := Operand (('=' | '!=' | '&lt;' | '&lt;=' | '&gt;' | '&gt;=') Operand)?      one side a path, the other a literal
 * Operand  := Literal | 'not' '(' Or ')' | '(' Or ')' | Path
 * Literal  := '-'? number | 'string' | "string" | xs:date('…')
 * Path     := '/' Rel? | '//' Rel | Rel
 * Rel      := Step (('/' | '//') Step)*
 * Step     := ('.' | '@' Test | Axis '::' Test | Test) ('[' Or ']')*
 * Axis     := child | descendant | descendant-or-self | attribute | self
 * Test     := QName | '*' | node()
 * </pre>
 *
 * Names are resolved with the given prefixes (the "" prefix is the default element namespace).
 * Anything else is refused with {@link ErrorCode#BAD_PARAMETER}, naming the line and column of the
 * condition where it starts and what is supported.
 */
final class SearchParser {

    /** Where errors point: the condition, as a pseudo-document. */
    static final String WHAT = "search condition";

    enum Axis { CHILD, DESCENDANT, DESCENDANT_OR_SELF, ATTRIBUTE, SELF }

    /** A node test: a name, any element or attribute ({@code *}), or any node ({@code node()}). */
    enum Test { NAME, ANY_NAME, ANY_NODE }

    enum Op {
        EQ("="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

        final String text;

        Op(String text) {
            this.text = text;
        }

        /** The operator with its operands swapped: {@code 3 < x} is {@code x > 3}. */
        Op flip() {
            return switch (this) {
                case LT -> GT;
                case LE -> GE;
                case GT -> LT;
                case GE -> LE;
                default -> this;
            };
        }
    }

    sealed interface Expr permits Or, And, Not, Exists, Compare {
    }

    record Or(List<Expr> parts) implements Expr {
    }

    record And(List<Expr> parts) implements Expr {
    }

    record Not(Expr inner) implements Expr {
    }

    /** A path as a condition: true when it selects something. */
    record Exists(PathExpr path) implements Expr {
    }

    /** A general comparison of what a path selects with a literal ({@code path op literal}). */
    record Compare(PathExpr path, Op op, Literal literal) implements Expr {
    }

    record PathExpr(boolean absolute, List<Step> steps) {
    }

    record Step(Axis axis, Test test, IndexDefinition.Name name, List<Expr> predicates) {
    }

    sealed interface Literal permits Str, Num, Date {
        /** As written in XPath, for display. */
        String xpath();
    }

    record Str(String value) implements Literal {
        @Override
        public String xpath() {
            return "'" + value.replace("'", "''") + "'";
        }
    }

    record Num(String lexical, double value) implements Literal {
        @Override
        public String xpath() {
            return lexical;
        }
    }

    /** An {@code xs:date('…')}: its lexical form and epoch day (timezone ignored). */
    record Date(String lexical, long epochDay) implements Literal {
        @Override
        public String xpath() {
            return "xs:date('" + lexical + "')";
        }
    }

    private final String text;
    private final Map<String, String> prefixes;
    private final ConversionRules rules;
    private int at;

    private SearchParser(String text, Map<String, String> prefixes, ConversionRules rules) {
        this.text = text;
        this.prefixes = prefixes;
        this.rules = rules;
    }

    /**
     * Parses {@code condition}; {@code prefixes} maps each prefix it may use to a namespace URI
     * ("" to the default element namespace, if any).
     */
    static Expr parse(String condition, Map<String, String> prefixes, ConversionRules rules) {
        SearchParser p = new SearchParser(condition, prefixes, rules);
        p.space();
        if (p.at >= condition.length()) {
            throw p.error(0, "it is empty", "give a condition such as atom:entry/prism:doi = '10.5555/1'");
        }
        Expr e = p.or();
        p.space();
        if (p.at < condition.length()) {
            throw p.error(p.at, "'" + p.snippet(p.at) + "' cannot follow what precedes it",
                    "combine conditions with 'and', 'or' and not(…)");
        }
        return e;
    }

    private Expr or() {
        List<Expr> parts = new ArrayList<>();
        parts.add(and());
        while (keyword("or")) {
            parts.add(and());
        }
        return parts.size() == 1 ? parts.get(0) : new Or(parts);
    }

    private Expr and() {
        List<Expr> parts = new ArrayList<>();
        parts.add(comparison());
        while (keyword("and")) {
            parts.add(comparison());
        }
        return parts.size() == 1 ? parts.get(0) : new And(parts);
    }

    private Expr comparison() {
        int start = space();
        Object left = operand();
        int opAt = space();
        Op op = operator();
        if (op == null) {
            if (left instanceof Literal) {
                throw error(start, "a literal alone is not a condition",
                        "compare a path with it, as in prism:volume = " + ((Literal) left).xpath());
            }
            return left instanceof PathExpr p ? new Exists(p) : (Expr) left;
        }
        int rightAt = space();
        Object right = operand();
        if (left instanceof PathExpr p && right instanceof Literal l) {
            return new Compare(p, op, l);
        }
        if (left instanceof Literal l && right instanceof PathExpr p) {
            return new Compare(p, op.flip(), l);
        }
        if (left instanceof Literal) {
            throw error(start, "a comparison of two literals", "compare a path with a literal");
        }
        if (right instanceof Literal || right instanceof PathExpr) {
            throw error(rightAt, left instanceof PathExpr && right instanceof PathExpr
                    ? "a comparison of two paths (a join)" : "a comparison of a condition",
                    "compare a path with a string, a number or xs:date('…')");
        }
        throw error(opAt, "a comparison of a condition", "compare a path with a string, a number or xs:date('…')");
    }

    /** A literal, a path, or (for not(…) and parentheses) a condition. */
    private Object operand() {
        int start = space();
        if (start >= text.length()) {
            throw error(start, "the condition ends too early", "complete it");
        }
        char c = text.charAt(start);
        if (c == '\'' || c == '"') {
            return new Str(string());
        }
        if (Character.isDigit(c) || (c == '.' && start + 1 < text.length() && Character.isDigit(text.charAt(start + 1)))) {
            return number(false);
        }
        if (c == '-') {
            at++;
            space();
            if (at < text.length() && (Character.isDigit(text.charAt(at)) || text.charAt(at) == '.')) {
                return number(true);
            }
            throw error(start, "arithmetic", "compare a path with a literal; '-' may only start a number");
        }
        if (c == '(') {
            at++;
            Expr e = or();
            expect(')', "to close the '(' at column " + column(start));
            return e;
        }
        if (c == '$') {
            throw error(start, "a variable", "put the value into the condition as a literal");
        }
        // a function call: a QName followed by '(' (node() is a step's kind test)
        if (isNameStart(c)) {
            String qname = qname();
            space();
            if (at < text.length() && text.charAt(at) == '(' && !qname.equals("node")) {
                return call(qname, start);
            }
            at = start;
        }
        return path();
    }

    private Object call(String qname, int start) {
        expect('(', "");
        String local = qname.contains(":") ? qname.substring(qname.indexOf(':') + 1) : qname;
        String prefix = qname.contains(":") ? qname.substring(0, qname.indexOf(':')) : null;
        String uri = prefix == null ? NamespaceConstant.FN : prefixes.get(prefix);
        if (uri == null && prefix != null) {
            throw error(start, "the prefix '" + prefix + "' is not declared", declareHint(prefix));
        }
        if (uri.equals(NamespaceConstant.FN) && local.equals("not")) {
            Expr inner = or();
            expect(')', "to close not( at column " + column(start));
            return new Not(inner);
        }
        if (uri.equals(NamespaceConstant.SCHEMA) && local.equals("date")) {
            int litAt = space();
            if (litAt >= text.length() || (text.charAt(litAt) != '\'' && text.charAt(litAt) != '"')) {
                throw error(litAt, "xs:date( without a string", "write xs:date('2024-03-01')");
            }
            String lexical = string();
            expect(')', "to close xs:date( at column " + column(start));
            ConversionResult r = DateValue.makeDateValue(StringView.of(lexical.strip()), rules);
            if (!(r instanceof DateValue d)) {
                throw error(litAt, "'" + lexical + "', which is not an xs:date", "write a date as 2024-03-01");
            }
            long day;
            try {
                day = LocalDate.of(d.getYear(), d.getMonth(), d.getDay()).toEpochDay();
            } catch (RuntimeException e) {
                throw error(litAt, "'" + lexical + "', a date out of range", "write a date as 2024-03-01");
            }
            return new Date(lexical, day);
        }
        if (prefix == null && List.of("text", "comment", "element", "attribute", "processing-instruction",
                "document-node", "namespace-node").contains(local)) {
            throw error(start, "the kind test " + local + "()", "only node() is supported as a kind test");
        }
        throw error(start, "the function " + qname + "()",
                "a search condition may call only not(…) and xs:date('…'); evaluate other functions outside it");
    }

    private PathExpr path() {
        int start = space();
        boolean absolute = false;
        List<Step> steps = new ArrayList<>();
        if (text.startsWith("//", start)) {
            absolute = true;
            at += 2;
            steps.add(new Step(Axis.DESCENDANT_OR_SELF, Test.ANY_NODE, null, List.of()));
        } else if (text.startsWith("/", start)) {
            absolute = true;
            at++;
            int next = space();
            if (next >= text.length() || !startsStep(text.charAt(next))) {
                return new PathExpr(true, steps); // '/' alone: the document node
            }
        }
        steps.add(step());
        while (true) {
            int save = at;
            space();
            if (text.startsWith("//", at)) {
                at += 2;
                steps.add(new Step(Axis.DESCENDANT_OR_SELF, Test.ANY_NODE, null, List.of()));
            } else if (text.startsWith("/", at)) {
                at++;
            } else {
                at = save;
                break;
            }
            steps.add(step());
        }
        return new PathExpr(absolute, steps);
    }

    private boolean startsStep(char c) {
        return c == '.' || c == '@' || c == '*' || isNameStart(c);
    }

    private Step step() {
        int start = space();
        if (start >= text.length()) {
            throw error(start, "a path that ends with '/'", "name the next step");
        }
        char c = text.charAt(start);
        Axis axis;
        Test test;
        IndexDefinition.Name name = null;
        if (text.startsWith("..", start)) {
            throw error(start, "the parent step '..'",
                    "write the condition from the document down: a[b = 'x'] rather than a/b[../c]");
        }
        if (c == '.') {
            at++;
            axis = Axis.SELF;
            test = Test.ANY_NODE;
        } else {
            axis = Axis.CHILD;
            if (c == '@') {
                at++;
                space();
                axis = Axis.ATTRIBUTE;
            } else if (isNameStart(c)) {
                int save = at;
                String word = ncname();
                space();
                if (text.startsWith("::", at)) {
                    at += 2;
                    axis = switch (word) {
                        case "child" -> Axis.CHILD;
                        case "descendant" -> Axis.DESCENDANT;
                        case "descendant-or-self" -> Axis.DESCENDANT_OR_SELF;
                        case "attribute" -> Axis.ATTRIBUTE;
                        case "self" -> Axis.SELF;
                        default -> throw error(start, "the axis " + word + "::",
                                "a search condition walks down only: child, descendant, descendant-or-self,"
                                        + " attribute and self");
                    };
                } else {
                    at = save;
                }
            }
            int testAt = space();
            if (testAt < text.length() && text.charAt(testAt) == '*') {
                at++;
                if (text.startsWith(":", at)) {
                    throw error(testAt, "the wildcard '*:'", "name the element (prefix:name) or use '*'");
                }
                test = Test.ANY_NAME;
            } else if (testAt < text.length() && isNameStart(text.charAt(testAt))) {
                String q = qname();
                int after = at;
                space();
                if (text.startsWith("(", at)) {
                    if (!q.equals("node")) {
                        throw error(testAt, "the kind test " + q + "()", "only node() is supported as a kind test");
                    }
                    at++;
                    expect(')', "to close node(");
                    test = Test.ANY_NODE;
                } else {
                    at = after;
                    if (q.endsWith(":*")) {
                        throw error(testAt, "the wildcard '" + q + "'", "name the element or use '*'");
                    }
                    test = Test.NAME;
                    name = name(q, testAt, axis == Axis.ATTRIBUTE);
                }
            } else {
                throw error(testAt, testAt < text.length() ? "'" + snippet(testAt) + "' where a step was expected"
                        : "a path that ends early", "a step is a name, @name, *, . or axis::name");
            }
        }
        List<Expr> predicates = new ArrayList<>();
        while (true) {
            int p = space();
            if (p < text.length() && text.charAt(p) == '[') {
                at++;
                int inner = space();
                if (inner < text.length() && (Character.isDigit(text.charAt(inner)))) {
                    int save = at;
                    number(false);
                    space();
                    if (at < text.length() && text.charAt(at) == ']') {
                        throw error(inner, "a positional predicate", "a search condition selects by value, not position");
                    }
                    at = save;
                }
                predicates.add(or());
                expect(']', "to close the '[' at column " + column(p));
            } else {
                break;
            }
        }
        return new Step(axis, test, name, predicates);
    }

    private IndexDefinition.Name name(String qname, int pos, boolean attribute) {
        int colon = qname.indexOf(':');
        String prefix = colon < 0 ? "" : qname.substring(0, colon);
        String local = colon < 0 ? qname : qname.substring(colon + 1);
        String uri;
        if (prefix.isEmpty()) {
            uri = attribute ? "" : prefixes.getOrDefault("", "");
        } else {
            uri = prefixes.get(prefix);
            if (uri == null) {
                throw error(pos, "the prefix '" + prefix + "' is not declared", declareHint(prefix));
            }
        }
        return new IndexDefinition.Name(prefix, uri, local);
    }

    private String declareHint(String prefix) {
        return "declare it in the query (declare namespace " + prefix + " = '…';) or pass it in the map of prefixes";
    }

    private Op operator() {
        if (at >= text.length()) {
            return null;
        }
        if (text.startsWith("!=", at)) {
            at += 2;
            return Op.NE;
        }
        if (text.startsWith("<=", at)) {
            at += 2;
            return Op.LE;
        }
        if (text.startsWith(">=", at)) {
            at += 2;
            return Op.GE;
        }
        char c = text.charAt(at);
        if (c == '=') {
            at++;
            return Op.EQ;
        }
        if (c == '<' && !text.startsWith("<<", at)) {
            at++;
            return Op.LT;
        }
        if (c == '>' && !text.startsWith(">>", at)) {
            at++;
            return Op.GT;
        }
        for (String w : new String[] {"eq", "ne", "lt", "le", "gt", "ge", "is", "|", "union", "+", "*", "div", "mod",
                "idiv", "-", "!", "||", "<<", ">>", "to", "intersect", "except", "instance", "cast", "castable", "treat"}) {
            if (text.startsWith(w, at) && (!Character.isLetter(w.charAt(0)) || !isNameChar(at + w.length()))) {
                throw error(at, "the operator '" + w + "'",
                        "use the general comparisons = != < <= > >=, and, or and not(…)");
            }
        }
        return null;
    }

    private boolean keyword(String word) {
        int save = at;
        space();
        if (text.startsWith(word, at) && !isNameChar(at + word.length())) {
            at += word.length();
            return true;
        }
        at = save;
        return false;
    }

    private boolean isNameChar(int i) {
        return i < text.length() && NameChecker.isNCNameChar(text.charAt(i));
    }

    private String string() {
        char q = text.charAt(at);
        int start = at;
        at++;
        StringBuilder b = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error(start, "a string that is not closed", "end it with " + q);
            }
            char c = text.charAt(at++);
            if (c == q) {
                if (at < text.length() && text.charAt(at) == q) {
                    b.append(q);
                    at++;
                } else {
                    return b.toString();
                }
            } else {
                b.append(c);
            }
        }
    }

    private Num number(boolean negative) {
        int start = at;
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        if (at < text.length() && text.charAt(at) == '.') {
            at++;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            int e = at;
            at++;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
                at++;
            }
            if (at >= text.length() || !Character.isDigit(text.charAt(at))) {
                throw error(e, "a number with an incomplete exponent", "write a number such as 2, 2.5 or 2.5e3");
            }
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
        }
        if (isNameChar(at) && Character.isLetter(text.charAt(at))) {
            throw error(start, "'" + snippet(start) + "', which is not a number", "separate a number from a name");
        }
        String lexical = (negative ? "-" : "") + text.substring(start, at);
        return new Num(lexical, Double.parseDouble(lexical));
    }

    private String qname() {
        String first = ncname();
        if (at + 1 < text.length() && text.charAt(at) == ':' && text.charAt(at + 1) != ':') {
            at++;
            if (at < text.length() && text.charAt(at) == '*') {
                at++;
                return first + ":*";
            }
            if (at >= text.length() || !isNameStart(text.charAt(at))) {
                throw error(at, "a prefix without a local name", "write prefix:name");
            }
            return first + ":" + ncname();
        }
        return first;
    }

    private String ncname() {
        int start = at;
        while (at < text.length() && NameChecker.isNCNameChar(text.charAt(at))) {
            at++;
        }
        return text.substring(start, at);
    }

    private static boolean isNameStart(char c) {
        return NameChecker.isNCNameStartChar(c);
    }

    private void expect(char c, String why) {
        int p = space();
        if (p >= text.length() || text.charAt(p) != c) {
            throw error(p, p >= text.length() ? "the end, where '" + c + "' was expected"
                    : "'" + snippet(p) + "' where '" + c + "' was expected", why.isEmpty() ? "add it" : "add '" + c + "' " + why);
        }
        at++;
    }

    private int space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                at++;
            } else if (text.startsWith("(:", at)) {
                int end = text.indexOf(":)", at + 2);
                at = end < 0 ? text.length() : end + 2;
            } else {
                break;
            }
        }
        return at;
    }

    private String snippet(int from) {
        String s = text.substring(from, Math.min(text.length(), from + 12));
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private int column(int pos) {
        int nl = text.lastIndexOf('\n', pos - 1);
        return pos - nl;
    }

    private ArnoException error(int pos, String what, String hint) {
        int line = 1;
        for (int i = 0; i < pos && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        int col = column(Math.min(pos, text.length()));
        return ErrorMessage.SEARCH_UNSUPPORTED.error(text.strip(), what, line, col, hint)
                .at(Where.at(WHAT, line, col));
    }
}
