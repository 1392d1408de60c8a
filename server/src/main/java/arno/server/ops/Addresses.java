package arno.server.ops;

import arno.xml.IpAddress;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A set of IP addresses and CIDR blocks (as {@link arno.server.config.Config} has checked them),
 * plus this machine's loopback, matched against a request's remote address (the client's, once
 * Tomcat's RemoteIpValve has read a trusted proxy's X-Forwarded-For). A block is its address bytes
 * and a prefix length; a match compares the first {@code prefix} bits. IPv4 and IPv6 never match
 * each other (Java already turns {@code ::ffff:a.b.c.d} into IPv4).
 */
final class Addresses {
    private record Block(byte[] network, int prefix) {}

    private final List<Block> blocks = new ArrayList<>();

    /** {@code entries}: literals such as {@code 10.0.0.0/8}, {@code 192.168.1.5}, {@code fd00::/8}. */
    Addresses(List<String> entries) {
        for (String e : entries) {
            int slash = e.indexOf('/');
            byte[] bytes = literal(slash < 0 ? e : e.substring(0, slash));
            if (bytes == null) continue; // Config refused anything else
            blocks.add(new Block(bytes, slash < 0 ? bytes.length * 8 : Integer.parseInt(e.substring(slash + 1))));
        }
    }

    /**
     * Whether {@code remote} (an address literal) is loopback or in one of the blocks. Anything
     * else is refused, never resolved: behind a trusted proxy the remote address is what the
     * client put in X-Forwarded-For, and {@code localhost} there is a name, not loopback.
     */
    boolean admits(String remote) {
        InetAddress a = IpAddress.parse(remote);
        if (a == null) return false;
        if (a.isLoopbackAddress()) return true;
        byte[] bytes = a.getAddress();
        for (Block b : blocks) if (matches(b, bytes)) return true;
        return false;
    }

    private static boolean matches(Block b, byte[] address) {
        if (b.network.length != address.length) return false;
        int full = b.prefix / 8;
        for (int i = 0; i < full; i++) if (b.network[i] != address[i]) return false;
        int rest = b.prefix % 8;
        if (rest == 0) return true;
        int mask = (0xff << (8 - rest)) & 0xff;
        return (b.network[full] & mask) == (address[full] & mask);
    }

    private static byte[] literal(String s) {
        InetAddress a = IpAddress.parse(s);
        return a == null ? null : a.getAddress();
    }
}
