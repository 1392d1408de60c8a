package arno.store.atom;

/**
 * The names the resource model uses: namespaces, link relations, media types. One place, so that
 * the service, the HTTP API, the filters and the tests agree on every string.
 */
public final class Atom {
    private Atom() {}

    /** RFC 4287. */
    public static final String NS = "http://www.w3.org/2005/Atom";
    /** RFC 5023 (AtomPub): service documents, app:accept, app:edited. */
    public static final String APP_NS = "http://www.w3.org/2007/app";
    /** Arno's Atom extensions: {@code arno:role} on links, {@code arno:version} in the change feed. */
    public static final String ARNO_NS = "urn:arno:atom";
    /** Introspection documents ({@code /_model/KIND.xml}). */
    public static final String INTROSPECTION_NS = "urn:arno:introspection";

    /** The category scheme whose term is an entry's kind. */
    public static final String KIND_SCHEME = "urn:arno:kind";
    /** The category scheme whose term says what a change-feed entry did: put or delete. */
    public static final String CHANGE_SCHEME = "urn:arno:change";

    /** Where introspection documents live: {@code /_model/KIND.xml}. */
    public static final String MODEL_FOLDER = "/_model/";
    /** The kind that describes the root: which kinds may be top-level entries. */
    public static final String ROOT_KIND = "root";

    public static final String REL_SELF = "self";
    public static final String REL_EDIT = "edit";
    public static final String REL_EDIT_MEDIA = "edit-media";
    /** The parent entry. */
    public static final String REL_UP = "up";
    /** The children feed, added by {@code with-descendants}. */
    public static final String REL_DOWN = "down";
    /** The entry's introspection document. */
    public static final String REL_DESCRIBED_BY = "describedby";
    /** A variant. */
    public static final String REL_ALTERNATE = "alternate";
    /** A typed link to another entry (with {@code arno:role}). */
    public static final String REL_RELATED = "related";
    public static final String REL_NEXT = "next";

    public static final String ENTRY_EXTENSION = "atom";
    public static final String ENTRY_TYPE = "application/atom+xml;type=entry";
    public static final String FEED_TYPE = "application/atom+xml;type=feed";
    public static final String SERVICE_TYPE = "application/atomsvc+xml";

    /** Whether a media type is XML and so is stored as a tree rather than as bytes. */
    public static boolean isXml(String mediaType) {
        if (mediaType == null) return false;
        String t = mediaType.toLowerCase(java.util.Locale.ROOT);
        int semi = t.indexOf(';');
        if (semi >= 0) t = t.substring(0, semi);
        t = t.strip();
        return t.equals("application/xml") || t.equals("text/xml") || t.endsWith("+xml");
    }
}
