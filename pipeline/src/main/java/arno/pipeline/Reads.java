package arno.pipeline;

import arno.cache.Dependencies;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one request read, recorded as it reads (by {@link RecordingView} for the store, by
 * {@link Resources} for files and URLs, and by {@link WatchedRequest} for the parts of the HTTP
 * request a page read from req:request), so that a cached page knows what it was built from
 * without anyone declaring it. Each read of a source becomes one {@link Dependencies.Dependency}:
 * its kind says how {@link PageCache} checks it later. The request parts become part of the page's
 * key instead ({@link PageCaches#store}).
 *
 * <ul>
 * <li>{@value #STORE_VIEW} "/" V: the store version the request's view saw. While the store is
 * still at V nothing stored can have changed: every store dependency is current at once.</li>
 * <li>{@value #STORE} path version: a stored document (read, or asked whether it exists) at the
 * version that last wrote it, "" when absent.</li>
 * <li>{@value #STORE_URIS} prefix hash and {@value #STORE_CHILDREN} folder hash: a listing
 * ({@code collection('store:/a/')}, the children an expansion walks), by a hash of the names. A
 * listing is what a page's dependency on its documents alone would not catch: a NEW document
 * under the folder. Checking the hash costs one listing read (O(names), as the page's own read
 * did), and only when the store has changed since the page was built.</li>
 * <li>{@value #FILE} path "mtime:size" ("" when absent) and {@value #DIRECTORY} path mtime: a
 * content file, and a content folder listed (a folder's time changes when a file is added to or
 * removed from it).</li>
 * <li>{@value #URI} url version: an external document read with {@code doc()} through the site's
 * {@link Sources}, its version made of the server's validators ("etag E", "modified DATE") or,
 * without them, of its content ("sha256 H"); checked through the same sources at most once per
 * their revalidation interval, with a conditional GET. Version "": read some other way
 * ({@code unparsed-text()}, {@code json-doc()}, or with the caches off): trusted for the route's ttl.</li>
 * </ul>
 *
 * <h2>Frames</h2>
 * A fragment cached with {@code cache:fragment} depends on what its building read, which may
 * be less than the page read. {@link #open()} starts a frame that records, besides the page, what
 * is read until {@link #close}: nested frames all record. A document read once per request and
 * then served from the request's own document cache is recorded again by its dependencies
 * ({@link #addAll}), so a frame also sees what the page had read before it opened.
 *
 * The first version seen of a source wins: a request reads one store version, and a file that
 * changes under a running request makes the next check of the page find it stale anyway.
 * Belongs to its request's thread.
 */
final class Reads {
    static final String STORE_VIEW = "store-view";
    static final String STORE = "store";
    static final String STORE_URIS = "store-uris";
    static final String STORE_CHILDREN = "store-children";
    /**
     * The page used a value-index lookup (store:lookup, store:range) or a full-text search (at the
     * version the index had applied, {@link RecordingView#followedIndexRead}): valid while the store
     * has not changed at all. Coarse (any commit rebuilds it) but never stale; what a lookup returned
     * could be recorded instead, as listings are, if such pages turn out to be hot.
     */
    static final String STORE_ANY = "store-any";
    static final String FILE = "file";
    static final String DIRECTORY = "dir";
    static final String URI = "uri";
    /** A listing's prefix when it is empty (every stored path): not a store path, never blank. */
    static final String EVERYTHING = "*";

    private final Map<String, Dependencies.Dependency> seen = new LinkedHashMap<>();
    private String uncacheable;
    /** The parts of the HTTP request the page read ({@link RequestParts}), or null for none yet. */
    private java.util.Set<String> requestParts;
    /** The open frames, innermost last; empty almost always. */
    private final List<Frame> frames = new ArrayList<>(0);

    /** What was read while a frame was open. */
    static final class Frame {
        private final Map<String, Dependencies.Dependency> seen = new LinkedHashMap<>();
        private String uncacheable;

        List<Dependencies.Dependency> dependencies() {
            return new ArrayList<>(seen.values());
        }

        /** Why what the frame built must not be cached, or null. */
        String uncacheable() {
            return uncacheable;
        }
    }

    /**
     * Starts recording into a new frame as well. The store version the request's view saw is
     * copied into it: the frame's store dependencies are read from that view.
     */
    Frame open() {
        Frame f = new Frame();
        Dependencies.Dependency view = seen.get(STORE_VIEW + '\u0000' + "/");
        if (view != null) f.seen.put(STORE_VIEW + '\u0000' + "/", view);
        frames.add(f);
        return f;
    }

    /** Stops recording into {@code frame} (the innermost open one) and returns it. */
    Frame close(Frame frame) {
        frames.remove(frame);
        return frame;
    }

    /** Whether a frame is open (only then must a request's cached documents be recorded again). */
    boolean framing() {
        return !frames.isEmpty();
    }

    /** Records dependencies found elsewhere: a cached fragment's, or those of a document read before. */
    void addAll(Iterable<Dependencies.Dependency> dependencies) {
        for (Dependencies.Dependency d : dependencies) add(d.kind(), d.uri(), d.version());
    }

    void storeVersion(long version) {
        add(STORE_VIEW, "/", Long.toString(version));
    }

    void anyStoreChange(long version) {
        add(STORE_ANY, "/", Long.toString(version));
    }

    void document(String path, long version) {
        add(STORE, path, versionOf(version));
    }

    void listing(String kind, String prefix, List<String> names) {
        add(kind, prefix.isEmpty() ? EVERYTHING : prefix, hash(names));
    }

    /** A file read or looked for, with the attributes it had then (null when it was absent). */
    void file(Path file, BasicFileAttributes attributes) {
        add(FILE, file.toString(), fileVersion(attributes));
    }

    /** A file looked for; its state now. */
    void file(Path file) {
        add(FILE, file.toString(), fileVersion(file));
    }

    void directory(Path folder) {
        add(DIRECTORY, folder.toString(), fileVersion(folder));
    }

    /** An external document read some other way than through the site's sources: unversioned. */
    void uri(String uri) {
        add(URI, uri, "");
    }

    /** An external document read through the site's sources, at {@code version}. */
    void uri(String uri, String version) {
        add(URI, uri, version);
    }

    /** Records that the page read {@code part} of the HTTP request (a {@link RequestParts} name). */
    void requestPart(String part) {
        if (requestParts == null) requestParts = new java.util.HashSet<>();
        requestParts.add(part);
    }

    /** The parts of the HTTP request the page read, coalesced ({@link RequestParts#coalesce}); empty for none. */
    java.util.Set<String> requestParts() {
        return requestParts == null ? java.util.Set.of() : RequestParts.coalesce(requestParts);
    }

    /** Marks the page (and the fragments being built) uncacheable; the first reason is kept. */
    void uncacheable(String why) {
        if (uncacheable == null) uncacheable = why;
        for (Frame f : frames) if (f.uncacheable == null) f.uncacheable = why;
    }

    /** Why the page must not be cached, or null. */
    String uncacheable() {
        return uncacheable;
    }

    List<Dependencies.Dependency> dependencies() {
        return new ArrayList<>(seen.values());
    }

    private void add(String kind, String uri, String version) {
        String key = kind + '\u0000' + uri;
        Dependencies.Dependency d = seen.get(key);
        if (d == null) {
            d = new Dependencies.Dependency(kind, uri, version);
            seen.put(key, d);
        }
        for (int i = 0; i < frames.size(); i++) frames.get(i).seen.putIfAbsent(key, d);
    }

    static String versionOf(long version) {
        return version < 0 ? "" : Long.toString(version);
    }

    static String fileVersion(Path file) {
        try {
            return fileVersion(Files.readAttributes(file, BasicFileAttributes.class));
        } catch (IOException e) {
            return "";
        }
    }

    static String fileVersion(BasicFileAttributes a) {
        if (a == null) return "";
        return a.isDirectory() ? Long.toString(a.lastModifiedTime().toMillis())
                : a.lastModifiedTime().toMillis() + ":" + a.size();
    }

    /** A 64-bit FNV-1a hash of the names, in hexadecimal: a listing's version. */
    static String hash(List<String> names) {
        long h = 0xcbf29ce484222325L;
        for (String n : names) {
            for (int i = 0; i < n.length(); i++) {
                h = (h ^ n.charAt(i)) * 0x100000001b3L;
            }
            h = (h ^ 0xFFFF) * 0x100000001b3L; // a separator no name contains
        }
        return Long.toHexString(h);
    }
}
