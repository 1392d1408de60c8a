package arno.store;

/**
 * One entry of the change feed: the document at {@code uri} was stored or deleted by the
 * transaction that committed as {@code version}. Versions are the store's commit sequence, so a
 * consumer that remembers the last version it saw asks for {@code changesSince(last)}.
 */
public record Change(long version, String uri, Kind kind) {

    public enum Kind {
        PUT, DELETE
    }
}
