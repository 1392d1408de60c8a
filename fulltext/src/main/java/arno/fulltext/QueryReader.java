package arno.fulltext;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * Reads a query as users type it (Lucene's classic syntax: words, "phrases", -excluded,
 * field:term, AND/OR, prefix*), safely: bounded in length and terms, no leading wildcards, no
 * regular expressions, field names checked; every refusal is {@code bad-query} with the 1-based
 * position of what is wrong. Words without a field search the configuration's search fields, each
 * with its boost; all words must match unless OR says otherwise.
 */
final class QueryReader {

    static final int MAX_LENGTH = 1000;
    static final int MAX_TERMS = 64;
    private static final Pattern FIELD = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*):");
    private static final Pattern COLUMN = Pattern.compile("column (\\d+)");

    private QueryReader() {
    }

    static Query read(String q, FulltextConfig config, Analyzer analyzer) {
        if (q == null || q.isBlank()) throw ErrorMessage.QUERY_EMPTY.error(1);
        if (q.length() > MAX_LENGTH) throw ErrorMessage.QUERY_TOO_LONG.error(MAX_LENGTH + 1, q.length(), MAX_LENGTH);
        String checked = scan(q, config);
        List<String> fields = new java.util.ArrayList<>();
        Map<String, Float> boosts = new HashMap<>();
        for (FulltextConfig.Field f : config.fields()) {
            if (f.search()) {
                fields.add(f.name());
                boosts.put(f.name(), f.boost());
            }
        }
        Parser p = new Parser(fields.toArray(String[]::new), analyzer, boosts, config);
        p.setDefaultOperator(QueryParser.Operator.AND);
        p.setAllowLeadingWildcard(false);
        // Each word on its own across the fields (without it, the parser asks for a run of words in every field at once).
        p.setSplitOnWhitespace(true);
        try {
            Query parsed = p.parse(checked);
            return parsed == null ? new MatchNoDocsQuery("only stop words") : parsed;
        } catch (ParseException e) {
            throw syntax(q, e);
        } catch (org.apache.lucene.search.IndexSearcher.TooManyClauses e) {
            throw ErrorMessage.QUERY_TOO_MANY_TERMS.error(1, MAX_TERMS);
        }
    }

    /**
     * Checks what the parser would accept but must not: a leading wildcard, too many terms, an
     * unknown field, an unclosed quotation mark; escapes {@code /} (Lucene's regular expressions).
     * Returns the query to parse.
     */
    private static String scan(String q, FulltextConfig config) {
        StringBuilder out = new StringBuilder(q.length() + 8);
        int terms = 0;
        boolean quoted = false;
        int quoteAt = -1;
        int i = 0;
        while (i < q.length()) {
            char c = q.charAt(i);
            if (c == '\\' && i + 1 < q.length()) {
                out.append(c).append(q.charAt(i + 1));
                i += 2;
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
                quoteAt = i;
                out.append(c);
                i++;
                continue;
            }
            if (quoted) {
                if (Character.isWhitespace(c) && i + 1 < q.length() && !Character.isWhitespace(q.charAt(i + 1))) {
                    if (++terms > MAX_TERMS) throw ErrorMessage.QUERY_TOO_MANY_TERMS.error(i + 2, MAX_TERMS);
                }
                out.append(c);
                i++;
                continue;
            }
            if (Character.isWhitespace(c) || c == '(' || c == ')') {
                out.append(c);
                i++;
                continue;
            }
            // A word starts here: its end is the next space or parenthesis (outside quotes).
            int end = i;
            while (end < q.length() && !Character.isWhitespace(q.charAt(end)) && q.charAt(end) != '(' && q.charAt(end) != ')'
                    && q.charAt(end) != '"') {
                if (q.charAt(end) == '\\') end++;
                end++;
            }
            end = Math.min(end, q.length());
            String word = q.substring(i, end);
            if (!word.equals("AND") && !word.equals("OR") && !word.equals("NOT") && !word.equals("&&") && !word.equals("||")) {
                if (++terms > MAX_TERMS) throw ErrorMessage.QUERY_TOO_MANY_TERMS.error(i + 1, MAX_TERMS);
            }
            int at = 0;
            while (at < word.length() && (word.charAt(at) == '+' || word.charAt(at) == '-' || word.charAt(at) == '!')) at++;
            Matcher m = FIELD.matcher(word);
            if (m.region(at, word.length()).lookingAt()) {
                String name = m.group(1);
                if (config.field(name) == null) {
                    throw ErrorMessage.QUERY_UNKNOWN_FIELD.error(i + at + 1, name, config.fieldNames());
                }
                at = m.end();
            }
            if (at < word.length() && (word.charAt(at) == '*' || word.charAt(at) == '?')) {
                throw ErrorMessage.QUERY_LEADING_WILDCARD.error(i + at + 1, word);
            }
            for (int k = 0; k < word.length(); k++) {
                char w = word.charAt(k);
                if (w == '\\' && k + 1 < word.length()) {
                    out.append(w).append(word.charAt(++k));
                } else {
                    if (w == '/') out.append('\\');
                    out.append(w);
                }
            }
            i = end;
        }
        if (quoted) {
            throw ErrorCode.BAD_QUERY.error(quoteAt + 1, "the quotation mark here is not closed");
        }
        return out.toString();
    }

    /** A parser's refusal as bad-query at the place it names. */
    private static RuntimeException syntax(String q, ParseException e) {
        if (e.currentToken != null && e.currentToken.next != null) {
            org.apache.lucene.queryparser.classic.Token t = e.currentToken.next;
            if (t.kind == 0) { // end of input
                return ErrorCode.BAD_QUERY.error(q.length() + 1, "the query ends too early: an operator, a field name"
                        + " or an opening parenthesis lacks what follows it");
            }
            return ErrorCode.BAD_QUERY.error(position(q, t), "'" + t.image + "' cannot come here");
        }
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (cause instanceof ParseException inner && inner.currentToken != null) return syntax(q, inner);
        Matcher m = COLUMN.matcher(String.valueOf(cause.getMessage()));
        int at = m.find() ? Integer.parseInt(m.group(1)) : 1;
        String why = e.getMessage() == null ? "" : e.getMessage().replaceFirst("^Cannot parse '.*?': ", "");
        return ErrorCode.BAD_QUERY.error(Math.min(at, q.length() + 1), why.lines().findFirst().orElse(why));
    }

    /** The 1-based position of the token (columns are counted on the escaped text; near enough). */
    private static int position(String q, org.apache.lucene.queryparser.classic.Token t) {
        return Math.max(1, Math.min(t.beginColumn + 1, q.length() + 1));
    }

    /** Year fields as numbers (year:2024, year:[2020 TO 2024]); other fields as text or keywords. */
    private static final class Parser extends MultiFieldQueryParser {
        private final FulltextConfig config;

        Parser(String[] fields, Analyzer analyzer, Map<String, Float> boosts, FulltextConfig config) {
            super(fields, analyzer, boosts);
            this.config = config;
        }

        @Override
        protected Query getFieldQuery(String field, String queryText, boolean quoted) throws ParseException {
            FulltextConfig.Field f = field == null ? null : config.field(field);
            if (f != null && f.type() == FulltextConfig.Type.YEAR) return IntPoint.newExactQuery(field, year(field, queryText));
            return super.getFieldQuery(field, queryText, quoted);
        }

        @Override
        protected Query getRangeQuery(String field, String part1, String part2, boolean startInclusive, boolean endInclusive)
                throws ParseException {
            FulltextConfig.Field f = field == null ? null : config.field(field);
            if (f != null && f.type() == FulltextConfig.Type.YEAR) {
                int low = part1 == null || part1.equals("*") ? Integer.MIN_VALUE : year(field, part1) + (startInclusive ? 0 : 1);
                int high = part2 == null || part2.equals("*") ? Integer.MAX_VALUE : year(field, part2) - (endInclusive ? 0 : 1);
                return IntPoint.newRangeQuery(field, low, high);
            }
            return super.getRangeQuery(field, part1, part2, startInclusive, endInclusive);
        }

        private static int year(String field, String text) throws ParseException {
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                throw new ParseException("'" + text + "' is not a year (" + field + " takes a whole number)");
            }
        }
    }
}
