package arno.xml;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
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
 * <p>Where the scores live is a {@link Scores}: this process's memory for one node; a table that
 * the nodes of a cluster share ({@code arno.cluster.PgAccounts}), so that failures on any node count
 * as failures on one, with the database's clock as the one time. The policy stays here either way.
 *
 * <p>Thread-safe (the in-memory scores are synchronized: logins are rare next to pages).
 */
public final class LoginThrottle {
    static final int FREE = 10;
    static final long BASE_NANOS = 1_000_000_000L;
    static final long CAP_NANOS = 60_000_000_000L;
    static final long HALF_LIFE_NANOS = 10 * 60_000_000_000L;
    static final int MAX_KEYS = 10_000;
    /** A score decayed below this is as good as none: the key can be forgotten. */
    static final double FORGOTTEN = 1.0 / 1024;

    /**
     * A key's failures: its score as of its last failure at {@code at}, and until when the key is
     * closed; times in nanoseconds on the clock of the {@link Scores} that keep it.
     */
    public record Score(double score, long at, long until) {
        /** When this score has decayed below a thousandth of a failure with the key open: it may be forgotten then. */
        public long forgottenAt() {
            double halfLives = Math.log(Math.max(score, FORGOTTEN) / FORGOTTEN) / Math.log(2);
            return Math.max(at, until) + (long) Math.ceil(halfLives * HALF_LIFE_NANOS);
        }
    }

    /**
     * Where scores live, by key ({@code "a "} and an address's network, {@code "n "} and a hash of
     * the network and an account name): this process's memory ({@link #inMemory}), or a table the
     * nodes of a cluster share.
     */
    public interface Scores {
        /**
         * Runs {@code step} with the time now (nanoseconds, on a clock every sharer reads alike) and
         * the current scores of {@code keys} (null where there is none). When {@code change}, what
         * {@code step} leaves in the array replaces them (null removes), atomically with the read for
         * every sharer, so that two failures counted at once both count.
         */
        <T> T update(List<String> keys, boolean change, Step<T> step);
    }

    /** A step of {@link Scores#update}. */
    public interface Step<T> {
        T apply(long now, Score[] scores);
    }

    private final Scores scores;

    /** Scores in this process's memory, on {@code nanos}' time. */
    LoginThrottle(LongSupplier nanos) {
        this(inMemory(nanos));
    }

    LoginThrottle(Scores scores) {
        this.scores = scores;
    }

    /** Scores kept in this process's memory (one node), at most {@link #MAX_KEYS} names and as many addresses. */
    static Scores inMemory(LongSupplier nanos) {
        return new Memory(nanos);
    }

    /** Nanoseconds before {@code name} from {@code address} may try again; 0 when it may now. */
    long wait(String name, String address) {
        return scores.update(keys(name, address), false, (now, s) -> {
            long wait = 0;
            for (Score x : s) wait = Math.max(wait, remaining(x, now));
            return wait;
        });
    }

    /** Records a failed login; returns the wait it imposes (0 while within the free failures). */
    long failed(String name, String address) {
        return scores.update(keys(name, address), true, (now, s) -> {
            long wait = 0;
            for (int i = 0; i < s.length; i++) {
                s[i] = fail(s[i], now);
                wait = Math.max(wait, delay(s[i].score()));
            }
            return wait;
        });
    }

    /** Records a successful login: the name's failures from this address are forgiven, the address's decay as usual. */
    void succeeded(String name, String address) {
        scores.update(List.of(pairKey(name, network(address))), true, (now, s) -> {
            s[0] = null;
            return null;
        });
    }

    /** The decayed failure score of an account name from an address, for tests and log lines. */
    double score(String name, String address) {
        return scores.update(List.of(pairKey(name, network(address))), false, (now, s) -> s[0] == null ? 0 : decayed(s[0], now));
    }

    /** The keys of a login: the name from the address's network, and the network (when known). */
    private static List<String> keys(String name, String address) {
        String network = network(address);
        return network == null ? List.of(pairKey(name, null)) : List.of(pairKey(name, network), "a " + printable(network));
    }

    /** A name from a network, hashed: any text a client sends, kept short and storable anywhere. */
    private static String pairKey(String name, String network) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(((network == null ? "" : network) + "\n" + name).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "n " + java.util.HexFormat.of().formatHex(d, 0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** A network as it is when it is short printable ASCII (an IP address), else hashed. */
    private static String printable(String network) {
        if (network.length() <= 64 && network.chars().allMatch(c -> c > ' ' && c < 127)) return network;
        return "#" + pairKey("", network).substring(2);
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

    private static long remaining(Score s, long now) {
        return s == null ? 0 : Math.max(0, s.until() - now);
    }

    /** The score decayed over the quiet time since the last failure, not counting the time the key was closed. */
    private static double decayed(Score s, long now) {
        long elapsed = Math.max(0, now - Math.max(s.at(), s.until()));
        return s.score() * Math.pow(0.5, (double) elapsed / HALF_LIFE_NANOS);
    }

    /** The score after one more failure now. */
    private static Score fail(Score s, long now) {
        double score = (s == null ? 0 : decayed(s, now)) + 1;
        return new Score(score, now, Math.max(s == null ? 0 : s.until(), now + delay(score)));
    }

    /** One node's scores: a table of names from addresses and one of addresses, each bounded. */
    private static final class Memory implements Scores {
        private final LongSupplier clock;
        private final Map<String, Score> pairs = new HashMap<>();
        private final Map<String, Score> addresses = new HashMap<>();

        Memory(LongSupplier clock) {
            this.clock = clock;
        }

        @Override
        public synchronized <T> T update(List<String> keys, boolean change, Step<T> step) {
            long now = clock.getAsLong();
            Score[] s = new Score[keys.size()];
            for (int i = 0; i < s.length; i++) s[i] = table(keys.get(i)).get(keys.get(i));
            T result = step.apply(now, s);
            if (!change) return result;
            for (int i = 0; i < s.length; i++) {
                Map<String, Score> table = table(keys.get(i));
                if (s[i] == null) {
                    table.remove(keys.get(i));
                } else {
                    if (!table.containsKey(keys.get(i)) && table.size() >= MAX_KEYS) prune(table, now);
                    table.put(keys.get(i), s[i]);
                }
            }
            return result;
        }

        private Map<String, Score> table(String key) {
            return key.startsWith("a ") ? addresses : pairs;
        }

        /** Drops the keys that are open and nearly forgiven; if none is, the lowest-scored one. */
        private static void prune(Map<String, Score> table, long now) {
            for (Iterator<Score> i = table.values().iterator(); i.hasNext(); ) {
                Score s = i.next();
                if (s.until() <= now && decayed(s, now) < 1) i.remove();
            }
            if (table.size() < MAX_KEYS) return;
            String lowest = null;
            double min = Double.MAX_VALUE;
            for (Map.Entry<String, Score> e : table.entrySet()) {
                double d = decayed(e.getValue(), now);
                if (d < min) {
                    min = d;
                    lowest = e.getKey();
                }
            }
            table.remove(lowest);
        }
    }
}
