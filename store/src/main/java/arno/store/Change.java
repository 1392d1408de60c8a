package arno.store;

import java.time.Instant;

/**
 * One entry of the change feed: the document at {@code uri} was stored or deleted by the
 * transaction that committed as {@code version}, as its {@code seq}-th change (from 1). Versions
 * are the store's commit sequence, so a consumer that remembers the last change it applied asks for
 * {@code changesSince(version, seq + 1, limit)} (or {@code changesSince(version, 0, limit)} once it
 * has a whole commit).
 *
 * @param mediaType the media type of what was stored, or of what was deleted
 * @param time      the commit time of {@code version}
 */
public record Change(long version, int seq, Kind kind, String uri, String mediaType, Instant time) {

    public enum Kind {
        PUT, DELETE
    }
}
