package arno.pipeline;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A URL pattern and its pipeline. Pattern segments are literals, {@code {name}}
 * (one segment) or, last, {@code {name*}} (the rest of the path, possibly
 * empty). Matching is segment by segment; routes are tried in site.xml order.
 */
final class Route {
    private final String name;
    private final String pattern;
    private final String[] segments;
    /** Per segment, the variable it names ({@code {name}} or {@code {name*}}), or null for a literal. */
    private final String[] variables;
    /** The index of the first {@code {name*}} segment, which takes the rest of the path; -1 for none. */
    private final int rest;
    final Set<String> methods;
    final long timeoutMillis;
    final Pipeline pipeline;
    /** How the route's pages are cached, or null when they are not. */
    final CachePolicy.Route cache;

    Route(String name, String pattern, Set<String> methods, long timeoutMillis, Pipeline pipeline) {
        this(name, pattern, methods, timeoutMillis, pipeline, null);
    }

    Route(String name, String pattern, Set<String> methods, long timeoutMillis, Pipeline pipeline, CachePolicy.Route cache) {
        this.name = name;
        this.pattern = pattern;
        this.segments = split(pattern);
        this.variables = new String[segments.length];
        int last = -1;
        for (int i = 0; i < segments.length; i++) {
            String seg = segments[i];
            if (seg.startsWith("{") && seg.endsWith("*}")) {
                variables[i] = seg.substring(1, seg.length() - 2);
                if (last < 0) last = i;
            } else if (seg.startsWith("{")) {
                variables[i] = seg.substring(1, seg.length() - 1);
            }
        }
        this.rest = last;
        this.methods = methods;
        this.timeoutMillis = timeoutMillis;
        this.pipeline = pipeline;
        this.cache = cache;
    }

    String name() { return name; }
    String pattern() { return pattern; }

    /** The variables if the path (inside the site, starting with '/') matches, else null. */
    Map<String, String> match(String path) {
        return match(split(path));
    }

    /**
     * As {@link #match(String)}, for a path already split by {@link #split}: a request is split
     * once however many routes are tried (a site's article page is its fifth or sixth route).
     */
    Map<String, String> match(String[] parts) {
        Map<String, String> vars = null;
        for (int i = 0; i < segments.length; i++) {
            String v = variables[i];
            if (i == rest) {
                if (vars == null) vars = new LinkedHashMap<>();
                vars.put(v, String.join("/", java.util.Arrays.copyOfRange(parts, i, parts.length)));
                return vars;
            }
            if (i >= parts.length) return null;
            if (v != null) {
                if (vars == null) vars = new LinkedHashMap<>();
                vars.put(v, parts[i]);
            } else if (!segments[i].equals(parts[i])) {
                return null;
            }
        }
        if (parts.length != segments.length) return null;
        return vars == null ? Map.of() : vars;
    }

    /** A path's non-empty segments: {@code /a//b/} is a, b. */
    static String[] split(String path) {
        int n = 0;
        for (int i = 0, len = path.length(); i < len; i++) {
            if (path.charAt(i) != '/' && (i == 0 || path.charAt(i - 1) == '/')) n++;
        }
        String[] parts = new String[n];
        int k = 0;
        for (int i = 0, len = path.length(); i < len; ) {
            if (path.charAt(i) == '/') {
                i++;
                continue;
            }
            int end = path.indexOf('/', i);
            if (end < 0) end = len;
            parts[k++] = path.substring(i, end);
            i = end;
        }
        return parts;
    }
}
