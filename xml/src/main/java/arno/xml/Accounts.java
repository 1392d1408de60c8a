package arno.xml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.InvalidKeySpecException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The accounts of every Arno service (the batch service, the store API), checked with HTTP Basic,
 * and managed by {@code ./arno accounts}. One line per account in one file:
 * {@code name:pbkdf2-sha256:iterations:salt:hash[:roles]} (salt and hash in Base64, roles a
 * comma-separated subset of {@code read,write,admin}), so the file never holds a password. A line
 * without roles (the batch service's old five-field form) has {@code read,write}: those accounts
 * could submit jobs.
 *
 * <p>Work factor: new and changed passwords get PBKDF2-HMAC-SHA256 with {@link #ITERATIONS}
 * (600,000, OWASP's figure for it). Lines with fewer iterations (120,000 before) still verify,
 * and are re-hashed at the current count after their next successful login (in the background,
 * the line replaced only if the file still holds it as it was) or by {@code ./arno accounts passwd}.
 *
 * <p>Servers call {@link #check}: the hash (a fifth of a second of one core) runs off the request
 * thread on this instance's small pool of half the cores ({@link #HASHERS}; the other half stay the
 * pages'), with a bounded queue; the request thread waits for it with a time limit and idles
 * meanwhile. A flood of logins thus queues (then is refused as busy) instead of taking every core
 * from the pages. Async servlet processing would free the waiting thread too, but the store and
 * batch servlets read their bodies synchronously after the check, and a waiting container thread
 * costs memory, not CPU. A name that has no account is hashed against a dummy line of the same
 * work factor, so it takes as long as a known one with a wrong password. Failures are logged
 * (name and address, never the password) and slowed per name from that address and per address
 * ({@link LoginThrottle}), never per name alone: failures from one address must not lock the
 * account's owner out everywhere. {@link #authenticate} is the plain check for tools and tests.
 *
 * <p>A verified name, password and account line are remembered (as a SHA-256 of the three, never
 * the password) so that a client polling with credentials pays for the hash once. The file is
 * re-read when it changes (its time, size or identity: every write replaces it atomically), so
 * accounts can be added, removed or their roles changed while the services run. Writers (the
 * command line, a re-hash) hold a lock file beside it while they read, change and replace it.
 *
 * <p>Where the lines live and where failures are counted is a {@link Backing}: the file and this
 * process's memory ({@link Backing#file}, what {@link #Accounts(Path)} uses), or, for the nodes of a
 * cluster, tables that they share in PostgreSQL ({@code arno.cluster.PgAccounts}). Every check
 * asks the backing whether anything changed ({@link Backing#state}: the file's attributes, the
 * database's change counter), so a change holds from the very next request, wherever it was made,
 * and a remembered check, keyed by the whole line, never outlives it.
 *
 * <p>Thread-safe: one instance may (and should, for the remembered checks, the throttle and the
 * one bound on hashing threads) be shared by every servlet that reads the same file. Its owner
 * (the batch service in a server) {@link #close}s it when it stops, which ends its hashing threads.
 */
public final class Accounts implements AutoCloseable {
    /** What an account may do. */
    public enum Role {
        /** Read what is not public (the store when reads are restricted, batch jobs and reports). */
        READ,
        /** Write: store resources, batch submissions and cancellations. */
        WRITE,
        /** Operate the server (the console, accounts); not needed by the store or batch APIs today. */
        ADMIN;

        /** The name in the accounts file. */
        public String token() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Role parse(String token) {
            for (Role r : values()) if (r.token().equals(token)) return r;
            return null;
        }

        /** The role named {@code token} in the accounts file ({@code read}, {@code write}, {@code admin}), if any. */
        public static java.util.Optional<Role> of(String token) {
            return java.util.Optional.ofNullable(parse(token));
        }
    }

    /** An authenticated account. */
    public record Account(String name, Set<Role> roles) {
        public Account {
            roles = Collections.unmodifiableSet(roles.isEmpty() ? EnumSet.noneOf(Role.class) : EnumSet.copyOf(roles));
        }

        public boolean has(Role role) {
            return roles.contains(role);
        }
    }

    /** The roles of a line that names none: what the batch service's accounts could always do. */
    public static final Set<Role> DEFAULT_ROLES = Collections.unmodifiableSet(EnumSet.of(Role.READ, Role.WRITE));
    public static final Set<Role> ALL_ROLES = Collections.unmodifiableSet(EnumSet.allOf(Role.class));

    /** PBKDF2 iterations for new and changed passwords; fewer in a line are re-hashed at the next login. */
    public static final int ITERATIONS = 600_000;
    /** Threads hashing for {@link #check} (an instance's, at most): half the cores, the rest stay the pages'. */
    static final int HASHERS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    /** Checks that may wait for a hashing thread; beyond it a login is refused as busy. */
    static final int HASH_QUEUE = 256;
    /** How long a request waits for its hash before it is refused as busy. */
    static final long HASH_WAIT_MILLIS = 10_000;
    private static final String SCHEME = "pbkdf2-sha256";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final System.Logger LOG = System.getLogger("arno");

    private record Line(String name, int iterations, String salt, String hash, Set<Role> roles, String text) {}

    /** An account as {@code ./arno accounts list} shows it: never its hash. */
    public record Listing(String name, Set<Role> roles, int iterations) {
        /** Whether the line's hash is weaker than {@link #ITERATIONS} (it is re-hashed at the next login). */
        public boolean outdated() {
            return iterations < ITERATIONS;
        }
    }

    /**
     * A refused login: {@link ErrorCode#UNAUTHORIZED} (no, malformed or wrong credentials; answer
     * with a challenge), {@link ErrorCode#TOO_MANY_ATTEMPTS} (throttled after failures) or
     * {@link ErrorCode#BUSY} (the hashing threads are saturated); the last two carry how long the
     * client should wait (Retry-After).
     */
    public static final class Refusal extends ArnoException {
        private final long retryAfterSeconds;

        Refusal(ErrorMessage message, long retryAfterSeconds, Object... args) {
            super(message.code(), message.format(args), null);
            this.retryAfterSeconds = retryAfterSeconds;
        }

        Refusal(ErrorCode code, long retryAfterSeconds, Object... args) {
            super(code, code.format(args), null);
            this.retryAfterSeconds = retryAfterSeconds;
        }

        /** Seconds to wait before trying again, or 0 when waiting will not help. */
        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }

    /**
     * Where the account lines live and where failed logins are counted: a file and this process's
     * memory ({@link #file(Path)}), or a database the nodes of a cluster share. Lines are in the
     * file's form, {@code name:pbkdf2-sha256:iterations:salt:hash:roles}.
     */
    public interface Backing {
        /**
         * What tells a change, compared with {@code equals}: read on every check, so it must be cheap
         * (a file's attributes; a database's change counter, one indexed row).
         */
        Object state();

        /** The lines now (comments and blank lines allowed); none when there are no accounts at all. */
        List<String> lines();

        /**
         * Reads the lines, lets {@code change} edit them and stores them, atomically for every
         * process (or node) that shares them, so that none loses another's change.
         */
        void update(java.util.function.Consumer<List<String>> change);

        /** Where the accounts are, for messages: the file, or the cluster's database. */
        String where();

        /** Where failed logins are counted; null: in this process's memory. */
        default LoginThrottle.Scores failures() {
            return null;
        }

        /** The accounts file {@code file}, failures counted in this process's memory: one node. */
        static Backing file(Path file) {
            return new InFile(file);
        }
    }

    private final Backing backing;
    private final Path file;
    private final LoginThrottle throttle;
    private volatile Map<String, Line> accounts = Map.of();
    private volatile Object loadedState = null;
    private final Set<String> verified = ConcurrentHashMap.newKeySet();
    /** Compared against when a name has no account: the same work as a real line, never matching. */
    private final Line dummy;
    private final Hashers hashers = new Hashers();
    /** PBKDF2 iterations this instance computed: lets tests see that an unknown name costs a full hash. */
    private final java.util.concurrent.atomic.AtomicLong hashed = new java.util.concurrent.atomic.AtomicLong();

    public Accounts(Path file) {
        this(file, System::nanoTime);
    }

    /** The accounts of {@code backing}, failures counted where it says (this process's memory if nowhere). */
    public Accounts(Backing backing) {
        this(backing, backing.failures() != null ? backing.failures() : LoginThrottle.inMemory(System::nanoTime));
    }

    /** With the throttle's time from {@code nanos}: for tests of the delays. */
    Accounts(Path file, java.util.function.LongSupplier nanos) {
        this(Backing.file(file), LoginThrottle.inMemory(nanos));
    }

    private Accounts(Backing backing, LoginThrottle.Scores failures) {
        this.backing = backing;
        this.file = backing instanceof InFile f ? f.file : null;
        this.throttle = new LoginThrottle(failures);
        byte[] salt = new byte[16];
        byte[] hash = new byte[32];
        RANDOM.nextBytes(salt);
        RANDOM.nextBytes(hash);
        Base64.Encoder b = Base64.getEncoder();
        this.dummy = new Line("", ITERATIONS, b.encodeToString(salt), b.encodeToString(hash), Set.of(), "");
    }

    /** The accounts file, or null when the accounts are not in one (a cluster's). */
    public Path file() {
        return file;
    }

    /** Where the accounts are, for messages: the file, or the cluster's database. */
    public String where() {
        return backing.where();
    }

    /**
     * The account if {@code authorization} (an HTTP Authorization header) carries valid Basic
     * credentials, else null (no header, another scheme, bad Base64, unknown name, wrong password).
     * Hashes on the calling thread and neither throttles nor logs: for tools and tests; servers
     * use {@link #check}.
     *
     * @throws ArnoException {@link ErrorCode#BAD_CONFIGURATION} when the file has a malformed line
     */
    public Account authenticate(String authorization) {
        String[] credentials = credentials(authorization);
        if (credentials == null) return null;
        Line account = accounts().get(credentials[0]);
        if (account == null) return null;
        return verify(account, credentials[1]) ? new Account(account.name, account.roles) : null;
    }

    /**
     * The account that {@code authorization} (an HTTP Authorization header) names, checked as a
     * server must: throttled per name from {@code address} (the client's, or null) and per address, hashed off
     * the calling thread, failures logged; an old hash is renewed after a success.
     *
     * @throws Refusal when the login is refused (see {@link Refusal})
     * @throws ArnoException {@link ErrorCode#BAD_CONFIGURATION} when the file has a malformed line
     */
    public Account check(String authorization, String address) {
        String[] credentials = credentials(authorization);
        if (credentials == null) {
            throw new Refusal(authorization == null ? ErrorMessage.NO_CREDENTIALS : ErrorMessage.CREDENTIALS_NOT_BASIC, 0);
        }
        String name = credentials[0];
        String password = credentials[1];
        long wait = throttle.wait(name, address);
        if (wait > 0) {
            long seconds = seconds(wait);
            throw new Refusal(ErrorCode.TOO_MANY_ATTEMPTS, seconds, seconds);
        }
        Line account = accounts().get(name);
        boolean ok;
        if (account != null && verified.contains(remembered(account, password))) {
            ok = true;
        } else {
            Line against = account != null ? account : dummy;
            ok = hashed(() -> verify(against, password)) && account != null;
        }
        if (!ok) {
            long next = throttle.failed(name, address);
            LOG.log(System.Logger.Level.WARNING, "failed login for " + (account == null ? "unknown account " : "account ")
                    + printable(name) + " from " + (address == null ? "an unknown address" : address)
                    + (next > 0 ? "; further attempts wait " + seconds(next) + " s" : ""));
            throw new Refusal(ErrorMessage.WRONG_CREDENTIALS, 0);
        }
        throttle.succeeded(name, address);
        if (account.iterations < ITERATIONS) renew(account, password);
        return new Account(account.name, account.roles);
    }

    public boolean isEmpty() {
        return accounts().isEmpty();
    }

    /** Whether some account has {@code role}. */
    public boolean anyWith(Role role) {
        for (Line l : accounts().values()) if (l.roles.contains(role)) return true;
        return false;
    }

    /** The accounts, sorted by name: names, roles and work factors, never hashes. */
    public List<Listing> list() {
        return accounts().values().stream().sorted(java.util.Comparator.comparing(Line::name))
                .map(l -> new Listing(l.name, l.roles, l.iterations)).toList();
    }

    /** Adds (or replaces) an account with {@link #DEFAULT_ROLES}. */
    public void add(String name, String password) {
        add(name, password, DEFAULT_ROLES);
    }

    /**
     * Adds (or replaces) an account; the file is rewritten atomically.
     *
     * @throws ArnoException {@link ErrorCode#BAD_PARAMETER} for a name with ':' or spaces, a password
     *     under 8 characters or no role; {@link ErrorCode#IO} when the file cannot be written
     */
    public void add(String name, String password, Set<Role> roles) {
        String line = newLine(name, password, roles);
        update(lines -> {
            lines.removeIf(l -> named(l, name));
            lines.add(line);
        });
    }

    /**
     * Adds an account that must not exist yet.
     *
     * @throws ArnoException {@link ErrorCode#CONFLICT} when it exists; else as {@link #add(String, String, Set)}
     */
    public void create(String name, String password, Set<Role> roles) {
        String line = newLine(name, password, roles);
        update(lines -> {
            if (lines.stream().anyMatch(l -> named(l, name))) {
                throw ErrorMessage.ACCOUNT_EXISTS.error(printable(name), where());
            }
            lines.add(line);
        });
    }

    /**
     * Adds an account if there is none at all (the development account), atomically for every
     * process or node sharing the accounts, so that of servers starting together one creates it.
     *
     * @return whether it was added
     */
    public boolean createIfNone(String name, String password, Set<Role> roles) {
        String line = newLine(name, password, roles);
        boolean[] added = {false};
        update(lines -> {
            if (lines.stream().anyMatch(l -> !l.isBlank() && !l.startsWith("#"))) return;
            lines.add(line);
            added[0] = true;
        });
        return added[0];
    }

    /**
     * Removes an account.
     *
     * @throws ArnoException {@link ErrorCode#NOT_FOUND} when there is none of that name
     */
    public void remove(String name) {
        update(lines -> {
            if (!lines.removeIf(l -> named(l, name))) throw unknown(name);
        });
    }

    /**
     * Gives an account a new password (hashed at {@link #ITERATIONS}), keeping its roles.
     *
     * @throws ArnoException {@link ErrorCode#NOT_FOUND} when there is none of that name;
     *     {@link ErrorCode#BAD_PARAMETER} for a password under 8 characters
     */
    public void password(String name, String password) {
        Line old = accounts().get(name);
        if (old == null) throw unknown(name);
        String line = newLine(name, password, old.roles);
        update(lines -> {
            int i = indexOf(lines, name);
            if (i < 0) throw unknown(name);
            lines.set(i, line);
        });
    }

    /** A random password that is easy to copy from a console: 20 characters, no look-alikes. */
    public static String randomPassword() {
        String alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 20; i++) s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        return s.toString();
    }

    /** The throttle's score of a name from an address, for tests. */
    double failures(String name, String address) {
        return throttle.score(name, address);
    }

    // ---- Verifying

    /** Name and password of Basic credentials, or null. */
    private static String[] credentials(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) return null;
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) return null;
        return new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
    }

    /** Hashes {@code password} as {@code account} says and compares in constant time; remembers a match. */
    private boolean verify(Line account, String password) {
        // The whole line is part of the key: a changed hash or salt must be checked again.
        String remembered = remembered(account, password);
        if (verified.contains(remembered)) return true;
        byte[] salt = Base64.getDecoder().decode(account.salt);
        byte[] expected = Base64.getDecoder().decode(account.hash);
        byte[] made = MADE.get(madeKey(account.salt, account.iterations, password));
        if (made == null || !MessageDigest.isEqual(expected, made)) {
            if (!MessageDigest.isEqual(expected, hash(password.toCharArray(), salt, account.iterations))) return false;
        }
        if (account != dummy) verified.add(remembered);
        return true;
    }

    /**
     * The hashes this process made for new and changed passwords, by a SHA-256 of salt, work factor
     * and password, the last 64: the first login with a password set here (the development account,
     * one set from the console, a test's account) is then checked without hashing it again. Only
     * a right password can hit it (the key holds the password and the line's fresh salt), as only
     * a right one hits {@link #verified}: a wrong password and an unknown name still cost a full
     * hash. The key is as hard to reverse as {@link #verified}'s, which holds the same digest.
     */
    private static final Map<String, byte[]> MADE = Collections.synchronizedMap(
            new java.util.LinkedHashMap<String, byte[]>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
                    return size() > 64;
                }
            });

    private static String madeKey(String salt64, int iterations, String password) {
        return sha256(salt64 + "\n" + iterations + "\n" + password);
    }

    private static String remembered(Line account, String password) {
        return sha256(account.text + "\n" + password);
    }

    /** Runs {@code check} on a hashing thread and waits for it; BUSY when the threads are saturated. */
    private boolean hashed(java.util.concurrent.Callable<Boolean> check) {
        java.util.concurrent.Future<Boolean> f;
        try {
            f = hashers.pool().submit(check);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new Refusal(ErrorMessage.LOGINS_BUSY, 1);
        }
        try {
            return f.get(HASH_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(false);
            throw new Refusal(ErrorMessage.LOGINS_BUSY, 1);
        } catch (InterruptedException e) {
            f.cancel(false);
            Thread.currentThread().interrupt();
            throw new Refusal(ErrorMessage.LOGIN_INTERRUPTED, 1);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        }
    }

    /** After a successful login with an old hash: the same password at the current work factor, in the background. */
    private void renew(Line old, String password) {
        try {
            hashers.pool().execute(() -> {
                try {
                    String line = newLine(old.name, password, old.roles);
                    boolean[] replaced = {false};
                    update(lines -> {
                        int i = lines.indexOf(old.text);
                        if (i >= 0) {
                            lines.set(i, line);
                            replaced[0] = true;
                        }
                    });
                    if (replaced[0]) {
                        LOG.log(System.Logger.Level.INFO, "account " + printable(old.name) + " re-hashed with " + ITERATIONS
                                + " PBKDF2 iterations (was " + old.iterations + ")");
                    }
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "cannot re-hash the account " + printable(old.name) + " in " + where()
                            + ": " + e.getMessage());
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // busy: the next login tries again
        }
    }

    /**
     * Stops this instance's hashing threads, waiting for checks under way (up to
     * {@link #HASH_WAIT_MILLIS}, as long as a check may wait) and for the threads to end. Its owner
     * calls it when it stops: a web application being undeployed must leave no thread behind, since
     * an idle one would live on for a minute holding the application's class loader (Tomcat warns of
     * a thread it "failed to stop"). A check after this starts new threads, so a late request is
     * still answered; the file and what was remembered stay as they were.
     */
    @Override
    public void close() {
        java.time.Duration wait = java.time.Duration.ofMillis(HASH_WAIT_MILLIS);
        long deadline = System.nanoTime() + wait.toNanos();
        Hashers.Stopped p = hashers.stop();
        if (p == null) return;
        try {
            p.pool().awaitTermination(wait.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            // A terminated pool's last worker may still be ending: wait for the threads themselves.
            for (Thread t : p.threads().made) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                t.join(Math.max(1, left / 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An instance's hashing threads: daemons, made on the first check and again after a {@link #close}. */
    private static final class Hashers {
        private final java.util.concurrent.atomic.AtomicInteger number = new java.util.concurrent.atomic.AtomicInteger();
        private java.util.concurrent.ThreadPoolExecutor pool;

        /** Makes a pool's threads and keeps those that may be alive, so a stop can wait for them to end. */
        final class Threads implements java.util.concurrent.ThreadFactory {
            final java.util.List<Thread> made = new java.util.concurrent.CopyOnWriteArrayList<>();

            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "arno-login-" + number.incrementAndGet());
                t.setDaemon(true);
                made.removeIf(old -> !old.isAlive()); // idle threads time out and are made anew
                made.add(t);
                return t;
            }
        }

        /** A pool shut down, with its threads to wait for. */
        record Stopped(java.util.concurrent.ThreadPoolExecutor pool, Threads threads) {}

        synchronized java.util.concurrent.ThreadPoolExecutor pool() {
            if (pool == null) {
                pool = new java.util.concurrent.ThreadPoolExecutor(HASHERS, HASHERS, 60, java.util.concurrent.TimeUnit.SECONDS,
                        new java.util.concurrent.ArrayBlockingQueue<>(HASH_QUEUE), new Threads());
                pool.allowCoreThreadTimeOut(true);
            }
            return pool;
        }

        /** The pool shut down (null when there was none); the next {@link #pool} makes a new one. */
        synchronized Stopped stop() {
            java.util.concurrent.ThreadPoolExecutor p = pool;
            pool = null;
            if (p == null) return null;
            p.shutdown();
            return new Stopped(p, (Threads) p.getThreadFactory());
        }
    }

    private static long seconds(long nanos) {
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }

    /** A name as it may appear in a log line: no control characters, at most 64 characters. */
    static String printable(String name) {
        StringBuilder b = new StringBuilder("'");
        for (int i = 0; i < name.length() && i < 64; i++) {
            char c = name.charAt(i);
            b.append(Character.isISOControl(c) ? '?' : c);
        }
        if (name.length() > 64) b.append("...");
        return b.append('\'').toString();
    }

    // ---- Writing

    private String newLine(String name, String password, Set<Role> roles) {
        if (name.isEmpty() || name.contains(":") || name.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw ErrorMessage.BAD_ACCOUNT_NAME.error(name);
        }
        if (password.length() < 8) {
            throw ErrorMessage.SHORT_PASSWORD.error(name);
        }
        if (roles.isEmpty()) {
            throw ErrorMessage.NO_ROLE.error(name);
        }
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        String salt64 = Base64.getEncoder().encodeToString(salt);
        byte[] hash = hash(password.toCharArray(), salt, ITERATIONS);
        MADE.put(madeKey(salt64, ITERATIONS, password), hash);
        return name + ":" + SCHEME + ":" + ITERATIONS + ":" + salt64 + ":"
                + Base64.getEncoder().encodeToString(hash) + ":"
                + tokens(roles);
    }

    private static boolean named(String line, String name) {
        return line.startsWith(name + ":");
    }

    private static int indexOf(List<String> lines, String name) {
        for (int i = 0; i < lines.size(); i++) if (named(lines.get(i), name)) return i;
        return -1;
    }

    private ArnoException unknown(String name) {
        return ErrorMessage.NO_ACCOUNT.error(printable(name), where());
    }

    /** Lets {@code change} edit the lines where they live; the next check reads them again. */
    private void update(java.util.function.Consumer<List<String>> change) {
        backing.update(change);
        loadedState = null;
    }

    private static String tokens(Set<Role> roles) {
        return EnumSet.copyOf(roles).stream().map(Role::token).collect(Collectors.joining(","));
    }

    // ---- Reading

    private Map<String, Line> accounts() {
        Object state = backing.state();
        if (!state.equals(loadedState)) {
            synchronized (this) {
                Map<String, Line> loaded = new ConcurrentHashMap<>();
                // the state before the lines: lines newer than it are read again at the next check, never older ones kept
                state = backing.state();
                int number = 0;
                for (String text : backing.lines()) {
                    number++;
                    if (text.isBlank() || text.startsWith("#")) continue;
                    Line line = parse(text.strip(), number);
                    loaded.put(line.name, line);
                }
                accounts = loaded;
                loadedState = state;
            }
        }
        return accounts;
    }

    private Line parse(String text, int number) {
        String[] parts = text.split(":", -1);
        ArnoException problem = null;
        Set<Role> roles = DEFAULT_ROLES;
        int iterations = 0;
        if ((parts.length != 5 && parts.length != 6) || !SCHEME.equals(parts[1])) {
            problem = ErrorMessage.ACCOUNTS_LINE_SHAPE.error(where(), number, SCHEME);
        } else {
            try {
                iterations = Integer.parseInt(parts[2]);
                Base64.getDecoder().decode(parts[3]);
                Base64.getDecoder().decode(parts[4]);
            } catch (IllegalArgumentException e) {
                problem = ErrorMessage.ACCOUNTS_LINE_ENCODING.error(where(), number);
            }
            if (problem == null && parts.length == 6) {
                roles = EnumSet.noneOf(Role.class);
                for (String token : parts[5].split(",")) {
                    Role r = Role.parse(token.strip());
                    if (r == null) {
                        problem = ErrorMessage.ACCOUNTS_LINE_ROLE.error(where(), number, token.strip());
                        break;
                    }
                    roles.add(r);
                }
            }
        }
        if (problem != null) {
            throw problem.at(Where.at(where(), number, -1));
        }
        return new Line(parts[0], iterations, parts[3], parts[4], roles, text);
    }

    /** PBKDF2 iterations this instance computed so far. */
    long hashed() {
        return hashed.get();
    }

    private byte[] hash(char[] password, byte[] salt, int iterations) {
        hashed.addAndGet(iterations);
        try {
            PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (NoSuchAlgorithmException | InvalidKeySpecException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", e);
        }
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /**
     * Accounts in one file, rewritten atomically (owner-only, as its folder and lock file:
     * {@link OwnerOnly}) while a lock file beside it is held, so that a command and a running
     * server do not lose each other's changes; a change is told by the file's time, size and
     * identity (each write replaces it).
     */
    private static final class InFile implements Backing {
        /** One writer of any accounts file in this JVM at a time (file locks are per process). */
        private static final Object WRITING = new Object();
        private final Path file;

        InFile(Path file) {
            this.file = file;
        }

        @Override
        public Object state() {
            java.nio.file.attribute.BasicFileAttributes a;
            try {
                a = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
            } catch (java.nio.file.NoSuchFileException e) {
                return Boolean.FALSE;
            } catch (IOException e) {
                throw ErrorMessage.ACCOUNTS_NOT_READ.error(e, file, e.getMessage());
            }
            return List.of(a.lastModifiedTime(), a.size(), String.valueOf(a.fileKey()));
        }

        @Override
        public List<String> lines() {
            try {
                return Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (java.nio.file.NoSuchFileException e) {
                return List.of();
            } catch (IOException e) {
                throw ErrorMessage.ACCOUNTS_NOT_READ.error(e, file, e.getMessage());
            }
        }

        @Override
        public String where() {
            return file.toString();
        }

        @Override
        public void update(java.util.function.Consumer<List<String>> change) {
            Path parent = file.toAbsolutePath().getParent();
            synchronized (WRITING) {
                try {
                    if (parent != null) OwnerOnly.folder(parent);
                    Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
                    try (java.nio.channels.FileChannel channel = OwnerOnly.open(lockFile,
                            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
                         java.nio.channels.FileLock lock = channel.lock()) {
                        List<String> lines = new ArrayList<>();
                        if (Files.exists(file)) {
                            lines.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
                        } else {
                            lines.add("# Arno accounts: name:" + SCHEME + ":iterations:salt:hash:roles (roles: read,write,admin)");
                        }
                        change.accept(lines);
                        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                        Files.deleteIfExists(tmp);
                        Files.createFile(tmp, OwnerOnly.file(tmp));
                        Files.write(tmp, lines, StandardCharsets.UTF_8);
                        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    }
                } catch (IOException e) {
                    throw ErrorMessage.ACCOUNTS_NOT_WRITTEN.error(e, file, e.getMessage());
                }
            }
        }
    }
}
