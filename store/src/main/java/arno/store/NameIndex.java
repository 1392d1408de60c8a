package arno.store;

import static org.agrona.UnsafeAccess.UNSAFE;

import java.util.Arrays;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Cursor;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

/**
 * The per-document structural index: for each name, the positions of the elements of that name
 * ({@link #ELEMENTS}) and of the elements carrying an attribute of that name ({@link #ATTRIBUTES}),
 * in document order. It is what makes {@code //name} an index read, as TinyTree's per-name node
 * lists make it in memory: {@code iterateAxis(DESCENDANT, NameTest)} reads the name's list from the
 * context node's position to its end ({@link Axes.Indexed}) and materialises only those nodes.
 *
 * <h2>Layout</h2>
 * Each (kind, name code) list is cut into runs kept in the {@code docs} database beside the
 * document's chunks, so that deleting or replacing the document removes them in the same sweep:
 * <pre>
 * key    docId(8) NAMES kind(1) code(4) last(8)      big-endian: LMDB's order is (kind, code, position)
 * value  first position, then the gaps to each next one, as unsigned LEB128 varints
 * </pre>
 * Keying a run by its <em>last</em> position lets one {@code MDB_SET_RANGE} seek on
 * (kind, code, from) land on the first run that can hold a position at or after {@code from}: a
 * subtree's part of a list is found in one B+tree descent, then read run by run. A run holds at most
 * {@link #RUN_BYTES} bytes (an element every few bytes of markup makes gaps of one or two bytes, so
 * 2,000 positions or more), which keeps it inside one LMDB page and makes decoding a list, not the
 * B+tree, the cost of {@code count(//name)}.
 *
 * <h2>Building in constant memory</h2>
 * Positions arrive in document order, so each list is already sorted as it is produced: the
 * {@link Builder} appends a name's gaps to that name's open run and writes the run out as soon as it
 * is full. So that a document with many names cannot hold many nearly full runs, all open runs are
 * written out (as shorter runs) whenever together they exceed {@link StoreOptions#indexSpillBytes}
 * (1 MiB). Memory is then bounded by that budget plus one small record per name, whatever the
 * document's size.
 *
 * <h2>Small documents</h2>
 * Documents whose record stream is shorter than {@link Store#indexMinDocumentBytes} (2 KiB) have
 * no index: reading one scans it, as a range under {@link StoreOptions#indexMinRangeBytes} is
 * scanned anyway, and an index of a small Atom entry (a list per name) took as much disk as the
 * entry itself. Whether a document has an index is part of what was written, so the store records
 * that threshold when it is created and reads it back on every open.
 *
 * <h2>Old stores</h2>
 * A store of format 2 has no index; format 3 stores always have one for every XML document, so the
 * read path never needs a fallback: opening a format 2 store is refused as {@code store-format} (as
 * every format change so far), and its documents are moved by export and load.
 */
final class NameIndex {

    static final byte ELEMENTS = 0;
    static final byte ATTRIBUTES = 1;

    /** Most bytes of varints in one run: with the 22-byte key, one run fits in an LMDB leaf page. */
    static final int RUN_BYTES = 1900;

    private NameIndex() {
    }

    /**
     * The runs of (kind, code) from the first one holding a position at or after {@code from}: up
     * to {@code max} of them, in order, into {@code into} (one cursor for all: opening an LMDB
     * cursor and its native key costs more than reading a run). Returns how many were found, 0
     * when the list has no such position. The views are valid while the snapshot is open (for a
     * write transaction's view: until its next write). Synchronized on the snapshot, as all its
     * reads are: one LMDB transaction is used by one thread at a time.
     */
    static int seek(StoredTree t, byte kind, int code, long from, Runs into, int max) {
        Snapshot s = t.snapshot;
        long docId = t.docId;
        synchronized (s) {
            s.checkOpen();
            Keys k = t.keys();
            try (Cursor<DirectBuffer> c = s.store().engine.docs.openCursor(s.txn())) {
                int n = 0;
                boolean found = c.get(k.name(docId, kind, code, from), GetOp.MDB_SET_RANGE);
                while (found && n < max) {
                    DirectBuffer key = c.key();
                    if (key.capacity() != Keys.NAME_KEY || key.getLong(0, Keys.BE) != docId
                            || key.getByte(8) != Keys.NAMES || key.getByte(9) != kind
                            || key.getInt(10, Keys.BE) != code) {
                        break;
                    }
                    DirectBuffer v = c.val();
                    into.address[n] = v.addressOffset();
                    into.length[n] = v.capacity();
                    into.last[n] = key.getLong(14, Keys.BE);
                    n++;
                    found = n < max && c.next();
                }
                return n;
            } catch (LmdbException e) {
                throw StoreFailures.of(e, s.store().directory() + " (document " + docId + ")");
            }
        }
    }

    /** A batch of runs found by one {@link #seek}: where each run's bytes are and its last position. */
    static final class Runs {
        static final int MAX = 64;
        final long[] address;
        final int[] length;
        final long[] last;
        /** In a directory ({@link #directory}): how many runs the whole list has. */
        final int count;

        Runs(int size) {
            address = new long[size];
            length = new int[size];
            last = new long[size];
            count = 0;
        }

        /** A directory of a whole list from the first {@code n} runs of {@code found}: copied, so final fields publish it. */
        private Runs(Runs found, int n) {
            address = Arrays.copyOf(found.address, n);
            length = Arrays.copyOf(found.length, n);
            last = Arrays.copyOf(found.last, n);
            count = n;
        }

        /** The index of the first run whose last position is at or after {@code from} ({@link #count} if none). */
        int find(long from) {
            // runs do not overlap, so their last positions ascend without repeats
            int i = Arrays.binarySearch(last, 0, count, from);
            return i >= 0 ? i : -i - 1;
        }
    }

    /** A directory too long to keep (more than {@link Runs#MAX} runs): such lists are sought batch by batch. */
    static final Runs LONG = new Runs(0);

    /**
     * The runs of a whole (kind, code) list when it has at most {@link Runs#MAX} of them, else
     * {@link #LONG}: one seek, after which a name asked again in this tree (a descendant step from
     * each context node, a query run per page) finds its place by a binary search instead of an LMDB
     * cursor (an open, a seek and a close, several microseconds: a third of a scan of a 100 KB
     * article). Valid as long as the tree (a read snapshot keeps its pages; a write view drops its
     * trees when it writes).
     */
    static Runs directory(StoredTree t, byte kind, int code) {
        Runs found = new Runs(Runs.MAX);
        int n = seek(t, kind, code, 0, found, Runs.MAX);
        return n == Runs.MAX ? LONG : new Runs(found, n);
    }

    /**
     * One list read forward from a position: {@link #next} returns its positions in order, each
     * once, then -1. Checks as it goes that positions rise and that each run ends on the position
     * its key names, so a damaged run fails as {@code store-corrupt} rather than giving wrong nodes.
     * Runs are fetched in batches, a few first (a small subtree needs one), more as the read goes
     * on (a whole-document list needs one seek per {@link Runs#MAX} runs).
     */
    static final class Positions {
        private final StoredTree tree;
        private final byte kind;
        private final int code;
        private Runs runs;
        private int batch;
        private int batchSize = 2;
        private int current;
        private long address;
        private int length;
        private int offset;
        private long runLast;
        private long previous;
        private long from;
        private boolean inRun;
        private boolean continuing;
        private boolean more = true;
        private boolean done;

        Positions(StoredTree tree, byte kind, int code, long from) {
            this.tree = tree;
            this.kind = kind;
            this.code = code;
            this.from = from;
            this.previous = -1;
        }

        /** Makes the next run current; false at the end of the list. */
        private boolean nextRun() {
            if (current + 1 < batch) {
                current++;
            } else {
                if (!more) {
                    done = true;
                    return false;
                }
                if (runs == null) {
                    Runs dir = tree.runDirectory(kind, code);
                    if (dir != LONG) {
                        // the whole list's runs are known: no seek, and never another
                        runs = dir;
                        batch = dir.count;
                        more = false;
                        current = dir.find(from);
                        if (current >= batch) {
                            done = true;
                            return false;
                        }
                        return enterRun();
                    }
                }
                if (runs == null || runs.address.length < batchSize) {
                    runs = new Runs(batchSize);
                }
                batch = seek(tree, kind, code, from, runs, batchSize);
                more = batch == batchSize;
                batchSize = Math.min(Runs.MAX, batchSize * 4);
                current = 0;
                if (batch == 0) {
                    done = true;
                    return false;
                }
            }
            return enterRun();
        }

        private boolean enterRun() {
            address = runs.address[current];
            length = runs.length[current];
            runLast = runs.last[current];
            if (length == 0) {
                throw damaged("an empty run ending at " + runLast);
            }
            offset = 0;
            previous = -1;
            inRun = true;
            return true;
        }

        private void endRun() {
            if (previous != runLast) {
                throw damaged("a run ends at " + previous + " but its key says " + runLast);
            }
            inRun = false;
            from = runLast + 1;
        }

        long next() {
            while (!done) {
                if (!inRun && !nextRun()) {
                    return -1;
                }
                if (offset >= length) {
                    endRun();
                    continue;
                }
                long v = varint();
                long p = previous < 0 ? v : previous + v;
                if (previous >= 0 && v == 0 || p > runLast || continuing && p < from) {
                    throw damaged("positions out of order in the run ending at " + runLast);
                }
                previous = p;
                if (p >= from) {
                    continuing = true;
                    return p;
                }
            }
            return -1;
        }

        /**
         * How many of the positions still to come are below {@code limit}; consumes them. A run
         * wholly after the start and before the limit is counted without decoding: its positions
         * are its varints, one per byte with the high bit clear, counted eight bytes at a time. That
         * trusts the run's bytes (the checker verifies them); the runs at either end are decoded.
         */
        long count(long limit) {
            long n = 0;
            while (!done) {
                if (!inRun) {
                    if (!nextRun()) {
                        break;
                    }
                } else if (offset >= length) {
                    endRun();
                    continue;
                }
                if (offset == 0 && continuing && runLast < limit) {
                    n += terminators(address, length);
                    previous = runLast;
                    endRun();
                    continue;
                }
                long p = next();
                if (p < 0 || p >= limit) {
                    break;
                }
                n++;
            }
            return n;
        }

        /** Bytes with the high bit clear in [a, a + len): the varints ending there. */
        private long terminators(long a, int len) {
            if ((UNSAFE.getByte(a + len - 1) & 0x80) != 0) {
                throw damaged("a varint runs past the end of its run");
            }
            long high = 0;
            int i = 0;
            for (; i + 8 <= len; i += 8) {
                high += Long.bitCount(UNSAFE.getLong(a + i) & 0x8080808080808080L);
            }
            for (; i < len; i++) {
                high += (UNSAFE.getByte(a + i) >>> 7) & 1;
            }
            return len - high;
        }

        private long varint() {
            long v = 0;
            int shift = 0;
            byte x;
            do {
                if (offset >= length || shift > 56) {
                    throw damaged("a varint runs past the end of its run");
                }
                x = UNSAFE.getByte(address + offset++);
                v |= (long) (x & 0x7F) << shift;
                shift += 7;
            } while (x < 0);
            return v;
        }

        private StoreException damaged(String what) {
            return tree.corrupt(-1, "name index of " + (kind == ELEMENTS ? "elements" : "attributes") + " '"
                    + tree.names[code].getDisplayName() + "': " + what);
        }
    }

    /**
     * Builds a document's index while it loads (see the class comment): {@link #add} in document
     * order per list, then {@link #finish}.
     */
    static final class Builder {

        private final Engine engine;
        private final Txn<DirectBuffer> txn;
        private final long docId;
        private final Keys keys = new Keys();
        /** Open runs are all written out when together they exceed this ({@link StoreOptions#indexSpillBytes}). */
        private final int budget;
        /** {@link Store#indexMinDocumentBytes}: a smaller document keeps no index. */
        private final int minDocumentBytes;
        private Run[][] runs = {new Run[64], new Run[64]};
        private long buffered;
        /** Whether a run was written out before {@link #finish} (a full run or a spill). */
        private boolean wrote;

        Builder(Store store, Txn<DirectBuffer> txn, long docId) {
            this.engine = store.engine;
            this.txn = txn;
            this.docId = docId;
            this.budget = store.options().indexSpillBytes();
            this.minDocumentBytes = store.indexMinDocumentBytes;
        }

        /** One open run: its bytes so far and its last position. */
        private static final class Run {
            byte[] bytes;
            int length;
            long last = -1;
        }

        void add(byte kind, int code, long pos) {
            Run[] rs = runs[kind];
            if (code >= rs.length) {
                rs = Arrays.copyOf(rs, Math.max(code + 1, rs.length * 2));
                runs[kind] = rs;
            }
            Run r = rs[code];
            if (r == null) {
                r = new Run();
                rs[code] = r;
            }
            if (r.length + 10 > RUN_BYTES) {
                flush(kind, code, r);
            }
            if (r.bytes == null) {
                r.bytes = new byte[64];
            } else if (r.length + 10 > r.bytes.length) {
                r.bytes = Arrays.copyOf(r.bytes, Math.min(RUN_BYTES + 10, r.bytes.length * 2));
            }
            int before = r.length;
            long v = r.length == 0 ? pos : pos - r.last;
            while ((v & ~0x7FL) != 0) {
                r.bytes[r.length++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            r.bytes[r.length++] = (byte) v;
            r.last = pos;
            buffered += r.length - before;
            if (buffered > budget) {
                spill();
            }
        }

        /** Writes every open run (and lets their buffers go): the memory bound. */
        private void spill() {
            for (byte kind = 0; kind < 2; kind++) {
                Run[] rs = runs[kind];
                for (int code = 0; code < rs.length; code++) {
                    Run r = rs[code];
                    if (r != null && r.length > 0) {
                        flush(kind, code, r);
                        r.bytes = null;
                    }
                }
            }
        }

        private void removeRuns() {
            try (Cursor<DirectBuffer> c = engine.docs.openCursor(txn)) {
                boolean found = c.get(keys.doc(docId, Keys.NAMES), GetOp.MDB_SET_RANGE);
                while (found && c.key().capacity() == Keys.NAME_KEY && c.key().getLong(0, Keys.BE) == docId
                        && c.key().getByte(8) == Keys.NAMES) {
                    c.delete();
                    found = c.get(keys.doc(docId, Keys.NAMES), GetOp.MDB_SET_RANGE);
                }
            }
        }

        private void flush(byte kind, int code, Run r) {
            MutableDirectBuffer v = (MutableDirectBuffer) engine.docs.reserve(txn, keys.name(docId, kind, code, r.last),
                    r.length);
            v.putBytes(0, r.bytes, 0, r.length);
            wrote = true;
            buffered -= r.length;
            r.length = 0;
        }

        /**
         * Writes what is left; for a document of fewer than {@link #minDocumentBytes} record bytes,
         * nothing at all ({@link Store#hasNameIndex}). With the default thresholds nothing was
         * written before then (a run fills at 1,900 bytes of positions, more than 2 KiB of records
         * hold, and the spill budget is 1 MiB); a store created with a higher threshold, or opened
         * with a small spill budget, may have written runs already, which are taken out again.
         */
        void finish(long recordBytes) {
            if (recordBytes < minDocumentBytes) {
                runs = null;
                if (wrote) {
                    removeRuns();
                }
                return;
            }
            spill();
            runs = null;
        }
    }
}
