package arno.xml;

import static arno.xml.ErrorCode.*;

/**
 * The sentences of the codes that say more than one thing. Each constant names the
 * {@link ErrorCode} a client sees (its stable {@code code} and HTTP status) and the sentence with a
 * {@code %s} for each value the call site passes, as BaseX's {@code QueryError} pairs an error code
 * with its description: {@code throw ErrorMessage.NO_ENTRY.error(path, document)}. A code that
 * says one thing only says it in its own {@link ErrorCode#template()}; {@link ErrorCode#messages()}
 * lists a code's constants here. Grouped by code, in the order of {@link ErrorCode}.
 *
 * <p>Values are names, paths, numbers and the words of other processors: a parser's or Saxon's
 * message, the search parser's diagnosis ("an unclosed string"), a checker's finding about a
 * stored record. The sentence around them is here. Several constants may share a sentence under
 * different codes (a refusal read back from the server keeps the server's code), never under one.
 * A helper whose messages all begin (or end) with the same value, such as the place in site.xml,
 * passes it with {@link #prepend}.
 */
public enum ErrorMessage {
    // ---- bad-request (400)
    BODY_NOT_ACCEPTED(BAD_REQUEST, "a %s request carries no body here; send the request without one, or use a method "
            + "that the route accepts a body with (POST, PUT)"),
    FORM_UNREADABLE(BAD_REQUEST, "the form body cannot be read: %s"),
    BODY_UNREADABLE(BAD_REQUEST, "the request body could not be read: %s"),
    REQUEST_HEAD_TOO_LARGE(BAD_REQUEST, "the request line and headers are larger than the server reads (%s); a long"
            + " query string (a search query has at most 1,000 characters) must be shorter"),
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
    CONFIG_ENCODING(MALFORMED_XML, "configuration file %s is not well-formed XML: %s"),
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
    BATCH_INVALID(INVALID_XML, "batch document is not valid: %s (the batch schema: GET /batch/schema)"),
    BATCH_UNEXPECTED_ELEMENT(INVALID_XML, "batch document is not valid: unexpected element %s"),
    BATCH_NO_INPUT(INVALID_XML, "batch document is not valid: batch has no input"),
    BATCH_ROOT(INVALID_XML, "batch document is not valid: the root element must be batch in namespace %s, not {%s}%s"),
    BATCH_TIME_LIMIT(INVALID_XML, "batch document is not valid: @time-limit must be a positive duration in days, "
            + "hours, minutes and seconds (PT30S, PT10M), not '%s'"),
    BATCH_INTEGER(INVALID_XML, "batch document is not valid: @%s must be an integer, not '%s'"),
    BATCH_INTEGER_AT_LEAST(INVALID_XML, "batch document is not valid: @%s must be an integer of at least %s, not '%s'"),
    BATCH_BEFORE_INPUT(INVALID_XML, "batch document is not valid: %s must come before the first input"),
    BATCH_SECOND_CODE(INVALID_XML, "batch document is not valid: a batch has one stylesheet or schematron, this is a "
            + "second"),
    BATCH_PARAM_ORDER(INVALID_XML, "batch document is not valid: param must follow the stylesheet or schematron"),
    BATCH_INPUT_ORDER(INVALID_XML, "batch document is not valid: input must follow the stylesheet or schematron"),
    BATCH_INPUT_HREF(INVALID_XML, "batch document is not valid: input needs an href"),
    BATCH_TWO_ELEMENTS(INVALID_XML, "batch document is not valid: %s holds more than one element"),
    BATCH_TEXT(INVALID_XML, "batch document is not valid: %s holds text; it takes href or one element"),
    BATCH_STYLESHEET_ONCE(INVALID_XML, "batch document is not valid: %s needs either an href or the stylesheet "
            + "inline, exactly one of the two"),
    BATCH_SCHEMA_ONCE(INVALID_XML, "batch document is not valid: %s needs either an href or the schema inline, "
            + "exactly one of the two"),
    BATCH_NOT_SCHEMATRON(INVALID_XML, "batch document is not valid: schematron holds %s; expected an ISO Schematron "
            + "schema (namespace http://purl.oclc.org/dsdl/schematron)"),
    // ---- bad-parameter (400)
    BAD_ACCOUNT_NAME(BAD_PARAMETER, "account name '%s' must be non-empty, without ':' or spaces"),
    SHORT_PASSWORD(BAD_PARAMETER, "the password for %s must have at least 8 characters"),
    BAD_POSITION(BAD_PARAMETER, "%s must be a position of the cluster's log (a number, as a write's Arno-Position "
            + "header gave it), not '%s'"),
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
    PARAM_NOT_QNAME(BAD_PARAMETER, "param name '%s' is not a QName: %s"),
    PARAM_SELECT_FAILS(BAD_PARAMETER, "param %s: select=\"%s\" fails: %s"),
    NO_REPORT_FORMAT(BAD_PARAMETER, "report format '%s' does not exist; use xml or html"),
    BATCH_NOT_NUMBER(BAD_PARAMETER, "batch must be a number, not '%s'"),
    NO_SUCH_TASK(BAD_PARAMETER, "task must be one of %s, not '%s'"),
    INDEX_ADD_ONE_FILE(BAD_PARAMETER, "index-add takes one file"),
    RESOURCES_AT_ROOT(BAD_PARAMETER, "--resources loads one folder laid out as the store, at the root (no --prefix)"),
    PASSWORD_STDIN_EMPTY(BAD_PARAMETER, "--password-stdin read no password: give it as the first line of standard "
            + "input"),
    NO_PASSWORD_TYPED(BAD_PARAMETER, "no password was typed"),
    PASSWORDS_DIFFER(BAD_PARAMETER, "the two passwords differ; nothing was changed"),
    ARTICLES_RANGE(BAD_PARAMETER, "--articles must be between 1 and %s, not %s"),
    CLEARING_NEEDS_SITE(BAD_PARAMETER, "clearing caches needs a site (the form's site field)"),
    CANCEL_NEEDS_ID(BAD_PARAMETER, "cancelling needs a job id (the form's id field)"),
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
    CONTENT_LOCATION_RELATIVE(UNSUPPORTED_URI, "Content-Location %s must be an absolute URI (the batch's own location)"),
    CONTENT_LOCATION_NOT_URI(UNSUPPORTED_URI, "Content-Location %s is not a URI: %s"),
    STORE_READ_TOO_EARLY(UNSUPPORTED_URI, "%s: store: documents are read while a transformation runs, not when a "
            + "batch is read or a stylesheet compiled"),
    CODE_NOT_FROM_STORE(UNSUPPORTED_URI, "stylesheet or module %s: code is read from files or URLs, not from the store"),
    URL_WITHOUT_HOST(UNSUPPORTED_URI, "%s URL %s names no host"),
    URI_SCHEME_UNSUPPORTED(UNSUPPORTED_URI, "%s %s: only file (under the allowed folders), http, https and store URIs "
            + "are supported"),
    CODE_NOT_IN_STORE(UNSUPPORTED_URI, "%s %s: stylesheets and schemas are read from files or URLs, not from the store"),
    NO_STORE_DOCUMENT_NAMED(UNSUPPORTED_URI, "%s %s names no store document: write store:/PATH, e.g. "
            + "store:/journals/ja/v1/i1/a0001.xml"),
    OUTPUT_NOT_RESOURCE(UNSUPPORTED_URI, "%s %s is not a resource document of the store: an output is an entry "
            + "PATH.atom or a variant PATH.EXT of one, e.g. store:/journals/ja/v1/i1/a0001.xhtml"),
    // ---- outside-roots (403)
    OUTSIDE_NO_ROOTS(OUTSIDE_ROOTS, "%s %s is outside the allowed folders (none are configured)"),
    NO_BATCH_ROOTS(OUTSIDE_ROOTS, "%s %s is outside the allowed folders: the server allows batches no folder at all; "
            + "name the folders batches may read and write in the server's batch roots (see batch/README.md)"),
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
    BATCH_NEEDS_ACCOUNT(UNAUTHORIZED, "the batch service needs an account (HTTP Basic) for submitting, reading and "
            + "cancelling jobs"),
    NEEDS_RUN_TOKEN(UNAUTHORIZED, "%s needs this run's token from the data folder's %s file"),
    SERVER_UNAUTHORIZED(UNAUTHORIZED, "the server at %s refused %s: %s"),
    METRICS_WHO(UNAUTHORIZED, "%s answers this machine, the addresses of the configuration's metrics/@allow (by "
            + "default the trusted proxies) and accounts with the admin role"),
    ANSWERED_UNAUTHORIZED(UNAUTHORIZED, "%s answered HTTP %s"),
    ANSWERED_UNAUTHORIZED_SAYING(UNAUTHORIZED, "%s answered HTTP %s: %s"),
    // ---- forbidden (403)
    CONFIGURATION_NOT_OVER_HTTP(FORBIDDEN, "the store's configuration (%s) is not changed over HTTP, so %s %s is "
            + "refused; an administrator changes it on the server: the value indexes with ./arno store index add FILE, the "
            + "full-text configuration with ./arno store load fulltext.xml --prefix /_config"),
    NEEDS_ADMIN(FORBIDDEN, "%s needs an account with the admin role, which %s lacks: ask an administrator"),
    NEEDS_ADMIN_NO_ACCOUNT(FORBIDDEN, "%s needs an account with the admin role, which this request does not carry: ask "
            + "an administrator"),
    ROLE_FOR_METHOD(FORBIDDEN, "the account %s lacks the %s role that %s needs here; an administrator can add it in "
            + "the accounts file"),
    OUTPUT_NEEDS_WRITE_ROLE(FORBIDDEN, "the account %s lacks the write role that writing to the store needs (output "
            + "%s); an administrator can add it in the accounts file"),
    LOCAL_ONLY(FORBIDDEN, "%s is answered on this machine's own addresses only"),
    SERVER_FORBIDDEN(FORBIDDEN, "the server at %s refused %s: %s"),
    METRICS_NEEDS_ADMIN(FORBIDDEN, "the account %s lacks the %s role that %s needs here; the metrics answer this "
            + "machine, the addresses of the configuration's metrics/@allow (by default the trusted proxies) and accounts "
            + "with the admin role"),
    NOT_OPEN(FORBIDDEN, "%s %s is not open to anyone"),
    WRITING_CLOSED(FORBIDDEN, "%s is closed: this server runs in production mode and no account has the write role; "
            + "an administrator creates one with '%s' (with the server's --data or --config), and writing opens at once"),
    FOREIGN_CONSOLE_ACTION(FORBIDDEN, "a console action must come from the console's own pages (its Origin or Referer "
            + "must be %s); reload the page and try again"),
    CONSOLE_NEEDS_ADMIN(FORBIDDEN, "the account %s lacks the %s role that %s needs here; the console needs an "
            + "account with the admin role (./arno accounts add NAME --roles admin)"),
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
    NO_JOB(NOT_FOUND, "there is no batch job %s"),
    NO_BATCH_RESOURCE(NOT_FOUND, "there is no batch resource at %s"),
    JOB_HAS_NO_FILE(NOT_FOUND, "this job has no %s %s"),
    NOT_IN_STORE(NOT_FOUND, "%s %s does not exist in the store (version %s)"),
    SERVER_FOUND_NOTHING(NOT_FOUND, "the server at %s refused %s: %s"),
    NO_CACHES_FOR_SITE(NOT_FOUND, "no site '%s' has caches on this server (its sites: %s)"),
    NO_ACCOUNT_NAMED(NOT_FOUND, "there is no account '%s' in %s (./arno accounts list shows them)"),
    NO_SERVER_RUNNING(NOT_FOUND, "no Arno server is running on the data folder %s (no live %s file there; a server "
            + "writes it when it serves from the store): start one with ./arno serve --data %s"),
    NO_DEMO(NOT_FOUND, "cannot generate: %s"),
    NO_QUERY_FILE(NOT_FOUND, "query file %s does not exist"),
    NO_CONSOLE_ACTION(NOT_FOUND, "there is no console action %s"),
    ERROR_FORGOTTEN(NOT_FOUND, "the error %s is not among the last %s (the log has every error by its id)"),
    NO_CONSOLE_PAGE(NOT_FOUND, "there is no console page %s"),
    NO_CACHING_SITE(NOT_FOUND, "there is no caching site %s"),
    NO_BATCH_SERVICE(NOT_FOUND, "this server runs no batch service"),
    ANSWERED_NOT_FOUND(NOT_FOUND, "%s answered HTTP %s"),
    ANSWERED_NOT_FOUND_SAYING(NOT_FOUND, "%s answered HTTP %s: %s"),
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
    CLUSTER_COPY_WRITE(CONFLICT, "the store %s is a cluster node's copy, which changes only by applying the cluster's log: "
            + "%s would change this copy alone; %s"),
    JOB_FINISHED(CONFLICT, "job %s has already finished (%s); only a queued or running job can be cancelled"),
    ACCOUNT_NAME_EXISTS(CONFLICT, "the account '%s' exists already in %s; change its password with ./arno accounts "
            + "passwd %s, or remove it first"),
    DEMO_EXISTS(CONFLICT, "%s already holds demo content; give an empty folder with --out"),
    // ---- precondition-failed (412)
    CONDITION_FAILED(PRECONDITION_FAILED, "the request's If-Match or If-Unmodified-Since does not hold for %s: its ETag "
            + "is %s (GET it without conditions for the current one)"),
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
    BATCH_TYPE(UNSUPPORTED_MEDIA_TYPE, "a batch is sent as application/xml, not %s"),
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
    QUERY_ABANDONED(QUERY_TIMEOUT, "the query ran past its time limit of %s s and was abandoned"),
    SEARCH_STOPPED(QUERY_TIMEOUT, "the search ran past its time limit of %s ms and was stopped; use fewer or more "
            + "specific words (a prefix* of one or two letters matches many words)"),
    // ---- query-memory (503)
    QUERY_OUT_OF_MEMORY(QUERY_MEMORY, "the query ran out of memory (the heap holds at most %s MB) and was stopped; "
            + "narrow it"),
    // ---- bad-query (400)
    QUERY_TOO_LONG(BAD_QUERY, "the search query cannot be read at position %s: it has %s characters, more than the "
            + "limit of %s"),
    QUERY_TOO_MANY_TERMS(BAD_QUERY, "the search query cannot be read at position %s: it has more than %s terms; "
            + "search for fewer words"),
    QUERY_LEADING_WILDCARD(BAD_QUERY, "the search query cannot be read at position %s: '%s' starts with a wildcard; "
            + "a word may end with * (a prefix) but not start with one"),
    QUERY_EMPTY(BAD_QUERY, "the search query cannot be read at position %s: it has no words to search for"),
    QUERY_UNKNOWN_FIELD(BAD_QUERY, "the search query cannot be read at position %s: there is no field '%s' (the "
            + "fields are %s)"),
    SEARCH_OPTION(BAD_QUERY, "the search option %s cannot be used: %s"),
    // ---- search-unavailable (503)
    SEARCH_INDEX_BUILDING(SEARCH_UNAVAILABLE, "the full-text index of %s is being built: %s of %s entries indexed; "
            + "search again in a moment (pages keep working)"),
    SEARCH_INDEX_FAILED(SEARCH_UNAVAILABLE, "the full-text index of %s could not be built: %s"),
    SEARCH_NOT_CONFIGURED(SEARCH_UNAVAILABLE, "this server has no full-text index (no store)"),
    SEARCH_NO_INDEX(SEARCH_UNAVAILABLE, "there is no full-text index in %s to read (%s); ./arno serve builds it"),
    SEARCH_SLOTS_FULL(SEARCH_BUSY, "full-text search is busy: %s searches are running, as many as the index runs at"
            + " once, and none ended within %s ms; try again after the Retry-After seconds"),
    // ---- busy (503)
    LOGINS_BUSY(BUSY, "too many logins are being checked; try again in a moment"),
    LOGIN_INTERRUPTED(BUSY, "the login check was interrupted"),
    NODE_BEHIND(BUSY, "this node has applied the cluster's log up to position %s, not yet %s that the request asks "
            + "for (Arno-Min-Position or the arno-position cookie), after waiting %s ms; try again after the "
            + "Retry-After seconds"),
    CLUSTER_WRITE_CONFLICTS(BUSY, "other nodes of the cluster committed first %s times while this write was being "
            + "checked; nothing of it was stored, try again"),
    BATCH_QUEUE_FULL(BUSY, "the batch queue is full (%s jobs waiting); try again after the Retry-After seconds"),
    // ---- shutting-down (503)
    STORE_CLOSING(SHUTTING_DOWN, "the store %s is closing and takes no more writes"),
    WRITE_PATH_INTERRUPTED(SHUTTING_DOWN, "the write path of %s was interrupted; nothing of the write was stored"),
    BATCH_STOPPING(SHUTTING_DOWN, "the batch service is shutting down; submit again when it is back"),
    QUERY_SERVER_STOPPING(SHUTTING_DOWN, "the server is stopping; the query was stopped"),
    // ---- stylesheet-not-found (422)
    STYLESHEET_FILE_MISSING(STYLESHEET_NOT_FOUND, "%s %s does not exist"),
    STYLESHEET_CODE_UNREADABLE(STYLESHEET_NOT_FOUND, "%s %s cannot be read: %s"),
    // ---- stylesheet-error (422)
    CODE_ERRORS(STYLESHEET_ERROR, "%s %s does not compile: %s errors; first: %s"),
    // ---- missing-parameter (422)
    MISSING_PARAMETERS(MISSING_PARAMETER, "the stylesheet %s requires parameters %s, which the batch does not set"),
    // ---- input-unreadable (500)
    UNKNOWN_HOST(INPUT_UNREADABLE, "%s %s: host %s is unknown"),
    TOO_MANY_REDIRECTS(INPUT_UNREADABLE, "%s %s redirects more than %s times"),
    REDIRECT_NOT_URI(INPUT_UNREADABLE, "%s %s redirects to '%s', which is no URI"),
    FETCH_STATUS(INPUT_UNREADABLE, "%s %s answered HTTP %s"),
    FETCH_UNREACHABLE(INPUT_UNREADABLE, "%s %s cannot be reached: %s"),
    FETCH_INTERRUPTED(INPUT_UNREADABLE, "%s %s: interrupted"),
    INPUT_MISSING(INPUT_UNREADABLE, "input %s does not exist"),
    // ---- transformation-error (500)
    SEARCH_FAILED(TRANSFORMATION_ERROR, "the search condition failed on %s: %s"),
    SEARCH_FAILED_CODE(TRANSFORMATION_ERROR, "the search condition failed on %s: %s %s"),
    QUERY_FAILED(TRANSFORMATION_ERROR, "the query failed: %s"),
    QUERY_FAILED_CODE(TRANSFORMATION_ERROR, "the query failed: %s %s"),
    STACK_OVERFLOW(TRANSFORMATION_ERROR, "the stylesheet's templates or functions call each other too deeply (a call "
            + "with no parameters that recurses never ends); it stopped with a stack overflow"),
    QUERY_RECURSED(TRANSFORMATION_ERROR, "the query recursed too deeply and was stopped"),
    // ---- output-failed (500)
    PUT_BODY_GONE(OUTPUT_FAILED, "%s %s: %s is gone"),
    PUT_REFUSED(OUTPUT_FAILED, "%s %s refused the PUT: HTTP %s"),
    PUT_REFUSED_SAYING(OUTPUT_FAILED, "%s %s refused the PUT: HTTP %s: %s"),
    PUT_UNREACHABLE(OUTPUT_FAILED, "%s %s cannot be reached: %s"),
    PUT_INTERRUPTED(OUTPUT_FAILED, "%s %s: interrupted"),
    RESULT_DOCUMENT_NOT_WRITTEN(OUTPUT_FAILED, "result document %s cannot be written: %s"),
    // ---- store-locked (503)
    STORE_OPEN_TWICE(STORE_LOCKED, "store %s is already open in this process; share the open Store instead of opening "
            + "it twice"),
    STORE_IN_USE_BY(STORE_LOCKED, "store %s is in use by another process (pid %s), probably a running './arno serve' "
            + "or a Tomcat serving Arno's WAR; stop it (or undeploy the WAR) first, write through its store API "
            + "(/store/), or give another --data folder"),
    // ---- no-store (404)
    NO_STORE_TO_READ(NO_STORE, "%s cannot be read: this server has no store"),
    NO_STORE_FOR_URI(NO_STORE, "%s %s: this server has no store, so no store: URI can be read or written; name files "
            + "or URLs, or submit to a server that serves from its store"),
    // ---- store-format (500)
    CLUSTER_SCHEMA_NEWER(STORE_FORMAT, "the cluster database '%s' has schema version %s (%s), newer than this Arno's %s "
            + "(%s): a newer Arno has migrated it. Run that version (or a newer one) on this node; a database is never "
            + "migrated back"),
    CLUSTER_MIGRATION_EDITED(STORE_FORMAT, "the cluster database '%s' ran %s as schema version %s with SHA-256 %s, but "
            + "this Arno's %s has %s: a migration was edited after it was run. Restore the file as it was released and "
            + "put the change into a new version"),
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
    MARK_MALFORMED(STORE_CORRUPT, "store %s: mark '%s' is malformed"),
    MARK_NAME_BAD(BAD_PARAMETER, "mark name '%s' is not 1 to %s printable ASCII characters without spaces"),
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
    // ---- usage (400)
    NO_CONSOLE(USAGE, "there is no console to read the password from; give it as the first line of standard input "
            + "with --password-stdin"),
    SERVER_NOT_URL(USAGE, "--server must be an http or https URL, not %s"),
    NO_SUCH_FILE(USAGE, "no such file %s"),
    CONTENT_FROM_OPTION(USAGE, "--content-from is store or files, not '%s'"),
    PAGE_CACHES_OPTION(USAGE, "--page-caches is on or off, not '%s'"),
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
    PAGE_CACHE_MEMORY_NEGATIVE(BAD_CONFIGURATION, "page-cache-memory (the memory budget of every site's cached pages) must not be negative, not %s"),
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
    BATCH_OPTION(BAD_CONFIGURATION, "batch option %s must be %s, not %s"),
    BATCH_SERVICE_NOT_STARTED(BAD_CONFIGURATION, "the batch service cannot start in %s: %s"),
    ACCESS_LOG_UNWRITABLE(BAD_CONFIGURATION, "access log %s cannot be written: %s; name a file in a folder Arno may "
            + "write (log/@access in the configuration)"),
    ACCESS_LOG_NOT_WRITABLE(BAD_CONFIGURATION, "access log %s cannot be written; name a file Arno may write "
            + "(log/@access in the configuration)"),
    STATIC_NEEDS_TOMCAT(BAD_CONFIGURATION, "the static folder %s cannot be served at %s: the servlet container is not "
            + "Tomcat (no %s); serve it from the container or a proxy instead"),
    NOT_AN_ADDRESS(BAD_CONFIGURATION, "%s '%s' is not an IP address or a CIDR block such as 10.0.0.0/8, 192.168.1.5 "
            + "or fd00::/8"),
    PREFIX_LENGTH(BAD_CONFIGURATION, "%s '%s': the prefix length must be between 0 and %s"),
    HOST_BITS_SET(BAD_CONFIGURATION, "%s '%s' has bits set after its prefix of %s; did you mean %s?"),
    SETTING_NOT_FOLDER(BAD_CONFIGURATION, "%s %s does not exist or is not a folder"),
    SETTING_UNREADABLE(BAD_CONFIGURATION, "%s %s cannot be read"),
    NOT_A_DURATION_SETTING(BAD_CONFIGURATION, "%s needs a duration such as 10s, 500ms or PT1M30S, not '%s'"),
    NOT_A_SHARE(BAD_CONFIGURATION, "%s needs a share above 0 and at most 1, such as 0.1 or 10%% (1: never give way), "
            + "not '%s'"),
    NOT_A_SIZE_SETTING(BAD_CONFIGURATION, "%s needs a size such as 512M or 16G, not '%s'"),
    PORT_RANGE(BAD_CONFIGURATION, "port must be between 0 and 65535, not %s"),
    BIND_EMPTY(BAD_CONFIGURATION, "bind address must not be empty"),
    BIND_UNRESOLVED(BAD_CONFIGURATION, "bind address '%s' is neither an IP address nor a host name this machine "
            + "resolves"),
    HOST_NOT_NAME(BAD_CONFIGURATION, "host '%s' is not a host name (such as journals.example.org or "
            + "journals.example.org:8443)"),
    MAP_SIZE_SETTING(BAD_CONFIGURATION, "store map size must be at least 1M, not %s"),
    CONTENT_FROM(BAD_CONFIGURATION, "content must come from the store or from files"),
    CHANGE_RETENTION_NEGATIVE(BAD_CONFIGURATION, "change retention must not be negative, not %s"),
    STORE_READS(BAD_CONFIGURATION, "store reads must be public or need accounts"),
    BATCH_WORKERS(BAD_CONFIGURATION, "batch workers must be at least 1, not %s"),
    BATCH_QUEUE(BAD_CONFIGURATION, "batch queue must hold at least 1 job, not %s"),
    BODY_GRACE_SETTING(BAD_CONFIGURATION, "the body grace must not be negative, not %s"),
    BATCH_TIME_LIMIT_SETTING(BAD_CONFIGURATION, "the batch time limit must be positive, not %s"),
    BATCH_SHARE(BAD_CONFIGURATION, "the batch's least share must be above 0 and at most 1 (0.1: a tenth of a batch "
            + "worker's time while pages wait; 1: batches never give way), not %s"),
    CONFIRM_DEPTH(BAD_CONFIGURATION, "the depth of the store's confirmed deletes must not be negative, not %s"),
    CONFIRM_DOCUMENTS(BAD_CONFIGURATION, "the documents a store delete removes without confirmation must not be "
            + "negative, not %s"),
    CLUSTER_URL(BAD_CONFIGURATION, "the cluster's database must be a PostgreSQL URL such as "
            + "jdbc:postgresql://127.0.0.1:5432/arno?user=arno (host, optional port, database), not '%s'"),
    CLUSTER_URL_PASSWORD(BAD_CONFIGURATION, "the cluster's database URL must not hold a password (it would show in "
            + "process lists and logs): put it in a file (--cluster-password-file, cluster/@password-file) or in the "
            + "environment variable ARNO_CLUSTER_PASSWORD"),
    CLUSTER_FILES(BAD_CONFIGURATION, "cluster mode shares the store, so the sites must read their content from it "
            + "(pages/@content-from store, --content-from store), not from files"),
    CLUSTER_PASSWORD_FILE(BAD_CONFIGURATION, "the cluster's password file %s cannot be read (%s)"),
    CLUSTER_SETTING(BAD_CONFIGURATION, "cluster/@%s must be %s, not %s"),
    CLUSTER_PASSWORD_FILE_ALONE(BAD_CONFIGURATION, "a cluster password file (%s) needs a cluster database "
            + "(--cluster URL, or cluster/@database)"),
    LOG_LEVEL(BAD_CONFIGURATION, "log level must be one of error, warning, info, debug, trace"),
    LOG_FILE_FOLDER(BAD_CONFIGURATION, "log file %s is a folder; name a file in it"),
    ACCESS_LOG_FOLDER(BAD_CONFIGURATION, "access log %s is a folder; name a file in it"),
    LOGS_SAME_FILE(BAD_CONFIGURATION, "the log file and the access log must be different files, not both %s"),
    BATCH_ROOT_EXPOSES_DATA(BAD_CONFIGURATION, "batch root %s would expose the data folder %s (its store, accounts "
            + "and content) to batch jobs; give a folder outside it"),
    CONFIG_FILE_MISSING(BAD_CONFIGURATION, "configuration file %s does not exist"),
    CONFIG_FILE_UNREADABLE(BAD_CONFIGURATION, "configuration file %s cannot be read: %s"),
    CONFIG_SCHEMA(BAD_CONFIGURATION, "%s: the configuration does not follow its schema: %s (%s)"),
    CONFIG_SETTING_REFUSED(BAD_CONFIGURATION, "%s: the setting is refused: %s"),
    ATTRIBUTE_CHARACTERS(BAD_CONFIGURATION, "%s: xml/@attribute-characters must be at most %s, not %s"),
    LOG_FILE_UNWRITABLE(BAD_CONFIGURATION, "log file %s cannot be written: %s; name a file in a folder Arno may write "
            + "(log/@file in the configuration)"),
    DEMO_ARTICLES(BAD_CONFIGURATION, "--articles must be between 1 and 1000000, not %s"),
    DATA_NOT_FOLDER(BAD_CONFIGURATION, "data folder (--data) %s is not a folder"),
    STORE_NOT_FOLDER(BAD_CONFIGURATION, "store %s is not a folder; move it away or give another --data"),
    FULLTEXT_CONFIG_INVALID(BAD_CONFIGURATION, "%s is not a usable full-text configuration: %s (its schema is %s); "
            + "the index goes on with the configuration it had, if any"),
    FULLTEXT_FIELD_XPATH(BAD_CONFIGURATION, "%s: the field '%s' has the XPath '%s', which does not compile: %s"),
    FULLTEXT_FIELD_TWICE(BAD_CONFIGURATION, "%s: the field '%s' is defined twice"),
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
    // ---- port-unavailable (500)
    PORT_TAKEN(PORT_UNAVAILABLE, "cannot listen on %s:%s (%s): another program uses the port, or it needs privileges; "
            + "choose another --port"),
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
            + "the configuration file's <store map-size=\"…\"/>)"),
    LMDB_FAILED(IO, "%s: LMDB failed: %s"),
    SPOOLED_BODY_UNREADABLE(IO, "the spooled request body %s cannot be read: %s"),
    BODY_NOT_READ(IO, "the request body could not be read: %s"),
    PUT_BODY_UNREADABLE(IO, "the body of store:%s cannot be read from %s: %s"),
    PUT_ENTRY_UNREADABLE(IO, "the entry store:%s cannot be read from %s: %s"),
    CANNOT_WRITE(IO, "cannot write %s: %s"),
    ANSWER_NOT_WRITTEN(IO, "cannot write the answer: %s"),
    RESULT_NOT_WRITTEN(IO, "cannot write the query's result: %s"),
    BATCH_FILE_UNREADABLE(IO, "the accepted batch %s cannot be read: %s"),
    WORK_FOLDER_NOT_CREATED(IO, "cannot create Tomcat's work folder: %s"),
    SERVER_REFUSED(IO, "the server at %s refused %s: %s"),
    SERVER_UNREACHABLE(IO, "the server (pid %s) cannot be reached at %s: %s"),
    SERVER_INTERRUPTED(IO, "interrupted while asking the server at %s"),
    STORE_HOLDER_UNREACHABLE(IO, "the server (pid %s) holds the store but cannot be reached at %s: %s"),
    CONNECT_INTERRUPTED(IO, "interrupted while connecting to the server at %s"),
    LOAD_CUT_SHORT(IO, "the server at %s stopped before the load ended; what it had committed is stored (./arno store "
            + "check tells)"),
    LOAD_CONNECTION_BROKE(IO, "the connection to the server at %s broke during the load (%s); what it had committed "
            + "is stored"),
    RUN_FILE_NOT_WRITTEN(IO, "cannot write %s: %s; './arno store load' could not find this server"),
    PASSWORD_UNREAD(IO, "cannot read the password from standard input: %s"),
    DEMO_NOT_WRITTEN(IO, "cannot write demo content into %s: %s"),
    QUERY_FILE_UNREADABLE(IO, "cannot read query file %s: %s"),
    EXPORT_NOT_WRITTEN(IO, "cannot write %s: %s; check that its folder exists and can be written"),
    ANSWERED_HTTP(IO, "%s answered HTTP %s"),
    ANSWERED_HTTP_SAYING(IO, "%s answered HTTP %s: %s"),
    // ---- database-unavailable (503)
    DB_COMMIT_UNKNOWN(DATABASE_UNAVAILABLE, "the cluster's database lost the connection while committing the write at "
            + "position %s: it may or may not be stored (%s); read it back before writing it again"),
    DB_NOT_CAUGHT_UP(DATABASE_UNAVAILABLE, "this node has not applied the cluster's position %s within %s ms (%s), so it "
            + "cannot check the write against it; nothing of the write was stored"),
    DB_COMMITTED_NOT_APPLIED(DATABASE_UNAVAILABLE, "the write is committed in the cluster's database at position %s, but "
            + "this node has not applied it within %s ms (%s); it becomes visible here when it has"),
    DB_UNREACHABLE(DATABASE_UNAVAILABLE, "cannot reach the cluster's database (%s); nothing of the write was stored"),
    DB_REFUSED_WRITE(DATABASE_UNAVAILABLE, "the cluster's database refused the write (%s); nothing of the write was stored"),
    CLUSTER_UNREACHABLE(DATABASE_UNAVAILABLE, "cannot reach the cluster's database %s (%s); start PostgreSQL, or check "
            + "the URL (--cluster) and its password"),
    CLUSTER_NOT_CAUGHT_UP(DATABASE_UNAVAILABLE, "this node has not applied the cluster's log up to position %s within %s s "
            + "(%s); the demo was not loaded"),
    // ---- internal (500)
    MOUNTED_WITHOUT_FILTER(INTERNAL, "%s is mounted without its AuthFilter; mount %s"),
    NOT_A_PIPELINE_STAGE(INTERNAL, "ContentFetch runs only as a pipeline stage (no Saxon configuration reached it)"),
    RESPONSE_NOT_WRITTEN(INTERNAL, "cannot write a response: %s"),
    PLAN_NOT_XML(INTERNAL, "the plan is not XML: %s"),
    LMDB_MISUSE(INTERNAL, "%s: LMDB refused how Arno used it (%s); this is a bug, please report it with the log"),
    UNEXPECTED_ON(INTERNAL, "unexpected failure on %s %s: %s"),
    TOMCAT_NOT_SERVING(INTERNAL, "Tomcat did not start serving on %s:%s: %s"),
    TOMCAT_NOT_SERVING_LOG(INTERNAL, "Tomcat did not start serving on %s:%s (the log says why)"),
    CONSOLE_QUERY_FAILED(INTERNAL, "the query failed: %s");

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
