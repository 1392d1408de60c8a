package arno.fulltext;

/**
 * What answers {@code store:ft-search}: the server's {@link FulltextIndex}, current to within its
 * poll, or {@code ./arno query}'s {@link CommittedIndex}, the index as last committed.
 */
public interface Searchable {

    /** Runs {@code request}; an {@link arno.xml.ArnoException} (bad-query, search-unavailable, search-busy) when it cannot. */
    Results search(SearchRequest request);
}
