package arno.store.http;

import arno.http.AuthFilter;
import arno.http.Conditional;
import arno.http.Endpoint;
import arno.http.HeaderValues;
import arno.store.Binary;
import arno.store.Change;
import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.atom.Atom;
import arno.store.atom.AtomStore;
import arno.store.atom.Expansion;
import arno.store.atom.Kind;
import arno.store.atom.Model;
import arno.store.atom.ResourcePath;
import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.ErrorXml;
import arno.xml.Hosts;
import arno.xml.Where;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;

/**
 * The store's AtomPub HTTP API (RFC 5023), mounted by the server at {@code /store/*}.
 *
 * <pre>
 * GET    /store/                     the service document: the root's collections, a workspace per top-level entry and child
 * GET    /store/P.atom               an entry (?with-ancestors=yes, ?with-descendants=N|all, ?with-variants=ROLE)
 * GET    /store/P/                   the children as an Atom feed, newest first (?after=V.NAME&amp;limit=N, rel="next";
 *                                    ?collection=NAME: one collection's; expansions apply to each)
 * GET    /store/P.EXT                a variant: XML serialized, bytes streamed (Range: one range, 206/416)
 * GET    /store/_model/KIND.xml      an introspection document
 * GET    /store/changes?since=V      the change feed (&amp;seq=S&amp;limit=N), 410 when pruned past V
 * GET    /store/search?q=Q            full-text search: an Atom feed with OpenSearch 1.1 elements (&amp;count=N
 *                                     &amp;startIndex=I from 1, &amp;after=T for deep pages, &amp;sort=date, filters)
 * GET    /store/search/description   the OpenSearch description document
 * POST   /store/P/                   a child: an Atom entry, or a media resource (Slug); 201 + Location + ETag
 * PUT    /store/P.atom, P.EXT, _model/KIND.xml   If-Match required (428/412); If-None-Match: * creates a variant or model
 * DELETE /store/P.atom, P.EXT        the entry and everything below it (If-Match optional), or one variant
 * </pre>
 *
 * <h2>Reads</h2>
 * Every request reads one snapshot, opened at its start and closed at its end, so an expanded
 * entry or a feed page is one consistent version however many writers commit meanwhile. Every
 * GET answers HEAD and conditional requests ({@link Conditional}): the validator of one stored document is its
 * version ({@code ETag: "V"}, {@code Last-Modified} the commit time of V); of anything computed
 * from several (an expansion, a feed, the service document), the snapshot's version, which changes
 * with every commit and so never validates a stale answer. Binary variants are streamed from
 * the snapshot's memory-mapped chunks (never buffered whole); hrefs are rewritten from store
 * paths to this servlet's URLs ({@link Hrefs}).
 *
 * <h2>Writes</h2>
 * Writes need HTTP Basic credentials of an account with the write role (401 with a challenge,
 * 403 without the role), checked once per request by the {@link AuthFilter} that
 * {@link #endpoint()} mounts in front of the servlet (which also checks reads when they need the
 * read role); the servlet takes the account from the request.
 * Deletes the {@link DeleteGuard} covers and changes to the model need the admin role and an
 * explicit confirmation ({@link Confirmations}). A POST or PUT body is read to its end before the
 * request takes a write slot ({@link SpooledRequest}), within the limit ({@code maxBodyBytes}: by
 * Content-Length before anything is read, by counting when there is none). {@link AtomStore} does
 * the write in one transaction, all or nothing; its {@link ArnoException} becomes the answer's
 * status and {@code err:error} body.
 */
public final class StoreServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final System.Logger LOG = System.getLogger("arno.store.http");

    /** Who may read. */
    public enum ReadPolicy {
        /** Anyone. */
        PUBLIC,
        /** Accounts with the read role. */
        ACCOUNTS
    }

    static final int DEFAULT_PAGE = 100;
    static final int MAX_PAGE = 1000;
    private static final String XML = "application/xml";
    private static final String ERROR_TYPE = "application/xml;charset=UTF-8";
    private static final Pattern MODEL = Pattern.compile("/_model/([A-Za-z0-9][A-Za-z0-9_-]{0,99})\\.xml");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d{0,18})-(\\d{0,18})");
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final transient AtomStore atoms;
    private final transient Accounts accounts;
    private final ReadPolicy reads;
    private final long maxBodyBytes;
    private final transient Confirmations confirmations;
    private final transient Configuration config;
    private final transient Processor processor;

    /**
     * The API as it is mounted: {@link #endpoint()} (the servlet behind its {@link AuthFilter}).
     *
     * @param atoms        the service: reads come from {@code atoms.store()}, writes go through it
     * @param accounts     the accounts (shared with the batch service: one file)
     * @param reads        whether reads are public or need the read role
     * @param maxBodyBytes the largest request body accepted (413 beyond)
     */
    public StoreServlet(AtomStore atoms, Accounts accounts, ReadPolicy reads, long maxBodyBytes) {
        this(atoms, accounts, reads, maxBodyBytes, DeleteGuard.DEFAULT);
    }

    /** As {@link #StoreServlet(AtomStore, Accounts, ReadPolicy, long)}, with the deletes that need an administrator's confirmation. */
    public StoreServlet(AtomStore atoms, Accounts accounts, ReadPolicy reads, long maxBodyBytes, DeleteGuard deletes) {
        if (maxBodyBytes < 1) throw new IllegalArgumentException("maxBodyBytes must be at least 1: " + maxBodyBytes);
        this.atoms = atoms;
        this.accounts = accounts;
        this.reads = reads;
        this.maxBodyBytes = maxBodyBytes;
        this.confirmations = new Confirmations(deletes);
        this.processor = new Processor(false);
        this.config = processor.getUnderlyingConfiguration();
        atoms.store().options().xmlPolicy().install(config);
    }


    /**
     * Writes parsing and checking their bodies at once (read before, outside the slots: a slow
     * client holds none): one per core. The one writer commits them in order anyway, so more
     * would only take the cores from the pages: with 16
     * concurrent API writers full-text pages' p99 grew 4.1 times, with 2 writers 1.5 times
     * (perf/RESULTS.md). Writers beyond it wait their turn (fairly, in order of arrival).
     */
    static final int WRITE_SLOTS = Math.max(2, Runtime.getRuntime().availableProcessors());
    private final java.util.concurrent.Semaphore writeSlots = new java.util.concurrent.Semaphore(WRITE_SLOTS, true);
    /**
     * This servlet behind the filter that checks its accounts: reads open (or with the read role,
     * as {@link ReadPolicy} says), everything else with the write role; refusals answered as every
     * error of the API is ({@code err:error}, sandboxed).
     */
    public Endpoint endpoint() {
        AuthFilter.Builder b = AuthFilter.builder(accounts, "arno-store",
                (req, resp, e) -> error(req, StoredContent.guard(req, resp), e));
        if (reads == ReadPolicy.PUBLIC) {
            b.open(AuthFilter.methods("GET", "HEAD"));
        } else {
            b.require(AuthFilter.methods("GET", "HEAD"), Accounts.Role.READ, ErrorMessage.STORE_READ_NEEDS_ACCOUNT, "read");
        }
        b.require(AuthFilter.any(), Accounts.Role.WRITE, ErrorMessage.STORE_WRITE_NEEDS_ACCOUNT, "write");
        return Endpoint.of(this, b.build());
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp = StoredContent.guard(req, resp); // a writer's bytes never act in this origin (CSP sandbox, nosniff)
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        String method = req.getMethod();
        try {
            if (!AuthFilter.admitted(req)) {
                // Mounted alone, writes would go unchecked: refuse everything instead.
                throw ErrorMessage.MOUNTED_WITHOUT_FILTER.error("the store API", "StoreServlet.endpoint()");
            }
            boolean read = method.equals("GET") || method.equals("HEAD");
            Accounts.Account account = AuthFilter.account(req);
            String user = account == null ? null : account.name();
            if (!read) resp.setHeader("Cache-Control", "no-store");
            else if (reads == ReadPolicy.ACCOUNTS) resp.setHeader("Cache-Control", "private, no-cache");
            else resp.setHeader("Cache-Control", "no-cache");
            if (read) {
                route(req, resp, path, method, user);
            } else {
                // A body is read to its end before a slot is taken: a writer that sends it slowly
                // holds its own connection, never a slot the others wait for (issue 21).
                SpooledRequest spooled = method.equals("POST") || method.equals("PUT")
                        ? SpooledRequest.read(req, maxBodyBytes, atoms.options().spoolFolder()) : null;
                try {
                    writeSlots.acquireUninterruptibly();
                    try {
                        route(spooled != null ? spooled : req, resp, path, method, user);
                    } finally {
                        writeSlots.release();
                    }
                } finally {
                    if (spooled != null) spooled.release();
                }
            }
        } catch (RuntimeException e) {
            ArnoException a = ArnoException.find(e);
            if (a == null) {
                if (e instanceof UncheckedIOException u && u.getCause() != null) {
                    a = ErrorMessage.BODY_UNREADABLE.error(u, u.getCause().getMessage());
                } else {
                    a = ErrorMessage.UNEXPECTED_ON.error(e, method, req.getRequestURI(), e);
                }
            }
            error(req, resp, a);
        }
    }

    private void route(HttpServletRequest req, HttpServletResponse resp, String path, String method, String user)
            throws IOException {
        if (path.equals("/search") || path.equals("/search/description")) {
            if (!method.equals("GET") && !method.equals("HEAD")) throw notAllowed(req, resp, "GET, HEAD");
            String base = Hosts.base(atoms.options().hosts(), req.getScheme(), req.getServerName(), req.getServerPort())
                    + mount(req);
            SearchFeed.Answer a = path.equals("/search") ? SearchFeed.search(atoms.store(), req, base)
                    : SearchFeed.description(base);
            resp.setContentType(a.type());
            resp.setContentLength(a.body().length);
            if (!isHead(req)) resp.getOutputStream().write(a.body());
            return;
        }
        if (path.equals("/changes")) {
            if (!method.equals("GET") && !method.equals("HEAD")) throw notAllowed(req, resp, "GET, HEAD");
            changes(req, resp);
            return;
        }
        if (path.startsWith(Confirmations.CONFIG_FOLDER) && !method.equals("GET") && !method.equals("HEAD")) {
            throw Confirmations.configuration(path, method);
        }
        Matcher model = MODEL.matcher(path);
        if (model.matches()) {
            switch (method) {
                case "GET", "HEAD" -> document(req, resp, path, XML);
                case "PUT" -> putModel(req, resp, model.group(1), user);
                default -> throw notAllowed(req, resp, "GET, HEAD, PUT");
            }
            return;
        }
        if (path.endsWith("/")) {
            ResourcePath parent = folder(path);
            switch (method) {
                case "GET", "HEAD" -> {
                    // a collection's IRI (MOUNT/?collection=top) is its feed whatever Accept says (RFC 5023 8.3.3)
                    if (parent.isRoot() && req.getParameter("after") == null && req.getParameter("limit") == null
                            && req.getParameter("collection") == null && !hasExpansion(req) && !acceptsFeed(req)) {
                        serviceDocument(req, resp);
                    } else {
                        feed(req, resp, parent);
                    }
                }
                case "POST" -> create(req, resp, parent, user);
                default -> throw notAllowed(req, resp, "GET, HEAD, POST");
            }
            return;
        }
        ResourcePath.Document doc = ResourcePath.document(path);
        if (doc == null) throw notFound(path);
        switch (method) {
            case "GET", "HEAD" -> {
                if (doc.isEntry()) entry(req, resp, doc.resource());
                else variant(req, resp, doc);
            }
            case "PUT" -> put(req, resp, doc, user);
            case "DELETE" -> delete(req, resp, doc, user);
            default -> throw notAllowed(req, resp, "GET, HEAD, PUT, DELETE");
        }
    }

    // ---- Reads ----------------------------------------------------------------------------

    /** GET /store/ : the AtomPub service document. */
    private void serviceDocument(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        try (Snapshot s = atoms.store().read()) {
            if (notModified(req, resp, etag(s.version(), true), s.committedAt(s.version()))) return;
            resp.setContentType(Atom.SERVICE_TYPE + ";charset=UTF-8");
            if (isHead(req)) return;
            serialize(resp.getOutputStream(), h -> Feeds.service(s, config, atoms.model(s), mount(req), h));
        }
    }

    /** GET /store/P.atom, expanded as asked. */
    private void entry(HttpServletRequest req, HttpServletResponse resp, ResourcePath path) throws IOException {
        Expansion.Options o = Expansion.Options.parse(req::getParameterValues);
        try (Snapshot s = atoms.store().read()) {
            DocumentInfo info = s.info(path.entryDocument());
            if (info == null) throw notFound(path.entryDocument());
            boolean expanded = !o.none();
            String etag = expanded ? etag(s.version(), true) : etag(info.version(), false);
            Instant modified = expanded ? s.committedAt(s.version()) : info.modified();
            if (notModified(req, resp, etag, modified)) return;
            resp.setContentType(Atom.ENTRY_TYPE + ";charset=UTF-8");
            if (isHead(req)) return;
            String mount = mount(req);
            serialize(resp.getOutputStream(), h -> Expansion.write(s, config, path, o, Served.of(s, atoms.model(s), mount, h)));
        }
    }

    /** GET /store/P.EXT and /store/_model/KIND.xml: a variant, an introspection document. */
    private void variant(HttpServletRequest req, HttpServletResponse resp, ResourcePath.Document doc) throws IOException {
        document(req, resp, doc.storePath(), null);
    }

    private void document(HttpServletRequest req, HttpServletResponse resp, String storePath, String type)
            throws IOException {
        try (Snapshot s = atoms.store().read()) {
            DocumentInfo info = s.info(storePath);
            if (info == null) throw notFound(storePath);
            String etag = etag(info.version(), false);
            if (info.binary()) {
                binary(req, resp, s.binary(storePath), etag);
                return;
            }
            if (notModified(req, resp, etag, info.modified())) return;
            resp.setContentType((type != null ? type : info.mediaType()) + ";charset=UTF-8");
            if (isHead(req)) return;
            NodeInfo root = s.document(storePath, config).getRootNode();
            Serializer out = serializer(resp.getOutputStream());
            try {
                out.serializeNode(new XdmNode(root));
            } catch (net.sf.saxon.s9api.SaxonApiException e) {
                throw ErrorMessage.CANNOT_WRITE.error(e, storePath, e.getMessage());
            }
        }
    }

    /** A binary document, whole or one range of it, streamed from the snapshot's chunks. */
    private void binary(HttpServletRequest req, HttpServletResponse resp, Binary b, String etag) throws IOException {
        if (notModified(req, resp, etag, b.modified())) return;
        long length = b.length();
        long start = 0;
        long count = length;
        resp.setHeader("Accept-Ranges", "bytes");
        String range = req.getHeader("Range");
        if (range != null && Conditional.rangeApplies(req.getHeader("If-Range"), etag)) {
            Matcher m = RANGE.matcher(range.strip());
            // Anything but one byte range is ignored (RFC 9110 14.2 allows it): the whole body is sent.
            if (m.matches() && !(m.group(1).isEmpty() && m.group(2).isEmpty())) {
                long first;
                long last;
                if (m.group(1).isEmpty()) {
                    long suffix = Long.parseLong(m.group(2));
                    first = Math.max(0, length - suffix);
                    last = length - 1;
                    if (suffix == 0) first = length;
                } else {
                    first = Long.parseLong(m.group(1));
                    last = m.group(2).isEmpty() ? length - 1 : Math.min(Long.parseLong(m.group(2)), length - 1);
                }
                if (!m.group(1).isEmpty() && !m.group(2).isEmpty() && Long.parseLong(m.group(2)) < first) {
                    first = -1; // invalid: ignored
                } else if (first >= length) {
                    resp.setHeader("Content-Range", "bytes */" + length);
                    throw ErrorMessage.RANGE_OUTSIDE.error(range, length, b.uri()).at(Where.at("store:" + b.uri()));
                }
                if (first >= 0) {
                    start = first;
                    count = last - first + 1;
                    resp.setStatus(HttpServletResponse.SC_PARTIAL_CONTENT);
                    resp.setHeader("Content-Range", "bytes " + first + "-" + last + "/" + length);
                }
            }
        }
        resp.setContentType(b.mediaType());
        resp.setContentLengthLong(count);
        if (isHead(req)) return;
        try (InputStream in = b.open(start, count)) {
            OutputStream out = resp.getOutputStream();
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        }
    }

    /** GET /store/P/ : one page of the children (of one collection with ?collection=NAME), as an Atom feed. */
    private void feed(HttpServletRequest req, HttpServletResponse resp, ResourcePath parent) throws IOException {
        Expansion.Options o = Expansion.Options.parse(req::getParameterValues);
        String after = req.getParameter("after");
        Feeds.Cursor cursor = after == null ? null : Feeds.Cursor.parse(after);
        int limit = intParameter(req, "limit", DEFAULT_PAGE, 1, Integer.MAX_VALUE);
        limit = Math.min(limit, MAX_PAGE);
        try (Snapshot s = atoms.store().read()) {
            if (!parent.isRoot() && !s.exists(parent.entryDocument())) throw notFound(parent.childrenFolder());
            Model model = atoms.model(s);
            String kindName = parent.isRoot() ? Atom.ROOT_KIND : Feeds.kindOf(s, config, parent);
            Kind kind = kindName == null ? null : model.kind(kindName);
            Kind.Collection collection = Feeds.named(parent, kind, req.getParameter("collection"));
            Feeds.Page page = Feeds.members(s, config, parent, kind, collection, cursor, limit);
            String next = page.next() == null ? null
                    : mount(req) + parent.childrenFolder() + "?" + query(req, "after", page.next().toString());
            if (notModified(req, resp, etag(s.version(), true), s.committedAt(s.version()))) return;
            resp.setContentType(Atom.FEED_TYPE + ";charset=UTF-8");
            if (isHead(req)) return;
            String mount = mount(req);
            serialize(resp.getOutputStream(), h -> Feeds.children(s, config, model, parent, kind, collection, page.names(),
                    o, mount, mount + parent.childrenFolder() + queryString(req), next, h));
        }
    }

    /** GET /store/changes?since=V&amp;seq=S&amp;limit=N : the change feed, oldest first. */
    private void changes(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long since = longParameter(req, "since", 0);
        int seq = intParameter(req, "seq", 0, 0, Integer.MAX_VALUE);
        int limit = Math.min(intParameter(req, "limit", DEFAULT_PAGE, 1, Integer.MAX_VALUE), MAX_PAGE);
        try (Snapshot s = atoms.store().read()) {
            // From the write path's feed, cut at the snapshot the page is built from.
            List<Change> changes = new ArrayList<>(atoms.changesSince(since, seq, limit + 1));
            changes.removeIf(c -> c.version() > s.version());
            String next = null;
            if (changes.size() > limit) {
                Change last = changes.get(limit - 1);
                Change following = changes.get(limit);
                changes = changes.subList(0, limit);
                // A commit that goes on into the next page is continued by its seq.
                next = mount(req) + "/changes?since=" + last.version()
                        + (following.version() == last.version() ? "&seq=" + (last.seq() + 1) : "") + "&limit=" + limit;
            }
            if (notModified(req, resp, etag(s.version(), true), s.committedAt(s.version()))) return;
            resp.setContentType(Atom.FEED_TYPE + ";charset=UTF-8");
            if (isHead(req)) return;
            String mount = mount(req);
            List<Change> page = changes;
            String nextUrl = next;
            serialize(resp.getOutputStream(), h -> Feeds.changes(s, page, mount,
                    mount + "/changes" + queryString(req), nextUrl, h));
        }
    }

    // ---- Writes ---------------------------------------------------------------------------

    /** POST /store/P/ : an Atom entry, or a media resource with its media-link entry. */
    private void create(HttpServletRequest req, HttpServletResponse resp, ResourcePath parent, String user)
            throws IOException {
        String type = req.getContentType();
        String media = ContentType.essence(type);
        if (media == null) {
            throw ErrorMessage.POST_WITHOUT_TYPE.error(parent.childrenFolder());
        }
        String collection = req.getParameter("collection");
        String slug = slug(req);
        AtomStore.Written w;
        if (media.equals("application/atom+xml")) {
            if (type.contains("type=feed")) {
                throw ErrorMessage.FEED_POSTED.error();
            }
            w = atoms.createEntry(parent, collection, slug, body(req), user);
        } else {
            checkMediaAccepted(parent, collection, media);
            w = atoms.createMedia(parent, collection, slug, media, SpooledRequest.body(req), user);
        }
        resp.setStatus(HttpServletResponse.SC_CREATED);
        // absolute for a Host the server answers as (RFC 7231 allows a path; older clients expect a URI)
        String location = Hosts.base(atoms.options().hosts(), req.getScheme(), req.getServerName(), req.getServerPort())
                + mount(req) + w.path().entryDocument();
        resp.setHeader("Location", location);
        resp.setHeader("Content-Location", location);
        written(req, resp, w);
    }

    /**
     * 415 before the body is read when no collection of the parent (or the one named) takes media
     * of this type: the request's media type is wrong, whatever its bytes. Where the parent or its
     * kind cannot be found the service answers (404, 422).
     */
    private void checkMediaAccepted(ResourcePath parent, String collection, String media) {
        try (Snapshot s = atoms.store().read()) {
            Model model = atoms.model(s);
            Kind kind;
            if (parent.isRoot()) {
                kind = model.kind(Atom.ROOT_KIND);
            } else {
                if (!s.exists(parent.entryDocument())) return;
                kind = model.kind(Feeds.kindOf(s, config, parent));
            }
            if (kind == null) return;
            List<String> accepted = new ArrayList<>();
            for (Kind.Collection c : kind.collections()) {
                if (collection != null && !c.name().equals(collection)) continue;
                if (c.acceptsMediaType(media)) return;
                accepted.addAll(c.mediaTypes());
            }
            throw (accepted.isEmpty()
                    ? ErrorMessage.POST_TYPE_REFUSED.error(parent.childrenFolder(), kind.name(), media, kind.source())
                    : ErrorMessage.POST_TYPE_OR_MEDIA.error(parent.childrenFolder(), kind.name(), String.join(", ", accepted), media,
                            kind.source())).at(Where.at("store:" + kind.source()));
        }
    }

    private void put(HttpServletRequest req, HttpServletResponse resp, ResourcePath.Document doc, String user)
            throws IOException {
        String type = req.getContentType();
        String media = Objects.requireNonNullElse(ContentType.essence(type), "");
        long ifMatch = ifMatch(req, doc.storePath(), true);
        if (doc.isEntry() && ifMatch == 0) {
            throw ErrorMessage.ENTRY_BY_POST.error(doc.resource().parent().childrenFolder(), doc.storePath()).at(Where.at("store:" + doc.storePath()));
        }
        AtomStore.Written w;
        if (doc.isEntry()) {
            if (!media.equals("application/atom+xml")) {
                throw (type == null ? ErrorMessage.ENTRY_WITHOUT_TYPE.error() : ErrorMessage.ENTRY_TYPE.error(type));
            }
            w = atoms.replaceEntry(doc.resource(), ifMatch, body(req), user);
        } else {
            if (media.isEmpty()) {
                throw ErrorMessage.VARIANT_WITHOUT_TYPE.error();
            }
            w = atoms.putVariant(doc.resource(), doc.extension(), media, ifMatch, SpooledRequest.body(req), user);
        }
        if (ifMatch == 0) resp.setStatus(HttpServletResponse.SC_CREATED);
        written(req, resp, w);
    }

    private void putModel(HttpServletRequest req, HttpServletResponse resp, String kind, String user) throws IOException {
        String path = Atom.MODEL_FOLDER + kind + ".xml";
        String type = req.getContentType();
        if (type == null || !Atom.isXml(type)) {
            throw (type == null ? ErrorMessage.INTROSPECTION_WITHOUT_TYPE.error() : ErrorMessage.INTROSPECTION_TYPE.error(type));
        }
        confirmations.model(req, path, () -> requireAdmin(req, "changing the model (" + path + ")"));
        long ifMatch = ifMatch(req, path, true);
        AtomStore.Written w = atoms.putModel(kind, ifMatch, body(req), user);
        if (ifMatch == 0) resp.setStatus(HttpServletResponse.SC_CREATED);
        written(req, resp, w);
    }

    private void delete(HttpServletRequest req, HttpServletResponse resp, ResourcePath.Document doc, String user) {
        long ifMatch = ifMatch(req, doc.storePath(), false);
        if (doc.isEntry()) {
            java.util.function.LongConsumer confirmed;
            try (Snapshot s = atoms.store().read()) {
                confirmed = confirmations.delete(req, s, doc.resource(),
                        () -> requireAdmin(req, "deleting " + doc.resource()));
            }
            AtomStore.Deleted d = atoms.delete(doc.resource(), ifMatch, user, confirmed);
            resp.setHeader("Arno-Version", Long.toString(d.version()));
            position(resp, d.version());
        } else {
            AtomStore.Written w = atoms.deleteVariant(doc.resource(), doc.extension(), ifMatch, user);
            resp.setHeader("Arno-Version", Long.toString(w.version()));
            position(resp, w.version());
        }
        resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
    }

    /**
     * In cluster mode, the position in the cluster's log the write committed at
     * ({@code Arno-Position}): once a node has applied it, that node shows the write.
     */
    private void position(HttpServletResponse resp, long version) {
        atoms.position(version).ifPresent(p -> {
            resp.setHeader("Arno-Position", Long.toString(p));
            // The writer's later requests, on any node, wait for this node's copy to hold the write
            // (the server's read-your-writes filter); a minute covers any lag a node may have and stay ready.
            resp.addHeader("Set-Cookie", "arno-position=" + p + "; Path=/; Max-Age=60; HttpOnly; SameSite=Lax");
        });
    }

    /**
     * Answers a write with its own result: the ETag and Last-Modified of the version this write
     * committed (never of a snapshot opened afterwards, which may hold another writer's later
     * version), and for an entry the entry itself, when a snapshot still holds that version (when
     * another writer replaced or deleted it meanwhile, no body: the ETag still names this write's
     * version, so the client's next conditional request learns the rest).
     */
    private void written(HttpServletRequest req, HttpServletResponse resp, AtomStore.Written w) throws IOException {
        String storePath = w.document();
        resp.setHeader("ETag", etag(w.version(), false));
        position(resp, w.version());
        if (w.time() != null) resp.setHeader("Last-Modified", HTTP_DATE.format(w.time()));
        if (!storePath.endsWith("." + Atom.ENTRY_EXTENSION)) return;
        try (Snapshot s = atoms.store().read()) {
            DocumentInfo info = s.info(storePath);
            if (info == null || info.version() != w.version()) return;
            resp.setContentType(Atom.ENTRY_TYPE + ";charset=UTF-8");
            String mount = mount(req);
            ResourcePath.Document doc = ResourcePath.document(storePath);
            serialize(resp.getOutputStream(), h -> Expansion.write(s, config, doc.resource(), Expansion.Options.NONE,
                    Served.of(s, atoms.model(s), mount, h)));
        }
    }

    /**
     * The version {@code If-Match} names: one strong ETag, or {@code *} for whatever is stored now.
     * {@code If-None-Match: *} (create only) is 0. Without either: 428 when {@code required}, else -1.
     */
    private long ifMatch(HttpServletRequest req, String storePath, boolean required) {
        Conditional.Tags match = Conditional.tags(req, "If-Match");
        Conditional.Tags noneMatch = Conditional.tags(req, "If-None-Match");
        if (match == null) {
            if (noneMatch != null && noneMatch.any()) return 0;
            if (!required) return -1;
            throw ErrorMessage.REPLACE_NEEDS_ETAG.error(storePath)
                    .at(Where.at("store:" + storePath));
        }
        if (match.any()) {
            try (Snapshot s = atoms.store().read()) {
                DocumentInfo info = s.info(storePath);
                if (info == null) {
                    throw ErrorMessage.IF_MATCH_ANY_NOTHING.error(storePath);
                }
                return info.version();
            }
        }
        // One strong tag, or its gzip form (the ETag of a gzipped GET names the same version).
        if (match.tags().size() == 1 && !match.tags().get(0).weak() && match.tags().get(0).identity().matches("[0-9]{1,18}")) {
            return Long.parseLong(match.tags().get(0).identity());
        }
        throw ErrorMessage.IF_MATCH_NOT_ETAG.error(String.join(", ", Collections.list(req.getHeaders("If-Match"))), storePath)
                .at(Where.at("store:" + storePath));
    }

    /** The whole body (an entry, a model), within the limit. */
    private byte[] body(HttpServletRequest req) throws IOException {
        try (InputStream in = limited(req)) {
            return in.readAllBytes();
        }
    }

    /** The body, refused with 413 at once when its Content-Length is over the limit, else when reading passes it. */
    private InputStream limited(HttpServletRequest req) throws IOException {
        return LimitedInput.of(req, maxBodyBytes);
    }

    private static String slug(HttpServletRequest req) {
        String slug = req.getHeader("Slug");
        if (slug == null) return null;
        // RFC 5023 9.7: the Slug is percent-encoded UTF-8.
        try {
            return java.net.URLDecoder.decode(slug.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ErrorMessage.SLUG_ENCODING.error(slug);
        }
    }

    // ---- Accounts, validators, errors -----------------------------------------------------

    /**
     * Refuses (403) unless the request's account also has the admin role; {@code what} says what
     * needs it. The account is the one the {@link AuthFilter} admitted the write with: not checked again.
     */
    private static void requireAdmin(HttpServletRequest req, String what) {
        Accounts.Account account = AuthFilter.account(req);
        if (account == null || !account.has(Accounts.Role.ADMIN)) {
            throw account == null ? ErrorMessage.NEEDS_ADMIN_NO_ACCOUNT.error(what) : ErrorMessage.NEEDS_ADMIN.error(what, account.name());
        }
    }

    /**
     * Sets the validators and answers 304 when the request's conditions say so ({@link Conditional});
     * true if it did. Conditions that fail (If-Match, If-Unmodified-Since) are 412.
     */
    private static boolean notModified(HttpServletRequest req, HttpServletResponse resp, String etag, Instant modified) {
        resp.setHeader("ETag", etag);
        if (modified != null) resp.setDateHeader("Last-Modified", modified.toEpochMilli());
        switch (Conditional.evaluate(req, etag, modified == null ? -1 : modified.toEpochMilli())) {
            case NOT_MODIFIED -> {
                resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
                return true;
            }
            case FAILED -> throw ErrorMessage.CONDITION_FAILED.error(req.getRequestURI(), etag);
            default -> {
                return false;
            }
        }
    }

    /** A stored document's ETag is its version; a computed answer's is the snapshot's version, weak. */
    static String etag(long version, boolean computed) {
        return (computed ? "W/\"" : "\"") + version + "\"";
    }

    private void error(HttpServletRequest req, HttpServletResponse resp, ArnoException e) throws IOException {
        String id = null;
        // A busy search is a refusal by design, not a fault: a burst would flood the log with traces.
        if (e.status() >= 500 && !(e instanceof Accounts.Refusal) && e.code() != ErrorCode.SEARCH_BUSY) {
            id = "E-" + Long.toString(System.currentTimeMillis(), 36) + "-"
                    + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36);
            LOG.log(System.Logger.Level.ERROR, id + " " + e.describe(), e);
        }
        if (resp.isCommitted()) {
            // Tomcat took the response when a body read failed (it answers that itself): the error
            // is left for the server's error report, which writes it as err:error (ArnoServer).
            req.setAttribute(ErrorXml.UNSENT, e);
            return;
        }
        resp.setStatus(e.status());
        resp.setContentType(ERROR_TYPE);
        resp.setHeader("ETag", null);
        resp.setHeader("Last-Modified", null);
        resp.setHeader("Accept-Ranges", null);
        if (e.code() != ErrorCode.RANGE_NOT_SATISFIABLE) resp.setHeader("Content-Range", null);
        // As many searches run as the index allows: one ends within a second or two (their time limit).
        if (e.code() == ErrorCode.SEARCH_BUSY) resp.setHeader("Retry-After", "1");
        byte[] body = ErrorXml.toBytes(e, id, false);
        resp.setContentLength(body.length);
        if (!isHead(req)) resp.getOutputStream().write(body);
    }

    private static ArnoException notAllowed(HttpServletRequest req, HttpServletResponse resp, String allowed) {
        resp.setHeader("Allow", allowed);
        return ErrorCode.METHOD_NOT_ALLOWED.error(req.getRequestURI(), req.getMethod(), allowed);
    }

    private static ArnoException notFound(String storePath) {
        return ErrorMessage.NOTHING_STORED.error(storePath).at(Where.at("store:" + storePath));
    }

    // ---- Small helpers --------------------------------------------------------------------

    /** The servlet's URL prefix: stored hrefs are made URLs by putting it in front. */
    static String mount(HttpServletRequest req) {
        return req.getContextPath() + req.getServletPath();
    }

    private static ResourcePath folder(String path) {
        return path.equals("/") ? ResourcePath.ROOT : ResourcePath.of(path.substring(0, path.length() - 1));
    }

    private static boolean isHead(HttpServletRequest req) {
        return req.getMethod().equals("HEAD");
    }

    private static boolean hasExpansion(HttpServletRequest req) {
        return req.getParameter("with-ancestors") != null || req.getParameter("with-descendants") != null
                || req.getParameter("with-variants") != null;
    }

    /** GET /store/ with {@code Accept: application/atom+xml} is the feed of the top-level entries. */
    private static boolean acceptsFeed(HttpServletRequest req) {
        List<HeaderValues.Element> accept = HeaderValues.of(req, "Accept");
        return HeaderValues.names(accept, "application/atom+xml") && !HeaderValues.names(accept, Atom.SERVICE_TYPE);
    }

    private static String queryString(HttpServletRequest req) {
        return req.getQueryString() == null ? "" : "?" + req.getQueryString();
    }

    /** The request's query with {@code name} set to {@code value}. */
    private static String query(HttpServletRequest req, String name, String value) {
        List<String> parts = new ArrayList<>();
        for (var p : req.getParameterMap().entrySet()) {
            if (p.getKey().equals(name)) continue;
            for (String v : p.getValue()) parts.add(enc(p.getKey()) + "=" + enc(v));
        }
        parts.add(enc(name) + "=" + enc(value));
        return String.join("&", parts);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static int intParameter(HttpServletRequest req, String name, int dflt, int min, int max) {
        String v = req.getParameter(name);
        if (v == null) return dflt;
        if (v.strip().matches("[0-9]{1,9}")) {
            int n = Integer.parseInt(v.strip());
            if (n >= min && n <= max) return n;
        }
        throw ErrorMessage.WHOLE_NUMBER.error(name, v, min);
    }

    private static long longParameter(HttpServletRequest req, String name, long dflt) {
        String v = req.getParameter(name);
        if (v == null) return dflt;
        if (v.strip().matches("[0-9]{1,18}")) return Long.parseLong(v.strip());
        throw ErrorMessage.VERSION_NUMBER.error(name, v);
    }

    private Serializer serializer(OutputStream out) {
        Serializer s = processor.newSerializer(out);
        s.setOutputProperty(Serializer.Property.METHOD, "xml");
        s.setOutputProperty(Serializer.Property.ENCODING, "UTF-8");
        s.setOutputProperty(Serializer.Property.INDENT, "no");
        return s;
    }

    /** What writes a document's content (no document events: {@link #serialize} adds them). */
    interface Body {
        void write(ContentHandler h) throws SAXException;
    }

    private void serialize(OutputStream out, Body body) {
        try {
            ContentHandler h = serializer(out).getContentHandler();
            h.startDocument();
            body.write(h);
            h.endDocument();
        } catch (SAXException | net.sf.saxon.s9api.SaxonApiException e) {
            ArnoException a = ArnoException.find(e);
            if (a != null) throw a;
            throw ErrorMessage.ANSWER_NOT_WRITTEN.error(e, e.getMessage());
        }
    }
}
