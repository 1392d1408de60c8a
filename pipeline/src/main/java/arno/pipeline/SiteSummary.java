package arno.pipeline;

import java.util.List;

/**
 * The compiled sites as the admin console lists them: each site's prefix and hosts, and its
 * routes with their pattern, methods, cache policy and time limit, in the order they are tried.
 * A read-only copy, so that {@link Site} and {@link Route} stay package-private.
 */
public record SiteSummary(String name, String prefix, List<String> hosts, List<RouteSummary> routes) {
    /**
     * @param cache the route's cache policy in words ("ttl 60s, max-size 1048576, ..."), or null when it caches nothing
     */
    public record RouteSummary(String name, String pattern, List<String> methods, String cache, long timeoutMillis) {}

    /** Every site of {@code sites}, in the order they are tried. */
    public static List<SiteSummary> of(Sites sites) {
        return sites.sites.stream().map(s -> new SiteSummary(s.name(), s.prefix(), List.copyOf(s.hosts()),
                s.routes.stream().map(r -> new RouteSummary(r.name(), r.pattern(), r.methods.stream().sorted().toList(),
                        cache(r.cache), r.timeoutMillis)).toList())).toList();
    }

    private static String cache(CachePolicy.Route c) {
        if (c == null) return null;
        StringBuilder b = new StringBuilder();
        b.append("ttl ").append(c.ttl() == null ? "none" : c.ttl().toString().substring(2).toLowerCase(java.util.Locale.ROOT));
        b.append(", max-size ").append(c.maxSize());
        if (!c.params().isEmpty()) b.append(", params ").append(String.join(" ", c.params()));
        if (!c.vary().isEmpty()) b.append(", vary ").append(String.join(" ", c.vary()));
        b.append(", Cache-Control ").append(c.cacheControl());
        return b.toString();
    }
}
