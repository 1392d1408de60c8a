package arno.store;

/**
 * Every failure of the store, with a {@link Code} from one catalogue and a message that says
 * what went wrong, where (store directory, document URI, file, line, column) and, where there is
 * one, what the user can do. LMDB, SAX and Saxon exceptions are translated into this class where
 * they enter the store; callers never see an lmdbjava type.
 */
public final class StoreException extends RuntimeException {

    /** The catalogue of store errors. The code is stable; messages may improve. */
    public enum Code {
        /** Another process (or this one) already holds the store directory. */
        LOCKED,
        /** The directory holds a store written by an incompatible format version. */
        INCOMPATIBLE_FORMAT,
        /** The directory holds LMDB data that is not an Arno store. */
        NOT_A_STORE,
        /** A document URI is not an absolute path-like string. */
        INVALID_URI,
        /** No document is stored under the URI. */
        NOT_FOUND,
        /** The XML to store is not well-formed, or uses a construct the store refuses. */
        MALFORMED_XML,
        /** The XML to store is unsafe: external entities, too many entity expansions. */
        UNSAFE_XML,
        /** The store is full: its LMDB map size must be raised. */
        FULL,
        /** The transaction, snapshot or store was used after it was closed. */
        CLOSED,
        /** A stored document or entry is inconsistent; {@code store check} reports these. */
        CORRUPT,
        /** Reading or writing the disk failed. */
        IO
    }

    private final Code code;
    private final String systemId;
    private final int line;
    private final int column;

    StoreException(Code code, String message) {
        this(code, message, null, -1, -1, null);
    }

    StoreException(Code code, String message, Throwable cause) {
        this(code, message, null, -1, -1, cause);
    }

    StoreException(Code code, String message, String systemId, int line, int column, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.systemId = systemId;
        this.line = line;
        this.column = column;
    }

    public Code code() {
        return code;
    }

    /** The file or URI of the input in error, or null when the error is not about input. */
    public String systemId() {
        return systemId;
    }

    /** The line of the input in error (1-based), or -1. */
    public int line() {
        return line;
    }

    /** The column of the input in error (1-based), or -1. */
    public int column() {
        return column;
    }
}
