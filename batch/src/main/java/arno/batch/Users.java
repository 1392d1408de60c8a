package arno.batch;

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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The accounts allowed to submit and cancel jobs, checked with HTTP Basic.
 * One line per account in the users file:
 * {@code name:pbkdf2-sha256:iterations:salt:hash} (salt and hash in Base64),
 * so the file never holds a password. PBKDF2 is deliberately slow; a verified
 * name and password are remembered (as a SHA-256, not the password) so that a
 * client polling with credentials pays it once. The file is re-read when it
 * changes, so accounts can be added while the service runs.
 */
final class Users {
    static final int ITERATIONS = 120_000;
    private static final String SCHEME = "pbkdf2-sha256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private volatile Map<String, String[]> accounts = Map.of();
    private volatile long loadedModified = Long.MIN_VALUE;
    private final Set<String> verified = ConcurrentHashMap.newKeySet();

    Users(Path file) {
        this.file = file;
    }

    /** The account name if {@code authorization} (an HTTP Authorization header) is valid Basic credentials, else null. */
    String authenticate(String authorization) {
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
        String[] account = accounts().get(name);
        if (account == null) return null;
        String remembered = sha256(String.join(":", account) + "\n" + password);
        if (verified.contains(remembered)) return name;
        byte[] salt = Base64.getDecoder().decode(account[2]);
        byte[] expected = Base64.getDecoder().decode(account[3]);
        byte[] actual = hash(password.toCharArray(), salt, Integer.parseInt(account[1]));
        if (!MessageDigest.isEqual(expected, actual)) return null;
        verified.add(remembered);
        return name;
    }

    boolean isEmpty() {
        return accounts().isEmpty();
    }

    /** Adds (or replaces) an account; the file is rewritten atomically. */
    synchronized void add(String name, String password) {
        if (name.isEmpty() || name.contains(":") || name.chars().anyMatch(Character::isWhitespace)) {
            throw arno.xml.ErrorCode.BAD_PARAMETER.error("account name '" + name + "' must be non-empty, without ':' or spaces");
        }
        if (password.length() < 8) {
            throw arno.xml.ErrorCode.BAD_PARAMETER.error("the password for " + name + " must have at least 8 characters");
        }
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        String line = name + ":" + SCHEME + ":" + ITERATIONS + ":" + Base64.getEncoder().encodeToString(salt) + ":"
                + Base64.getEncoder().encodeToString(hash(password.toCharArray(), salt, ITERATIONS));
        try {
            List<String> lines = new ArrayList<>();
            if (Files.exists(file)) {
                for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!l.startsWith(name + ":")) lines.add(l);
                }
            } else {
                lines.add("# Arno batch accounts: name:" + SCHEME + ":iterations:salt:hash (see batch/README.md)");
            }
            lines.add(line);
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(tmp, lines, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw arno.xml.ErrorCode.IO.error(e, "cannot write the users file " + file + ": " + e.getMessage());
        }
        loadedModified = Long.MIN_VALUE;
    }

    /** A random password that is easy to copy from a console: 20 characters, no look-alikes. */
    static String randomPassword() {
        String alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 20; i++) s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        return s.toString();
    }

    private Map<String, String[]> accounts() {
        try {
            long modified = Files.exists(file) ? Files.getLastModifiedTime(file).toMillis() ^ Files.size(file) : -1;
            if (modified != loadedModified) {
                synchronized (this) {
                    Map<String, String[]> loaded = new ConcurrentHashMap<>();
                    if (modified != -1) {
                        int number = 0;
                        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                            number++;
                            if (line.isBlank() || line.startsWith("#")) continue;
                            String[] parts = line.strip().split(":");
                            if (parts.length != 5 || !SCHEME.equals(parts[1])) {
                                throw arno.xml.ErrorCode.BAD_CONFIGURATION.error("users file " + file + " line " + number
                                        + ": expected name:" + SCHEME + ":iterations:salt:hash")
                                        .at(arno.xml.Where.at(file.toString(), number, -1));
                            }
                            loaded.put(parts[0], new String[] {parts[1], parts[2], parts[3], parts[4]});
                        }
                    }
                    accounts = loaded;
                    loadedModified = modified;
                }
            }
            return accounts;
        } catch (IOException e) {
            throw arno.xml.ErrorCode.IO.error(e, "cannot read the users file " + file + ": " + e.getMessage());
        }
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
        return StylesheetCache.sha256(s.getBytes(StandardCharsets.UTF_8));
    }
}
