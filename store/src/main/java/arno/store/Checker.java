package arno.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;


/**
 * {@code store check}: proves every stored document decodes and every entry is consistent, in
 * one snapshot. For each document: the paths entry and the header agree; every chunk is present
 * with the expected length; the record stream decodes from start to end with each parent offset
 * pointing at the open parent, each size matching where the subtree really ends, ENDs balanced,
 * name codes inside the namebase, namespace indexes inside the document's table and attribute
 * entries filling their header exactly. Then: no docs entry belongs to a document no path names,
 * and the meta counters lie above every id and version in use.
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
        try (Cursor<DirectBuffer> c = e.changes.openCursor(snapshot.txn())) {
            if (c.last()) {
                long lastChange = c.key().getLong(0, Keys.BE);
                if (lastChange > version) {
                    problems.add("change feed has version " + lastChange + " above the store version " + version);
                }
            }
        }
        return problems;
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
        int expected = (int) ((h.length() + Format.CHUNK_SIZE - 1) >>> Format.CHUNK_SHIFT);
        if (h.chunks() != Math.max(1, expected) && h.chunks() != expected + 1) {
            problem(uri, h.chunks() + " chunks for " + h.length() + " bytes");
            return;
        }
        for (int i = 0; i < h.chunks(); i++) {
            UnsafeBuffer c;
            try {
                c = snapshot.chunk(docId, i);
            } catch (StoreException ex) {
                problem(uri, ex.getMessage());
                return;
            }
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
            if (r.kind == Format.ELEMENT) {
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
    }
}
