package arno.xml;

import java.util.List;
import java.util.Locale;

/**
 * Absolute URLs in answers ({@code Location}, links): made only for a {@code Host} the server was
 * told it answers as ({@code ./arno serve --host NAME}, {@code hosts} in the configuration), so a
 * header a client chose never reaches an answer another client may see; else the URL stays a
 * path, as RFC 9110 allows. The one rule for the batch service and the store API.
 */
public final class Hosts {
    private Hosts() {}

    /**
     * {@code scheme://host:port} when the request's host ({@code serverName}, {@code port}) is one
     * of {@code known} (an entry {@code name} allows any port, {@code name:port} that port;
     * compared without case), else "" (the caller's path is then used as it is).
     */
    public static String base(List<String> known, String scheme, String serverName, int port) {
        if (serverName == null || known.isEmpty()) return "";
        String name = serverName.toLowerCase(Locale.ROOT);
        for (String allowed : known) {
            String a = allowed.strip().toLowerCase(Locale.ROOT);
            if (a.equals(name) || a.equals(name + ":" + port)) {
                String host = name.contains(":") && !name.startsWith("[") ? "[" + name + "]" : name;
                return scheme + "://" + host + ":" + port;
            }
        }
        return "";
    }
}
