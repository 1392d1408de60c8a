package arno.xml;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * IP address literals, parsed without ever asking DNS. A client's address reaches Arno as text
 * (Tomcat's remote address, which behind a trusted proxy is whatever its X-Forwarded-For said; a
 * configured block): {@code InetAddress.getByName} would resolve a name there ({@code localhost}
 * is loopback, {@code evil.example} whatever its DNS says, and a lookup a client can trigger at
 * will), and takes forms such as {@code 300.1.1.1} or {@code cafe} for names too. A name is not an
 * address: only a dotted quad (each part at most 255) or an IPv6 literal (hex digits, colons, an
 * optional embedded IPv4 tail and zone) is parsed, and then by {@code InetAddress}, which reads a
 * literal without a lookup when it starts with a hex digit or a colon, as these do.
 */
public final class IpAddress {
    private static final Pattern V4 = Pattern.compile("(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
            + "(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern V6 = Pattern.compile("[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*(?:%[0-9A-Za-z_.-]+)?");

    private IpAddress() {}

    /** The address {@code text} is a literal of, or null when it is anything else (a name, garbage, null). */
    public static InetAddress parse(String text) {
        if (text == null || text.length() > 64) return null;
        String s = text.strip();
        if (!V4.matcher(s).matches() && !V6.matcher(s).matches()) return null;
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException | SecurityException e) {
            return null; // e.g. a malformed IPv6 literal or an unknown zone: refused, never looked up
        }
    }

    /** Whether {@code text} is a literal of a loopback address; a name such as {@code localhost} is not. */
    public static boolean isLoopback(String text) {
        InetAddress a = parse(text);
        return a != null && a.isLoopbackAddress();
    }
}
