package arno.store;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.LmdbException;
import org.lmdbjava.LmdbNativeException;
import org.lmdbjava.Txn;

/**
 * The one place where LMDB's failures become store errors, as lmdbjava's {@code ResultCodeMapper}
 * is the one place where LMDB's return codes become exceptions. Every {@code catch (LmdbException)}
 * in the store hands its exception here with what it was doing, so that the same failure reads the
 * same wherever it happens and callers never see an lmdbjava type:
 *
 * <ul>
 * <li>the map is full: {@code store-full} (507), saying how to raise the map size;
 * <li>a data file LMDB cannot read, or of another LMDB version: {@code store-format};
 * <li>a damaged page, LMDB's panic, a page or database that is not where the file says:
 *     {@code store-corrupt}, pointing to {@code ./arno store check};
 * <li>the environment closed under the caller: {@code closed};
 * <li>a transaction or a reader slot used in a way LMDB refuses (a bug in Arno): {@code internal};
 * <li>the reader table or a transaction full, the map grown by another process, and the operating
 *     system's refusals (no space, no permission, no memory): {@code io}, each with what to do.
 * </ul>
 *
 * Statuses are those the store always answered with; only damaged files and misuse, once plain
 * {@code io}, now say what they are (all three are 500).
 */
final class StoreFailures {
    // errno values LMDB passes through from the operating system (the same on Linux and macOS)
    private static final int EPERM = 1;
    private static final int ENOMEM = 12;
    private static final int EACCES = 13;
    private static final int ENOSPC = 28;
    private static final int EROFS = 30;

    private StoreFailures() {
    }

    /** The store error for {@code e}, which happened while working on {@code what} ("store DIR", "store:/a.xml"). */
    static StoreException of(LmdbException e, String what) {
        StoreException s = map(e, what);
        s.at(Where.at(what));
        return s;
    }

    private static StoreException map(LmdbException e, String what) {
        String reason = e.getMessage();
        if (e instanceof Env.MapFullException) {
            return new StoreException(ErrorCode.STORE_FULL, e, what);
        }
        if (e instanceof Env.FileInvalidException || e instanceof Env.VersionMismatchException
                || e instanceof Dbi.IncompatibleException) {
            return new StoreException(ErrorMessage.LMDB_UNREADABLE_FILE, e, what, reason);
        }
        if (e instanceof LmdbNativeException.PageCorruptedException || e instanceof LmdbNativeException.PanicException
                || e instanceof LmdbNativeException.PageNotFoundException) {
            return new StoreException(ErrorMessage.LMDB_DAMAGED, e, what, reason);
        }
        if (e instanceof Env.AlreadyClosedException) {
            return new StoreException(ErrorMessage.LMDB_CLOSED, e, what);
        }
        if (e instanceof Env.ReadersFullException) {
            return new StoreException(ErrorMessage.LMDB_READERS_FULL, e, what);
        }
        if (e instanceof Txn.TxFullException || e instanceof Dbi.DbFullException
                || e instanceof LmdbNativeException.PageFullException || e instanceof Cursor.FullException) {
            return new StoreException(ErrorMessage.LMDB_TRANSACTION_FULL, e, what);
        }
        if (e instanceof Dbi.MapResizedException) {
            return new StoreException(ErrorMessage.LMDB_MAP_RESIZED, e, what);
        }
        if (e instanceof Txn.BadReaderLockException || e instanceof Txn.BadException
                || e instanceof Txn.NotReadyException || e instanceof Txn.ReadOnlyRequiredException
                || e instanceof Txn.ReadWriteRequiredException || e instanceof Txn.ResetException
                || e instanceof Txn.NotResetException || e instanceof Cursor.ClosedException || e instanceof Dbi.BadDbiException
                || e instanceof Dbi.BadValueSizeException || e instanceof Env.AlreadyOpenException
                || e instanceof LmdbNativeException.TlsFullException) {
            return new StoreException(ErrorMessage.LMDB_MISUSE, e, what, reason);
        }
        if (e instanceof LmdbNativeException.ConstantDerivedException n) {
            switch (n.getResultCode()) {
                case ENOSPC:
                    return new StoreException(ErrorMessage.LMDB_DISK_FULL, e, what, reason);
                case EACCES, EPERM, EROFS:
                    return new StoreException(ErrorMessage.LMDB_NOT_PERMITTED, e, what, reason);
                case ENOMEM:
                    return new StoreException(ErrorMessage.LMDB_NO_MEMORY, e, what, reason);
                default:
                    break;
            }
        }
        return new StoreException(ErrorMessage.LMDB_FAILED, e, what, reason);
    }
}
