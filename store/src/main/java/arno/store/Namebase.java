package arno.store;

import arno.xml.ErrorMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.lmdbjava.Cursor;
import org.lmdbjava.Txn;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.FingerprintedQName;
import net.sf.saxon.om.NamePool;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeName;


/**
 * The persistent namebase: every (prefix, namespace URI, local name) used by a stored element,
 * attribute or processing instruction gets an integer code, once for the whole store. Records hold
 * the code; each Saxon {@link Configuration} maps codes to its own NamePool fingerprints once
 * ({@link Mapping}), so a name test on a stored node is an array load and an int compare.
 *
 * <p>Threads: the committed table is append-only and published copy-on-write, so readers never
 * lock. New names are allocated inside a write transaction ({@link Pending}) and published when it
 * commits, under this object's monitor together with the LMDB commit, so a snapshot that sees a
 * document always finds its names (a mapping that lacks a code waits on the same monitor).
 */
final class Namebase {

    record Name(String prefix, String uri, String local) {
        byte[] encode() {
            return (prefix + '\0' + uri + '\0' + local).getBytes(StandardCharsets.UTF_8);
        }

        static Name decode(DirectBuffer b) {
            String s = Keys.string(b, 0, b.capacity());
            int a = s.indexOf('\0');
            int c = s.indexOf('\0', a + 1);
            if (a < 0 || c < 0) {
                throw new StoreException(ErrorMessage.NAMEBASE_ENTRY, s);
            }
            return new Name(s.substring(0, a), s.substring(a + 1, c), s.substring(c + 1));
        }
    }

    private final Engine engine;
    private volatile Name[] names;
    /** Guarded by the store's write lock (only writers look names up). */
    private final Map<Name, Integer> codes = new HashMap<>();
    private final Map<Configuration, Mapping> mappings = new WeakHashMap<>();

    private Namebase(Engine engine, Name[] names) {
        this.engine = engine;
        this.names = names;
        for (int i = 0; i < names.length; i++) {
            codes.put(names[i], i);
        }
    }

    static Namebase load(Engine engine) {
        List<Name> list = new ArrayList<>();
        try (Txn<DirectBuffer> txn = engine.env.txnRead(); Cursor<DirectBuffer> c = engine.names.openCursor(txn)) {
            boolean more = c.first();
            while (more) {
                int code = c.key().getInt(0, Keys.BE);
                if (code != list.size()) {
                    throw new StoreException(ErrorMessage.NAMEBASE_GAP, engine.dir, list.size());
                }
                list.add(Name.decode(c.val()));
                more = c.next();
            }
        }
        return new Namebase(engine, list.toArray(new Name[0]));
    }

    int size() {
        return names.length;
    }

    Name get(int code) {
        return names[code];
    }

    /** The mapping of this namebase into a Configuration's NamePool, made once per Configuration. */
    Mapping mapping(Configuration config) {
        synchronized (mappings) {
            return mappings.computeIfAbsent(config, c -> new Mapping(c.getNamePool()));
        }
    }

    Pending pending(Txn<DirectBuffer> txn) {
        return new Pending(txn);
    }

    /** Names first used by one write transaction. Not thread-safe: it belongs to its transaction. */
    final class Pending {
        private final Txn<DirectBuffer> txn;
        private final List<Name> added = new ArrayList<>();
        private final Map<Name, Integer> addedCodes = new HashMap<>();
        private final Keys keys = new Keys();

        private Pending(Txn<DirectBuffer> txn) {
            this.txn = txn;
        }

        int code(String prefix, String uri, String local) {
            Name n = new Name(prefix, uri, local);
            Integer c = codes.get(n);
            if (c == null) {
                c = addedCodes.get(n);
            }
            if (c == null) {
                c = names.length + added.size();
                engine.names.put(txn, keys.code(c), Keys.direct(n.encode()));
                added.add(n);
                addedCodes.put(n, c);
            }
            return c;
        }

        /** The name of a code allocated by this transaction (at or above the committed size). */
        Name added(int code) {
            return added.get(code - names.length);
        }

        /** The highest code allocated so far plus one. */
        int limit() {
            return names.length + added.size();
        }

        /** Commits the LMDB transaction and publishes the new names as one step for readers. */
        void commitAndPublish() {
            synchronized (Namebase.this) {
                txn.commit();
                if (!added.isEmpty()) {
                    Name[] all = Arrays.copyOf(names, names.length + added.size());
                    for (int i = 0; i < added.size(); i++) {
                        all[names.length + i] = added.get(i);
                    }
                    codes.putAll(addedCodes);
                    names = all;
                }
            }
        }
    }

    /** Namebase codes → fingerprints and names of one NamePool. Arrays only grow; copy-on-write. */
    final class Mapping {
        private final NamePool pool;
        private volatile Table table = new Table(new int[0], new NodeName[0], new String[0]);

        private Mapping(NamePool pool) {
            this.pool = pool;
        }

        /** A table that covers at least codes below {@code limit}. */
        Table covering(int limit) {
            Table t = table;
            if (t.fingerprints.length >= limit) {
                return t;
            }
            synchronized (Namebase.this) {
                t = table;
                Name[] all = names;
                if (all.length < limit) {
                    throw new StoreException(ErrorMessage.NAMEBASE_SHORT, engine.dir, limit - 1, all.length);
                }
                int old = t.fingerprints.length;
                int[] fps = Arrays.copyOf(t.fingerprints, all.length);
                NodeName[] nn = Arrays.copyOf(t.names, all.length);
                String[] locals = Arrays.copyOf(t.locals, all.length);
                for (int i = old; i < all.length; i++) {
                    NamespaceUri uri = NamespaceUri.of(all[i].uri());
                    fps[i] = pool.allocateFingerprint(uri, all[i].local());
                    nn[i] = new FingerprintedQName(all[i].prefix(), uri, all[i].local(), fps[i]);
                    locals[i] = all[i].local();
                }
                t = new Table(fps, nn, locals);
                table = t;
                return t;
            }
        }

        /**
         * A table that also covers the names a write transaction has allocated but not committed,
         * for reading its own documents in its view. Not published: the names may yet be aborted.
         */
        Table covering(int limit, Pending pending) {
            int committed = names.length;
            if (limit <= committed) {
                return covering(limit);
            }
            Table t = covering(committed);
            int[] fps = Arrays.copyOf(t.fingerprints, limit);
            NodeName[] nn = Arrays.copyOf(t.names, limit);
            String[] locals = Arrays.copyOf(t.locals, limit);
            for (int i = committed; i < limit; i++) {
                Name n = pending.added(i);
                NamespaceUri uri = NamespaceUri.of(n.uri());
                fps[i] = pool.allocateFingerprint(uri, n.local());
                nn[i] = new FingerprintedQName(n.prefix(), uri, n.local(), fps[i]);
                locals[i] = n.local();
            }
            return new Table(fps, nn, locals);
        }
    }

    /** Immutable once published. */
    static final class Table {
        final int[] fingerprints;
        final NodeName[] names;
        /** Local names by code: the hottest name accessor, one array load. */
        final String[] locals;

        Table(int[] fingerprints, NodeName[] names, String[] locals) {
            this.fingerprints = fingerprints;
            this.names = names;
            this.locals = locals;
        }

        private static final int[] NONE = {};

        /**
         * Fingerprint → the codes with it, ascending ({@link #codes}): made on first ask, once for
         * every document and request reading through this table, where each tree opened per request
         * made its own answers by a pass over the document's codes per name asked (no gain measured
         * on pages: perf/RESULTS.md, tenth session; kept as the simpler). Only read once published,
         * through a record's final field; two threads may each make one, alike.
         */
        private record ByFingerprint(Int2ObjectHashMap<int[]> codes) {
        }

        private ByFingerprint byFingerprint;

        /** The codes whose fingerprint is {@code fp}, ascending (shared: never changed). */
        int[] codes(int fp) {
            ByFingerprint b = byFingerprint;
            if (b == null) {
                Int2ObjectHashMap<int[]> map = new Int2ObjectHashMap<>();
                for (int code = 0; code < fingerprints.length; code++) {
                    int[] had = map.getOrDefault(fingerprints[code], NONE);
                    int[] now = Arrays.copyOf(had, had.length + 1);
                    now[had.length] = code;
                    map.put(fingerprints[code], now);
                }
                b = new ByFingerprint(map);
                byFingerprint = b;
            }
            return b.codes.getOrDefault(fp, NONE);
        }
    }
}
