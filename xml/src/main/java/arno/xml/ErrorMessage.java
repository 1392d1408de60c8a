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
    // ---- bad-request (400)
    BODY_NOT_ACCEPTED(BAD_REQUEST, "a %s request carries no body here; send the request without one, or use a method "
            + "that the route accepts a body with (POST, PUT)"),
    FORM_UNREADABLE(BAD_REQUEST, "the form body cannot be read: %s"),
    BODY_UNREADABLE(BAD_REQUEST, "the request body could not be read: %s"),
    BAD_PERCENT_ENCODING(BAD_REQUEST, "%s has a bad percent-encoding in '%s' (%s); encode '%%' as %%25"),
    BAD_PATH_ENCODING(BAD_REQUEST, "the path %s has a bad percent-encoding (%s); encode '%%' as %%25"),
    UNKNOWN_CHARSET(BAD_REQUEST, "unknown charset '%s' in Content-Type %s"),
    BINARY_NOT_XML(BAD_REQUEST, "%s is binary (%s), not XML; read it as bytes (Snapshot.binary) or ask for its XML "
            + "variant"),
    BINARY_NOT_TEXT(BAD_REQUEST, "%s is binary (%s, %s bytes), not XML, so it cannot be written as text; export it to "
            + "a file (./arno store export %s --out FILE)"),
    SLUG_CHARACTER(BAD_REQUEST, "the Slug '%s' holds %s, a character XML 1.0 cannot carry, so it cannot name or title "
            + "an entry; send the Slug without it"),
    NOT_MEDIA_TYPE(BAD_REQUEST, "the Content-Type '%s' is not a media type: it must be type/subtype, such as "
            + "application/atom+xml;type=entry or image/png"),
    BODY_BROKE_OFF(BAD_REQUEST, "the request body broke off after %s: the connection closed before its end"),
    BODY_FAILED_AFTER(BAD_REQUEST, "the request body could not be read after %s: %s"),
    SLUG_ENCODING(BAD_REQUEST, "the Slug header '%s' has a bad percent-encoding"),
    // ---- malformed-xml (400)
    ENCODING_UNREADABLE(MALFORMED_XML, "%s is not well-formed XML: its encoding cannot be read: %s"),
    INCOMPLETE_DOCUMENT(MALFORMED_XML, "%s produced no complete document; nothing was stored"),
    // ---- refused-xml (400)
    UNWRITABLE_CHARACTER(REFUSED_XML, "%s was refused: its %s holds %s, a character XML 1.0 cannot carry, so the "
            + "document could not be written out again; nothing was stored"),
    UNWRITABLE_CHARACTER_AT_LINE(REFUSED_XML, "%s was refused: its %s (line %s) holds %s, a character XML 1.0 cannot "
            + "carry, so the document could not be written out again; nothing was stored"),
    UNWRITABLE_CHARACTER_AT(REFUSED_XML, "%s was refused: its %s (line %s, column %s) holds %s, a character XML 1.0 "
            + "cannot carry, so the document could not be written out again; nothing was stored"),
    // ---- invalid-xml (400)
    REQUEST_ROOT(INVALID_XML, "the request document is not valid: its root is not req:request"),
    INDEX_CONFIG_INVALID(INVALID_XML, "%s is not valid: %s (the index configuration's schema is %s)"),
    NOT_ATOM_ENTRY(INVALID_XML, "%s is not valid: the document element is {%s}%s; an Atom entry is <entry "
            + "xmlns=\"%s\">"),
    ENTRY_TEXT(INVALID_XML, "%s is not valid: atom:entry has text of its own (\"%s\"); text belongs in its child "
            + "elements"),
    KIND_WITHOUT_TERM(INVALID_XML, "%s is not valid: the kind category (scheme=\"%s\") has no term"),
    TWO_KINDS(INVALID_XML, "%s is not valid: the entry has two kinds, '%s' and '%s'; give one category scheme=\"%s\""),
    LINK_WITHOUT_HREF(INVALID_XML, "%s is not valid: the link with role '%s' has no href"),
    INTROSPECTION_INVALID(INVALID_XML, "%s is not valid: %s (schema arno/schema/introspection.xsd)"),
    KIND_NAME_MISMATCH(INVALID_XML, "%s is not valid: the document of kind '%s' declares name=\"%s\"; the name must "
            + "be the document's (%s)"),
    VARIANT_ATOM_EXTENSION(INVALID_XML, "%s is not valid: a variant may not have the extension '%s': PATH.atom is the "
            + "entry itself"),
    COLLECTION_ACCEPTS_NOTHING(INVALID_XML, "%s is not valid: collection '%s' accepts nothing: give it kinds=\"...\" "
            + "(entries) or media-types=\"...\" (media resources), or both"),
    PATTERN_MISSING(INVALID_XML, "%s is not valid: collection '%s' has naming=\"pattern\" but no pattern=\"...\" "
            + "(e.g. pattern=\"t{n}\")"),
    PATTERN_NAMES_ONE(INVALID_XML, "%s is not valid: the pattern \"%s\" of collection '%s' names only one child: put "
            + "{n} (the next free number) or {slug} in it"),
    PATTERN_NOT_NAMES(INVALID_XML, "%s is not valid: the pattern \"%s\" of collection '%s' does not make names (a "
            + "letter or digit first, at most 100 characters)"),
    PATTERN_UNUSED(INVALID_XML, "%s is not valid: collection '%s' has a pattern but naming=\"%s\"; use "
            + "naming=\"pattern\""),
    // ---- bad-parameter (400)
    BAD_ACCOUNT_NAME(BAD_PARAMETER, "account name '%s' must be non-empty, without ':' or spaces"),
    SHORT_PASSWORD(BAD_PARAMETER, "the password for %s must have at least 8 characters"),
    NO_ROLE(BAD_PARAMETER, "the account %s needs at least one role (read, write, admin)"),
    NO_VALUE_INDEXES(BAD_PARAMETER, "this store has no value indexes (index '%s')"),
    NO_STRUCTURED_SEARCH(BAD_PARAMETER, "this store has no structured search (searching %s)"),
    NEEDS_STORE(BAD_PARAMETER, "%s needs the store, and this query or request has none"),
    LOOKUP_NO_INDEX(BAD_PARAMETER, "there is no index named '%s'; the store's indexes are %s"),
    LOOKUP_NO_INDEXES(BAD_PARAMETER, "there is no index named '%s'; the store has no indexes"),
    SEARCH_FOLDER(BAD_PARAMETER, "a search needs a store folder that starts with '/', like /journals/ (not '%s')"),
    SEARCH_NOT_COMPILED(BAD_PARAMETER, "the search condition \"%s\" does not compile: %s"),
    SEARCH_UNSUPPORTED(BAD_PARAMETER, "the search condition \"%s\" has %s at line %s column %s, which a search does "
            + "not support; %s"),
    LISTING_LIMIT(BAD_PARAMETER, "a listing of %s needs a limit of at least 1, not %s"),
    CHANGES_RANGE(BAD_PARAMETER, "changes since version %s, change %s, at most %s: the version and change must be at "
            + "least 0, the limit at least 1"),
    BAD_MEDIA_TYPE(BAD_PARAMETER, "media type '%s' for %s %s; give one like application/pdf or image/svg+xml"),
    INDEX_CORRELATED(BAD_PARAMETER, "index '%s' is correlated (%s, %s): give its key too"),
    INDEX_UNKEYED(BAD_PARAMETER, "index '%s' has no key; look it up by value alone"),
    NOT_INDEX_TYPE(BAD_PARAMETER, "'%s' is not a %s (index '%s', %s value)"),
    NOT_INDEX_DATE(BAD_PARAMETER, "'%s' is not a date (index '%s', %s value); give an xs:date or xs:dateTime like "
            + "2024-03-01"),
    SOURCE_EMPTY(BAD_PARAMETER, "%s: the source has neither bytes nor a file to read"),
    WITH_ANCESTORS(BAD_PARAMETER, "with-ancestors=%s is neither yes nor no"),
    WITH_DESCENDANTS(BAD_PARAMETER, "with-descendants=%s is neither a depth (0, 1, 2…) nor all"),
    WITH_VARIANTS(BAD_PARAMETER, "with-variants=%s is not a role name (or all)"),
    NOT_LOADABLE_FILE(BAD_PARAMETER, "cannot load %s: a file is an entry (NAME.atom) or a variant (NAME.EXT)"),
    NOT_RESOURCE_NAME(BAD_PARAMETER, "cannot load %s: '%s' is not a resource name (a letter or digit, then at most 99 "
            + "letters, digits, '-' or '_')"),
    RECURSIVE_NOT_NUMBER(BAD_PARAMETER, "recursive=%s states no number: deleting %s removes %s (its entry, its "
            + "variants and everything below it) (?recursive=%s)"),
    NOT_FEED_POSITION(BAD_PARAMETER, "after=%s is not a position in the feed; follow the feed's next link (its after= "
            + "is VERSION.NAME of the last member shown)"),
    WHOLE_NUMBER(BAD_PARAMETER, "%s=%s must be a whole number of at least %s"),
    VERSION_NUMBER(BAD_PARAMETER, "%s=%s must be a version: a whole number of at least 0"),
    PREFIX_NOT_ROOTED(BAD_PARAMETER, "--prefix must start with '/', was '%s'"),
    BATCH_TOO_SMALL(BAD_PARAMETER, "--batch must be at least 1, was %s"),
    // ---- unsupported-uri (400)
    JAR_URI_NOT_OWN(UNSUPPORTED_URI, "%s %s: jar: URIs name Arno's own stylesheets only"),
    SCHEME_NOT_READ(UNSUPPORTED_URI, "%s %s: scheme '%s' cannot be read (file under the allowed folders, http and "
            + "https only)"),
    COLLECTION_NOT_FOLDER(UNSUPPORTED_URI, "collection %s: only folders under the allowed folders (file: URIs) are "
            + "collections"),
    NOT_FILE_URI(UNSUPPORTED_URI, "%s %s is not a usable file URI: %s"),
    EMPTY_URI(UNSUPPORTED_URI, "%s URI is empty"),
    NOT_URI(UNSUPPORTED_URI, "%s %s is not a valid URI: %s"),
    CODE_NOT_FROM_CONTENT(UNSUPPORTED_URI, "stylesheet or module %s: code is read from the sites and package folders, "
            + "not from content"),
    DOCUMENT_NOT_URI(UNSUPPORTED_URI, "document %s is not a URI"),
    STORE_FOLDER_SHAPE(UNSUPPORTED_URI, "store folder '%s' must start and end with '/', like /journals/ja/"),
    BAD_STORE_URI(UNSUPPORTED_URI, "store URI '%s' %s; store URIs are absolute paths like /journals/ja/v1/article.xml"),
    DELETE_PREFIX(UNSUPPORTED_URI, "cannot delete the documents under '%s': a store prefix starts with '/', like "
            + "/journals/ja/"),
    SYSTEM_ID_NOT_URI(UNSUPPORTED_URI, "'%s' is not a URI: %s"),
    STORE_FETCHES_NOTHING(UNSUPPORTED_URI, "the store reads files and the bytes it is given and fetches nothing, so "
            + "it cannot read %s; fetch it first and store the bytes"),
    NOT_RESOURCE_DOCUMENT(UNSUPPORTED_URI, "store:%s is not a resource document: one is PATH.atom (an entry) or "
            + "PATH.EXT (a variant), e.g. store:/journals/ja/v1/i1/a0001.xhtml"),
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
    STORE_WRITE_NEEDS_ACCOUNT(UNAUTHORIZED, "writing to the store needs an account (HTTP Basic) with the %s role"),
    STORE_READ_NEEDS_ACCOUNT(UNAUTHORIZED, "reading the store needs an account (HTTP Basic) with the %s role"),
    // ---- forbidden (403)
    CONFIGURATION_NOT_OVER_HTTP(FORBIDDEN, "the store's configuration (%s) is not changed over HTTP, so %s %s is "
            + "refused; an administrator changes it on the server with ./arno store index add FILE"),
    NEEDS_ADMIN(FORBIDDEN, "%s needs an account with the admin role, which %s lacks: ask an administrator"),
    ROLE_FOR_METHOD(FORBIDDEN, "the account %s lacks the %s role that %s needs here; an administrator can add it in "
            + "the accounts file"),
    // ---- not-found (404)
    NO_ACCOUNT(NOT_FOUND, "there is no account %s in %s ('./arno accounts list' shows them)"),
    NO_COLLECTION_FOLDER(NOT_FOUND, "collection %s: no such folder"),
    NO_CONTENT_DOCUMENT(NOT_FOUND, "no content document at %s"),
    NO_CONTENT_DOCUMENT_BECAUSE(NOT_FOUND, "no content document at %s: %s"),
    NOT_A_FILE(NOT_FOUND, "%s is not a file"),
    SOURCE_UNREADABLE(NOT_FOUND, "%s cannot be read: %s"),
    NO_ERROR_PAGE(NOT_FOUND, "site '%s' has no error page"),
    STYLESHEET_MISSING(NOT_FOUND, "stylesheet %s: %s"),
    STORE_READ_OUTSIDE_REQUEST(NOT_FOUND, "store: documents are read inside a request only, not %s"),
    NOTHING_STORED(NOT_FOUND, "nothing is stored at %s"),
    NO_STORE_OPEN(NOT_FOUND, "no store is open, so %s cannot be read"),
    NO_CONTENT_FOLDER(NOT_FOUND, "no content folder at %s"),
    NO_INDEX(NOT_FOUND, "there is no index named '%s'; the store's indexes are %s"),
    NO_INDEXES(NOT_FOUND, "there is no index named '%s'; the store has no indexes"),
    NO_DOCUMENT(NOT_FOUND, "no document %s in store %s (version %s)"),
    REFERENCES_NO_SOURCE(NOT_FOUND, "cannot set the references of %s: no document is stored there; store it first"),
    NO_VARIANT(NOT_FOUND, "there is no variant %s"),
    NO_SUCH_KIND_NAME(NOT_FOUND, "there is no kind '%s': a kind is a letter followed by at most 63 letters, digits, "
            + "'-' or '_'"),
    ROOT_HAS_NO_ENTRY(NOT_FOUND, "the root / has no entry; its children are the feed /"),
    NO_ENTRY_IN_VERSION(NOT_FOUND, "there is no entry %s (no document %s in version %s)"),
    NO_ENTRY(NOT_FOUND, "there is no entry %s (no document %s)"),
    PATH_NOT_ROOTED(NOT_FOUND, "no resource '%s': the path must start with '/' and not end with one"),
    PATH_BAD_SEGMENT(NOT_FOUND, "no resource '%s': the path has the segment '%s'; a name is a letter or digit "
            + "followed by at most 99 letters, digits, '-' or '_'"),
    BAD_EXTENSION(NOT_FOUND, "no resource '%s': the path is not an extension: 1 to 10 lower-case letters or digits"),
    NO_FOLDER_TO_LOAD(NOT_FOUND, "there is no folder %s to load"),
    NO_COLLECTION_WITHOUT_KIND(NOT_FOUND, "there is no collection '%s' of %s (it has no kind)"),
    NO_COLLECTION_OF(NOT_FOUND, "there is no collection '%s' of %s (kind %s): its collections are %s"),
    NO_INDEX_CONFIGURATION(NOT_FOUND, "index configuration %s does not exist"),
    NO_SUCH_FILE_OR_FOLDER(NOT_FOUND, "cannot read %s: no such file or folder"),
    // ---- no-route (404)
    NO_ROUTE_NAMED(NO_ROUTE, "No route of site '%s' matches route name %s"),
    // ---- method-not-allowed (405)
    ROUTE_METHOD_NOT_ALLOWED(METHOD_NOT_ALLOWED, "route '%s' does not accept %s (allowed: %s)"),
    ROOT_NOT_DELETED(METHOD_NOT_ALLOWED, "the root does not accept DELETE (allowed: GET)"),
    // ---- conflict (409)
    ACCOUNT_EXISTS(CONFLICT, "the account %s exists already in %s; change its password with 'passwd', or remove it "
            + "first"),
    CHILD_EXISTS(CONFLICT, "%s exists; choose another Slug, or replace it with PUT %s"),
    DELETE_COUNT_WRONG(CONFLICT, "deleting %s removes %s (its entry, its variants and everything below it), not %s: "
            + "see what lies below it, then confirm with ?recursive=%s"),
    DELETE_COUNT_CHANGED(CONFLICT, "deleting %s removes %s (its entry, its variants and everything below it) now, not "
            + "the %s confirmed: something was written meanwhile; confirm again with ?recursive=%s"),
    // ---- precondition-failed (412)
    EXISTS_ALREADY(PRECONDITION_FAILED, "%s exists already (version %s); replace it with If-Match: \"%s\""),
    NOT_AT_VERSION_ABSENT(PRECONDITION_FAILED, "%s does not exist, so it is not at version %s (If-Match)"),
    NOT_AT_VERSION(PRECONDITION_FAILED, "%s is at version %s, not %s (If-Match): someone changed it since you read "
            + "it; read it again and reapply your change"),
    IF_MATCH_ANY_NOTHING(PRECONDITION_FAILED, "If-Match: * but nothing is stored at %s"),
    IF_MATCH_NOT_ETAG(PRECONDITION_FAILED, "If-Match %s is not the ETag of %s (its ETags are strong, one version in "
            + "quotes: \"12\")"),
    // ---- body-too-slow (408)
    BODY_NOT_IN_TIME(BODY_TOO_SLOW, "the request body was not complete within the time limit of %s (%s bytes arrived)"),
    BODY_STALLED(BODY_TOO_SLOW, "the request body stopped arriving after %s: nothing more came within the server's "
            + "upload time-out"),
    // ---- body-too-large (413)
    BODY_OVER_LIMIT(BODY_TOO_LARGE, "Request body exceeds the limit of %d bytes"),
    // ---- unsupported-media-type (415)
    WRONG_MEDIA_TYPE(UNSUPPORTED_MEDIA_TYPE, "%s is %s, not %s"),
    WRONG_VARIANT_MEDIA_TYPE(UNSUPPORTED_MEDIA_TYPE, "%s is %s, not %s (variant %s of kind %s; see %s)"),
    POST_WITHOUT_TYPE(UNSUPPORTED_MEDIA_TYPE, "a POST to %s needs a Content-Type: application/atom+xml for an entry, "
            + "or the media type of a media resource"),
    FEED_POSTED(UNSUPPORTED_MEDIA_TYPE, "a feed cannot be posted; post one atom:entry "
            + "(application/atom+xml;type=entry)"),
    POST_TYPE_REFUSED(UNSUPPORTED_MEDIA_TYPE, "a POST to %s (kind %s) is an Atom entry "
            + "(application/atom+xml;type=entry), not %s; see %s"),
    POST_TYPE_OR_MEDIA(UNSUPPORTED_MEDIA_TYPE, "a POST to %s (kind %s) is an Atom entry "
            + "(application/atom+xml;type=entry) or media of type %s, not %s; see %s"),
    ENTRY_TYPE(UNSUPPORTED_MEDIA_TYPE, "an entry is replaced with application/atom+xml;type=entry, not %s"),
    ENTRY_WITHOUT_TYPE(UNSUPPORTED_MEDIA_TYPE, "an entry is replaced with application/atom+xml;type=entry, not a body "
            + "without Content-Type"),
    VARIANT_WITHOUT_TYPE(UNSUPPORTED_MEDIA_TYPE, "a variant is sent with its media type as Content-Type"),
    INTROSPECTION_TYPE(UNSUPPORTED_MEDIA_TYPE, "an introspection document is sent as application/xml, not %s"),
    INTROSPECTION_WITHOUT_TYPE(UNSUPPORTED_MEDIA_TYPE, "an introspection document is sent as application/xml, not a "
            + "body without Content-Type"),
    // ---- range-not-satisfiable (416)
    RANGE_OUTSIDE(RANGE_NOT_SATISFIABLE, "the range '%s' lies outside the %s bytes of %s"),
    // ---- unprocessable (422)
    NO_COLLECTION_IN(UNPROCESSABLE, "there is no collection '%s' in %s: its collections are %s; see %s"),
    COLLECTION_OF_MEDIA(UNPROCESSABLE, "collection '%s' of %s holds media resources (%s), not entries; see %s"),
    ENTRY_KIND_AMBIGUOUS(UNPROCESSABLE, "the entry has no kind (category scheme=\"%s\") and collection '%s' of %s "
            + "accepts several: %s; see %s"),
    KIND_NOT_IN_COLLECTION(UNPROCESSABLE, "kind '%s' may not be in collection '%s' of %s: it accepts %s; see %s"),
    ENTRY_WITHOUT_KIND(UNPROCESSABLE, "the entry has no kind (category scheme=\"%s\" term=\"...\"), and %s accepts "
            + "entries of %s; see %s"),
    ENTRY_WITHOUT_KIND_NONE(UNPROCESSABLE, "the entry has no kind (category scheme=\"%s\" term=\"...\"), and %s "
            + "accepts no entries; see %s"),
    KIND_NOT_TOP_LEVEL(UNPROCESSABLE, "kind '%s' may not be a top-level entry: the root's collections accept %s; see "
            + "%s"),
    KIND_NOT_CHILD(UNPROCESSABLE, "kind '%s' may not be a child of %s: its collections accept %s; see %s"),
    MEDIA_NOT_IN_ENTRY_COLLECTION(UNPROCESSABLE, "collection '%s' of %s does not accept media type %s (it holds "
            + "entries); see %s"),
    MEDIA_NOT_IN_COLLECTION(UNPROCESSABLE, "collection '%s' of %s does not accept media type %s: it accepts %s; see %s"),
    MEDIA_NOWHERE(UNPROCESSABLE, "no collection of %s accepts media type %s: it accepts no media resources; see %s"),
    MEDIA_ELSEWHERE(UNPROCESSABLE, "no collection of %s accepts media type %s: they accept %s; see %s"),
    KIND_CHANGED(UNPROCESSABLE, "the entry %s is of kind '%s' and cannot become '%s'; delete it and create a new one"),
    ENTRY_NOT_VARIANT(UNPROCESSABLE, "%s is the entry, not a variant; replace it as an entry"),
    VARIANTS_WITHOUT_KIND(UNPROCESSABLE, "cannot store %s: the entry %s has no kind, so it has no variants but its "
            + "media"),
    NO_VARIANT_EXTENSION(UNPROCESSABLE, "cannot store %s: kind '%s' has no variant with the extension '%s': its "
            + "variants are %s; see %s"),
    MEDIA_OF_ENTRY(UNPROCESSABLE, "%s is the media of the media-link entry %s; delete the entry, or replace the media"),
    NO_TITLE(UNPROCESSABLE, "%s has no atom:title; every Atom entry needs one (RFC 4287 4.1.2)"),
    LINK_NOT_TO_ENTRY(UNPROCESSABLE, "the link with role '%s' points to '%s', which is not the path of an entry; "
            + "typed links point to entries, e.g. href=\"/journals/ja/v1/i1/a0001/f1.atom\""),
    KIND_UNREADABLE(UNPROCESSABLE, "the introspection document of kind '%s' (%s), which %s needs, cannot be read: %s; "
            + "replace it with a valid one"),
    NO_KIND(UNPROCESSABLE, "there is no kind '%s' (no %s), which %s needs; write the introspection document first"),
    NOT_A_NAME(UNPROCESSABLE, "the name '%s' %s is not a name (a letter or digit, then at most 99 letters, digits, "
            + "'-' or '_')"),
    WRITTEN_TWICE(UNPROCESSABLE, "store:%s is written twice in one transaction; each document may be written once"),
    NO_KIND_NO_CHILDREN(UNPROCESSABLE, "%s has no kind (category scheme=\"%s\"), so it has no collections and takes "
            + "no children"),
    LACKS_REQUIRED(UNPROCESSABLE, "%s lacks the element %s {%s}, which every entry of kind '%s' must have; see %s"),
    LINK_TARGET_MISSING(UNPROCESSABLE, "the link with role '%s' of %s points to %s, which does not exist; typed links "
            + "point to existing entries"),
    LINK_WITHOUT_KIND(UNPROCESSABLE, "%s has no kind, so it may carry no typed links (it has one with role '%s')"),
    LINK_ROLE_UNDECLARED(UNPROCESSABLE, "kind '%s' declares no link role '%s' (%s): its link roles are %s; see %s"),
    LINK_TARGET_KIND(UNPROCESSABLE, "a link with role '%s' of kind '%s' points to entries of kind %s, and %s is of "
            + "kind '%s' (%s); see %s"),
    // ---- precondition-required (428)
    DELETE_GROWN(PRECONDITION_REQUIRED, "deleting %s removes %s (its entry, its variants and everything below it) "
            + "now: an account with the admin role confirms it with If-Match: its ETag (GET %s) and ?recursive=%s"),
    DELETE_UNCONFIRMED(PRECONDITION_REQUIRED, "deleting %s removes %s (its entry, its variants and everything below "
            + "it): an account with the admin role confirms it with If-Match: its ETag (GET %s) and ?recursive=%s"),
    DELETE_STAR_CONFIRMS_NOTHING(PRECONDITION_REQUIRED, "deleting %s removes %s (its entry, its variants and "
            + "everything below it): an account with the admin role confirms it with If-Match: its ETag (GET %s) and "
            + "?recursive=%s (If-Match: * confirms nothing)"),
    DELETE_COUNT_MISSING(PRECONDITION_REQUIRED, "deleting %s removes %s (its entry, its variants and everything below "
            + "it): an account with the admin role confirms it with If-Match: its ETag (GET %s) and ?recursive=%s "
            + "(recursive=%s states no number)"),
    MODEL_NEEDS_ETAG(PRECONDITION_REQUIRED, "changing the model (%s) needs If-Match with its ETag (GET it), which "
            + "If-Match: * does not confirm; If-None-Match: * adds a new kind"),
    ENTRY_BY_POST(PRECONDITION_REQUIRED, "an entry is created by a POST to its parent's folder (%s); a PUT to %s "
            + "replaces it and needs If-Match with its ETag"),
    REPLACE_NEEDS_ETAG(PRECONDITION_REQUIRED, "replacing %s needs If-Match with its ETag (GET it for the current "
            + "one), or If-None-Match: * to create it"),
    // ---- compile-error (500)
    SOURCE_NOT_COMPILED(COMPILE_ERROR, "%s cannot be read: %s"),
    QUERY_NOT_COMPILED_CODE(COMPILE_ERROR, "Stylesheet or query does not compile: %s %s"),
    // ---- query-timeout (503)
    QUERY_STOPPED_SEARCHES(QUERY_TIMEOUT, "the query ran past its time limit of %s and was stopped: %,d documents "
            + "examined, %,d characters of results written (%d searches); raise --timeout or narrow the query (a "
            + "store:search on indexed values reads fewer documents)"),
    // ---- busy (503)
    LOGINS_BUSY(BUSY, "too many logins are being checked; try again in a moment"),
    LOGIN_INTERRUPTED(BUSY, "the login check was interrupted"),
    // ---- shutting-down (503)
    STORE_CLOSING(SHUTTING_DOWN, "the store %s is closing and takes no more writes"),
    // ---- input-unreadable (500)
    UNKNOWN_HOST(INPUT_UNREADABLE, "%s %s: host %s is unknown"),
    TOO_MANY_REDIRECTS(INPUT_UNREADABLE, "%s %s redirects more than %s times"),
    REDIRECT_NOT_URI(INPUT_UNREADABLE, "%s %s redirects to '%s', which is no URI"),
    FETCH_STATUS(INPUT_UNREADABLE, "%s %s answered HTTP %s"),
    FETCH_UNREACHABLE(INPUT_UNREADABLE, "%s %s cannot be reached: %s"),
    FETCH_INTERRUPTED(INPUT_UNREADABLE, "%s %s: interrupted"),
    // ---- transformation-error (500)
    SEARCH_FAILED(TRANSFORMATION_ERROR, "the search condition failed on %s: %s"),
    SEARCH_FAILED_CODE(TRANSFORMATION_ERROR, "the search condition failed on %s: %s %s"),
    QUERY_FAILED(TRANSFORMATION_ERROR, "the query failed: %s"),
    QUERY_FAILED_CODE(TRANSFORMATION_ERROR, "the query failed: %s %s"),
    // ---- output-failed (500)
    PUT_BODY_GONE(OUTPUT_FAILED, "%s %s: %s is gone"),
    PUT_REFUSED(OUTPUT_FAILED, "%s %s refused the PUT: HTTP %s"),
    PUT_REFUSED_SAYING(OUTPUT_FAILED, "%s %s refused the PUT: HTTP %s: %s"),
    PUT_UNREACHABLE(OUTPUT_FAILED, "%s %s cannot be reached: %s"),
    PUT_INTERRUPTED(OUTPUT_FAILED, "%s %s: interrupted"),
    // ---- store-locked (503)
    STORE_OPEN_TWICE(STORE_LOCKED, "store %s is already open in this process; share the open Store instead of opening "
            + "it twice"),
    STORE_IN_USE_BY(STORE_LOCKED, "store %s is in use by another process (pid %s), probably a running './arno serve' "
            + "or a Tomcat serving Arno's WAR; stop it (or undeploy the WAR) first, write through its store API "
            + "(/store/), or give another --data folder"),
    // ---- store-format (500)
    NOT_ARNO_ENVIRONMENT(STORE_FORMAT, "store %s holds an LMDB environment that is not an Arno store (no meta "
            + "database)"),
    NO_MAGIC(STORE_FORMAT, "store %s has data but no Arno magic; it is not an Arno store"),
    WRONG_MAGIC(STORE_FORMAT, "store %s has magic '%s', not '%s'; it is not an Arno store"),
    LMDB_UNREADABLE_FILE(STORE_FORMAT, "%s holds a data.mdb that this LMDB cannot read (%s); it is not an Arno store"),
    // ---- store-corrupt (500)
    CHUNK_SHORT(STORE_CORRUPT, "%s: chunk %s has %s bytes, too few for a document of %s bytes"),
    HEADER_MALFORMED(STORE_CORRUPT, "document %s: header is malformed"),
    HEADER_NAME_MALFORMED(STORE_CORRUPT, "document %s: header URI or media type is malformed"),
    META_ENTRY_BAD(STORE_CORRUPT, "store %s: meta entry '%s' is missing or malformed"),
    META_ENTRY_MALFORMED(STORE_CORRUPT, "store %s: meta entry '%s' is malformed"),
    NAMEBASE_ENTRY(STORE_CORRUPT, "namebase entry is malformed: %s"),
    NAMEBASE_GAP(STORE_CORRUPT, "store %s: namebase has a gap at code %s"),
    NAMEBASE_SHORT(STORE_CORRUPT, "store %s: a document uses name code %s but the namebase has %s names"),
    PATH_NO_SUMMARY(STORE_CORRUPT, "store %s: path %s has no summary entry; run 'arno store check'"),
    PATH_PARENT_MISSING(STORE_CORRUPT, "path %s names parent %s, which has no summary entry (or the summary has a "
            + "cycle); run 'arno store check'"),
    NO_HEADER_AT(STORE_CORRUPT, "%s: document %s has no header"),
    NO_HEADER(STORE_CORRUPT, "document %s has no header"),
    CHUNK_MISSING(STORE_CORRUPT, "document %s: chunk %s is missing"),
    CORRUPT(STORE_CORRUPT, "%s (document %s): %s; run 'arno store check'"),
    CORRUPT_AT(STORE_CORRUPT, "%s (document %s) at byte %s: %s; run 'arno store check'"),
    VALUE_ENTRY_ORPHAN(STORE_CORRUPT, "a value index entry names document %s, which is not stored; run 'arno store "
            + "check'"),
    VALUE_ENTRY_UNTERMINATED(STORE_CORRUPT, "a value index entry has no string terminator; run 'arno store check'"),
    LMDB_DAMAGED(STORE_CORRUPT, "%s: the store's data file is damaged (%s); run './arno store check', or restore the "
            + "store from a copy"),
    STORED_NOT_ENTRY(STORE_CORRUPT, "%s is not an atom:entry"),
    // ---- closed (500)
    READ_AFTER_WRITE(CLOSED, "%s was read inside a write transaction that has written since; read it again from the "
            + "transaction's view"),
    SNAPSHOT_CLOSED(CLOSED, "read snapshot (version %s) of store %s is closed; its documents can no longer be read"),
    VIEW_ENDED(CLOSED, "the view of write transaction %s of store %s has ended with its transaction; its documents "
            + "can no longer be read"),
    STORE_CLOSED(CLOSED, "store %s is closed"),
    TRANSACTION_ENDED(CLOSED, "write transaction on %s is already committed or aborted"),
    TRANSACTION_BROKEN(CLOSED, "write transaction on %s failed and can only be aborted: %s"),
    LMDB_CLOSED(CLOSED, "%s: the store is closed"),
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
    BODY_RATE_NEGATIVE(BAD_CONFIGURATION, "the least body rate must not be negative, not %s"),
    BODY_GRACE_NEGATIVE(BAD_CONFIGURATION, "the body rate's grace must not be negative, not %s"),
    BODY_TIME_LIMIT(BAD_CONFIGURATION, "the body time limit must be positive, not %s"),
    SITES_FOLDER_MISSING(BAD_CONFIGURATION, "sites folder %s does not exist or is not a folder"),
    BODY_LIMIT(BAD_CONFIGURATION, "body limit must be positive, not %s"),
    ROUTE_TIME_LIMIT(BAD_CONFIGURATION, "route time limit must be positive, not %s"),
    SOURCE_CACHE_NEGATIVE(BAD_CONFIGURATION, "source cache must not be negative, not %s"),
    WORKERS(BAD_CONFIGURATION, "workers must be at least 1, not %s"),
    QUEUE(BAD_CONFIGURATION, "queue must hold at least 1 request, not %s"),
    INDEX_NAME_TWICE(BAD_CONFIGURATION, "two indexes are named '%s'; names must be unique"),
    NOT_INDEX_CONFIG(BAD_CONFIGURATION, "%s is not an index configuration: its root must be {%s}indexes"),
    INDEX_UNNAMED(BAD_CONFIGURATION, "an index in %s has no name"),
    INDEX_TYPE(BAD_CONFIGURATION, "%s: type '%s' is not string, number or date"),
    INDEX_NORMALISE(BAD_CONFIGURATION, "%s: normalise '%s' is not case or space"),
    INDEX_NORMALISE_TYPE(BAD_CONFIGURATION, "%s: normalise applies to strings; a %s index has no string to normalise"),
    INDEX_INCOMPLETE(BAD_CONFIGURATION, "%s needs both match and value"),
    INDEX_PREFIX_TWICE(BAD_CONFIGURATION, "prefix '%s' stands for both %s and %s in one index; use two prefixes"),
    INDEX_NAME_BAD(BAD_CONFIGURATION, "index name '%s' is not a name: use letters, digits, '_', '.', '-' (at most 64, "
            + "starting with a letter or '_'), like doi or issue-id"),
    INDEX_MATCH_BAD(BAD_CONFIGURATION, "index '%s': match must be a path of element names, like "
            + "atom:entry/atom:category"),
    INDEX_VALUE_PATH_BAD(BAD_CONFIGURATION, "index '%s': value and key are relative paths (child steps, optionally "
            + "ending in @attribute), not //…"),
    PATH_EMPTY(BAD_CONFIGURATION, "%s '%s' is not a supported path: it is empty"),
    PATH_ATTRIBUTE_NOT_LAST(BAD_CONFIGURATION, "%s '%s' is not a supported path: an attribute can only be the last "
            + "step"),
    PATH_EMPTY_STEP(BAD_CONFIGURATION, "%s '%s' is not a supported path: it has an empty step"),
    PATH_NOT_NAME(BAD_CONFIGURATION, "%s '%s' is not a supported path: '%s' is not a name (only element names, "
            + "@attribute, '/' and a leading '//' are allowed: no wildcards or predicates)"),
    PATH_PREFIX_UNDECLARED(BAD_CONFIGURATION, "%s '%s' is not a supported path: prefix '%s' is not declared; declare "
            + "it on the index element or above (xmlns:%s=\"…\")"),
    INDEX_CONFIG_BINARY(BAD_CONFIGURATION, "%s must be the index configuration (XML), not a binary document"),
    INDEX_CONFIG_UNREADABLE(BAD_CONFIGURATION, "cannot read %s: %s"),
    MAP_SIZE_SMALL(BAD_CONFIGURATION, "store map size must be at least 1M, not %s bytes"),
    READERS_TOO_FEW(BAD_CONFIGURATION, "store readers must be at least 1, not %s"),
    NO_XML_POLICY(BAD_CONFIGURATION, "the store needs an XML policy"),
    CHANGE_RETENTION(BAD_CONFIGURATION, "store change retention must be zero (keep for ever) or positive, not %s"),
    INDEX_MIN_DOCUMENT(BAD_CONFIGURATION, "store index minimum document bytes must be 0 or more, not %s"),
    INDEX_MIN_RANGE(BAD_CONFIGURATION, "store index minimum range bytes must be 0 or more, not %s"),
    INDEX_SPILL(BAD_CONFIGURATION, "store index spill bytes must be at least 1, not %s"),
    COLUMN_BUDGET(BAD_CONFIGURATION, "store column budget must be 0 or more bytes, not %s"),
    STORE_BODY_LIMIT(BAD_CONFIGURATION, "store body limit must be at least 1 byte, not %s"),
    STORE_ENTRY_LIMIT(BAD_CONFIGURATION, "store entry limit must be between 1K and 16M, not %s bytes"),
    STORE_GROUP_COMMIT(BAD_CONFIGURATION, "store group commit must be at least 1 operation, not %s"),
    STORE_PAGE_SIZES(BAD_CONFIGURATION, "store page sizes must satisfy 1 <= size <= max, not %s and %s"),
    STORE_HREF_PREFIX(BAD_CONFIGURATION, "the store's href prefix must be a path like /store, not '%s'"),
    STORE_HOST(BAD_CONFIGURATION, "a host the store answers as must be a host name, not '%s'"),
    GUARD_DEPTH(BAD_CONFIGURATION, "the depth of guarded deletes must not be negative, not %s"),
    GUARD_DOCUMENTS(BAD_CONFIGURATION, "the documents of an unguarded delete must not be negative, not %s"),
    // ---- site-error (500)
    CODE_NOT_COMPILED(SITE_ERROR, "%s does not compile: %s"),
    PACKAGE_TWICE(SITE_ERROR, "%s: package %s is also declared by %s"),
    PACKAGE_CYCLE(SITE_ERROR, "packages use each other in a cycle: %s"),
    PACKAGE_NOT_ON_CLASS_PATH(SITE_ERROR, "%s lists %s, which is not on the class path"),
    PACKAGE_LISTS_UNREADABLE(SITE_ERROR, "cannot read the package lists %s on the class path: %s"),
    PACKAGE_NOT_IMPORTED(SITE_ERROR, "cannot import package %s: %s"),
    PACKAGE_UNREADABLE(SITE_ERROR, "cannot read shared package %s: %s"),
    PACKAGE_NOT_COMPILED(SITE_ERROR, "shared package %s does not compile: %s"),
    PACKAGE_FOLDER_UNLISTED(SITE_ERROR, "cannot list %s: %s"),
    PACKAGE_UNNAMED(SITE_ERROR, "%s: xsl:package has no name attribute"),
    SITE_NO_ROOT(SITE_ERROR, "%s: no root element"),
    SITE_NOT_LOADED(SITE_ERROR, "%s: the site cannot be loaded: %s"),
    SITE_NAME_TWICE(SITE_ERROR, "%s: site name '%s' is also used by %s"),
    SITE_PREFIX_TWICE(SITE_ERROR, "%s: prefix %s is also used by %s"),
    SITES_FOLDER_UNLISTED(SITE_ERROR, "cannot list the sites folder %s: %s"),
    STATIC_FOLDER_CLASH(SITE_ERROR, "site %s has a static folder %s that would be served at %s/, where %s is served; "
            + "move its files there or give the site a prefix"),
    ROUTE_NAME_TWICE(SITE_ERROR, "%s: route name '%s' is used twice"),
    CACHED_ROUTE_WITHOUT_GET(SITE_ERROR, "%s: route '%s' caches its pages but does not answer GET; only GET and HEAD "
            + "responses are cached"),
    SECOND_ERROR_TEMPLATE(SITE_ERROR, "%s: a second error template for every status"),
    SECOND_STATUS_TEMPLATE(SITE_ERROR, "%s: a second error template for status %s"),
    UNEXPECTED_ELEMENT(SITE_ERROR, "%s: unexpected element %s"),
    SITE_UNREACHABLE(SITE_ERROR, "%s: a site needs a host, a prefix, or both"),
    CACHE_MEMORY_SMALL(SITE_ERROR, "%s: cache memory=\"%s\" is too small; give at least 64K"),
    SOURCES_NONE(SITE_ERROR, "%s: sources items=\"0\" would keep none; to ask the servers at every use give "
            + "revalidate=\"0s\""),
    SOURCES_MEMORY_SMALL(SITE_ERROR, "%s: sources memory=\"%s\" is too small; give at least 64K"),
    FRAGMENTS_MEMORY_SMALL(SITE_ERROR, "%s: fragments memory=\"%s\" is too small; give at least 64K, or items=\"0\""),
    TOO_MANY_ITEMS(SITE_ERROR, "%s: %s=\"%s\" is too many; give at most %s"),
    CACHE_MAX_SIZE(SITE_ERROR, "%s: cache max-size must be at least 1 byte"),
    CACHE_TTL_ZERO(SITE_ERROR, "%s: cache ttl=\"%s\" would keep nothing; leave the route uncached instead"),
    NOT_A_SIZE(SITE_ERROR, "%s: %s=\"%s\" is not a size such as 64M"),
    NOT_A_TIME(SITE_ERROR, "%s: %s=\"%s\" is not a time such as 10m"),
    STAGE_NOT_ONE(SITE_ERROR, "%s: %s of route '%s' must have exactly one of xslt, xquery, java"),
    MODE_NOT_XSLT(SITE_ERROR, "%s: mode applies to XSLT stages only"),
    STAGE_SOURCE_MISSING(SITE_ERROR, "%s: %s of route '%s': %s does not exist"),
    STAGE_OUTSIDE_SITES(SITE_ERROR, "%s: the stage's code lies outside the sites folder: %s"),
    MODE_PREFIX_UNDECLARED(SITE_ERROR, "%s: mode '%s' uses the undeclared prefix '%s'"),
    NOT_A_SAX_STAGE(SITE_ERROR, "%s: %s does not implement %s"),
    STAGE_CLASS_MISSING(SITE_ERROR, "%s: Java stage class %s is not on the class path"),
    STAGE_NOT_CREATED(SITE_ERROR, "%s: cannot create Java stage %s: %s"),
    NOT_A_DURATION(SITE_ERROR, "%s: timeout '%s' is not a duration such as PT5S"),
    // ---- io (500)
    ACCOUNTS_NOT_WRITTEN(IO, "cannot write the accounts file %s: %s"),
    ACCOUNTS_NOT_READ(IO, "cannot read the accounts file %s: %s"),
    NAMED_UNREADABLE(IO, "%s %s cannot be read: %s"),
    UNREADABLE(IO, "%s cannot be read: %s"),
    CANNOT_LIST(IO, "cannot list %s: %s"),
    STORE_FOLDER_NOT_CREATED(IO, "cannot create store folder %s: %s; check the --data folder and its permissions"),
    LOCK_FILE_NOT_OPENED(IO, "cannot open the store's lock file %s: %s"),
    LOCK_FAILED(IO, "cannot lock %s: %s"),
    LOCK_FILE_NOT_WRITTEN(IO, "cannot write the store's lock file %s: %s"),
    EXPORT_FAILED(IO, "cannot export %s: %s"),
    BYTES_UNREADABLE(IO, "cannot read the bytes to store as %s: %s; nothing was stored"),
    LMDB_READERS_FULL(IO, "%s: too many read snapshots are open at once; close snapshots or raise maxReaders"),
    LMDB_TRANSACTION_FULL(IO, "%s: one transaction writes more than LMDB can hold in one (MDB_TXN_FULL); write fewer "
            + "documents at once"),
    LMDB_MAP_RESIZED(IO, "%s: another process grew the store's map while it was open (MDB_MAP_RESIZED); open the "
            + "store again"),
    LMDB_DISK_FULL(IO, "%s: the disk is full (%s); free space, or move the store with --data"),
    LMDB_NOT_PERMITTED(IO, "%s: the store's files cannot be written (%s); check the --data folder and its permissions"),
    LMDB_NO_MEMORY(IO, "%s: there is not enough memory to map the store (%s); give a smaller map size (--map-size, or "
            + "storeMapSize in the configuration)"),
    LMDB_FAILED(IO, "%s: LMDB failed: %s"),
    SPOOLED_BODY_UNREADABLE(IO, "the spooled request body %s cannot be read: %s"),
    BODY_NOT_READ(IO, "the request body could not be read: %s"),
    PUT_BODY_UNREADABLE(IO, "the body of store:%s cannot be read from %s: %s"),
    PUT_ENTRY_UNREADABLE(IO, "the entry store:%s cannot be read from %s: %s"),
    CANNOT_WRITE(IO, "cannot write %s: %s"),
    ANSWER_NOT_WRITTEN(IO, "cannot write the answer: %s"),
    RESULT_NOT_WRITTEN(IO, "cannot write the query's result: %s"),
    // ---- internal (500)
    NOT_A_PIPELINE_STAGE(INTERNAL, "ContentFetch runs only as a pipeline stage (no Saxon configuration reached it)"),
    RESPONSE_NOT_WRITTEN(INTERNAL, "cannot write a response: %s"),
    PLAN_NOT_XML(INTERNAL, "the plan is not XML: %s"),
    LMDB_MISUSE(INTERNAL, "%s: LMDB refused how Arno used it (%s); this is a bug, please report it with the log"),
    UNEXPECTED_ON(INTERNAL, "unexpected failure on %s %s: %s");

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

    /** {@code first} and then {@code rest}: for helpers whose messages all begin with the same value (a place, a name). */
    public static Object[] prepend(Object first, Object... rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
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
