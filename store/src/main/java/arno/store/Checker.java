package arno.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;

import arno.xml.XmlChars;


/**
 * {@code store check}: proves every stored document decodes and every entry is consistent, in
 * one snapshot. For each document: the paths entry and the header agree; every chunk is present
 * with the expected length; the record stream decodes from start to end with each parent offset
 * pointing at the open parent, each size matching where the subtree really ends, ENDs balanced,
 * name codes inside the namebase, namespace indexes inside the document's table and attribute
 * entries filling their header exactly; and its structural index ({@link NameIndex}) lists exactly
 * the positions the walk finds, name by name ({@link IndexCheck}); and every text, attribute value,
 * comment and processing instruction holds only characters XML 1.0 can carry (a document with
 * another could not be exported and loaded again; {@link DocumentWriter} refuses them). A binary document has exactly its bytes in full 1 MiB
 * chunks and a last partial one. Then: no docs entry belongs to a document no path names, and the
 * meta counters lie above every id and version in use. The two reference databases mirror each
 * other and name stored sources. Every version has a commit time, never earlier than the one
 * before. The change feed is plausible: the last change of each URI still in the feed is a put of
 * exactly the document stored there now, or a delete of one no longer there; and every document
 * written since the feed's start has that put. Last, the path summary and the value indexes are
 * recomputed from the documents and compared ({@link ValueCheck}).
 */
final class Checker {

    /** Stop listing after this many problems; the first ones are what a person reads. */
    static final int MAX_PROBLEMS = 1000;

    private final Store store;
    private final Snapshot snapshot;
    private final List<String> problems = new ArrayList<>();

    Checker(Store store, Snapshot snapshot) {
        this.store = store;
        this.snapshot = snapshot;
    }

    List<String> run() {
        Engine e = store.engine;
        Keys k = new Keys();
        long version = e.getLong(snapshot.txn(), k, "version");
        long nextDoc = e.getLong(snapshot.txn(), k, "nextDoc");
        Set<Long> live = new HashSet<>();
        try (Cursor<DirectBuffer> c = e.paths.openCursor(snapshot.txn())) {
            boolean more = c.first();
            while (more && problems.size() < MAX_PROBLEMS) {
                String uri = Keys.string(c.key(), 0, c.key().capacity());
                DirectBuffer v = c.val();
                if (v.capacity() != 16) {
                    problem(uri, "paths entry has " + v.capacity() + " bytes, not 16");
                } else {
                    long docId = v.getLong(0, Keys.BE);
                    long docVersion = v.getLong(8, Keys.BE);
                    live.add(docId);
                    if (docId >= nextDoc) {
                        problem(uri, "document id " + docId + " is not below nextDoc " + nextDoc);
                    }
                    if (docVersion > version) {
                        problem(uri, "version " + docVersion + " is above the store version " + version);
                    }
                    checkDocument(uri, docId, docVersion);
                }
                more = c.next();
            }
        }
        try (Cursor<DirectBuffer> c = e.docs.openCursor(snapshot.txn())) {
            boolean more = c.first();
            long last = -1;
            while (more && problems.size() < MAX_PROBLEMS) {
                long docId = c.key().getLong(0, Keys.BE);
                if (docId != last && !live.contains(docId)) {
                    problems.add("document " + docId + ": entries in 'docs' but no path names it (orphan)");
                }
                last = docId;
                more = c.next();
            }
        }
        checkReferences(e, k);
        checkCommits(e, version);
        checkFeed(e, k, version);
        new ValueCheck(store, snapshot, this::add).run();
        return problems;
    }

    private void add(String problem) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(problem);
        }
    }

    /** Each direction of every reference has its mirror in the other database, and its source is stored. */
    private void checkReferences(Engine e, Keys k) {
        List<Dbi<DirectBuffer>> dbs = List.of(e.refs, e.refsOut);
        for (int d = 0; d < 2; d++) {
            boolean reverse = d == 0;
            String name = reverse ? "refs" : "refsOut";
            Dbi<DirectBuffer> mirror = reverse ? e.refsOut : e.refs;
            try (Cursor<DirectBuffer> c = dbs.get(d).openCursor(snapshot.txn())) {
                boolean more = c.first();
                while (more && problems.size() < MAX_PROBLEMS) {
                    DirectBuffer key = c.key();
                    int zero = 0;
                    while (zero < key.capacity() && key.getByte(zero) != 0) {
                        zero++;
                    }
                    String first = Keys.string(key, 0, zero);
                    String second = Keys.string(c.val(), 0, c.val().capacity());
                    String source = reverse ? second : first;
                    String target = reverse ? first : second;
                    String what = "reference " + Store.SCHEME + source + " → " + Store.SCHEME + target + ": ";
                    if (zero == key.capacity() || !key.equals(k.pair(first, second))) {
                        add(what + "its '" + name + "' key does not match its value");
                    } else {
                        DirectBuffer m = mirror.get(snapshot.txn(), k.pair(second, first));
                        if (m == null || !Keys.string(m, 0, m.capacity()).equals(first)) {
                            add(what + "is in '" + name + "' but not in '" + (reverse ? "refsOut" : "refs") + "'");
                        }
                    }
                    if (!reverse && e.paths.get(snapshot.txn(), k.utf8(source)) == null) {
                        add(what + "its source is not stored (a delete should have cleared it)");
                    }
                    more = c.next();
                }
            }
        }
    }

    /** Every version up to the store's has a commit time, and times never go backwards. */
    private void checkCommits(Engine e, long version) {
        long expected = 1;
        long lastTime = Long.MIN_VALUE;
        try (Cursor<DirectBuffer> c = e.commits.openCursor(snapshot.txn())) {
            boolean more = c.first();
            while (more && problems.size() < MAX_PROBLEMS) {
                long v = c.key().getLong(0, Keys.BE);
                if (c.val().capacity() != 8) {
                    add("commit " + v + ": its time has " + c.val().capacity() + " bytes, not 8");
                } else {
                    long t = c.val().getLong(0, Keys.BE);
                    if (t < lastTime) {
                        add("commit " + v + ": its time " + java.time.Instant.ofEpochMilli(t)
                                + " is before the previous commit's " + java.time.Instant.ofEpochMilli(lastTime));
                    }
                    lastTime = t;
                }
                if (v != expected) {
                    add("commit times: version " + v + " follows " + (expected - 1) + " (a version has no time)");
                }
                expected = v + 1;
                more = c.next();
            }
        }
        if (expected - 1 != version) {
            add("commit times end at version " + (expected - 1) + ", the store is at version " + version);
        }
    }

    private record Last(long version, int seq, Change.Kind kind, long docId, String mediaType) {
    }

    /** The change feed against the documents stored now (see the class comment). */
    private void checkFeed(Engine e, Keys k, long version) {
        long feedStart = e.getLong(snapshot.txn(), k, "feedStart");
        if (feedStart < 1 || feedStart > version + 1) {
            add("change feed starts at version " + feedStart + ", outside 1.." + (version + 1));
        }
        Map<String, Last> last = new HashMap<>();
        try (Cursor<DirectBuffer> c = e.changes.openCursor(snapshot.txn())) {
            boolean more = c.first();
            while (more && problems.size() < MAX_PROBLEMS) {
                long v = c.key().getLong(0, Keys.BE);
                int seq = c.key().capacity() == 12 ? c.key().getInt(8, Keys.BE) : -1;
                DirectBuffer val = c.val();
                String at = "change " + v + ":" + seq + ": ";
                int mlen = val.capacity() >= 10 ? val.getByte(9) & 0xFF : -1;
                int kind = val.capacity() > 0 ? val.getByte(0) : -1;
                if (seq < 1 || mlen < 0 || 10 + mlen > val.capacity() || kind < 0
                        || kind >= Change.Kind.values().length) {
                    add(at + "record is malformed");
                } else if (v > version) {
                    add(at + "is above the store version " + version);
                } else if (v >= feedStart) {
                    String uri = Keys.string(val, 10 + mlen, val.capacity() - 10 - mlen);
                    last.put(uri, new Last(v, seq, Change.Kind.values()[kind], val.getLong(1, Keys.BE),
                            Keys.string(val, 10, mlen)));
                }
                more = c.next();
            }
        }
        for (Map.Entry<String, Last> en : last.entrySet()) {
            String uri = en.getKey();
            Last l = en.getValue();
            DirectBuffer p = e.paths.get(snapshot.txn(), k.utf8(uri));
            String at = "change " + l.version() + ":" + l.seq() + " (" + l.kind().name().toLowerCase() + " "
                    + Store.SCHEME + uri + "): ";
            if (l.kind() == Change.Kind.DELETE) {
                if (p != null) {
                    add(at + "the last change of the URI is a delete, but a document is stored there");
                }
            } else if (p == null) {
                add(at + "the last change of the URI is a put, but nothing is stored there");
            } else if (p.getLong(0, Keys.BE) != l.docId() || p.getLong(8, Keys.BE) != l.version()) {
                add(at + "the document stored there is document " + p.getLong(0, Keys.BE) + " of version "
                        + p.getLong(8, Keys.BE) + ", not document " + l.docId() + " of version " + l.version());
            } else {
                DirectBuffer h = e.docs.get(snapshot.txn(), k.doc(l.docId(), Keys.HEADER));
                if (h != null && !DocHeader.decode(l.docId(), h).mediaType().equals(l.mediaType())) {
                    add(at + "its media type " + l.mediaType() + " differs from the document's");
                }
            }
        }
        try (Cursor<DirectBuffer> c = e.paths.openCursor(snapshot.txn())) {
            boolean more = c.first();
            while (more && problems.size() < MAX_PROBLEMS) {
                if (c.val().capacity() == 16 && c.val().getLong(8, Keys.BE) >= feedStart) {
                    String uri = Keys.string(c.key(), 0, c.key().capacity());
                    if (!last.containsKey(uri)) {
                        add(Store.SCHEME + uri + ": written at version " + c.val().getLong(8, Keys.BE)
                                + ", which the change feed still holds, but the feed has no change of it");
                    }
                }
                more = c.next();
            }
        }
    }

    private void problem(String uri, String what) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(Store.SCHEME + uri + ": " + what);
        }
    }

    private void checkDocument(String uri, long docId, long docVersion) {
        UnsafeBuffer hb = snapshot.entry(docId, Keys.HEADER);
        if (hb == null) {
            problem(uri, "document " + docId + " has no header");
            return;
        }
        DocHeader h;
        try {
            h = DocHeader.decode(docId, hb);
        } catch (StoreException ex) {
            problem(uri, ex.getMessage());
            return;
        }
        if (!h.uri().equals(uri)) {
            problem(uri, "header names " + h.uri());
        }
        if (h.version() != docVersion) {
            problem(uri, "header version " + h.version() + " differs from path version " + docVersion);
        }
        if (h.binary()) {
            checkBinary(uri, docId, h);
            return;
        }
        int expected = (int) ((h.length() + Format.CHUNK_SIZE - 1) >>> Format.CHUNK_SHIFT);
        if (h.chunks() != Math.max(1, expected) && h.chunks() != expected + 1) {
            problem(uri, h.chunks() + " chunks for " + h.length() + " bytes");
            return;
        }
        for (int i = 0; i < h.chunks(); i++) {
            UnsafeBuffer c = chunk(uri, docId, i);
            if (c == null) return;
            long start = (long) i << Format.CHUNK_SHIFT;
            long data = Math.min(Format.CHUNK_SIZE, Math.max(0, h.length() - start));
            long min = data + Math.min(Format.OVERLAP, Math.max(0, h.length() - start - data));
            if (c.capacity() < min || c.capacity() > Format.CHUNK_SIZE + Format.OVERLAP) {
                problem(uri, "chunk " + i + " has " + c.capacity() + " bytes, expected at least " + min);
                return;
            }
        }
        if (h.nameCodes() > store.names.size()) {
            problem(uri, "uses " + h.nameCodes() + " name codes, the namebase has " + store.names.size());
            return;
        }
        StoredTree t;
        try {
            t = new StoredTree(snapshot, h, store.ownConfiguration(),
                    store.names.mapping(store.ownConfiguration()).covering(h.nameCodes()));
            walk(uri, t, h);
        } catch (RuntimeException ex) {
            problem(uri, "does not decode: " + ex);
        }
    }

    /** Chunk {@code i} of the document, or null once a missing chunk is reported. */
    private UnsafeBuffer chunk(String uri, long docId, int i) {
        try {
            return snapshot.chunk(docId, i);
        } catch (StoreException ex) {
            problem(uri, ex.getMessage());
            return null;
        }
    }

    /** Exactly its bytes: full chunks, then the rest; no nodes, no names, no side tables. */
    private void checkBinary(String uri, long docId, DocHeader h) {
        long expected = (h.length() + Format.CHUNK_SIZE - 1) >>> Format.CHUNK_SHIFT;
        if (h.chunks() != expected) {
            problem(uri, "binary of " + h.length() + " bytes has " + h.chunks() + " chunks, not " + expected);
            return;
        }
        if (h.nodes() != 0 || h.nameCodes() != 0 || (h.flags() & ~DocHeader.BINARY) != 0) {
            problem(uri, "binary header has nodes, names or tree flags");
        }
        for (int i = 0; i < h.chunks(); i++) {
            UnsafeBuffer c = chunk(uri, docId, i);
            if (c == null) return;
            long want = Math.min(Format.CHUNK_SIZE, h.length() - ((long) i << Format.CHUNK_SHIFT));
            if (c.capacity() != want) {
                problem(uri, "binary chunk " + i + " has " + c.capacity() + " bytes, not " + want);
                return;
            }
        }
        if (snapshot.entry(docId, Keys.BIGS) != null || snapshot.entry(docId, Keys.NSMAPS) != null) {
            problem(uri, "binary has tree side tables");
        }
    }

    /** Decodes every record, checking the structure against an explicit stack of open parents. */
    private void walk(String uri, StoredTree t, DocHeader h) {
        Rec r = new Rec(t);
        AttrEntry a = new AttrEntry();
        long[] open = new long[64];
        long[] ends = new long[64];
        int depth = 0;
        long nodes = 0;
        int nsCount = -1;
        long p = 0;
        IndexCheck index = new IndexCheck(uri, t);
        // the first character XML 1.0 cannot carry is reported, once per document
        boolean charsOk = true;
        r.read(0);
        if (r.kind != Format.DOCUMENT) {
            problem(uri, "does not start with a document record");
            return;
        }
        open[0] = 0;
        ends[0] = r.end;
        depth = 1;
        nodes = 1;
        if (r.end != h.length()) {
            problem(uri, "document record ends at " + r.end + ", the stream at " + h.length());
            return;
        }
        p = r.first;
        while (depth > 0) {
            if (p >= h.length()) {
                problem(uri, "stream ends with " + depth + " parents open");
                return;
            }
            r.read(p);
            if (r.kind == Format.END) {
                if (p + 1 != ends[depth - 1]) {
                    problem(uri, "END at " + p + " but the parent at " + open[depth - 1] + " ends at "
                            + ends[depth - 1]);
                    return;
                }
                depth--;
                p++;
                continue;
            }
            nodes++;
            if (r.parent != open[depth - 1]) {
                problem(uri, "record at " + p + " points to parent " + r.parent + ", expected " + open[depth - 1]);
                return;
            }
            if (r.code >= h.nameCodes()) {
                problem(uri, "record at " + p + " uses name code " + r.code + " beyond " + h.nameCodes());
                return;
            }
            if (r.end > ends[depth - 1]) {
                problem(uri, "record at " + p + " ends at " + r.end + ", after its parent's end " + ends[depth - 1]);
                return;
            }
            if (charsOk && (r.kind == Format.TEXT || r.kind == Format.COMMENT || r.kind == Format.PI)) {
                charsOk = chars(uri, t, r.content(), r.length, r.kind == Format.TEXT ? "text"
                        : r.kind == Format.COMMENT ? "comment" : "processing instruction", p);
            }
            if (r.kind == Format.ELEMENT) {
                index.expect(NameIndex.ELEMENTS, r.code, p);
                if (r.ns >= 0) {
                    if (nsCount < 0) {
                        nsCount = t.namespaceCount();
                    }
                    if (r.ns >= nsCount) {
                        problem(uri, "element at " + p + " uses namespace map " + r.ns + " of " + nsCount);
                        return;
                    }
                }
                long q = r.attrs();
                long attrEnd = r.attrs() + r.attrBytes;
                while (q < attrEnd) {
                    a.read(t, q);
                    nodes++;
                    if (a.code >= h.nameCodes()) {
                        problem(uri, "attribute at " + q + " uses name code " + a.code);
                        return;
                    }
                    index.expect(NameIndex.ATTRIBUTES, a.code, p);
                    if (charsOk) {
                        charsOk = chars(uri, t, a.value, a.length, "attribute " + t.names[a.code].getDisplayName(), p);
                    }
                    q = a.next;
                }
                if (q != attrEnd) {
                    problem(uri, "attributes of the element at " + p + " overrun their " + r.attrBytes + " bytes");
                    return;
                }
                if (r.hasChildren()) {
                    if (depth == open.length) {
                        open = java.util.Arrays.copyOf(open, depth * 2);
                        ends = java.util.Arrays.copyOf(ends, depth * 2);
                    }
                    open[depth] = p;
                    ends[depth] = r.end;
                    depth++;
                    p = r.first;
                    continue;
                }
            } else if (r.kind == Format.DOCUMENT) {
                problem(uri, "a second document record at " + p);
                return;
            }
            p = r.end;
        }
        if (nodes != h.nodes()) {
            problem(uri, "decoded " + nodes + " nodes, the header says " + h.nodes());
        }
        index.finish();
    }

    /** Slices of a value read at a time: the check's memory is bounded whatever a text's length. */
    private static final int SLICE = 64 * 1024;
    private byte[] slice;

    /**
     * Whether the {@code len} UTF-8 bytes at {@code pos} hold only characters XML 1.0 can carry;
     * else reports the first other one, of the node at {@code node}. Read in slices that overlap by
     * two bytes, so that a three-byte U+FFFE across two slices is seen whole.
     */
    private boolean chars(String uri, StoredTree t, long pos, int len, String what, long node) {
        if (slice == null) {
            slice = new byte[SLICE + 2];
        }
        for (int done = 0; done < len; done += SLICE) {
            int n = Math.min(len - done, SLICE + 2);
            t.bytes(pos + done, n, slice, 0);
            int at = XmlChars.firstDisallowedUtf8(slice, 0, n);
            if (at >= 0 && at < SLICE) {
                problem(uri, what + " of the node at " + node + " holds " + XmlChars.name(XmlChars.codePointAtUtf8(slice, at))
                        + ", a character XML 1.0 cannot carry: the document cannot be exported as XML; replace or delete it");
                return false;
            }
        }
        return true;
    }

    /**
     * The structural index against the walk, in constant memory whatever the document's size: one
     * reader per (kind, name) list, and as the walk meets each element (each attribute) the list of
     * its name must give exactly that position next. At the end every list must be used up, and
     * the index may hold no list for a name the walk never met. So every list equals the walk's,
     * position by position; the first difference of a document is reported.
     */
    private final class IndexCheck {
        private final String uri;
        private final StoredTree t;
        private final NameIndex.Positions[][] lists = new NameIndex.Positions[2][];
        /** A small document has no index ({@link Store#hasNameIndex}): then it must have no entry at all. */
        private final boolean indexed;
        private boolean failed;

        IndexCheck(String uri, StoredTree t) {
            this.uri = uri;
            this.t = t;
            this.indexed = store.hasNameIndex(t.header.length());
            int n = t.header.nameCodes();
            lists[0] = new NameIndex.Positions[n];
            lists[1] = new NameIndex.Positions[n];
        }

        private String what(byte kind, int code) {
            return "structural index of " + (kind == NameIndex.ELEMENTS ? "elements '" : "attributes '")
                    + t.names[code].getDisplayName() + "': ";
        }

        void expect(byte kind, int code, long pos) {
            if (failed || !indexed) {
                return;
            }
            NameIndex.Positions l = lists[kind][code];
            if (l == null) {
                l = new NameIndex.Positions(t, kind, code, 0);
                lists[kind][code] = l;
            }
            long got = next(l);
            if (!failed && got != pos) {
                fail(what(kind, code) + (got < 0 ? "ends" : "lists " + got) + " where the document has "
                        + (kind == NameIndex.ELEMENTS ? "the element" : "an element with the attribute") + " at " + pos);
            }
        }

        private long next(NameIndex.Positions l) {
            try {
                return l.next();
            } catch (StoreException e) {
                fail(e.getMessage());
                return -1;
            }
        }

        private void fail(String what) {
            failed = true;
            problem(uri, what);
        }

        void finish() {
            for (byte kind = 0; kind < 2 && !failed; kind++) {
                for (int code = 0; code < lists[kind].length && !failed; code++) {
                    NameIndex.Positions l = lists[kind][code];
                    long extra = l == null ? -1 : next(l);
                    if (!failed && extra >= 0) {
                        fail(what(kind, code) + "lists " + extra + ", which the document does not have");
                    }
                }
            }
            if (failed) {
                return;
            }
            Keys k = new Keys();
            try (Cursor<DirectBuffer> c = store.engine.docs.openCursor(snapshot.txn())) {
                boolean more = c.get(k.doc(t.docId, Keys.NAMES), org.lmdbjava.GetOp.MDB_SET_RANGE);
                while (more && c.key().capacity() >= 9 && c.key().getLong(0, Keys.BE) == t.docId
                        && c.key().getByte(8) == Keys.NAMES) {
                    DirectBuffer key = c.key();
                    int kind = key.capacity() == Keys.NAME_KEY ? key.getByte(9) : -1;
                    int code = key.capacity() == Keys.NAME_KEY ? key.getInt(10, Keys.BE) : -1;
                    if (kind < 0 || kind > 1 || code < 0 || code >= lists[kind].length) {
                        fail("structural index has a malformed key or a name code beyond the document's");
                        return;
                    }
                    if (!indexed) {
                        fail(what((byte) kind, code) + "a list in a document too small to have an index");
                        return;
                    }
                    if (lists[kind][code] == null) {
                        fail(what((byte) kind, code) + "a list for a name the document does not use");
                        return;
                    }
                    more = c.next();
                }
            }
        }
    }
}
