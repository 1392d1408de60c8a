package arno.batch;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The file roots a batch may read and write under, and the resolution of the
 * URIs a batch names. A file is admitted only when its real path (symbolic
 * links followed, ".." removed) lies under the real path of a root, so neither
 * "../../etc/passwd" nor a link planted under a root leads out of it. For a file
 * that does not exist yet (an output), the nearest existing ancestor is resolved
 * and the rest appended.
 */
final class Roots {
    private final List<Path> roots;

    Roots(List<Path> roots) {
        List<Path> real = new ArrayList<>();
        for (Path root : roots) {
            try {
                Files.createDirectories(root);
                real.add(root.toRealPath());
            } catch (IOException e) {
                throw new IllegalArgumentException("file root " + root + " cannot be used: " + e, e);
            }
        }
        this.roots = List.copyOf(real);
    }

    List<Path> list() {
        return roots;
    }

    /** The base for relative URIs when a batch names none: the first root, as a directory URI. */
    URI defaultBase() {
        return roots.isEmpty() ? URI.create("file:///") : roots.get(0).toUri();
    }

    /** What a batch URI names once resolved: a confined file, or an http(s) URL. */
    record Target(URI uri, Path file) {
        boolean isFile() {
            return file != null;
        }
    }

    /**
     * Resolves {@code ref} (a URI or a plain path) against {@code base} and checks
     * it: file URIs must lie under a root; http and https pass; anything else is
     * refused. {@code what} names the reference in errors ("input", "output").
     */
    Target resolve(String ref, URI base, String what) {
        URI uri = toUri(ref, base, what);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
        switch (scheme) {
            case "http", "https" -> {
                if (uri.getHost() == null) {
                    throw new BatchException(Problem.UNSUPPORTED_URI, what + " URL " + uri + " has no host");
                }
                return new Target(uri, null);
            }
            case "file" -> {
                Path path;
                try {
                    path = Path.of(uri).normalize();
                } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                    throw new BatchException(Problem.UNSUPPORTED_URI, what + " " + uri + " is not a usable file URI: " + e.getMessage());
                }
                Path confined = confine(path, what);
                return new Target(confined.toUri(), confined);
            }
            default -> throw new BatchException(Problem.UNSUPPORTED_URI,
                    what + " " + uri + ": only file (under the allowed roots), http and https URIs are supported");
        }
    }

    static URI toUri(String ref, URI base, String what) {
        String r = ref.strip();
        if (r.isEmpty()) {
            throw new BatchException(Problem.UNSUPPORTED_URI, what + " URI is empty");
        }
        try {
            URI uri;
            // A plain absolute path ("/data/in/a.xml", or "C:\..." on Windows) is a file, not a relative URI.
            if (r.startsWith("/") && !r.startsWith("//")) {
                uri = Path.of(r).toUri();
            } else {
                uri = new URI(r.replace(" ", "%20"));
            }
            return base == null ? uri : base.resolve(uri);
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new BatchException(Problem.UNSUPPORTED_URI, what + " " + ref + " is not a valid URI: " + e.getMessage());
        }
    }

    private Path confine(Path path, String what) {
        Path real = realPathOfNearestAncestor(path);
        for (Path root : roots) {
            if (real.startsWith(root)) {
                return real;
            }
        }
        throw new BatchException(Problem.OUTSIDE_ROOTS,
                what + " " + path + " is outside the allowed file roots " + roots);
    }

    private static Path realPathOfNearestAncestor(Path path) {
        Path existing = path;
        Path rest = null;
        while (existing != null && !Files.exists(existing)) {
            Path name = existing.getFileName();
            rest = rest == null ? name : name.resolve(rest);
            existing = existing.getParent();
        }
        if (existing == null) {
            return path;
        }
        try {
            Path real = existing.toRealPath();
            return rest == null ? real : real.resolve(rest).normalize();
        } catch (IOException e) {
            return path;
        }
    }
}
