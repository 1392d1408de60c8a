package arno.store.atom;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import javax.xml.transform.stream.StreamSource;

import arno.store.DocumentInfo;
import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlChars;

/**
 * The Atom resource service over a {@link Store}: entries in a hierarchy of paths, their variants,
 * typed links and child collections, as the introspection documents under {@code /_model/}
 * allow (see {@code resources-spec.md}: "The stored entry", "Introspection documents").
 *
 * <h2>Writes</h2>
 * Every write goes through its {@link WritePath} (on a single node, one writer thread): callers parse and check what they
 * can alone (the entry's XML, the body read to its end and spooled), then queue the operation and
 * wait; the writer applies queued operations in one LMDB transaction and commits them together
 * (group commit), so concurrent writers share one fsync. Each operation checks everything before
 * it writes anything, so a refused one (422, 409, 412, malformed XML) leaves nothing while the
 * others of its group commit. Errors reach the caller as the {@link arno.xml.ArnoException} the
 * operation raised, with the codes of the spec.
 *
 * <h2>Deleting</h2>
 * {@link #delete} removes the entry, its variants ({@code P.*}) and everything under {@code P/},
 * and every typed link in another entry that points into what was removed. Those entries are
 * found through the reverse link index ({@link Snapshot#referrers(String)} of {@code P.} and
 * {@code P/}), which each entry write keeps ({@link Tx#references}), so the cost is that of the
 * subtree and its referrers, never a scan of the store.
 *
 * <h2>Threads</h2>
 * Thread-safe. {@link #close()} lets queued writes finish and stops the writer; the store stays
 * open (it is the caller's).
 */
public final class AtomStore implements AutoCloseable {

    /** A write that took effect: the resource, the document written, the commit's version and time. */
    public record Written(ResourcePath path, String document, long version, Instant time) {
    }

    /**
     * A delete that took effect: the entry, every document removed (entry, variants, descendants),
     * how many links in other entries were removed, the commit's version.
     */
    public record Deleted(ResourcePath path, List<String> documents, int linksRemoved, long version) {
    }

    private final Store store;
    private final AtomOptions options;
    final AtomXml xml;
    private final WritePath writes;
    private volatile CachedModel cached;
    /**
     * Kinds of committed entries by document, with the version read ("" for none): a creation
     * needs its parent's kind, and typed links their targets'. Writer thread only; at most
     * {@link #KINDS_KEPT}, least recently used out first.
     */
    private final Map<String, CachedKind> kinds = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CachedKind> eldest) {
            return size() > KINDS_KEPT;
        }
    };
    static final int KINDS_KEPT = 50_000;

    private record CachedModel(long version, Model model) {
    }

    private record CachedKind(long version, String kind) {
    }

    private AtomStore(Store store, AtomOptions options, WritePath.Factory writes) {
        this.store = store;
        this.options = options;
        this.xml = new AtomXml(store.options().xmlPolicy());
        if (!writes.writesDefaults()) installDefaults();
        this.writes = writes.open(this, options);
    }

    /**
     * Opens the service on {@code store}: installs the default introspection documents when the
     * store has none under {@code /_model/}, and starts the writer thread.
     */
    public static AtomStore open(Store store, AtomOptions options) {
        return open(store, options, WritePath.LOCAL);
    }

    /** As {@link #open(Store, AtomOptions)}, with writes made durable by {@code writes}. */
    public static AtomStore open(Store store, AtomOptions options, WritePath.Factory writes) {
        return new AtomStore(store, options, writes);
    }

    /**
     * The change feed, oldest first, from the write path: at most {@code limit} changes after
     * {@code version} (and of {@code version} from its {@code seq}-th change on, when {@code seq} ≥ 1).
     */
    public List<Change> changesSince(long version, int seq, int limit) {
        return writes.changesSince(version, seq, limit);
    }

    /** The version of the last commit applied (where a follower that starts now begins). */
    public long version() {
        return writes.version();
    }

    public Store store() {
        return store;
    }

    /** The cluster log's position of the write that made {@code version} ({@link WritePath#position}); empty on a single node. */
    public java.util.OptionalLong position(long version) {
        return writes.position(version);
    }

    public AtomOptions options() {
        return options;
    }

    private void installDefaults() {
        try (Snapshot s = store.read()) {
            if (!s.uris(Atom.MODEL_FOLDER).isEmpty()) return;
        }
        try (WriteTransaction w = store.write()) {
            for (Map.Entry<String, byte[]> d : defaultDocuments().entrySet()) {
                w.put(d.getKey(), new StreamSource(new ByteArrayInputStream(d.getValue()), "store:" + d.getKey()), "application/xml");
            }
            w.commit();
        }
    }

    /**
     * The model documents a store without any under {@code /_model/} gets (path → XML, media type
     * application/xml), each checked to be a valid introspection document.
     */
    public static Map<String, byte[]> defaultDocuments() {
        AtomXml xml = new AtomXml(arno.xml.XmlPolicy.DEFAULT);
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String kind : Introspection.DEFAULT_KINDS) {
            byte[] bytes = Introspection.defaultDocument(kind);
            Introspection.parse(xml, bytes, kind, "classpath:/arno/model/" + kind + ".xml");
            out.put(Introspection.path(kind), bytes);
        }
        return out;
    }

    // ---------------------------------------------------------------- the model

    /** The introspection documents as {@code s} sees them; cached, and re-read only when one changed. */
    public Model model(Snapshot s) {
        CachedModel c = cached;
        if (c != null && (c.version == s.version() || c.model.current(s))) return c.model;
        Model m = Model.load(s, xml, c == null ? null : c.model);
        if (c == null || s.version() >= c.version) cached = new CachedModel(s.version(), m);
        return m;
    }

    /**
     * Drops the cached model: after an aborted write transaction, whose version the next commit
     * reuses (a model read from its view must not pass for that commit's). A {@link WritePath}
     * that aborts the transactions it checks operations in calls it before each abort.
     */
    public void forgetModel() {
        cached = null;
    }

    /** The kind of the committed document {@code doc} at {@code version} if known ("" for none), else null. */
    String cachedKind(String doc, long version) {
        CachedKind k = kinds.get(doc);
        return k != null && k.version == version ? k.kind : null;
    }

    void cacheKind(String doc, long version, String kind) {
        kinds.put(doc, new CachedKind(version, kind));
    }

    // ---------------------------------------------------------------- writes

    /**
     * Creates a child of {@code parent} (the root for a top-level entry) from an Atom entry. The
     * collection is {@code collection} when given, else the one that accepts the entry's kind;
     * the name comes from the collection's naming ({@code slug} is the Slug header, may be null).
     */
    public Written createEntry(ResourcePath parent, String collection, String slug, byte[] atomEntry, String user) {
        return written(createEntryAsync(parent, collection, slug, atomEntry, user));
    }

    CompletableFuture<WritePath.Done> createEntryAsync(ResourcePath parent, String collection, String slug,
            byte[] atomEntry, String user) {
        checkSlug(slug);
        Entry posted = parseEntry(atomEntry, "the entry posted to " + parent.childrenFolder(), "store:" + parent.childrenFolder());
        String id = newId();
        return writes.submit(tx -> create(tx, parent, collection, slug, null, posted, id, user));
    }

    /**
     * Creates the entry at exactly {@code path} (its parent must exist and have a collection for
     * its kind; no naming), or replaces it when it exists: how a folder is loaded
     * ({@link TreeLoader}), where names are given.
     */
    CompletableFuture<WritePath.Done> putEntryAsync(ResourcePath path, byte[] atomEntry, String what, String user) {
        return putEntryAsync(path, parseEntry(atomEntry, what, "store:" + path.entryDocument()), user);
    }

    CompletableFuture<WritePath.Done> putEntryAsync(ResourcePath path, Entry posted, String user) {
        String id = newId();
        return writes.submit(tx -> tx.view().exists(path.entryDocument())
                ? replace(tx, path, -1, posted, user)
                : create(tx, path.parent(), null, null, path.name(), posted, id, user));
    }

    private WritePath.Applied create(Tx tx, ResourcePath parent, String collection, String slug, String exactName,
            Entry posted, String id, String user) {
        Model m = tx.model();
        Kind pk = tx.parentKind(parent);
        Kind.Collection c = chooseCollection(pk, parent, collection, posted.kind);
        String kindName = posted.kind != null ? posted.kind : c.kinds().get(0);
        Kind k = m.require(kindName, "a new child of " + parent);
        String name = exactName != null ? exactName : Naming.name(tx.view(), parent, c, slug, posted.title(), pk.source());
        ResourcePath p = parent.child(name);
        String what = "the entry " + p;
        Tx.checkRequired(k, posted, what, p.entryDocument());
        tx.checkLinks(m, k, posted, p.entryDocument(), what);
        Entry e = posted.withKind(k.name()).withId(id);
        tx.write(p, e, user);
        tx.reciprocals(k, p.entryDocument(), List.of(), e.links);
        return WritePath.Applied.of(p, p.entryDocument());
    }

    /** The collection of {@code parentKind} a new entry of {@code kind} (null: none given) goes to. */
    private static Kind.Collection chooseCollection(Kind pk, ResourcePath parent, String named, String kind) {
        String of = (parent.isRoot() ? "the root" : parent.toString()) + " (kind " + pk.name() + ")";
        if (named != null) {
            Kind.Collection c = pk.collection(named);
            if (c == null) {
                throw unprocessable(pk, ErrorMessage.NO_COLLECTION_IN, named, of, collectionNames(pk));
            }
            if (c.kinds().isEmpty()) {
                throw unprocessable(pk, ErrorMessage.COLLECTION_OF_MEDIA, named, of, String.join(" ", c.mediaTypes()));
            }
            if (kind == null) {
                if (c.kinds().size() == 1) return c;
                throw unprocessable(pk, ErrorMessage.ENTRY_KIND_AMBIGUOUS, Atom.KIND_SCHEME, named, of, String.join(", ", c.kinds()));
            }
            if (!c.acceptsKind(kind)) {
                throw unprocessable(pk, ErrorMessage.KIND_NOT_IN_COLLECTION, kind, named, of, String.join(", ", c.kinds()));
            }
            return c;
        }
        List<Kind.Collection> entries = new ArrayList<>();
        for (Kind.Collection c : pk.collections()) if (!c.kinds().isEmpty()) entries.add(c);
        if (kind == null) {
            if (entries.size() == 1 && entries.get(0).kinds().size() == 1) return entries.get(0);
            throw entries.isEmpty() ? unprocessable(pk, ErrorMessage.ENTRY_WITHOUT_KIND_NONE, Atom.KIND_SCHEME, of)
                    : unprocessable(pk, ErrorMessage.ENTRY_WITHOUT_KIND, Atom.KIND_SCHEME, of, acceptedKinds(entries));
        }
        for (Kind.Collection c : entries) if (c.acceptsKind(kind)) return c;
        String accepted = entries.isEmpty() ? "no entries" : acceptedKinds(entries);
        throw parent.isRoot() ? unprocessable(pk, ErrorMessage.KIND_NOT_TOP_LEVEL, kind, accepted)
                : unprocessable(pk, ErrorMessage.KIND_NOT_CHILD, kind, of, accepted);
    }

    private static String acceptedKinds(List<Kind.Collection> cs) {
        Set<String> kinds = new java.util.LinkedHashSet<>();
        for (Kind.Collection c : cs) kinds.addAll(c.kinds());
        return String.join(", ", kinds);
    }

    private static String collectionNames(Kind k) {
        if (k.collections().isEmpty()) return "none";
        List<String> names = new ArrayList<>();
        for (Kind.Collection c : k.collections()) names.add(c.name());
        return String.join(", ", names);
    }

    /** {@code message} about kind {@code k}, whose last value, after {@code values}, is the kind's document. */
    private static arno.xml.ArnoException unprocessable(Kind k, ErrorMessage message, Object... values) {
        Object[] all = java.util.Arrays.copyOf(values, values.length + 1);
        all[values.length] = k.source();
        return message.error(all).at(Where.at("store:" + k.source()));
    }

    /**
     * Creates a media resource in a collection of {@code parent} that accepts its media type, with
     * its media-link entry (title: the Slug, or the name). The media is stored as the variant
     * {@code P.EXT}, the extension from the entry kind's variant of that type, else the usual one.
     */
    public Written createMedia(ResourcePath parent, String collection, String slug, String mediaType, InputStream body,
            String user) {
        try (Body b = Body.spool(body, options.maxBodyBytes(), options.spoolFolder())) {
            return createMedia(parent, collection, slug, mediaType, b, user);
        }
    }

    /** As {@link #createMedia(ResourcePath, String, String, String, InputStream, String)}, from a body already read (the caller's: not closed). */
    public Written createMedia(ResourcePath parent, String collection, String slug, String mediaType, Body body,
            String user) {
        checkSlug(slug);
        checkSize(body, "a media resource posted to " + parent.childrenFolder());
        String id = newId();
        return written(writes.submit(tx -> createMedia(tx, parent, collection, slug, MediaTypes.essence(mediaType), body, id, user)));
    }

    private WritePath.Applied createMedia(Tx tx, ResourcePath parent, String collection, String slug, String type, Body body,
            String id, String user) {
        Model m = tx.model();
        Kind pk = tx.parentKind(parent);
        String of = (parent.isRoot() ? "the root" : parent.toString()) + " (kind " + pk.name() + ")";
        Kind.Collection c = null;
        if (collection != null) {
            c = pk.collection(collection);
            if (c == null) {
                throw unprocessable(pk, ErrorMessage.NO_COLLECTION_IN, collection, of, collectionNames(pk));
            }
            if (!c.acceptsMediaType(type)) {
                throw c.mediaTypes().isEmpty() ? unprocessable(pk, ErrorMessage.MEDIA_NOT_IN_ENTRY_COLLECTION, collection, of, type)
                        : unprocessable(pk, ErrorMessage.MEDIA_NOT_IN_COLLECTION, collection, of, type, String.join(" ", c.mediaTypes()));
            }
        } else {
            List<String> accepted = new ArrayList<>();
            for (Kind.Collection x : pk.collections()) {
                accepted.addAll(x.mediaTypes());
                if (c == null && x.acceptsMediaType(type)) c = x;
            }
            if (c == null) {
                throw accepted.isEmpty() ? unprocessable(pk, ErrorMessage.MEDIA_NOWHERE, of, type)
                        : unprocessable(pk, ErrorMessage.MEDIA_ELSEWHERE, of, type, String.join(" ", accepted));
            }
        }
        Kind k = c.kinds().size() == 1 ? m.require(c.kinds().get(0), "collection '" + c.name() + "' of " + of) : null;
        String name = Naming.name(tx.view(), parent, c, slug, null, pk.source());
        ResourcePath p = parent.child(name);
        String ext = null;
        if (k != null) {
            for (Kind.Variant v : k.variants()) if (v.mediaType().equals(type) && ext == null) ext = v.extension();
        }
        if (ext == null) ext = MediaTypes.extension(type);
        if (ext == null) ext = "bin";
        String doc = p.variantDocument(ext);
        String title = slug != null && !slug.isBlank() ? slug.strip() : name;
        Entry e = Entry.forMedia(title, k == null ? null : k.name(), new Entry.Media(doc, type))
                .withId(id);
        if (k != null) Tx.checkRequired(k, e, "the media-link entry " + p, p.entryDocument());
        tx.putVariant(doc, type, body);
        tx.write(p, e, user);
        return WritePath.Applied.of(p, p.entryDocument());
    }

    /**
     * Replaces the entry at {@code path} (If-Match {@code ifMatch}: its version; -1 for none).
     * The id, the kind and the media of a media-link entry stay; the rest is the client's.
     */
    public Written replaceEntry(ResourcePath path, long ifMatch, byte[] atomEntry, String user) {
        Entry posted = parseEntry(atomEntry, "the entry sent for " + path, "store:" + path.entryDocument());
        return written(writes.submit(tx -> replace(tx, path, ifMatch, posted, user)));
    }

    private WritePath.Applied replace(Tx tx, ResourcePath path, long ifMatch, Entry posted, String user) {
        String doc = path.entryDocument();
        DocumentInfo info = tx.view().info(doc);
        if (info == null) throw Tx.notFound(path);
        Tx.ifMatch(doc, info, ifMatch);
        Entry old = tx.require(path);
        if (posted.kind != null && !posted.kind.equals(old.kind)) {
            throw ErrorMessage.KIND_CHANGED.error(path, old.kind, posted.kind).at(Where.at("store:" + doc));
        }
        Model m = tx.model();
        Kind k = old.kind == null ? null : m.require(old.kind, "the entry " + path);
        String what = "the entry " + path;
        if (k != null) Tx.checkRequired(k, posted, what, doc);
        tx.checkLinks(m, k, posted, doc, what);
        Entry e = posted.withKind(old.kind).withId(old.id).withMedia(old.media);
        tx.write(path, e, user);
        tx.reciprocals(k, doc, old.links, e.links);
        return WritePath.Applied.of(path, doc);
    }

    /**
     * Stores a variant of the entry at {@code path} ({@code PATH.EXT}); its kind must declare the
     * extension (or it is the media of a media-link entry). {@code mediaType} null takes the
     * declared one; another than the declared one is UNSUPPORTED_MEDIA_TYPE. {@code ifMatch}: 0 when
     * the variant must not exist yet, its version to replace it, -1 for no condition.
     */
    public Written putVariant(ResourcePath path, String extension, String mediaType, long ifMatch, InputStream body,
            String user) {
        return written(putVariantAsync(path, extension, mediaType, ifMatch, body, user));
    }

    /** As {@link #putVariant(ResourcePath, String, String, long, InputStream, String)}, from a body already read (the caller's: not closed). */
    public Written putVariant(ResourcePath path, String extension, String mediaType, long ifMatch, Body body,
            String user) {
        checkVariant(path, extension);
        checkSize(body, path.variantDocument(extension));
        return written(writes.submit(tx -> putVariant(tx, path, extension, mediaType, ifMatch, body, user)));
    }

    CompletableFuture<WritePath.Done> putVariantAsync(ResourcePath path, String extension, String mediaType, long ifMatch,
            InputStream body, String user) {
        checkVariant(path, extension);
        Body b = Body.spool(body, options.maxBodyBytes(), options.spoolFolder());
        CompletableFuture<WritePath.Done> f;
        try {
            f = writes.submit(tx -> putVariant(tx, path, extension, mediaType, ifMatch, b, user));
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        f.whenComplete((d, e) -> b.close());
        return f;
    }

    private static void checkVariant(ResourcePath path, String extension) {
        ResourcePath.checkExtension(extension);
        if (extension.equals(Atom.ENTRY_EXTENSION)) {
            throw ErrorMessage.ENTRY_NOT_VARIANT.error(path.entryDocument())
                    .at(Where.at("store:" + path.entryDocument()));
        }
    }

    /** A body read by the caller is held to the same limit as one this service reads. */
    private void checkSize(Body body, String what) {
        if (body.length() > options.maxBodyBytes()) {
            throw ErrorCode.BODY_TOO_LARGE.error(body.length(), options.maxBodyBytes()).at(Where.at(what));
        }
    }

    private WritePath.Applied putVariant(Tx tx, ResourcePath path, String ext, String mediaType, long ifMatch, Body body,
            String user) {
        Entry e = tx.require(path);
        Kind k = e.kind == null ? null : tx.model().require(e.kind, "the entry " + path);
        String doc = path.variantDocument(ext);
        Kind.Variant v = k == null ? null : k.variantByExtension(ext);
        String type;
        if (v != null) {
            type = v.mediaType();
        } else if (e.media != null && e.media.href().equals(doc)) {
            type = MediaTypes.essence(e.media.mediaType());
        } else {
            StringBuilder known = new StringBuilder();
            if (k != null) {
                for (Kind.Variant x : k.variants()) {
                    known.append(known.length() == 0 ? "" : ", ").append(x.role()).append(" (.").append(x.extension())
                            .append(", ").append(x.mediaType()).append(')');
                }
            }
            throw (k == null ? ErrorMessage.VARIANTS_WITHOUT_KIND.error(doc, path)
                    : ErrorMessage.NO_VARIANT_EXTENSION.error(doc, k.name(), ext, known.length() == 0 ? "none" : known, k.source()))
                    .at(Where.at("store:" + doc));
        }
        if (mediaType != null && !MediaTypes.essence(mediaType).equals(type)) {
            throw (k != null && v != null
                    ? ErrorMessage.WRONG_VARIANT_MEDIA_TYPE.error(doc, type, MediaTypes.essence(mediaType), v.role(), k.name(), k.source())
                    : ErrorMessage.WRONG_MEDIA_TYPE.error(doc, type, MediaTypes.essence(mediaType)))
                    .at(Where.at("store:" + doc));
        }
        Tx.ifMatch(doc, tx.view().info(doc), ifMatch);
        tx.putVariant(doc, type, body);
        tx.write(path, e, user);
        return WritePath.Applied.of(path, doc);
    }

    /** Deletes one variant ({@code PATH.EXT}); the media of a media-link entry goes only with its entry. */
    public Written deleteVariant(ResourcePath path, String extension, long ifMatch, String user) {
        ResourcePath.checkExtension(extension);
        return written(writes.submit(tx -> {
            String doc = path.variantDocument(extension);
            DocumentInfo info = tx.view().info(doc);
            if (info == null || extension.equals(Atom.ENTRY_EXTENSION)) {
                throw ErrorMessage.NO_VARIANT.error(doc).at(Where.at("store:" + doc));
            }
            Tx.ifMatch(doc, info, ifMatch);
            Entry e = tx.stored(path);
            if (e != null && e.media != null && e.media.href().equals(doc)) {
                throw ErrorMessage.MEDIA_OF_ENTRY.error(doc, path).at(Where.at("store:" + doc));
            }
            tx.w.delete(doc);
            if (e != null) tx.write(path, e, user);
            return WritePath.Applied.of(path, doc);
        }));
    }

    /**
     * Deletes the entry at {@code path} ({@code ifMatch} its version, or -1), its variants, all its
     * descendants and theirs, and every typed link in other entries that points into them: one
     * transaction.
     */
    public Deleted delete(ResourcePath path, long ifMatch, String user) {
        return delete(path, ifMatch, user, documents -> { });
    }

    /**
     * As {@link #delete(ResourcePath, long, String)}, after {@code confirm} has accepted the number
     * of documents the delete removes ({@link #documentsRemoved}), counted in the writer's
     * transaction, so that the count a client confirmed is the count removed: {@code confirm}
     * throws (a 4xx {@link arno.xml.ArnoException}) to refuse, and then nothing is deleted.
     */
    public Deleted delete(ResourcePath path, long ifMatch, String user, java.util.function.LongConsumer confirm) {
        if (path.isRoot()) {
            throw ErrorMessage.ROOT_NOT_DELETED.error();
        }
        WritePath.Done d = WritePath.await(writes.submit(tx -> delete(tx, path, ifMatch, confirm)));
        return new Deleted(path, d.applied().documents(), d.applied().linksRemoved(), d.version());
    }

    /** The documents deleting the entry at {@code path} removes as {@code s} sees them: the entry, its variants, everything below it. */
    public static long documentsRemoved(Snapshot s, ResourcePath path) {
        return s.count(path.path() + ".") + s.count(path.childrenFolder());
    }

    private WritePath.Applied delete(Tx tx, ResourcePath path, long ifMatch, java.util.function.LongConsumer confirm) {
        String doc = path.entryDocument();
        Snapshot v = tx.view();
        DocumentInfo info = v.info(doc);
        if (info == null) throw Tx.notFound(path);
        Tx.ifMatch(doc, info, ifMatch);
        confirm.accept(documentsRemoved(v, path));
        String variants = path.path() + ".";
        String below = path.childrenFolder();
        Set<String> outside = new TreeSet<>();
        for (String prefix : List.of(variants, below)) {
            for (String r : v.referrers(prefix)) {
                if (!r.startsWith(variants) && !r.startsWith(below)) outside.add(r);
            }
        }
        List<String> documents = new ArrayList<>(tx.w.deleteTree(variants));
        documents.addAll(tx.w.deleteTree(below));
        int removed = 0;
        for (String r : outside) {
            ResourcePath.Document d = ResourcePath.document(r);
            if (d == null || !d.isEntry()) continue;
            Entry e = tx.stored(d.resource());
            if (e == null) continue;
            List<Entry.Link> keep = new ArrayList<>();
            for (Entry.Link l : e.links) {
                if (!l.href().startsWith(variants) && !l.href().startsWith(below)) keep.add(l);
            }
            if (keep.size() < e.links.size()) {
                removed += e.links.size() - keep.size();
                tx.write(d.resource(), e.withLinks(keep), null);
            }
        }
        return new WritePath.Applied(path, doc, List.copyOf(documents), removed);
    }

    /**
     * Writes the introspection document of {@code kind} ({@code /_model/KIND.xml}) after checking
     * it against the schema; {@code ifMatch} 0 when it must be new, its version to replace it, -1
     * for no condition. {@link Written#path()} is null: a model document is no resource.
     */
    public Written putModel(String kind, long ifMatch, byte[] introspection, String user) {
        return written(putModelAsync(kind, ifMatch, introspection));
    }

    CompletableFuture<WritePath.Done> putModelAsync(String kind, long ifMatch, byte[] introspection) {
        if (kind == null || !kind.matches("[A-Za-z][A-Za-z0-9_\\-]{0,63}")) {
            throw ErrorMessage.NO_SUCH_KIND_NAME.error(kind).at(Where.at("store:" + Atom.MODEL_FOLDER + kind + ".xml"));
        }
        String path = Introspection.path(kind);
        checkSize(introspection.length, path);
        Introspection.parse(xml, introspection, kind, "store:" + path);
        return writes.submit(tx -> {
            Tx.ifMatch(path, tx.view().info(path), ifMatch);
            tx.w.put(path, new StreamSource(new ByteArrayInputStream(introspection), "store:" + path), "application/xml");
            tx.modelChanged();
            return WritePath.Applied.of(null, path);
        });
    }

    /**
     * Writes a store configuration document ({@code /_config/NAME.xml}, e.g. the full-text index's)
     * through the write path, so that on a cluster every copy gets it through the log; what the
     * store checks of it ({@link arno.store.DocumentCheck}) is checked in the write. For the server's
     * own use (the demo load): the store API never writes {@code /_config/}.
     */
    public Written putConfiguration(String path, byte[] xml) {
        if (!path.startsWith("/_config/") || !path.endsWith(".xml")) {
            throw new IllegalArgumentException("not a configuration document: " + path);
        }
        checkSize(xml.length, path);
        return written(writes.submit(tx -> {
            tx.w.put(path, new StreamSource(new ByteArrayInputStream(xml), "store:" + path), "application/xml");
            return WritePath.Applied.of(null, path);
        }));
    }

    // ---------------------------------------------------------------- plumbing

    /**
     * A new entry's id, made by the caller's thread: a random UUID reads the system's entropy
     * source under a lock, which the writer thread, which every write waits for, need not do.
     */
    private static String newId() {
        return "urn:uuid:" + UUID.randomUUID();
    }

    /**
     * A Slug is any percent-encoded UTF-8 (RFC 5023 9.7), and a media resource's becomes its entry's
     * title: one with a character XML 1.0 cannot carry ({@code Slug: bad%01title}) is refused
     * before anything is read, rather than cleaned into a name that hides it.
     */
    private static void checkSlug(String slug) {
        String problem = XmlChars.problem(slug);
        if (problem != null) {
            throw ErrorMessage.SLUG_CHARACTER.error(XmlChars.quote(slug), problem);
        }
    }

    Entry parseEntry(byte[] bytes, String what, String systemId) {
        checkSize(bytes.length, systemId);
        return Entry.parse(xml, bytes, what, systemId, options.hrefPrefix());
    }

    private void checkSize(long length, String what) {
        if (length > options.maxEntryBytes()) {
            throw ErrorCode.BODY_TOO_LARGE.error(length, (long) options.maxEntryBytes()).at(Where.at(what));
        }
    }

    static Written written(CompletableFuture<WritePath.Done> f) {
        WritePath.Done d = WritePath.await(f);
        return new Written(d.applied().path(), d.applied().document(), d.version(), d.time());
    }

    /** Operations waiting for the writer thread (for tests). */
    int queued() {
        return writes.queued();
    }

    /** Lets queued writes finish and stops the writer thread. The store stays open. */
    @Override
    public void close() {
        writes.close();
    }

    // ---------------------------------------------------------------- several documents, one transaction

    /**
     * Stores every put in ONE transaction, all or nothing (how batch outputs to {@code store:} are
     * written; see {@link Puts}): entries ({@code PATH.atom}) are created or replaced, variants
     * ({@code PATH.EXT}) stored unconditionally, each under the rules of the single writes. The
     * first refusal (no entry for a variant, an extension or media type the kind does not declare,
     * malformed XML) is thrown with its code, and nothing of the call is stored. The answers are in
     * the order of {@code puts}, all at the one commit's version.
     */
    public List<Written> putAll(List<Put> puts, String user) {
        return Puts.putAll(this, puts, writes::submit, new Puts.Steps() {
            @Override
            public WritePath.Applied entry(Tx tx, ResourcePath path, Entry entry) {
                return tx.view().exists(path.entryDocument()) ? replace(tx, path, -1, entry, user)
                        : create(tx, path.parent(), null, null, path.name(), entry, newId(), user);
            }

            @Override
            public WritePath.Applied variant(Tx tx, ResourcePath path, String extension, String mediaType, Body body) {
                return putVariant(tx, path, extension, mediaType, -1, body, user);
            }
        });
    }
}
