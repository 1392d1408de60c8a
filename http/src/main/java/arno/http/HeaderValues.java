package arno.http;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one parser of header values that are lists (RFC 9110 5.6.1): {@code Accept},
 * {@code Accept-Encoding}, {@code If-None-Match}, {@code If-Match}, {@code Cache-Control},
 * {@code Vary}, and of one element with parameters ({@code Content-Type}). Never
 * {@code split(",")}: a comma or a semicolon inside a quoted string ({@code W/"a,b"},
 * {@code private="Set-Cookie, X-Id"}, {@code type="a;b"}) belongs to its element.
 *
 * <p>What it reads: elements separated by commas, each a value (a token, a media range,
 * {@code token=value}, an entity tag; quoted strings in it are kept as they were sent) followed by
 * parameters ({@code ;name=value}, the value a token or a quoted string, unquoted here; names in
 * lower case). Empty elements ({@code a, , b}) are skipped, as the RFC asks of recipients. Every
 * line of a repeated header is read as if the lines were joined by commas (RFC 9110 5.3).
 * Malformed input never throws: an unclosed quote runs to the end of the line.
 */
public final class HeaderValues {
    private HeaderValues() {}

    /**
     * One element of a list.
     *
     * @param value      as sent, without the spaces around it; quoted strings kept with their quotes
     * @param parameters by lower-case name, values unquoted, in the order sent
     */
    public record Element(String value, Map<String, String> parameters) {
        public Element {
            parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        }

        /** The parameter {@code name} (any case), or null. */
        public String parameter(String name) {
            return parameters.get(name.toLowerCase(Locale.ROOT));
        }

        /**
         * The quality ({@code q}, RFC 9110 12.4.2): 1 without one, 0 when it is not a number from 0 to
         * 1 (a malformed weight must not make a refused coding or type acceptable).
         */
        public double quality() {
            String q = parameter("q");
            if (q == null) return 1;
            try {
                double d = Double.parseDouble(q.strip());
                return d >= 0 && d <= 1 ? d : 0;
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        /** Whether the value is {@code token}, or {@code token=...} (a directive with an argument), in any case. */
        public boolean is(String token) {
            int eq = value.indexOf('=');
            String name = eq < 0 ? value : value.substring(0, eq).strip();
            return name.equalsIgnoreCase(token);
        }

        /** The argument of a {@code token=value} directive ({@code max-age=60}: "60"), unquoted; null without one. */
        public String argument() {
            int eq = value.indexOf('=');
            return eq < 0 ? null : unquote(value.substring(eq + 1).strip());
        }
    }

    /** The elements of every line of header {@code name} of {@code req}. */
    public static List<Element> of(HttpServletRequest req, String name) {
        return parse(Collections.list(req.getHeaders(name)));
    }

    /** The elements of every line, in order. */
    public static List<Element> parse(List<String> lines) {
        List<Element> out = new ArrayList<>();
        for (String line : lines) {
            if (line != null) read(line, out);
        }
        return out;
    }

    /** The elements of one line, in order. */
    public static List<Element> parse(String line) {
        List<Element> out = new ArrayList<>();
        if (line != null) read(line, out);
        return out;
    }

    /**
     * Whether the elements name {@code token} (a media type, a coding) with a quality above 0.
     * Wildcards ({@code *}{@code /*}, {@code text/*}) do not count: they say a client takes anything,
     * not that it asks for this.
     */
    public static boolean names(List<Element> elements, String token) {
        for (Element e : elements) {
            if (e.is(token) && e.quality() > 0) return true;
        }
        return false;
    }

    /**
     * Whether {@code Accept-Encoding} (its lines) takes gzip (RFC 9110 12.5.3): {@code gzip} or
     * {@code x-gzip} named with a quality above 0 or, when neither is named, {@code *} with one.
     * No header: false (identity is what a client without one surely reads).
     */
    public static boolean acceptsGzip(List<String> acceptEncoding) {
        Double named = null;
        Double any = null;
        for (Element e : parse(acceptEncoding)) {
            if (e.is("gzip") || e.is("x-gzip")) named = Math.max(named == null ? 0 : named, e.quality());
            else if (e.is("*")) any = e.quality();
        }
        if (named != null) return named > 0;
        return any != null && any > 0;
    }

    /**
     * The media type of a {@code Content-Type} (type and subtype, lower case, without parameters);
     * null when the header is absent or blank.
     */
    public static String mediaType(String contentType) {
        List<Element> e = parse(contentType);
        return e.isEmpty() || e.get(0).value().isEmpty() ? null : e.get(0).value().toLowerCase(Locale.ROOT);
    }

    /** The parameter {@code name} of a {@code Content-Type}, unquoted, or null. */
    public static String parameter(String contentType, String name) {
        List<Element> e = parse(contentType);
        return e.isEmpty() ? null : e.get(0).parameter(name);
    }

    /** {@code s} without its quotes and with its quoted pairs undone when it is a quoted string; else as it is. */
    public static String unquote(String s) {
        if (s.length() < 2 || s.charAt(0) != '"' || s.charAt(s.length() - 1) != '"') return s;
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 1; i < s.length() - 1; i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length() - 1) c = s.charAt(++i);
            b.append(c);
        }
        return b.toString();
    }

    // ---- The reader: one pass, quotes tracked, no regular expression.

    private static void read(String s, List<Element> out) {
        int n = s.length();
        int i = 0;
        while (i < n) {
            StringBuilder value = new StringBuilder();
            i = scan(s, i, value, false);
            Map<String, String> parameters = new LinkedHashMap<>();
            while (i < n && s.charAt(i) == ';') {
                StringBuilder name = new StringBuilder();
                i = scan(s, i + 1, name, true);
                StringBuilder v = new StringBuilder();
                if (i < n && s.charAt(i) == '=') i = scan(s, i + 1, v, false);
                String key = name.toString().strip().toLowerCase(Locale.ROOT);
                if (!key.isEmpty()) parameters.putIfAbsent(key, unquote(v.toString().strip()));
            }
            if (i < n && s.charAt(i) == ',') i++;
            String text = value.toString().strip();
            if (!text.isEmpty() || !parameters.isEmpty()) out.add(new Element(text, parameters));
        }
    }

    /**
     * Appends to {@code into} from {@code start} up to a comma or semicolon outside quotes (and, for a
     * parameter's name, an equals sign); quoted strings are copied with their quotes and escapes.
     * Returns where it stopped.
     */
    private static int scan(String s, int start, StringBuilder into, boolean name) {
        int i = start;
        boolean quoted = false;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (quoted) {
                into.append(c);
                if (c == '\\' && i + 1 < s.length()) into.append(s.charAt(++i));
                else if (c == '"') quoted = false;
            } else if (c == ',' || c == ';' || name && c == '=') {
                return i;
            } else {
                if (c == '"') quoted = true;
                into.append(c);
            }
            i++;
        }
        return i;
    }
}
