package arno.xml;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How long a login must wait after failures, per account name from one client address and per
 * client address: the delay policy of {@link Accounts#check}. Time is injected (nanoseconds), so
 * tests step it.
 *
 * <p>Why the pair and not the name alone: a throttle per name, counted from any address, lets
 * anyone keep any account (the administrator's included) locked for ever with a wrong password
 * every few seconds, and the real user could not log in from anywhere. Counted per (name,
 * address), a guesser slows only itself: its own address for that name, and through the
 * per-address key every name it tries. The price is that guessing one name from many addresses
 * is bounded per address, not per name; an IPv6 client therefore counts as its /64 (one
 * subscriber's network, whose addresses it may choose at will), and every guess still costs a
 * hash on the few hashing threads ({@link Accounts}), which bounds the rate across all addresses.
 *
 * <p>The algorithm: each key (an account name, known or not, with an address; an address) has a
 * failure score that decays exponentially with a half-life of {@link #HALF_LIFE_NANOS} of quiet
 * (the time a key is closed does not count, so a client knocking whenever it may still doubles its
 * wait). A failure adds one to both keys. The first {@link #FREE} failures cost nothing (typos, a
 * client with an old password retrying; NIST SP 800-63B allows up to 100 before a lockout); from
 * then on each failure closes the key for {@code min(CAP, BASE * 2^(ceil(score) - FREE - 1))}: 1 s,
 * 2 s, 4 s, ... up to a minute. While a key is closed an attempt is refused at once, without
 * hashing and without counting, so a client that keeps knocking neither burns CPU nor extends its
 * own wait beyond the cap. A success clears the pair's score (its owner proved who they are) but
 * not the address's, so one valid account does not reset an address that guesses at others.
 *
 * <p>Unknown names are throttled exactly as known ones: a difference would tell which exist. Both
 * tables are bounded ({@link #MAX_KEYS}); when one is full the quiet keys are dropped first, then
 * the lowest-scored.
 *
 * <p>Thread-safe (synchronized: logins are rare next to pages).
 */
final class LoginThrottle {
    static final int FREE = 10;
    static final long BASE_NANOS = 1_000_000_000L;
    static final long CAP_NANOS = 60_000_000_000L;
    static final long HALF_LIFE_NANOS = 10 * 60_000_000_000L;
    static final int MAX_KEYS = 10_000;

    private static final class State {
        double score;
        long at;
        long until;
    }

    /** An account name as tried from one address (null when the address is not known). */
    private record Pair(String name, String address) {}

    private final LongSupplier clock;
    private final Map<Pair, State> pairs = new HashMap<>();
    private final Map<String, State> addresses = new HashMap<>();

    LoginThrottle(LongSupplier nanos) {
        this.clock = nanos;
    }

    /** Nanoseconds before {@code name} from {@code address} may try again; 0 when it may now. */
    synchronized long wait(String name, String address) {
        long now = clock.getAsLong();
        String network = network(address);
        return Math.max(remaining(pairs.get(new Pair(name, network)), now),
                network == null ? 0 : remaining(addresses.get(network), now));
    }

    /** Records a failed login; returns the wait it imposes (0 while within the free failures). */
    synchronized long failed(String name, String address) {
        long now = clock.getAsLong();
        String network = network(address);
        long wait = fail(pairs, new Pair(name, network), now);
        if (network != null) wait = Math.max(wait, fail(addresses, network, now));
        return wait;
    }

    /** Records a successful login: the name's failures from this address are forgiven, the address's decay as usual. */
    synchronized void succeeded(String name, String address) {
        pairs.remove(new Pair(name, network(address)));
    }

    /** The decayed failure score of an account name from an address, for tests and log lines. */
    synchronized double score(String name, String address) {
        State s = pairs.get(new Pair(name, network(address)));
        return s == null ? 0 : decayed(s, clock.getAsLong());
    }

    /**
     * The key of a client address: an IPv6 address's /64 (a subscriber is given a whole /64 and
     * may use any address in it), an IPv4 address in its one spelling ({@code ::ffff:192.0.2.1} is
     * {@code 192.0.2.1}), any other text as it is.
     */
    static String network(String address) {
        if (address == null) return null;
        java.net.InetAddress a = IpAddress.parse(address);
        if (a == null) return address;
        if (!(a instanceof java.net.Inet6Address)) return a.getHostAddress();
        byte[] b = a.getAddress();
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i += 2) s.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
        return s.append(":/64").toString();
    }

    /** The wait after a failure that brought the score to {@code score}. */
    static long delay(double score) {
        // Rounded up: the failures just before have decayed a little, and must still count whole.
        int over = (int) Math.ceil(score - 1e-9) - FREE;
        if (over <= 0) return 0;
        if (over > 30) return CAP_NANOS;
        return Math.min(CAP_NANOS, BASE_NANOS << (over - 1));
    }

    private static long remaining(State s, long now) {
        return s == null ? 0 : Math.max(0, s.until - now);
    }

    /** The score decayed over the quiet time since the last failure, not counting the time the key was closed. */
    private static double decayed(State s, long now) {
        long elapsed = Math.max(0, now - Math.max(s.at, s.until));
        return s.score * Math.pow(0.5, (double) elapsed / HALF_LIFE_NANOS);
    }

    private static <K> long fail(Map<K, State> table, K key, long now) {
        State s = table.get(key);
        if (s == null) {
            if (table.size() >= MAX_KEYS) prune(table, now);
            s = new State();
            table.put(key, s);
        } else {
            s.score = decayed(s, now);
        }
        s.score += 1;
        s.at = now;
        long wait = delay(s.score);
        s.until = Math.max(s.until, now + wait);
        return wait;
    }

    /** Drops the keys that are open and nearly forgiven; if none is, the lowest-scored one. */
    private static <K> void prune(Map<K, State> table, long now) {
        for (Iterator<State> i = table.values().iterator(); i.hasNext(); ) {
            State s = i.next();
            if (s.until <= now && decayed(s, now) < 1) i.remove();
        }
        if (table.size() < MAX_KEYS) return;
        K lowest = null;
        double min = Double.MAX_VALUE;
        for (Map.Entry<K, State> e : table.entrySet()) {
            double d = decayed(e.getValue(), now);
            if (d < min) {
                min = d;
                lowest = e.getKey();
            }
        }
        table.remove(lowest);
    }
}
