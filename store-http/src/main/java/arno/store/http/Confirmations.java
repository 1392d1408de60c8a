package arno.store.http;

import arno.http.Conditional;
import arno.store.Snapshot;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.LongConsumer;

/**
 * The store API's rule for writes that can lose much at once: a delete the {@link DeleteGuard}
 * covers, and any change to the model ({@code /_model/KIND.xml}), needs an account with the admin
 * role and an explicit confirmation. For a delete: {@code If-Match} with the entry's ETag (not
 * {@code *}) and {@code ?recursive=N}, N the number of documents it removes (428 without them, the
 * answer giving N; 409 when N is not that number). For a model document: {@code If-Match} with its
 * ETag, or {@code If-None-Match: *} to add a kind. The store's configuration ({@code /_config/})
 * is not written over HTTP at all.
 *
 * <p>MUST: everything is checked on the request's thread against a snapshot, so a refused request
 * never reaches the writer; the count is checked again by the writer in the transaction that
 * deletes ({@link AtomStore#delete(ResourcePath, long, String, LongConsumer)}), so what is removed
 * is exactly what was confirmed, whatever was written meanwhile. A delete that states a count is
 * held to it even where no confirmation is needed.
 */
final class Confirmations {
    /** Where the store's own configuration lives; it is changed by {@code ./arno store index}, never over HTTP. */
    static final String CONFIG_FOLDER = "/_config/";

    private final DeleteGuard guard;

    Confirmations(DeleteGuard guard) {
        this.guard = guard;
    }

    /**
     * Checks a DELETE of the entry at {@code path} as {@code s} sees it and returns the check the
     * writer repeats on the count it is about to remove. {@code admin} refuses (401, 403) unless the
     * request's account has the admin role; it runs only when the delete needs it.
     */
    LongConsumer delete(HttpServletRequest req, Snapshot s, ResourcePath path, Runnable admin) {
        if (path.isRoot()) return count -> { }; // the service answers 405
        String entry = path.entryDocument();
        if (!s.exists(entry)) return count -> { }; // the service answers 404
        long removed = AtomStore.documentsRemoved(s, path);
        String stated = req.getParameter("recursive");
        boolean number = stated != null && stated.strip().matches("[0-9]{1,18}");
        if (!guard.applies(path, removed)) {
            if (stated == null) {
                return count -> {
                    if (guard.applies(path, count)) {
                        throw refused(entry, ErrorMessage.DELETE_GROWN, path, documents(count), entry, count);
                    }
                };
            }
            if (!number) {
                throw refused(entry, ErrorMessage.RECURSIVE_NOT_NUMBER, stated, path, documents(removed), removed);
            }
        } else {
            admin.run();
            Conditional.Tags match = Conditional.tags(req, "If-Match");
            if (match == null || match.any()) {
                throw match == null ? refused(entry, ErrorMessage.DELETE_UNCONFIRMED, path, documents(removed), entry, removed)
                        : refused(entry, ErrorMessage.DELETE_STAR_CONFIRMS_NOTHING, path, documents(removed), entry, removed);
            }
            if (!number) {
                throw stated == null ? refused(entry, ErrorMessage.DELETE_UNCONFIRMED, path, documents(removed), entry, removed)
                        : refused(entry, ErrorMessage.DELETE_COUNT_MISSING, path, documents(removed), entry, removed, stated);
            }
        }
        long confirmed = Long.parseLong(stated.strip());
        if (confirmed != removed) {
            throw refused(entry, ErrorMessage.DELETE_COUNT_WRONG, path, documents(removed), confirmed, removed);
        }
        return count -> {
            if (count != confirmed) {
                throw refused(entry, ErrorMessage.DELETE_COUNT_CHANGED, path, documents(count), confirmed, count);
            }
        };
    }

    /**
     * Checks a PUT of the model document {@code path}: the admin role, and If-Match not {@code *}
     * (its absence, with no {@code If-None-Match: *}, the servlet answers 428 as for every PUT).
     */
    void model(HttpServletRequest req, String path, Runnable admin) {
        admin.run();
        Conditional.Tags match = Conditional.tags(req, "If-Match");
        if (match != null && match.any()) {
            throw refused(path, ErrorMessage.MODEL_NEEDS_ETAG, path);
        }
    }

    /** A write to the store's configuration, refused whoever asks. */
    static RuntimeException configuration(String path, String method) {
        return refused(path, ErrorMessage.CONFIGURATION_NOT_OVER_HTTP, CONFIG_FOLDER, method, path);
    }

    /** "1 document", "7 documents": how many a delete removes. */
    private static String documents(long removed) {
        return removed + (removed == 1 ? " document" : " documents");
    }

    private static RuntimeException refused(String path, ErrorMessage message, Object... values) {
        return message.error(values).at(Where.at("store:" + path));
    }
}
