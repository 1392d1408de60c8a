package arno.pipeline;

import arno.xml.ArnoException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The last failures the sites answered, for the admin console's list of recent errors: a fixed
 * ring of {@link #CAPACITY} entries that {@link ErrorResponses} feeds once per failure (client
 * aborts excluded), the oldest overwritten. One ring per server: its engine's, which outlives
 * development reloads ({@link SiteRegistry#recentErrors()}).
 *
 * <p>Cost: one synchronized array store per failure; reads copy the ring (at most a few hundred
 * references). Messages are kept as the log has them; the console escapes them.
 */
public final class RecentErrors {
    /** Entries kept. */
    public static final int CAPACITY = 256;

    /**
     * One failure.
     *
     * @param id       the error id ("E-" and the request id), as the log and the error page show it
     * @param site     the site's name, or null when none matched
     * @param route    the route's name, or null when none matched
     * @param code     the {@code ErrorCode}'s name (kebab-case)
     * @param location where it happened ({@code Where}'s own text), or null when unknown
     */
    public record Entry(String id, Instant time, String site, String route, String code, int status, String message,
            String location) {}

    private final Entry[] ring;
    private long added;

    RecentErrors(int capacity) {
        ring = new Entry[capacity];
    }

    /** Records {@code e}, answered under {@code errorId} for {@code site} and {@code route} (either may be null). */
    void record(String errorId, String site, String route, ArnoException e) {
        String location = e.where() != null && e.where().isKnown() ? e.where().toString() : null;
        add(new Entry(errorId, Instant.now(), site, route, e.code().code(), e.status(), e.getMessage(), location));
    }

    synchronized void add(Entry entry) {
        ring[(int) (added++ % ring.length)] = entry;
    }

    /** The entries, newest first. */
    public synchronized List<Entry> newestFirst() {
        int n = (int) Math.min(added, ring.length);
        List<Entry> out = new ArrayList<>(n);
        for (long i = added - 1; i >= added - n; i--) out.add(ring[(int) (i % ring.length)]);
        return out;
    }

    /** The entry with {@code id}, or null when it is not (or no longer) held. */
    public synchronized Entry find(String id) {
        for (Entry e : ring) if (e != null && e.id().equals(id)) return e;
        return null;
    }
}
