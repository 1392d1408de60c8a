package arno.pipeline;

import arno.cache.Dependencies;
import arno.cache.Ticker;
import arno.cache.Validator;
import arno.xml.DocumentStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One lookup's check of a cached page's or fragment's dependencies ({@link Reads} says what each
 * kind is). Store dependencies are answered in {@link #screen}, on the calling thread, from one
 * view of the store: an LMDB read transaction belongs to its thread. When the view's version is
 * the one the entry's request saw ({@value Reads#STORE_VIEW}), nothing stored changed: O(1) in
 * total; else one lookup per document and one listing per listing. Files and external URIs known
 * to the site's tables less than their interval ago are answered there too; the rest (a stat, a
 * conditional GET) are left to {@link #isCurrent}, which the cache runs in parallel on its
 * validation executor.
 *
 * <p>Pages are checked against a view opened for the check (the store as it is now: a request
 * that starts after a commit never gets a page built before it). Fragments are checked against
 * the view of the request that uses them, which the check does not close: a fragment must agree
 * with the rest of its page.
 */
final class Check implements Validator, AutoCloseable {
    static final String CODE = "code";
    static final String EXPIRES = "expires";

    private final String code;
    private final Supplier<DocumentStore.View> views;
    private final boolean owned;
    private final FileStates files;
    private final Sources sources;
    private final Ticker clock;
    private DocumentStore.View view;

    /**
     * @param code    the fingerprint of the code that runs now
     * @param views   the store view to check against, or null when there is no store
     * @param owned   whether the view is this check's own, closed with it
     * @param files   the site's table of file states
     * @param sources the site's external sources, or null (then versioned URIs count as stale)
     * @param clock   nanoseconds since the epoch, for expiry
     */
    Check(String code, Supplier<DocumentStore.View> views, boolean owned, FileStates files, Sources sources, Ticker clock) {
        this.code = code;
        this.views = views;
        this.owned = owned;
        this.files = files;
        this.sources = sources;
        this.clock = clock;
    }

    @Override
    public Dependencies screen(Dependencies dependencies) {
        List<Dependencies.Dependency> due = null;
        String seen = null;
        boolean stored = false;
        for (Dependencies.Dependency d : dependencies) {
            switch (d.kind()) {
                case CODE -> {
                    if (!d.version().equals(code)) return null;
                }
                case EXPIRES -> {
                    if (clock.read() / 1_000_000 >= Long.parseLong(d.version())) return null;
                }
                case Reads.STORE_VIEW -> seen = d.version();
                case Reads.STORE, Reads.STORE_URIS, Reads.STORE_CHILDREN, Reads.STORE_ANY -> stored = true;
                case Reads.FILE, Reads.DIRECTORY -> {
                    String known = files.known(d.uri());
                    if (known == null) {
                        if (due == null) due = new ArrayList<>();
                        due.add(d);
                    } else if (!known.equals(d.version())) {
                        return null;
                    }
                }
                case Reads.URI -> {
                    if (d.version().isEmpty()) continue; // read without versions (see Reads): trusted for the route's ttl
                    if (sources == null) return null;
                    String known = sources.known(d.uri());
                    if (known == null) {
                        if (due == null) due = new ArrayList<>();
                        due.add(d);
                    } else if (!known.equals(d.version())) {
                        return null;
                    }
                }
                default -> {
                    return null; // a kind this version does not know: rebuild rather than guess
                }
            }
        }
        if (seen != null || stored) {
            if (views == null) return null;
            view = views.get();
            if (seen == null || !seen.equals(Long.toString(view.version()))) {
                for (Dependencies.Dependency d : dependencies) {
                    if (!storeCurrent(d)) return null;
                }
            }
        }
        return due == null ? Dependencies.none() : Dependencies.of(due);
    }

    private boolean storeCurrent(Dependencies.Dependency d) {
        String prefix = d.uri().equals(Reads.EVERYTHING) ? "" : d.uri();
        return switch (d.kind()) {
            case Reads.STORE -> Reads.versionOf(view.documentVersion(d.uri())).equals(d.version());
            case Reads.STORE_URIS -> Reads.hash(view.uris(prefix)).equals(d.version());
            case Reads.STORE_CHILDREN -> Reads.hash(view.children(prefix)).equals(d.version());
            case Reads.STORE_ANY -> d.version().equals(Long.toString(view.version()));
            default -> true;
        };
    }

    /** A file looked at now, or an external URI asked for now (conditionally); possibly in parallel. */
    @Override
    public boolean isCurrent(Dependencies.Dependency d) throws Exception {
        if (d.kind().equals(Reads.URI)) return sources.current(d.uri(), d.version()).equals(d.version());
        return files.look(d.uri()).equals(d.version());
    }

    @Override
    public void close() {
        if (owned && view != null) view.close();
    }
}
