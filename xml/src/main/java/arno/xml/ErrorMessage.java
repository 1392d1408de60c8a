package arno.xml;

import static arno.xml.ErrorCode.*;

/**
 * The sentences of the codes that say more than one thing. Each constant names the
 * {@link ErrorCode} a client sees (its stable {@code code} and HTTP status) and the sentence with a
 * {@code %s} for each value the call site passes, as BaseX's {@code QueryError} pairs an error code
 * with its description: {@code throw ErrorMessage.NO_ENTRY.error(path, document)}. A code that
 * says one thing only says it in its own {@link ErrorCode#template()}. Grouped by code, in the
 * order of {@link ErrorCode}.
 */
public enum ErrorMessage {
    // ---- malformed-xml (400)
    ENCODING_UNREADABLE(MALFORMED_XML, "%s is not well-formed XML: its encoding cannot be read: %s"),
    // ---- bad-parameter (400)
    BAD_ACCOUNT_NAME(BAD_PARAMETER, "account name '%s' must be non-empty, without ':' or spaces"),
    SHORT_PASSWORD(BAD_PARAMETER, "the password for %s must have at least 8 characters"),
    NO_ROLE(BAD_PARAMETER, "the account %s needs at least one role (read, write, admin)"),
    NO_VALUE_INDEXES(BAD_PARAMETER, "this store has no value indexes (index '%s')"),
    NO_STRUCTURED_SEARCH(BAD_PARAMETER, "this store has no structured search (searching %s)"),
    NEEDS_STORE(BAD_PARAMETER, "%s needs the store, and this query or request has none"),
    // ---- unsupported-uri (400)
    JAR_URI_NOT_OWN(UNSUPPORTED_URI, "%s %s: jar: URIs name Arno's own stylesheets only"),
    SCHEME_NOT_READ(UNSUPPORTED_URI, "%s %s: scheme '%s' cannot be read (file under the allowed folders, http and "
            + "https only)"),
    COLLECTION_NOT_FOLDER(UNSUPPORTED_URI, "collection %s: only folders under the allowed folders (file: URIs) are "
            + "collections"),
    NOT_FILE_URI(UNSUPPORTED_URI, "%s %s is not a usable file URI: %s"),
    EMPTY_URI(UNSUPPORTED_URI, "%s URI is empty"),
    NOT_URI(UNSUPPORTED_URI, "%s %s is not a valid URI: %s"),
    // ---- outside-roots (403)
    OUTSIDE_NO_ROOTS(OUTSIDE_ROOTS, "%s %s is outside the allowed folders (none are configured)"),
    // ---- uri-refused (403)
    SCHEME_REFUSED(URI_REFUSED, "%s %s is refused: scheme '%s' is not allowed (allowed: %s)"),
    NO_HOST_REFUSED(URI_REFUSED, "%s %s is refused: it names no host"),
    HOST_REFUSED(URI_REFUSED, "%s %s is refused: host %s is not among the allowed hosts %s"),
    PRIVATE_ADDRESS_REFUSED(URI_REFUSED, "%s %s is refused: host %s has the %s address %s, and private addresses are "
            + "not allowed"),
    // ---- unauthorized (401)
    NO_CREDENTIALS(UNAUTHORIZED, "no credentials (HTTP Basic) were given"),
    CREDENTIALS_NOT_BASIC(UNAUTHORIZED, "the credentials are not HTTP Basic with a name and a password"),
    WRONG_CREDENTIALS(UNAUTHORIZED, "the account name or password is wrong"),
    // ---- not-found (404)
    NO_ACCOUNT(NOT_FOUND, "there is no account %s in %s ('./arno accounts list' shows them)"),
    NO_COLLECTION_FOLDER(NOT_FOUND, "collection %s: no such folder"),
    NO_CONTENT_DOCUMENT(NOT_FOUND, "no content document at %s"),
    NO_CONTENT_DOCUMENT_BECAUSE(NOT_FOUND, "no content document at %s: %s"),
    // ---- conflict (409)
    ACCOUNT_EXISTS(CONFLICT, "the account %s exists already in %s; change its password with 'passwd', or remove it "
            + "first"),
    // ---- busy (503)
    LOGINS_BUSY(BUSY, "too many logins are being checked; try again in a moment"),
    LOGIN_INTERRUPTED(BUSY, "the login check was interrupted"),
    // ---- input-unreadable (500)
    UNKNOWN_HOST(INPUT_UNREADABLE, "%s %s: host %s is unknown"),
    TOO_MANY_REDIRECTS(INPUT_UNREADABLE, "%s %s redirects more than %s times"),
    REDIRECT_NOT_URI(INPUT_UNREADABLE, "%s %s redirects to '%s', which is no URI"),
    FETCH_STATUS(INPUT_UNREADABLE, "%s %s answered HTTP %s"),
    FETCH_UNREACHABLE(INPUT_UNREADABLE, "%s %s cannot be reached: %s"),
    FETCH_INTERRUPTED(INPUT_UNREADABLE, "%s %s: interrupted"),
    // ---- output-failed (500)
    PUT_BODY_GONE(OUTPUT_FAILED, "%s %s: %s is gone"),
    PUT_REFUSED(OUTPUT_FAILED, "%s %s refused the PUT: HTTP %s"),
    PUT_REFUSED_SAYING(OUTPUT_FAILED, "%s %s refused the PUT: HTTP %s: %s"),
    PUT_UNREACHABLE(OUTPUT_FAILED, "%s %s cannot be reached: %s"),
    PUT_INTERRUPTED(OUTPUT_FAILED, "%s %s: interrupted"),
    // ---- bad-configuration (500)
    ACCOUNTS_LINE_SHAPE(BAD_CONFIGURATION, "accounts file %s line %s: expected name:%s:iterations:salt:hash[:roles]"),
    ACCOUNTS_LINE_ENCODING(BAD_CONFIGURATION, "accounts file %s line %s: the iterations must be a number and the salt "
            + "and hash Base64"),
    ACCOUNTS_LINE_ROLE(BAD_CONFIGURATION, "accounts file %s line %s: unknown role '%s'; roles are read, write and "
            + "admin, separated by commas"),
    FOLDER_UNUSABLE(BAD_CONFIGURATION, "folder %s cannot be used: it does not exist or cannot be read"),
    FOLDER_NOT_CREATED(BAD_CONFIGURATION, "folder %s cannot be created: %s"),
    OUTBOUND_SCHEME(BAD_CONFIGURATION, "outbound scheme '%s' is not supported: only http and https"),
    OUTBOUND_TIMEOUT(BAD_CONFIGURATION, "outbound timeout must be positive, not %s"),
    OUTBOUND_REDIRECTS(BAD_CONFIGURATION, "outbound redirects must not be negative"),
    XML_LIMITS(BAD_CONFIGURATION, "XML limits must be positive: %s expansions, %s entity characters, depth %s, "
            + "attributes of %s characters"),
    // ---- io (500)
    ACCOUNTS_NOT_WRITTEN(IO, "cannot write the accounts file %s: %s"),
    ACCOUNTS_NOT_READ(IO, "cannot read the accounts file %s: %s"),
    NAMED_UNREADABLE(IO, "%s %s cannot be read: %s"),
    UNREADABLE(IO, "%s cannot be read: %s"),
    // ---- internal (500)
    NOT_A_PIPELINE_STAGE(INTERNAL, "ContentFetch runs only as a pipeline stage (no Saxon configuration reached it)");

    private final ErrorCode code;
    private final String template;
    private final int arity;

    ErrorMessage(ErrorCode code, String template) {
        this.code = code;
        this.template = template;
        this.arity = Templates.arity(template);
    }

    /** The code a client sees: its stable name and HTTP status. */
    public ErrorCode code() {
        return code;
    }

    /** The sentence, with a {@code %s} (or {@code %d}) for each value a call site passes. */
    public String template() {
        return template;
    }

    /** How many values {@link #template()} takes. */
    public int arity() {
        return arity;
    }

    /** The sentence with {@code args} put into the template. */
    public String format(Object... args) {
        return Templates.format(this, template, arity, args);
    }

    /** A new exception of this message's code, its message the template filled with {@code args}. */
    public ArnoException error(Object... args) {
        return new ArnoException(this, null, args);
    }

    /** As {@link #error(Object...)}, caused by {@code cause}. */
    public ArnoException error(Throwable cause, Object... args) {
        return new ArnoException(this, cause, args);
    }
}
