package arno.pipeline;

import arno.cache.ArcCache;
import arno.cache.Ticker;
import java.nio.file.Path;

/**
 * What each file a site's cached pages and fragments read was last seen as, and when: a file is
 * looked at (one stat) at most once per interval however many entries and hits depend on it.
 * With a zero interval every check looks. Bounded by ARC to {@value CachePolicy#FILE_STATES}
 * files per site: a file that falls out costs one stat at its next check, nothing more.
 */
final class FileStates {
    private record State(String version, long seenAt) {}

    private final ArcCache<String, State> states;
    private final long intervalNanos;
    private final Ticker ticker;

    FileStates(long intervalNanos, Ticker ticker, int capacity) {
        this.intervalNanos = intervalNanos;
        this.ticker = ticker;
        this.states = ArcCache.<String, State>builder(capacity).build();
    }

    /** The file's version if it was looked at less than the interval ago, else null. */
    String known(String path) {
        if (intervalNanos <= 0) return null;
        State s = states.get(path);
        return s != null && ticker.read() - s.seenAt < intervalNanos ? s.version : null;
    }

    /**
     * What a request just saw a file as (when nothing is known of it): the entry it built starts
     * its interval now, rather than looking again at its first hit.
     */
    void seen(String path, String version) {
        if (intervalNanos > 0 && states.peek(path) == null) states.put(path, new State(version, ticker.read()));
    }

    /** Looks at the file now. */
    String look(String path) {
        String version = Reads.fileVersion(Path.of(path));
        if (intervalNanos > 0) states.put(path, new State(version, ticker.read()));
        return version;
    }

    /** Files remembered now. */
    int size() {
        return states.size();
    }

    /** The most files remembered. */
    int capacity() {
        return states.capacity();
    }
}
