package arno.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.DirectBufferProxy;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.OwnerOnly;
import arno.xml.Where;

/**
 * The LMDB environment of one store directory, its databases, and the lock file that keeps other
 * processes out. LMDB itself lets several processes share an environment; Arno does not, because
 * the namebase is cached in memory and must see every name that is written.
 *
 * <p>Environment flags: {@code MDB_NOTLS} so that a read snapshot is not tied to the thread that
 * opened it (a request may move between threads, and a thread may hold several snapshots);
 * {@code MDB_WRITEMAP} by default so that a large write transaction is written into the map
 * rather than held in malloc'd memory; {@code MDB_NORDAHEAD} (LMDB then advises the kernel that
 * the map is read at random, {@code MADV_RANDOM}) because without it the kernel reads around each
 * page fault and keeps the file in large page-cache folios (Linux 6.x, ext4), and a write through
 * the map dirties the whole folio: one 4 KiB page touched made up to 2 MiB to write back. A
 * cascading DELETE of 101 documents and 10 rewritten referrers in a store of 40,000 entries
 * dirtied about 26 MB that way, growing with the store's size, against 0.4 MB with the flag (the
 * pages it really changes); a group of 60 creations 10 MB against 0.45 MB. B+tree reads are
 * random anyway, so read-around bought little.
 */
final class Engine implements AutoCloseable {

    static final String LOCK_FILE = "arno-store.lock";
    static final String MAGIC = "arno-store";

    final Path dir;
    final Env<DirectBuffer> env;
    final Dbi<DirectBuffer> meta;
    final Dbi<DirectBuffer> names;
    final Dbi<DirectBuffer> paths;
    final Dbi<DirectBuffer> docs;
    final Dbi<DirectBuffer> changes;
    final Dbi<DirectBuffer> commits;
    final Dbi<DirectBuffer> refs;
    final Dbi<DirectBuffer> refsOut;
    /** Value index entries, see {@link ValueKeys}. */
    final Dbi<DirectBuffer> values;
    /** The value index catalogue: name → id and definition, see {@link Indexer}. */
    final Dbi<DirectBuffer> indexes;
    /** The path summary: path id → parent, counts, name; and (parent, name) → path id. See {@link PathTable}. */
    final Dbi<DirectBuffer> pathSummary;
    final Dbi<DirectBuffer> pathNames;
    private final FileChannel lockChannel;
    private final FileLock lock;
    /** Opened without an fsync per commit (MDB_NOSYNC): what the commits wrote is flushed at close. */
    private boolean syncAtClose;

    private Engine(Path dir, Env<DirectBuffer> env, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.env = env;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.meta = env.openDbi("meta", DbiFlags.MDB_CREATE);
        this.names = env.openDbi("names", DbiFlags.MDB_CREATE);
        this.paths = env.openDbi("paths", DbiFlags.MDB_CREATE);
        this.docs = env.openDbi("docs", DbiFlags.MDB_CREATE);
        this.changes = env.openDbi("changes", DbiFlags.MDB_CREATE);
        this.commits = env.openDbi("commits", DbiFlags.MDB_CREATE);
        this.refs = env.openDbi("refs", DbiFlags.MDB_CREATE);
        this.refsOut = env.openDbi("refsOut", DbiFlags.MDB_CREATE);
        this.values = env.openDbi("values", DbiFlags.MDB_CREATE);
        this.indexes = env.openDbi("indexes", DbiFlags.MDB_CREATE);
        this.pathSummary = env.openDbi("pathSummary", DbiFlags.MDB_CREATE);
        this.pathNames = env.openDbi("pathNames", DbiFlags.MDB_CREATE);
    }

    /** LMDB's data file: its presence is what makes a folder hold a store. */
    static final String DATA_FILE = "data.mdb";

    /**
     * Opens the environment in {@code dir}. With {@code create}, a missing folder and store are
     * made; without, a folder that holds no store is refused with NO_STORE before anything is
     * written (no folder, no lock file, no LMDB file).
     */
    static Engine open(Path dir, StoreOptions options, boolean create) {
        Path abs = dir.toAbsolutePath().normalize();
        if (!create && !(Files.isDirectory(abs) && Files.isRegularFile(abs.resolve(DATA_FILE)))) {
            throw noStore(abs);
        }
        try {
            OwnerOnly.folder(abs);
        } catch (IOException e) {
            throw new StoreException(ErrorMessage.STORE_FOLDER_NOT_CREATED, e, abs, e.getMessage());
        }
        FileChannel channel;
        FileLock lock;
        Path lockPath = abs.resolve(LOCK_FILE);
        try {
            channel = OwnerOnly.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StoreException(ErrorMessage.LOCK_FILE_NOT_OPENED, e, lockPath, e.getMessage());
        }
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new StoreException(ErrorMessage.STORE_OPEN_TWICE, abs);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StoreException(ErrorMessage.LOCK_FAILED, e, lockPath, e.getMessage());
        }
        if (lock == null) {
            String pid = readHolder(lockPath);
            closeQuietly(channel);
            throw pid == null ? new StoreException(ErrorCode.STORE_LOCKED, null, abs)
                    : new StoreException(ErrorMessage.STORE_IN_USE_BY, abs, pid);
        }
        try {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(false);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StoreException(ErrorMessage.LOCK_FILE_NOT_WRITTEN, e, lockPath, e.getMessage());
        }
        Env<DirectBuffer> env;
        List<EnvFlags> flags = new ArrayList<>();
        flags.add(EnvFlags.MDB_NOTLS);
        flags.add(EnvFlags.MDB_NORDAHEAD);
        if (options.writeMap()) {
            flags.add(EnvFlags.MDB_WRITEMAP);
        }
        if (options.noSync()) {
            flags.add(EnvFlags.MDB_NOSYNC);
        }
        try {
            env = Env.create(DirectBufferProxy.PROXY_DB)
                    .setMapSize(options.mapSize())
                    .setMaxDbs(16)
                    .setMaxReaders(options.maxReaders())
                    // data.mdb and lock.mdb owner-only (LMDB's default is 0664): the store is the unpublished content.
                    .open(abs.toFile(), 0600, flags.toArray(new EnvFlags[0]));
        } catch (LmdbException e) {
            releaseQuietly(lock, channel);
            throw StoreFailures.of(e, "store " + abs);
        }
        Engine engine;
        try {
            List<byte[]> existing = env.getDbiNames();
            if (!existing.isEmpty() && existing.stream().noneMatch(n -> "meta".equals(new String(n, StandardCharsets.UTF_8)))) {
                throw new StoreException(ErrorMessage.NOT_ARNO_ENVIRONMENT, abs);
            }
            env.readerCheck();
            engine = new Engine(abs, env, channel, lock);
            engine.syncAtClose = options.noSync();
            engine.checkFormat(create, options);
        } catch (RuntimeException e) {
            env.close();
            releaseQuietly(lock, channel);
            throw e instanceof LmdbException le ? StoreFailures.of(le, "store " + abs) : e;
        }
        return engine;
    }

    static StoreException noStore(Path dir) {
        Path parent = dir.getParent();
        String data = parent != null && dir.getFileName().toString().equals("store") ? parent.toString() : "DATA";
        return new StoreException(ErrorCode.NO_STORE, null, dir, data);
    }

    /**
     * The meta entry of {@link StoreOptions#indexMinDocumentBytes}: which documents have a structural
     * index is part of what was written, so it is recorded once, when the store is created, and
     * read back on every open (see {@link Store#indexMinDocumentBytes}).
     */
    static final String INDEX_MIN_DOCUMENT_BYTES = "indexMinDocumentBytes";

    /** Stamps a new store (when {@code create}), or refuses an existing one of another format. */
    private void checkFormat(boolean create, StoreOptions options) {
        Keys k = new Keys();
        try (Txn<DirectBuffer> txn = env.txnWrite()) {
            DirectBuffer magic = meta.get(txn, k.utf8("magic"));
            if (magic == null) {
                if (meta.stat(txn).entries != 0 || docs.stat(txn).entries != 0) {
                    throw new StoreException(ErrorMessage.NO_MAGIC, dir);
                }
                if (!create) {
                    // an LMDB file left by a creation that never finished: there is no store yet
                    throw noStore(dir);
                }
                meta.put(txn, k.utf8("magic"), Keys.direct(MAGIC.getBytes(StandardCharsets.US_ASCII)));
                putLong(txn, k, "format", Format.VERSION);
                putLong(txn, k, "version", 0);
                putLong(txn, k, "nextDoc", 1);
                putLong(txn, k, "feedStart", 1);
                putLong(txn, k, INDEX_MIN_DOCUMENT_BYTES, options.indexMinDocumentBytes());
                txn.commit();
                return;
            }
            String m = Keys.string(magic, 0, magic.capacity());
            if (!MAGIC.equals(m)) {
                throw new StoreException(ErrorMessage.WRONG_MAGIC, dir, m, MAGIC);
            }
            long format = getLong(txn, k, "format");
            if (format != Format.VERSION) {
                throw new StoreException(ErrorCode.STORE_FORMAT, null, dir, format, Format.VERSION);
            }
            txn.abort();
        }
    }

    long getLong(Txn<DirectBuffer> txn, Keys k, String name) {
        DirectBuffer v = meta.get(txn, k.utf8(name));
        if (v == null || v.capacity() != 8) {
            throw new StoreException(ErrorMessage.META_ENTRY_BAD, dir, name);
        }
        return v.getLong(0, Keys.BE);
    }

    void putLong(Txn<DirectBuffer> txn, Keys k, String name, long value) {
        UnsafeBuffer v = k.value();
        v.putLong(0, value, Keys.BE);
        meta.put(txn, k.utf8(name), k.value(8));
    }

    /** Bytes the data file really uses: LMDB's last page, not the sparse file's apparent size. */
    long usedBytes() {
        return (env.info().lastPageNumber + 1) * (long) env.stat().pageSize;
    }

    @Override
    public void close() {
        try {
            // a clean close leaves nothing only the page cache holds: a machine that stops later loses nothing
            if (syncAtClose) env.sync(true);
            env.close();
        } finally {
            releaseQuietly(lock, lockChannel);
        }
    }

    private static String readHolder(Path lockPath) {
        try {
            String pid = Files.readString(lockPath, StandardCharsets.US_ASCII).trim();
            return pid.isEmpty() ? null : pid;
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    private static void releaseQuietly(FileLock lock, FileChannel channel) {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel below releases it anyway
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
