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
        this.methods = methods;
        this.timeoutMillis = timeoutMillis;
        this.pipeline = pipeline;
        this.cache = cache;
    }

    String name() { return name; }
    String pattern() { return pattern; }

    /** The variables if the path (inside the site, starting with '/') matches, else null. */
    Map<String, String> match(String path) {
        String[] parts = split(path);
        Map<String, String> vars = null;
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            if (s.endsWith("*}")) {
                if (vars == null) vars = new LinkedHashMap<>();
                vars.put(s.substring(1, s.length() - 2), String.join("/", java.util.Arrays.copyOfRange(parts, i, parts.length)));
                return vars;
            }
            if (i >= parts.length) return null;
            if (s.startsWith("{")) {
                if (vars == null) vars = new LinkedHashMap<>();
                vars.put(s.substring(1, s.length() - 1), parts[i]);
            } else if (!s.equals(parts[i])) {
                return null;
            }
        }
        if (parts.length != segments.length) return null;
        return vars == null ? Map.of() : vars;
    }

    private static String[] split(String path) {
        return java.util.Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }
}
