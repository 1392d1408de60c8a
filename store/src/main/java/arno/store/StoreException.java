package arno.store;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;

/**
 * A failure of the store: an {@link ArnoException} with a code from the one catalogue
 * ({@link ErrorCode#STORE_LOCKED}, {@link ErrorCode#NO_STORE}, {@link ErrorCode#STORE_FORMAT},
 * {@link ErrorCode#UNSUPPORTED_URI}, {@link ErrorCode#NOT_FOUND}, {@link ErrorCode#MALFORMED_XML},
 * {@link ErrorCode#REFUSED_XML}, {@link ErrorCode#STORE_FULL}, {@link ErrorCode#CLOSED},
 * {@link ErrorCode#STORE_CORRUPT}, {@link ErrorCode#IO}; {@link ErrorCode#BAD_REQUEST} for XML asked of a
 * binary document, {@link ErrorCode#BAD_PARAMETER} for a bad media type or limit,
 * {@link ErrorCode#RANGE_NOT_SATISFIABLE} for a byte range outside a binary, {@link ErrorCode#GONE}
 * for changes pruned from the feed) and, for input, a {@link arno.xml.Where}.
 * It exists so that a caller can tell a store failure from others by type; it carries no codes or
 * sentences of its own (they are in {@link ErrorMessage}). LMDB failures become one in
 * {@link StoreFailures}, SAX and Saxon ones where they enter the store: callers never see an
 * lmdbjava type.
 */
public final class StoreException extends ArnoException {

    StoreException(ErrorMessage message, Object... args) {
        super(message, null, args);
    }

    StoreException(ErrorMessage message, Throwable cause, Object... args) {
        super(message, cause, args);
    }

    StoreException(ErrorCode code, Throwable cause, Object... args) {
        super(code, cause, args);
    }

    private StoreException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }

    /**
     * A parse failure as the XML policy translated it ({@link arno.xml.XmlPolicy#translate}),
     * with its code, location and reasons, saying that nothing of the document was kept.
     */
    static StoreException nothingStored(ArnoException parse) {
        if (parse instanceof StoreException s) {
            return s;
        }
        String m = parse.getMessage();
        StoreException e = new StoreException(parse.code(), (m.endsWith(".") ? m.substring(0, m.length() - 1) : m)
                + "; nothing was stored",
                parse.getCause() != null ? parse.getCause() : parse);
        e.at(parse.where()).processorCode(parse.processorCode()).details(parse.details());
        return e;
    }
}
