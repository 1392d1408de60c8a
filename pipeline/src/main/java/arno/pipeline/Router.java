package arno.pipeline;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Finds who answers a request: the site by host name, then by path prefix (sites in the order of
 * their folders' names), then the route by URL pattern (routes in site.xml order). A site with
 * host names answers only those hosts; a site with a prefix only paths under it.
 */
final class Router {
    private Router() {}

    /**
     * Where a request goes. {@code route} is null when no route matches; {@code variables} are
     * the route's, empty without one.
     */
    record Match(Site site, String sitePath, Route route, Map<String, String> variables) {}

    /** The decoded path, or {@link ErrorCode#BAD_REQUEST} for a bad percent-encoding. */
    static String decode(String rawPath) {
        try {
            // A '+' in a path is a plus, not a space (URLDecoder follows the form rules).
            String p = URLDecoder.decode(rawPath.replace("+", "%2B"), StandardCharsets.UTF_8);
            return p.isEmpty() ? "/" : p;
        } catch (IllegalArgumentException e) {
            throw ErrorMessage.BAD_PATH_ENCODING.error(rawPath, e.getMessage());
        }
    }

    /** The site and route for {@code host} and the decoded {@code path}, or null when no site answers. */
    static Match route(List<Site> sites, String host, String path) {
        for (Site s : sites) {
            String sitePath = sitePath(s, host, path);
            if (sitePath != null) return route(s, sitePath);
        }
        return null;
    }

    /** The route of {@code site} for a path inside it. */
    static Match route(Site site, String sitePath) {
        String[] parts = Route.split(sitePath);
        for (Route r : site.routes) {
            Map<String, String> variables = r.match(parts);
            if (variables != null) return new Match(site, sitePath, r, variables);
        }
        return new Match(site, sitePath, null, Map.of());
    }

    /** The path inside the site if the site answers this host and path, else null. */
    static String sitePath(Site s, String host, String path) {
        if (!s.hosts().isEmpty() && !s.hosts().contains(host)) return null;
        String prefix = s.prefix();
        if (prefix.isEmpty()) return path;
        if (path.equals(prefix)) return "/";
        if (path.startsWith(prefix) && path.charAt(prefix.length()) == '/') return path.substring(prefix.length());
        return null;
    }
}
