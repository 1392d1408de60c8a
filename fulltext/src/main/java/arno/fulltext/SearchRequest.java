package arno.fulltext;

import arno.xml.ErrorMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One search.
 *
 * @param query    as the user typed it: words, "phrases", -excluded, field:term, AND/OR, prefix*
 * @param start    the first hit to return (0-based), for shallow pages; ignored with {@code after}
 * @param size     hits per page, 1 to {@value #MAX_SIZE}
 * @param after    the {@link Results#next()} of the page before, for deep pages (null: none)
 * @param sort     {@code relevance} (BM25, the default) or {@code date} (newest first)
 * @param filters  exact values of keyword or year fields ({@code journal} → [Journal A]), any one
 *                 of a field's values and all fields; {@code FIELD-from} and {@code FIELD-to} bound a year field
 * @param facets   whether to count hits by each facet field's values
 * @param snippets highlighted passages per text field and hit (0: none)
 */
public record SearchRequest(String query, int start, int size, String after, String sort,
                            Map<String, List<String>> filters, boolean facets, int snippets) {

    public static final int MAX_SIZE = 100;
    /** The deepest shallow page: past it, {@code after} pages (their cost does not grow with depth). */
    public static final int MAX_START = 10_000;

    public SearchRequest {
        filters = Map.copyOf(filters);
        if (start < 0 || start > MAX_START) {
            throw ErrorMessage.SEARCH_OPTION.error("start", start + " is not between 0 and " + MAX_START
                    + " (page deeper with 'after')");
        }
        if (size < 1 || size > MAX_SIZE) {
            throw ErrorMessage.SEARCH_OPTION.error("size", size + " is not between 1 and " + MAX_SIZE);
        }
        if (!sort.equals("relevance") && !sort.equals("date")) {
            throw ErrorMessage.SEARCH_OPTION.error("sort", "'" + sort + "' is neither relevance nor date");
        }
        if (snippets < 0 || snippets > 5) {
            throw ErrorMessage.SEARCH_OPTION.error("snippets", snippets + " is not between 0 and 5");
        }
    }

    /** The query with the defaults: the first ten hits by relevance, facets and one snippet per field. */
    public static SearchRequest of(String query) {
        return new SearchRequest(query, 0, 10, null, "relevance", Map.of(), true, 1);
    }

    /**
     * The query with options by name, as {@code store:ft-search}'s map and the HTTP API's
     * parameters give them: start, size, after, sort, facets (true/false), snippets; any other
     * name is a filter (several values: any one of them).
     */
    public static SearchRequest of(String query, Map<String, List<String>> options) {
        Map<String, List<String>> filters = new LinkedHashMap<>();
        int start = 0;
        int size = 10;
        String after = null;
        String sort = "relevance";
        boolean facets = true;
        int snippets = 1;
        for (Map.Entry<String, List<String>> o : options.entrySet()) {
            List<String> v = o.getValue();
            if (v.isEmpty()) continue;
            String one = v.get(0);
            switch (o.getKey()) {
                case "start" -> start = number("start", one);
                case "size" -> size = number("size", one);
                case "after" -> after = one.isEmpty() ? null : one;
                case "sort" -> sort = one;
                case "facets" -> facets = bool("facets", one);
                case "snippets" -> snippets = number("snippets", one);
                default -> filters.put(o.getKey(), List.copyOf(v));
            }
        }
        return new SearchRequest(query, start, size, after, sort, filters, facets, snippets);
    }

    private static int number(String name, String v) {
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw ErrorMessage.SEARCH_OPTION.error(name, "'" + v + "' is not a whole number");
        }
    }

    private static boolean bool(String name, String v) {
        return switch (v.strip()) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw ErrorMessage.SEARCH_OPTION.error(name, "'" + v + "' is neither true nor false");
        };
    }
}
