package arno.xml;

import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The one outbound fetch policy: every request Arno makes to another server on behalf of a user
 * (batch inputs, outputs and stylesheets at URLs, {@code doc()} of an {@code http:} URI) goes
 * through here. A URL is fetched only when its scheme is allowed, its host is allowed, and none
 * of the host's addresses is loopback, private, link-local (169.254.0.0/16, where clouds answer
 * with credentials), unique-local, carrier-grade NAT, unspecified or multicast, unless the policy
 * allows private addresses or names the host. Redirects are followed here, one hop at a time,
 * each hop checked the same way, so a public URL cannot redirect into the private network.
 *
 * <p>Known gap: the check resolves the host, and the HTTP client resolves it again to connect; a
 * DNS server that answers differently the second time (DNS rebinding) is not caught. Naming the
 * allowed hosts closes it.
 */
public final class Outbound {

    /**
     * @param schemes          URI schemes that may be fetched (lower case)
     * @param hosts            host names (or "*.example.org") that may be fetched; empty: any host
     *                         whose addresses are public. A host named here may be private.
     * @param privateAddresses whether loopback and private addresses may be fetched at all
     * @param timeout          connect and response time limit
     * @param maxRedirects     redirects followed before giving up
     */
    public record Policy(Set<String> schemes, List<String> hosts, boolean privateAddresses, Duration timeout, int maxRedirects) {
        public static final Policy DEFAULT = new Policy(Set.of("http", "https"), List.of(), false, Duration.ofSeconds(30), 5);

        public Policy {
            schemes = Set.copyOf(schemes);
            hosts = List.copyOf(hosts);
            for (String s : schemes) {
                if (!s.equals("http") && !s.equals("https")) {
                    throw ErrorMessage.OUTBOUND_SCHEME.error(s);
                }
            }
            if (timeout.isNegative() || timeout.isZero()) throw ErrorMessage.OUTBOUND_TIMEOUT.error(timeout);
            if (maxRedirects < 0) throw ErrorMessage.OUTBOUND_REDIRECTS.error();
        }

        /** This policy with loopback and private addresses allowed (tests, and servers inside one network). */
        public Policy allowingPrivate() {
            return new Policy(schemes, hosts, true, timeout, maxRedirects);
        }
    }

    private final Policy policy;
    private final HttpClient client;

    public Outbound(Policy policy) {
        this.policy = policy;
        this.client = HttpClient.newBuilder().connectTimeout(policy.timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    public Policy policy() {
        return policy;
    }

    /** Refuses {@code uri} ({@link ErrorCode#URI_REFUSED}, naming {@code what}) unless the policy allows fetching it. */
    public void check(URI uri, String what) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!policy.schemes().contains(scheme)) {
            throw ErrorMessage.SCHEME_REFUSED.error(what, uri, scheme,
                    String.join(", ", policy.schemes().stream().sorted().toList()));
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) throw ErrorMessage.NO_HOST_REFUSED.error(what, uri);
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        boolean named = false;
        if (!policy.hosts().isEmpty()) {
            for (String h : policy.hosts()) {
                String p = h.toLowerCase(Locale.ROOT);
                if (p.startsWith("*.") ? host.endsWith(p.substring(1)) : host.equals(p)) named = true;
            }
            if (!named) {
                throw ErrorMessage.HOST_REFUSED.error(what, uri, host, policy.hosts());
            }
        }
        if (named || policy.privateAddresses()) return;
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw ErrorMessage.UNKNOWN_HOST.error(e, what, uri, host);
        }
        for (InetAddress a : addresses) {
            String kind = privateKind(a);
            if (kind != null) {
                throw ErrorMessage.PRIVATE_ADDRESS_REFUSED.error(what, uri, host, kind, a.getHostAddress());
            }
        }
    }

    /** What kind of non-public address {@code a} is, or null for a public one. */
    static String privateKind(InetAddress a) {
        if (a.isLoopbackAddress()) return "loopback";
        if (a.isLinkLocalAddress()) return "link-local";
        if (a.isSiteLocalAddress()) return "private";
        if (a.isAnyLocalAddress()) return "unspecified";
        if (a.isMulticastAddress()) return "multicast";
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address && (b[0] & 0xfe) == 0xfc) return "unique-local";
        if (a instanceof Inet4Address && (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) return "carrier-grade NAT";
        if (a instanceof Inet4Address && (b[0] & 0xff) == 0) return "this-network";
        return null;
    }

    /** The body of a successful GET of {@code uri}, as a stream the caller closes; redirects followed and checked. */
    public InputStream get(URI uri, String what) {
        return open(uri, what, null, null).body();
    }

    /**
     * What a GET brought: the URI it was answered at (after redirects), the status (2xx, or 304
     * for a conditional GET whose validators still hold, with an empty body), the body and the
     * response's validators (null when absent), which a cache keeps to ask again conditionally.
     */
    public record Fetched(URI uri, int status, byte[] body, String etag, String lastModified) {
        /** A conditional GET found the copy the validators describe current: no body. */
        public boolean notModified() {
            return status == 304;
        }
    }

    /**
     * A GET of {@code uri} read whole, with its validators; redirects followed and checked as for
     * {@link #get}. When {@code ifNoneMatch} (an ETag) or {@code ifModifiedSince} (an HTTP date)
     * is not null it is sent, and a 304 answer comes back as {@link Fetched#notModified()}.
     */
    public Fetched fetch(URI uri, String what, String ifNoneMatch, String ifModifiedSince) {
        HttpResponse<InputStream> response = open(uri, what, ifNoneMatch, ifModifiedSince);
        byte[] body;
        try (InputStream in = response.body()) {
            body = in.readAllBytes();
        } catch (IOException e) {
            throw ErrorCode.INPUT_UNREADABLE.error(e, what, uri, e.getMessage());
        }
        return new Fetched(response.uri(), response.statusCode(), body,
                response.headers().firstValue("ETag").orElse(null),
                response.headers().firstValue("Last-Modified").orElse(null));
    }

    /** Follows redirects hop by hop, each checked, up to a 2xx (or a 304 when validators were sent). */
    private HttpResponse<InputStream> open(URI uri, String what, String ifNoneMatch, String ifModifiedSince) {
        boolean conditional = ifNoneMatch != null || ifModifiedSince != null;
        URI at = uri;
        for (int hop = 0; ; hop++) {
            check(at, what);
            HttpRequest.Builder b = HttpRequest.newBuilder(at).timeout(policy.timeout())
                    .header("Accept", "application/xml, text/xml, */*;q=0.5").GET();
            if (ifNoneMatch != null) b.header("If-None-Match", ifNoneMatch);
            if (ifModifiedSince != null) b.header("If-Modified-Since", ifModifiedSince);
            HttpResponse<InputStream> response = send(b.build(), what, false);
            int status = response.statusCode();
            if (status == 304 && conditional) return response;
            if (status / 100 == 3 && response.headers().firstValue("Location").isPresent()) {
                close(response.body());
                if (hop >= policy.maxRedirects()) {
                    throw ErrorMessage.TOO_MANY_REDIRECTS.error(what, uri, policy.maxRedirects());
                }
                String location = response.headers().firstValue("Location").get();
                try {
                    at = at.resolve(location);
                } catch (IllegalArgumentException bad) {
                    throw ErrorMessage.REDIRECT_NOT_URI.error(bad, what, at, location);
                }
                continue;
            }
            if (status / 100 != 2) {
                close(response.body());
                throw ErrorMessage.FETCH_STATUS.error(what, at, status);
            }
            return response;
        }
    }

    /** The whole body of a successful GET. */
    public byte[] getBytes(URI uri, String what) {
        try (InputStream in = get(uri, what)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw ErrorCode.INPUT_UNREADABLE.error(e, what, uri, e.getMessage());
        }
    }

    /** PUTs the file to {@code uri} (no redirects: a body is not sent twice); any status but 2xx is an error naming it. */
    public void put(URI uri, Path body, String mediaType, String what) {
        check(uri, what);
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(uri).timeout(policy.timeout()).header("Content-Type", mediaType)
                    .PUT(HttpRequest.BodyPublishers.ofFile(body)).build();
        } catch (java.io.FileNotFoundException e) {
            throw ErrorMessage.PUT_BODY_GONE.error(e, what, uri, body);
        }
        HttpResponse<InputStream> response = send(request, what, true);
        String text;
        try (InputStream in = response.body()) {
            text = new String(in.readNBytes(300), java.nio.charset.StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            text = "";
        }
        if (response.statusCode() / 100 != 2) {
            throw (text.isEmpty() ? ErrorMessage.PUT_REFUSED.error(what, uri, response.statusCode())
                    : ErrorMessage.PUT_REFUSED_SAYING.error(what, uri, response.statusCode(), text));
        }
    }

    /** Sends one request; a failure is the input's ({@code INPUT_UNREADABLE}) or, for a PUT, the output's. */
    private HttpResponse<InputStream> send(HttpRequest request, String what, boolean put) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw (put ? ErrorMessage.PUT_UNREACHABLE : ErrorMessage.FETCH_UNREACHABLE).error(e, what, request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (put ? ErrorMessage.PUT_INTERRUPTED : ErrorMessage.FETCH_INTERRUPTED).error(e, what, request.uri());
        }
    }

    private static void close(InputStream in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // the response is abandoned either way
        }
    }
}
