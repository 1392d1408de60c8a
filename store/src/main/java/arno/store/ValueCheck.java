package arno.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.agrona.DirectBuffer;
import org.lmdbjava.Cursor;

import arno.xml.ArnoException;

/**
 * The part of {@code store check} that proves the cross-document indexes: the reference is a
 * recomputation from the documents themselves, each stored XML document walked as a put walks it
 * ({@link ValueWalk}), with path ids of its own (so a damaged path table cannot hide itself).
 * <ul>
 * <li>the catalogue of indexes equals the configuration document {@link IndexConfig#URI} (no
 *     configuration: no indexes);
 * <li>every value index holds exactly the entries recomputed: each missing and each stale entry is
 *     reported with its index, value, document and element position; entries of an index the
 *     catalogue does not have are reported;
 * <li>the path summary lists exactly the recounted paths, each with its occurrences and documents.
 * </ul>
 * When a document does not decode (reported by the document check), there is no reference and
 * nothing more is compared. Memory: the recomputed entries are held in a hash set while the {@code values} database is
 * compared against it (about 100 bytes an entry).
 */
final class ValueCheck {

    private final Store store;
    private final Snapshot snapshot;
    private final Consumer<String> problems;

    ValueCheck(Store store, Snapshot snapshot, Consumer<String> problems) {
        this.store = store;
        this.snapshot = snapshot;
        this.problems = problems;
    }

    /** Path ids local to the check, with their expanded and shown paths. */
    private static final class LocalPaths implements ValueWalk.Paths {
        final Map<String, Integer> ids = new HashMap<>();
        final List<String> expanded = new ArrayList<>(List.of(""));
        final List<String> shown = new ArrayList<>(List.of(""));

        @Override
        public int id(int parent, String prefix, String uri, String local) {
            String key = parent + "\0" + uri + "\0" + local;
            Integer id = ids.get(key);
            if (id == null) {
                id = expanded.size();
                ids.put(key, id);
                expanded.add(expanded.get(parent) + "/Q{" + uri + "}" + local);
                shown.add(shown.get(parent) + "/" + (prefix.isEmpty() ? local : prefix + ":" + local));
            }
            return id;
        }
    }

    void run() {
        Engine e = store.engine;
        List<ValueWalk.Active> active = Indexer.active(e, snapshot.txn());
        checkCatalogue(active);
        LocalPaths paths = new LocalPaths();
        ValueWalk walk = new ValueWalk(paths, active, store.ownConfiguration().getConversionRules());
        Map<Integer, long[]> counts = new HashMap<>();
        Set<ByteBuffer> expected = new HashSet<>();
        Map<ByteBuffer, String> cutValues = new HashMap<>();
        int undecodable = 0;
        try (Cursor<DirectBuffer> c = e.paths.openCursor(snapshot.txn())) {
            boolean more = c.first();
            while (more) {
                String uri = Keys.string(c.key(), 0, c.key().capacity());
                long docId = c.val().getLong(0, Keys.BE);
                try {
                    StoredTree t = snapshot.tree(docId, store.ownConfiguration());
                    if (t != null) {
                        ValueWalk.Contribution contribution = walk.walk(t);
                        for (Map.Entry<Integer, Long> p : contribution.paths().entrySet()) {
                            long[] n = counts.computeIfAbsent(p.getKey(), k -> new long[2]);
                            n[0] += p.getValue();
                            n[1]++;
                        }
                        for (ValueKeys.Entry x : contribution.entries()) {
                            ByteBuffer k = ByteBuffer.wrap(x.key());
                            expected.add(k);
                            if (x.value().length > 0) {
                                cutValues.put(k, new String(x.value(), StandardCharsets.ISO_8859_1));
                            }
                        }
                    }
                } catch (RuntimeException ex) {
                    undecodable++; // the document check reports why it does not decode
                }
                more = c.next();
            }
        }
        if (undecodable > 0) {
            // without every document there is no reference to compare with; the documents are reported
            return;
        }
        checkValues(active, expected, cutValues);
        checkSummary(paths, counts);
    }

    private void checkCatalogue(List<ValueWalk.Active> active) {
        IndexConfig configured = IndexConfig.EMPTY;
        DirectBuffer p = store.engine.paths.get(snapshot.txn(), new Keys().utf8(IndexConfig.URI));
        if (p != null) {
            try {
                StoredTree t = snapshot.tree(p.getLong(0, Keys.BE), store.ownConfiguration());
                configured = t == null ? IndexConfig.EMPTY : IndexConfig.read(t.getRootNode(), Store.SCHEME + IndexConfig.URI);
            } catch (ArnoException ex) {
                problems.accept("index configuration " + Store.SCHEME + IndexConfig.URI + ": " + ex.getMessage());
                return;
            }
        }
        Map<String, String> want = new TreeMap<>();
        for (IndexDefinition d : configured.indexes()) {
            want.put(d.name(), d.canonical());
        }
        Map<String, String> have = new TreeMap<>();
        for (ValueWalk.Active a : active) {
            have.put(a.definition().name(), a.definition().canonical());
        }
        for (String name : want.keySet()) {
            if (!have.containsKey(name)) {
                problems.accept("value index '" + name + "' is configured in " + IndexConfig.URI + " but not built");
            } else if (!have.get(name).equals(want.get(name))) {
                problems.accept("value index '" + name + "' was built from another definition than " + IndexConfig.URI
                        + " gives");
            }
        }
        for (String name : have.keySet()) {
            if (!want.containsKey(name)) {
                problems.accept("value index '" + name + "' is built but not configured in " + IndexConfig.URI);
            }
        }
    }

    private void checkValues(List<ValueWalk.Active> active, Set<ByteBuffer> expected, Map<ByteBuffer, String> cutValues) {
        Map<Integer, ValueWalk.Active> byId = new HashMap<>();
        for (ValueWalk.Active a : active) {
            byId.put(a.id(), a);
        }
        Set<Integer> unknownReported = new HashSet<>();
        try (Cursor<DirectBuffer> c = store.engine.values.openCursor(snapshot.txn())) {
            boolean more = c.first();
            while (more) {
                byte[] key = new byte[c.key().capacity()];
                c.key().getBytes(0, key);
                byte[] val = new byte[c.val().capacity()];
                c.val().getBytes(0, val);
                int id = key.length >= 4 ? ByteBuffer.wrap(key).getInt(0) : -1;
                ValueWalk.Active a = byId.get(id);
                ByteBuffer k = ByteBuffer.wrap(key);
                if (a == null) {
                    if (unknownReported.add(id)) {
                        problems.accept("value index entries with index id " + id + ", which the catalogue does not have");
                    }
                } else if (!expected.remove(k)) {
                    problems.accept("value index '" + a.definition().name() + "': stale entry " + describe(a, key, val)
                            + ": no such element and value in the document");
                } else {
                    String whole = cutValues.get(k);
                    String stored = new String(val, StandardCharsets.ISO_8859_1);
                    if (!(whole == null ? "" : whole).equals(stored)) {
                        problems.accept("value index '" + a.definition().name() + "': entry " + describe(a, key, val)
                                + " keeps a whole value that differs from the document's");
                    }
                }
                more = c.next();
            }
        }
        for (ByteBuffer k : expected) {
            ValueWalk.Active a = byId.get(k.getInt(0));
            problems.accept("value index '" + a.definition().name() + "': missing entry " + describe(a, k.array(), new byte[0]));
        }
    }

    private void checkSummary(LocalPaths paths, Map<Integer, long[]> counts) {
        Map<String, long[]> want = new TreeMap<>();
        Map<String, String> shown = new HashMap<>();
        for (Map.Entry<Integer, long[]> e : counts.entrySet()) {
            want.put(paths.expanded.get(e.getKey()), e.getValue());
            shown.put(paths.expanded.get(e.getKey()), paths.shown.get(e.getKey()));
        }
        List<PathCount> have;
        try {
            have = PathTable.summary(store.engine, snapshot.txn());
        } catch (StoreException ex) {
            problems.accept("path summary: " + ex.getMessage());
            return;
        }
        for (PathCount p : have) {
            long[] w = want.remove(p.expandedPath());
            if (w == null) {
                problems.accept("path summary: " + p.path() + " counts " + p.occurrences() + " element(s) in "
                        + p.documents() + " document(s), but no document has it");
            } else if (w[0] != p.occurrences() || w[1] != p.documents()) {
                problems.accept("path summary: " + p.path() + " counts " + p.occurrences() + " element(s) in "
                        + p.documents() + " document(s); the documents have " + w[0] + " in " + w[1]);
            }
        }
        for (Map.Entry<String, long[]> e : want.entrySet()) {
            problems.accept("path summary: " + shown.get(e.getKey()) + " is missing (" + e.getValue()[0]
                    + " element(s) in " + e.getValue()[1] + " document(s))");
        }
    }

    /** An entry as a person reads it: value, document and element position. */
    private String describe(ValueWalk.Active a, byte[] key, byte[] val) {
        IndexDefinition d = a.definition();
        StringBuilder b = new StringBuilder();
        int at = 4;
        try {
            if (d.correlated()) {
                int end = at;
                while ((key[end] & 0xFF) > ValueKeys.CUT) {
                    end++;
                }
                b.append("key '").append(new String(key, at, end - at, StandardCharsets.UTF_8)).append("' ");
                at = end + 1;
            }
            switch (d.type()) {
                case STRING: {
                    int end = at;
                    while ((key[end] & 0xFF) > ValueKeys.CUT) {
                        end++;
                    }
                    b.append("value '").append(new String(key, at, end - at, StandardCharsets.UTF_8))
                            .append(key[end] == ValueKeys.CUT ? "…'" : "'");
                    break;
                }
                case NUMBER: {
                    long bits = ValueLookup.getLong(key, at);
                    bits = bits < 0 ? bits ^ Long.MIN_VALUE : ~bits;
                    b.append("value ").append(Double.longBitsToDouble(bits));
                    break;
                }
                default:
                    b.append("value ").append(LocalDate.ofEpochDay(ValueLookup.getLong(key, at) ^ Long.MIN_VALUE));
            }
            long docId = ValueLookup.getLong(key, key.length - 16);
            long pos = ValueLookup.getLong(key, key.length - 8);
            DirectBuffer h = store.engine.docs.get(snapshot.txn(), new Keys().doc(docId, Keys.HEADER));
            b.append(" of ").append(h == null ? "document " + docId + " (not stored)" : Store.SCHEME
                    + DocHeader.decode(docId, h).uri()).append(" at position ").append(pos);
        } catch (RuntimeException ex) {
            b.append("(undecodable key of ").append(key.length).append(" bytes)");
        }
        return b.toString();
    }
}
