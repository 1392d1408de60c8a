package org.lmdbjava;

/**
 * LMDB's failures as lmdbjava throws them, for tests of the store's one mapping (their
 * constructors are package-private: lmdbjava makes them from LMDB's return codes). A damaged
 * page or a full disk cannot be made on demand without risking the test machine's disk or the JVM.
 */
public final class LmdbFailures {
    private LmdbFailures() {
    }

    public static LmdbException pageCorrupted() {
        return new LmdbNativeException.PageCorruptedException();
    }

    public static LmdbException panic() {
        return new LmdbNativeException.PanicException();
    }

    public static LmdbException transactionFull() {
        return new Txn.TxFullException();
    }

    public static LmdbException badReaderLock() {
        return new Txn.BadReaderLockException();
    }

    public static LmdbException mapResized() {
        return new Dbi.MapResizedException();
    }

    /** An error the operating system reported, by its errno ({@code ENOSPC} is 28, {@code EACCES} 13). */
    public static LmdbException errno(int code, String message) {
        return new LmdbNativeException.ConstantDerivedException(code, message);
    }
}
