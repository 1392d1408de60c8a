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
 * The accounts of every Arno service (the batch service, the store API), checked with HTTP Basic.
 * One line per account in one file:
 * {@code name:pbkdf2-sha256:iterations:salt:hash[:roles]} (salt and hash in Base64, roles a
 * comma-separated subset of {@code read,write,admin}), so the file never holds a password. A line
 * without roles (the batch service's old five-field form) has {@code read,write}: those accounts
 * could submit jobs.
 *
 * <p>PBKDF2 is deliberately slow, so a caller checks credentials once per request; a verified
 * name, password and account line are remembered (as a SHA-256 of the three, never the password)
 * so that a client polling with credentials pays for the hash once. The file is re-read when it
 * changes, so accounts can be added or their roles changed while the services run.
 *
 * <p>Thread-safe: one instance may (and should, for the remembered checks) be shared by every
 * servlet that reads the same file.
 */
public final class Accounts {
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

    static final int ITERATIONS = 120_000;
    private static final String SCHEME = "pbkdf2-sha256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private record Line(String name, int iterations, String salt, String hash, Set<Role> roles, String text) {}

    private final Path file;
    private volatile Map<String, Line> accounts = Map.of();
    private volatile long loadedModified = Long.MIN_VALUE;
    private final Set<String> verified = ConcurrentHashMap.newKeySet();

    public Accounts(Path file) {
        this.file = file;
    }

    /** The accounts file. */
    public Path file() {
        return file;
    }

    /**
     * The account if {@code authorization} (an HTTP Authorization header) carries valid Basic
     * credentials, else null (no header, another scheme, bad Base64, unknown name, wrong password).
     *
     * @throws ArnoException {@link ErrorCode#BAD_CONFIGURATION} when the file has a malformed line
     */
    public Account authenticate(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) return null;
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) return null;
        String name = decoded.substring(0, colon);
        String password = decoded.substring(colon + 1);
        Line account = accounts().get(name);
        if (account == null) return null;
        // The whole line is part of the key: a changed hash or salt must be checked again.
        String remembered = sha256(account.text + "\n" + password);
        if (!verified.contains(remembered)) {
            byte[] salt = Base64.getDecoder().decode(account.salt);
            byte[] expected = Base64.getDecoder().decode(account.hash);
            byte[] actual = hash(password.toCharArray(), salt, account.iterations);
            if (!MessageDigest.isEqual(expected, actual)) return null;
            verified.add(remembered);
        }
        return new Account(name, account.roles);
    }

    public boolean isEmpty() {
        return accounts().isEmpty();
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
    public synchronized void add(String name, String password, Set<Role> roles) {
        if (name.isEmpty() || name.contains(":") || name.chars().anyMatch(Character::isWhitespace)) {
            throw ErrorCode.BAD_PARAMETER.error("account name '" + name + "' must be non-empty, without ':' or spaces");
        }
        if (password.length() < 8) {
            throw ErrorCode.BAD_PARAMETER.error("the password for " + name + " must have at least 8 characters");
        }
        if (roles.isEmpty()) {
            throw ErrorCode.BAD_PARAMETER.error("the account " + name + " needs at least one role (read, write, admin)");
        }
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        String line = name + ":" + SCHEME + ":" + ITERATIONS + ":" + Base64.getEncoder().encodeToString(salt) + ":"
                + Base64.getEncoder().encodeToString(hash(password.toCharArray(), salt, ITERATIONS)) + ":"
                + tokens(roles);
        try {
            List<String> lines = new ArrayList<>();
            if (Files.exists(file)) {
                for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!l.startsWith(name + ":")) lines.add(l);
                }
            } else {
                lines.add("# Arno accounts: name:" + SCHEME + ":iterations:salt:hash:roles (roles: read,write,admin)");
            }
            lines.add(line);
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(tmp, lines, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, "cannot write the accounts file " + file + ": " + e.getMessage());
        }
        loadedModified = Long.MIN_VALUE;
    }

    /** A random password that is easy to copy from a console: 20 characters, no look-alikes. */
    public static String randomPassword() {
        String alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 20; i++) s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        return s.toString();
    }

    private static String tokens(Set<Role> roles) {
        return EnumSet.copyOf(roles).stream().map(Role::token).collect(Collectors.joining(","));
    }

    private Map<String, Line> accounts() {
        try {
            long modified = Files.exists(file) ? Files.getLastModifiedTime(file).toMillis() ^ Files.size(file) : -1;
            if (modified != loadedModified) {
                synchronized (this) {
                    Map<String, Line> loaded = new ConcurrentHashMap<>();
                    if (modified != -1) {
                        int number = 0;
                        for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                            number++;
                            if (text.isBlank() || text.startsWith("#")) continue;
                            Line line = parse(text.strip(), number);
                            loaded.put(line.name, line);
                        }
                    }
                    accounts = loaded;
                    loadedModified = modified;
                }
            }
            return accounts;
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, "cannot read the accounts file " + file + ": " + e.getMessage());
        }
    }

    private Line parse(String text, int number) {
        String[] parts = text.split(":", -1);
        String problem = null;
        Set<Role> roles = DEFAULT_ROLES;
        int iterations = 0;
        if ((parts.length != 5 && parts.length != 6) || !SCHEME.equals(parts[1])) {
            problem = "expected name:" + SCHEME + ":iterations:salt:hash[:roles]";
        } else {
            try {
                iterations = Integer.parseInt(parts[2]);
                Base64.getDecoder().decode(parts[3]);
                Base64.getDecoder().decode(parts[4]);
            } catch (IllegalArgumentException e) {
                problem = "the iterations must be a number and the salt and hash Base64";
            }
            if (problem == null && parts.length == 6) {
                roles = EnumSet.noneOf(Role.class);
                for (String token : parts[5].split(",")) {
                    Role r = Role.parse(token.strip());
                    if (r == null) {
                        problem = "unknown role '" + token.strip() + "'; roles are read, write and admin, separated by commas";
                        break;
                    }
                    roles.add(r);
                }
            }
        }
        if (problem != null) {
            throw ErrorCode.BAD_CONFIGURATION.error("accounts file " + file + " line " + number + ": " + problem)
                    .at(Where.at(file.toString(), number, -1));
        }
        return new Line(parts[0], iterations, parts[3], parts[4], roles, text);
    }

    private static byte[] hash(char[] password, byte[] salt, int iterations) {
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
}
