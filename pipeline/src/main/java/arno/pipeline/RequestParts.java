package arno.pipeline;

import arno.xml.ArnoException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The parts of an HTTP request that a page can read from req:request beyond what its page cache
 * key holds already (site, route, path, the route's {@code params} and {@code vary}), named as
 * {@link WatchedRequest} records them while the pipeline reads:
 *
 * <ul>
 * <li>{@code @host}, {@code @port}, {@code @scheme}, {@code @protocol}, {@code @remote-address},
 * {@code @url}: an attribute of req:request ({@code @id}, {@code @time} and {@code @method} are
 * not parts: a cached page shows those of the request that built it);</li>
 * <li>{@code query}: req:query, the query string as sent (or its absence);</li>
 * <li>{@code header:NAME}, {@code cookie:NAME}, {@code parameter:NAME}: the values of one header,
 * cookie or query parameter (or that there is none);</li>
 * <li>{@code header-names}, {@code cookie-names}, {@code parameter-names}: which there are, in
 * order: what a page learns by looking through req:headers for one (a page that looks for a
 * header the request lacks depends on its absence, and absence has no node to record). A route
 * that lists {@code vary} headers (or {@code params}) has said which headers (parameters) make a
 * different page: the presence of others is then not keyed (but every value the page read still
 * is, and for headers, whether the request carries a credential), so a page that looks for
 * Accept-Language is not kept once per list of the other headers a browser sends;</li>
 * <li>{@code headers}, {@code cookies}, {@code parameters}: all of them, names and values (read
 * as a whole, or more than {@value #MAX_VALUES} of them one by one).</li>
 * </ul>
 *
 * A page is kept under a key that adds the values of these parts, so a page is only served to
 * a request that would have shown the page the same request parts: like HTTP's {@code Vary}, but
 * learned from what the pipeline did, not declared. Each route learns the union of what its pages
 * read ({@link Learned}); a lookup keys on that union, so a page that read nothing keeps one key.
 *
 * <h2>Credentials and cookies</h2>
 * A page that read the value of an {@code Authorization}, {@code Proxy-Authorization} or
 * {@code Cookie} header, or of a cookie, that the request carried is not kept ({@link #refusal}):
 * it is one user's page (a session, a login), its key would hold the secret (in memory and in the
 * disk tier), and a shared cache of per-user pages gains nothing. Its response gets
 * {@code Cache-Control: private}. A page that only looked whether there is such a header or cookie
 * is kept, keyed on whether there is: the anonymous page is shared, the signed-in user's is built
 * afresh. A route that names the header under {@code vary} (for cookies: {@code Cookie}) keys on
 * its whole value and keeps such pages.
 */
final class RequestParts {
    private RequestParts() {}

    static final String QUERY = "query";
    /** The attributes of req:request that are parts, as recorded ("@host"). */
    static final Set<String> ATTRIBUTES = Set.of("host", "port", "scheme", "protocol", "remote-address", "url");
    /**
     * Values of more parts of one kind than this are recorded as reading all of that kind: a page
     * that reads every header one by one varies on all of them, and a route's learned set stays small.
     */
    static final int MAX_VALUES = 8;
    /** The headers whose values are credentials; cookies are too. */
    private static final List<String> CREDENTIAL_ORDER = List.of("authorization", "cookie", "proxy-authorization");
    private static final Set<String> CREDENTIALS = Set.copyOf(CREDENTIAL_ORDER);

    /** The three lists of named parts in req:request. */
    enum Kind {
        PARAMETERS("parameters", "parameter"), HEADERS("headers", "header"), COOKIES("cookies", "cookie");

        /** The container element (req:headers) and all of this kind's parts. */
        final String all;
        /** The element of one part (req:header). */
        final String element;
        /** The part "which there are". */
        final String names;
        private final String prefix;

        Kind(String container, String element) {
            this.all = container;
            this.element = element;
            this.names = element + "-names";
            this.prefix = element + ":";
        }

        /** The part that is the values of the one named {@code name}. */
        String value(String name) {
            return prefix + name;
        }
    }

    /** The attribute's part ("@host"). */
    static String attribute(String name) {
        return "@" + name;
    }

    /**
     * {@code read} with more than {@value #MAX_VALUES} values of one kind replaced by all of that
     * kind, and the values and names of a kind that is read whole dropped (all of it holds them).
     */
    static java.util.SortedSet<String> coalesce(Collection<String> read) {
        java.util.SortedSet<String> parts = new TreeSet<>(read);
        for (Kind k : Kind.values()) {
            int values = 0;
            for (String p : parts) if (p.startsWith(k.prefix)) values++;
            if (values > MAX_VALUES) parts.add(k.all);
            if (parts.contains(k.all)) {
                parts.removeIf(p -> p.startsWith(k.prefix) || p.equals(k.names));
            }
        }
        return parts;
    }

    /**
     * What a route's pages have read so far, built by {@code code} (the fingerprint of the code
     * the sites were compiled from): the parts its lookups key on. It only grows while the code
     * stays the same, so a page is kept under a key with at least the parts it read; a page kept
     * before the set grew is no longer found and is built again.
     */
    static final class Learned {
        final String code;
        private final AtomicReference<Set<String>> parts;

        Learned(String code, Set<String> parts) {
            this.code = code;
            this.parts = new AtomicReference<>(java.util.Collections.unmodifiableSortedSet(new TreeSet<>(parts)));
        }

        Set<String> get() {
            return parts.get();
        }

        /** Adds {@code read} and returns the set now learned. */
        Set<String> add(Set<String> read) {
            while (true) {
                Set<String> now = parts.get();
                if (now.containsAll(read)) return now;
                Set<String> more = new TreeSet<>(now);
                more.addAll(read);
                Set<String> next = java.util.Collections.unmodifiableSortedSet(coalesce(more));
                if (parts.compareAndSet(now, next)) return next;
            }
        }
    }

    // ----- Keys

    /**
     * Appends to {@code key} each of {@code parts} (in their order) with its value in
     * {@code request}; false when the query string is not well encoded (the pipeline answers 400).
     * {@code vary} is the route's: the credentials it names are keyed by value (the key holds
     * those headers whole already), any other only by whether the request carries it.
     */
    static boolean appendKey(StringBuilder key, Set<String> parts, HttpRequest request, CachePolicy.Route policy) {
        List<String> vary = policy.vary();
        Map<String, List<String>> parameters = null;
        List<String[]> cookies = null;
        // In one order whatever the set: the key must not depend on how a set was made.
        for (String part : parts instanceof java.util.SortedSet<String> sorted ? sorted : new TreeSet<>(parts)) {
            string(key, part);
            if (part.startsWith("@")) {
                string(key, attributeValue(part.substring(1), request));
            } else if (part.equals(QUERY)) {
                string(key, request.query());
            } else if (part.startsWith("parameter") || part.equals(Kind.PARAMETERS.all)) {
                if (parameters == null) {
                    try {
                        parameters = RequestReader.parameters(request.query());
                    } catch (ArnoException e) {
                        return false;
                    }
                }
                parameters(key, part, parameters, !policy.params().isEmpty());
            } else if (part.startsWith("cookie")) {
                if (cookies == null) cookies = RequestReader.cookies(request);
                cookies(key, part, cookies, declared("cookie", vary));
            } else {
                headers(key, part, request, vary);
            }
        }
        return true;
    }

    private static String attributeValue(String name, HttpRequest request) {
        return switch (name) {
            case "host" -> request.host();
            case "port" -> Integer.toString(request.port());
            case "scheme" -> request.scheme();
            case "protocol" -> request.protocol();
            case "remote-address" -> request.remoteAddress();
            case "url" -> RequestReader.url(request);
            default -> throw new IllegalArgumentException("not a part: @" + name);
        };
    }

    private static void parameters(StringBuilder key, String part, Map<String, List<String>> parameters, boolean listed) {
        Kind k = Kind.PARAMETERS;
        if (part.equals(k.names)) {
            // The route's params say which parameters make a different page; the others' presence does not.
            if (listed) key.append('*');
            else strings(key, parameters.keySet());
        } else if (part.equals(k.all)) {
            key.append(parameters.size()).append('{');
            for (Map.Entry<String, List<String>> p : parameters.entrySet()) {
                string(key, p.getKey());
                strings(key, p.getValue());
            }
            key.append('}');
        } else {
            List<String> values = parameters.get(part.substring(k.element.length() + 1));
            strings(key, values == null ? List.of() : values);
        }
    }

    private static void cookies(StringBuilder key, String part, List<String[]> cookies, boolean declared) {
        Kind k = Kind.COOKIES;
        if (part.equals(k.names)) {
            key.append(cookies.size()).append('[');
            for (String[] c : cookies) string(key, c[0]);
            key.append(']');
        } else if (part.equals(k.all)) {
            // A page that read a cookie the request carried is not kept: any cookie is one key.
            if (!declared) {
                key.append(cookies.isEmpty() ? '-' : '+');
                return;
            }
            key.append(cookies.size()).append('{');
            for (String[] c : cookies) {
                string(key, c[0]);
                string(key, c[1]);
            }
            key.append('}');
        } else {
            String name = part.substring(k.element.length() + 1);
            List<String> values = new ArrayList<>(1);
            for (String[] c : cookies) if (c[0].equals(name)) values.add(c[1]);
            if (declared) strings(key, values);
            else key.append(values.isEmpty() ? '-' : '+');
        }
    }

    private static void headers(StringBuilder key, String part, HttpRequest request, List<String> vary) {
        Kind k = Kind.HEADERS;
        if (part.equals(k.names) && !vary.isEmpty()) {
            // The route's vary says which headers make a different page; of the others, only whether
            // there is a credential (a page that shows "sign out" to whoever sends one).
            for (String c : CREDENTIAL_ORDER) key.append(request.headers(c).isEmpty() ? '-' : '+');
        } else if (part.equals(k.names)) {
            List<String> names = request.headerNames();
            key.append(names.size()).append('[');
            for (String n : names) {
                // req:headers holds one element per value, its name in lower case.
                string(key, n.toLowerCase(Locale.ROOT));
                key.append(request.headers(n).size()).append(';');
            }
            key.append(']');
        } else if (part.equals(k.all)) {
            List<String> names = request.headerNames();
            for (String n : names) {
                String lower = n.toLowerCase(Locale.ROOT);
                if (CREDENTIALS.contains(lower) && !declared(lower, vary)) {
                    key.append('+');
                    return;
                }
            }
            key.append(names.size()).append('{');
            for (String n : names) {
                string(key, n.toLowerCase(Locale.ROOT));
                strings(key, request.headers(n));
            }
            key.append('}');
        } else {
            String name = part.substring(k.element.length() + 1);
            List<String> values = request.headers(name);
            if (CREDENTIALS.contains(name) && !declared(name, vary)) key.append(values.isEmpty() ? '-' : '+');
            else strings(key, values);
        }
    }

    /** A string, length first so that no value can pass for another: "5:hello", or "-" for none. */
    private static void string(StringBuilder key, String s) {
        if (s == null) key.append('-');
        else key.append(s.length()).append(':').append(s);
    }

    private static void strings(StringBuilder key, Collection<String> values) {
        key.append(values.size()).append('[');
        for (String v : values) string(key, v);
        key.append(']');
    }

    /** Appends {@code s} so that no value can pass for another (what the base key holds too). */
    static void appendString(StringBuilder key, String s) {
        string(key, s);
    }

    /** Appends {@code values} so that no list can pass for another. */
    static void appendStrings(StringBuilder key, Collection<String> values) {
        strings(key, values);
    }

    /** Whether the route's {@code vary} names the header (lower case) that carries a credential. */
    private static boolean declared(String header, List<String> vary) {
        for (String v : vary) if (v.equalsIgnoreCase(header)) return true;
        return false;
    }

    // ----- What a page that read these parts may be

    /**
     * Why a page that read {@code read} must not be kept for {@code request}: it read a
     * credential or a cookie the request carried (see the class comment); null when it may be.
     */
    static String refusal(Set<String> read, HttpRequest request, CachePolicy.Route policy) {
        List<String> vary = policy.vary();
        boolean cookiesDeclared = declared("cookie", vary);
        List<String[]> cookies = null;
        for (String part : read) {
            if (part.equals(Kind.HEADERS.all)) {
                for (String n : request.headerNames()) {
                    String lower = n.toLowerCase(Locale.ROOT);
                    if (CREDENTIALS.contains(lower) && !declared(lower, vary)) {
                        return "it read every request header, " + n + " among them";
                    }
                }
            } else if (part.startsWith(Kind.HEADERS.element + ":")) {
                String name = part.substring(Kind.HEADERS.element.length() + 1);
                if (CREDENTIALS.contains(name) && !declared(name, vary) && !request.headers(name).isEmpty()) {
                    return "it read the request's " + name + " header";
                }
            } else if (!cookiesDeclared && (part.equals(Kind.COOKIES.all) || part.startsWith(Kind.COOKIES.element + ":"))) {
                if (cookies == null) cookies = RequestReader.cookies(request);
                String name = part.equals(Kind.COOKIES.all) ? null : part.substring(Kind.COOKIES.element.length() + 1);
                for (String[] c : cookies) {
                    if (name == null) return "it read every cookie, '" + c[0] + "' among them";
                    if (c[0].equals(name)) return "it read the cookie '" + name + "'";
                }
            }
        }
        return null;
    }

    /** Adds to {@code vary} the request headers whose values {@code read} holds, for caches downstream. */
    static void vary(Set<String> read, List<String> vary) {
        for (String part : read) {
            String header = null;
            if (part.startsWith(Kind.HEADERS.element + ":")) header = part.substring(Kind.HEADERS.element.length() + 1);
            else if (part.startsWith(Kind.COOKIES.element)) header = "cookie";
            if (header != null && !declared(header, vary)) vary.add(header);
        }
    }

    /**
     * Whether a page that read {@code read} depends on something a cache downstream cannot tell
     * requests apart by (not in the URL, not a header it can vary on): the client's address, the
     * protocol, which headers there are (unless the route's {@code vary} says which matter) or all of
     * them. Such a page is {@code Cache-Control: private}.
     */
    static boolean hidden(Set<String> read, CachePolicy.Route policy) {
        return read.contains("@remote-address") || read.contains("@protocol") || read.contains(Kind.HEADERS.all)
                || read.contains(Kind.HEADERS.names) && policy.vary().isEmpty();
    }
}
