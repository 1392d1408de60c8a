package arno.fulltext;

import java.util.List;
import java.util.Map;

/**
 * A page of hits.
 *
 * @param total   how many entries match: exact, or when {@code exact} is false an estimate from a sample
 *                (many matches: {@link MatchCounts})
 * @param start   the rank of the first hit, from 0 (with {@code after}, -1: not known)
 * @param next    what {@link SearchRequest#after()} takes for the next page; null after the last hit
 * @param version the store version the index had applied when it answered
 */
public record Results(String query, long total, boolean exact, int start, int size, List<Hit> hits, List<Facet> facets, String next,
                      long version) {

    public Results {
        hits = List.copyOf(hits);
        facets = List.copyOf(facets);
    }

    /**
     * One entry found.
     *
     * @param fields   the stored values of its short fields (title, journal, year ...), by field
     * @param snippets highlighted passages, by field, in the configuration's order
     */
    public record Hit(String path, float score, Map<String, List<String>> fields, List<Snippet> snippets) {}

    /** One passage of {@code field}: text and matched words in order. */
    public record Snippet(String field, List<Part> parts) {}

    public record Part(String text, boolean match) {}

    /** The hits counted by the values of one facet field, most first; estimates from a sample unless {@code exact}. */
    public record Facet(String field, List<Count> values, boolean exact) {}

    public record Count(String value, long count) {}
}
