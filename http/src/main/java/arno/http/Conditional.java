package arno.http;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.apache.tomcat.util.http.FastHttpDateFormat;

/**
 * The one evaluation of conditional requests (RFC 9110 section 13), for pages, cached pages,
 * static files and the store API alike.
 *
 * <p>{@link #evaluate} takes the request's headers (every line of each) and the selected
 * representation's validators, and follows RFC 9110 13.2.2 in its order:
 * <ol>
 * <li>{@code If-Match}: false unless {@code *} or one of its tags matches the current ETag by the
 * strong comparison: 412;</li>
 * <li>else {@code If-Unmodified-Since} (a valid date, and a known Last-Modified): modified after
 * it: 412;</li>
 * <li>{@code If-None-Match}: {@code *} or one of its tags matching by the weak comparison: 304
 * for GET and HEAD, 412 for any other method;</li>
 * <li>else, for GET and HEAD, {@code If-Modified-Since}: not modified after it: 304.</li>
 * </ol>
 * Dates are compared in whole seconds (an HTTP date has no more) and read in the three forms a
 * recipient must accept (RFC 9110 5.6.7: IMF-fixdate, RFC 850, asctime); an invalid date is
 * ignored. A caller MUST call it only when the answer would otherwise be 2xx (RFC 9110 13.2.1: a
 * 404 is a 404 whatever the conditions) and MUST NOT evaluate the conditions again itself.
 *
 * <p>The gzip form: when the connector gzips a response with a strong ETag it sends the ETag with
 * {@link #GZIP_SUFFIX} ({@code "v42"} as {@code "v42--gzip"}: another representation must not
 * share the strong validator), and the page caches send their stored gzip form so. A client that
 * revalidates its gzipped copy sends that tag back; here it matches the representation it was
 * made from, by either comparison, so the client gets its 304 and a PUT with the tag of a gzipped
 * GET is not refused.
 */
public final class Conditional {
    /**
     * Appended to a strong ETag's opaque part for the gzip form of its representation (Jetty's
     * choice, so proxies and tools recognise it): the two forms differ in bytes, so they must not
     * share a strong tag.
     */
    public static final String GZIP_SUFFIX = "--gzip";

    private Conditional() {}

    /** What the conditions say. */
    public enum Outcome {
        /** Answer as if there were no conditions. */
        PROCEED,
        /** 304 Not Modified (GET and HEAD only): send the validators, no body. */
        NOT_MODIFIED,
        /** 412 Precondition Failed: do nothing. */
        FAILED
    }

    /**
     * An entity tag (RFC 9110 8.8.3): weak or strong, and its opaque part (without quotes).
     */
    public record Tag(boolean weak, String opaque) {
        /** A tag as sent ({@code "x"}, {@code W/"x"}); null when it is not one (no quotes, a quote inside). */
        public static Tag parse(String text) {
            if (text == null) return null;
            String t = text.strip();
            boolean weak = t.startsWith("W/");
            if (weak) t = t.substring(2);
            if (t.length() < 2 || t.charAt(0) != '"' || t.charAt(t.length() - 1) != '"') return null;
            String opaque = t.substring(1, t.length() - 1);
            for (int i = 0; i < opaque.length(); i++) {
                char c = opaque.charAt(i);
                // etagc = %x21 / %x23-7E / obs-text
                if (c == '"' || c < 0x21 || c == 0x7F) return null;
            }
            return new Tag(weak, opaque);
        }

        /** The opaque part without {@link #GZIP_SUFFIX}: the representation this tag was made from. */
        public String identity() {
            return opaque.endsWith(GZIP_SUFFIX) ? opaque.substring(0, opaque.length() - GZIP_SUFFIX.length()) : opaque;
        }

        /** RFC 9110 8.8.3.2: both strong and the same (the gzip form counting as its representation). */
        public boolean strongMatch(Tag current) {
            return !weak && !current.weak && same(current);
        }

        /** RFC 9110 8.8.3.2: the same opaque part, weak or not (the gzip form counting as its representation). */
        public boolean weakMatch(Tag current) {
            return same(current);
        }

        private boolean same(Tag current) {
            return opaque.equals(current.opaque) || identity().equals(current.opaque);
        }

        @Override
        public String toString() {
            return (weak ? "W/\"" : "\"") + opaque + '"';
        }
    }

    /**
     * An {@code If-Match} or {@code If-None-Match} header: {@code *}, or its tags (those that are
     * not tags are left out: they match nothing).
     */
    public record Tags(boolean any, List<Tag> tags) {
        public Tags {
            tags = List.copyOf(tags);
        }

        /** The header's lines read; null when there are none. */
        public static Tags parse(List<String> lines) {
            if (lines == null || lines.isEmpty()) return null;
            boolean any = false;
            List<Tag> tags = new ArrayList<>();
            for (HeaderValues.Element e : HeaderValues.parse(lines)) {
                if (e.value().equals("*")) {
                    any = true;
                } else {
                    Tag t = Tag.parse(e.value());
                    if (t != null) tags.add(t);
                }
            }
            return new Tags(any, tags);
        }
    }

    /** {@code etag} (quoted) as the ETag of its gzip form: {@code "x"} becomes {@code "x--gzip"}. */
    public static String gzipTag(String etag) {
        String t = etag.strip();
        return t.endsWith("\"") ? t.substring(0, t.length() - 1) + GZIP_SUFFIX + "\"" : t + GZIP_SUFFIX;
    }

    /** {@code If-Match} or {@code If-None-Match} of {@code req} ({@code header}), or null without one. */
    public static Tags tags(HttpServletRequest req, String header) {
        return Tags.parse(Collections.list(req.getHeaders(header)));
    }

    /** As {@link #evaluate(String, Function, String, long)}, for a servlet request. */
    public static Outcome evaluate(HttpServletRequest req, String etag, long lastModifiedMillis) {
        return evaluate(req.getMethod(), name -> Collections.list(req.getHeaders(name)), etag, lastModifiedMillis);
    }

    /**
     * What the request's conditions say of the selected representation (see the class comment).
     *
     * @param method             the request's method
     * @param headers            every line of a header by its name (empty when absent)
     * @param etag               the current ETag as it is sent ({@code "x"} or {@code W/"x"}), or null for none
     * @param lastModifiedMillis the current Last-Modified in milliseconds since the epoch, or -1 for none
     */
    public static Outcome evaluate(String method, Function<String, List<String>> headers, String etag,
                                   long lastModifiedMillis) {
        boolean read = method.equals("GET") || method.equals("HEAD");
        Tag current = etag == null ? null : Tag.parse(etag);
        Tags match = Tags.parse(headers.apply("If-Match"));
        if (match != null) {
            if (!match.any() && !matches(match, current, true)) return Outcome.FAILED;
        } else {
            long since = date(headers.apply("If-Unmodified-Since"));
            if (since >= 0 && lastModifiedMillis >= 0 && seconds(lastModifiedMillis) > seconds(since)) return Outcome.FAILED;
        }
        Tags noneMatch = Tags.parse(headers.apply("If-None-Match"));
        if (noneMatch != null) {
            if (noneMatch.any() || matches(noneMatch, current, false)) return read ? Outcome.NOT_MODIFIED : Outcome.FAILED;
        } else if (read) {
            long since = date(headers.apply("If-Modified-Since"));
            if (since >= 0 && lastModifiedMillis >= 0 && seconds(lastModifiedMillis) <= seconds(since)) return Outcome.NOT_MODIFIED;
        }
        return Outcome.PROCEED;
    }

    /**
     * Whether a range request's {@code If-Range} (its first line, or null) lets the range be sent
     * (RFC 9110 13.1.5): none, or an entity tag that is {@code etag} by the strong comparison; its
     * gzip form is another representation, whose ranges are other bytes, so it does not count. A
     * date sends the whole body: a Last-Modified of whole seconds is a weak validator here (two
     * writes may share a second), and If-Range takes strong ones only.
     */
    public static boolean rangeApplies(String ifRange, String etag) {
        if (ifRange == null) return true;
        Tag sent = Tag.parse(ifRange);
        Tag current = etag == null ? null : Tag.parse(etag);
        return sent != null && current != null && !sent.weak() && !current.weak() && sent.opaque().equals(current.opaque());
    }

    /**
     * Milliseconds since the epoch of the first line of a date header in any of the three forms
     * (RFC 9110 5.6.7), or -1 when there is none or it is not a date.
     */
    public static long date(List<String> lines) {
        if (lines == null || lines.isEmpty() || lines.get(0) == null) return -1;
        return FastHttpDateFormat.parseDate(lines.get(0).strip());
    }

    private static boolean matches(Tags sent, Tag current, boolean strong) {
        if (current == null) return false;
        for (Tag t : sent.tags()) {
            if (strong ? t.strongMatch(current) : t.weakMatch(current)) return true;
        }
        return false;
    }

    private static long seconds(long millis) {
        return Math.floorDiv(millis, 1000);
    }
}
