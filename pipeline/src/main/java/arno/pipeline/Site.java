package arno.pipeline;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** One site, as site.xml declares it, with its compiled pipelines. Immutable. */
final class Site {
    private final String name;
    private final List<String> hosts;
    private final String prefix;
    private final Map<String, String> params;
    final List<Route> routes;
    /** Error pipelines by status; key 0 is the one for every status. */
    final Map<Integer, Pipeline> errors;
    final Path file;
    /** The bounds of the site's page cache (used when a route caches). */
    final CachePolicy.Site cache;

    Site(String name, List<String> hosts, String prefix, Map<String, String> params,
         List<Route> routes, Map<Integer, Pipeline> errors, Path file, CachePolicy.Site cache) {
        this.name = name;
        this.hosts = List.copyOf(hosts);
        this.prefix = prefix;
        this.params = params;
        this.routes = List.copyOf(routes);
        this.errors = Map.copyOf(errors);
        this.file = file;
        this.cache = cache;
    }

    /** Whether any route caches its pages. */
    boolean caches() {
        for (Route r : routes) if (r.cache != null) return true;
        return false;
    }

    String name() { return name; }
    List<String> hosts() { return hosts; }
    /** The path prefix, e.g. "/journal-a", or "" for a site chosen by host only. */
    String prefix() { return prefix; }
    Map<String, String> params() { return params; }

    Pipeline errorPipeline(int status) {
        Pipeline p = errors.get(status);
        return p != null ? p : errors.get(0);
    }
}
