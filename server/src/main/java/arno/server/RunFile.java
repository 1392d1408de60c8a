package arno.server;

import arno.xml.ErrorMessage;
import arno.xml.OwnerOnly;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Properties;

/**
 * How a command finds the server that holds a data folder's store: {@code DATA/arno-server},
 * written by {@code serve} once it listens and removed when it stops, naming the process, the
 * server's loopback URL and a token made afresh for each run.
 *
 * <p>Why a token in a file rather than an account: the store is one process's (LMDB would allow
 * several, but the namebase is cached in memory and the change feed is published from the writer),
 * so {@code ./arno store load} beside a running server writes through it. Whoever can read the
 * data folder already owns the store, so the file is the credential: it is readable by its owner
 * only, the token is good for this run only, and it is accepted from loopback connections only.
 * {@code store} says whether the server holds the store (content from files: it does not, and
 * {@code store load} opens the store itself); the file is written either way, for
 * {@code ./arno cache}.
 */
public record RunFile(long pid, URI url, String token, boolean store) {
    public static final String NAME = "arno-server";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A new run's file contents: this process, {@code url}, a fresh 256-bit token, whether it holds the store. */
    public static RunFile create(URI url, boolean store) {
        byte[] t = new byte[32];
        RANDOM.nextBytes(t);
        return new RunFile(ProcessHandle.current().pid(), url,
                Base64.getUrlEncoder().withoutPadding().encodeToString(t), store);
    }

    /** Writes the file into {@code data}, readable by its owner only, replacing a stale one atomically. */
    public void write(Path data) {
        Path file = data.resolve(NAME);
        Path tmp = data.resolve(NAME + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            try {
                Files.createFile(tmp, OwnerOnly.file(tmp)); // not POSIX: the folder's own permissions protect it
            } catch (FileAlreadyExistsException e) {
                throw new IOException(tmp + " appeared while being written", e);
            }
            Properties p = new Properties();
            p.setProperty("pid", Long.toString(pid));
            p.setProperty("url", url.toString());
            p.setProperty("token", token);
            p.setProperty("store", Boolean.toString(store));
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(w, "the Arno server holding this data folder; removed when it stops");
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw ErrorMessage.RUN_FILE_NOT_WRITTEN.error(e, file, e.getMessage());
        }
    }

    /** Removes the file if it is still this run's. */
    public void remove(Path data) {
        find(data).filter(r -> r.token.equals(token)).ifPresent(r -> {
            try {
                Files.deleteIfExists(data.resolve(NAME));
            } catch (IOException ignored) {
                // a stale file is recognised by its dead pid
            }
        });
    }

    /** The running server's file, if there is one and its process is alive (a kill -9 leaves a stale one). */
    public static Optional<RunFile> find(Path data) {
        Path file = data.resolve(NAME);
        if (!Files.isRegularFile(file)) return Optional.empty();
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            long pid = Long.parseLong(p.getProperty("pid", "-1"));
            String url = p.getProperty("url");
            String token = p.getProperty("token");
            if (url == null || token == null || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) == Boolean.FALSE) {
                return Optional.empty();
            }
            return Optional.of(new RunFile(pid, URI.create(url), token, Boolean.parseBoolean(p.getProperty("store"))));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "RunFile[pid=" + pid + ", url=" + url + "]"; // never the token
    }
}
