package arno.xml;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Folders that file access is confined to. A file is admitted only when its real path (symbolic
 * links followed, ".." removed) lies under the real path of a root, so neither "../../etc/passwd"
 * nor a link planted under a root leads out. For a file that does not exist yet (an output) the
 * nearest existing ancestor is resolved and the rest appended. Immutable and thread-safe.
 */
public final class FileRoots {
    private final List<Path> roots;

    private FileRoots(List<Path> roots) {
        this.roots = List.copyOf(roots);
    }

    /** Roots that must exist; a missing or unreadable one is a configuration error naming it. */
    public static FileRoots of(List<Path> folders) {
        List<Path> real = new ArrayList<>();
        for (Path folder : folders) {
            try {
                real.add(folder.toRealPath());
            } catch (IOException e) {
                throw ErrorMessage.FOLDER_UNUSABLE.error(e, folder);
            }
        }
        return new FileRoots(real);
    }

    /** As {@link #of}, creating folders that do not exist yet. */
    public static FileRoots creating(List<Path> folders) {
        for (Path folder : folders) {
            try {
                Files.createDirectories(folder);
            } catch (IOException e) {
                throw ErrorMessage.FOLDER_NOT_CREATED.error(e, folder, e.getMessage());
            }
        }
        return of(folders);
    }

    public static FileRoots none() {
        return new FileRoots(List.of());
    }

    public List<Path> list() {
        return roots;
    }

    public boolean isEmpty() {
        return roots.isEmpty();
    }

    /** These roots and {@code more}'s. */
    public FileRoots and(FileRoots more) {
        List<Path> all = new ArrayList<>(roots);
        for (Path p : more.roots) if (!all.contains(p)) all.add(p);
        return new FileRoots(all);
    }

    /** True when {@code path} lies under a root. */
    public boolean contains(Path path) {
        Path real = realPathOfNearestAncestor(path.toAbsolutePath().normalize());
        for (Path root : roots) if (real.startsWith(root)) return true;
        return false;
    }

    /**
     * The real path of {@code path}, or {@link ErrorCode#OUTSIDE_ROOTS} naming {@code what}
     * ("input", "doc()") when it lies under no root.
     */
    public Path confine(Path path, String what) {
        Path real = realPathOfNearestAncestor(path.toAbsolutePath().normalize());
        for (Path root : roots) {
            if (real.startsWith(root)) return real;
        }
        throw (roots.isEmpty() ? ErrorMessage.OUTSIDE_NO_ROOTS.error(what, path) : ErrorCode.OUTSIDE_ROOTS.error(what, path, roots));
    }

    /** The file a {@code file:} URI names, confined. */
    public Path confine(URI fileUri, String what) {
        Path path;
        try {
            path = Path.of(fileUri);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            throw ErrorMessage.NOT_FILE_URI.error(what, fileUri, e.getMessage());
        }
        return confine(path, what);
    }

    /**
     * {@code ref} (a URI, or a plain absolute path) resolved against {@code base} (may be null).
     * Only the syntax is checked here; the caller confines files and fetches URLs through
     * {@link Outbound}.
     */
    public static URI toUri(String ref, URI base, String what) {
        String r = ref.strip();
        if (r.isEmpty()) throw ErrorMessage.EMPTY_URI.error(what);
        try {
            URI uri;
            // A plain absolute path ("/data/in/a.xml") is a file, not a relative URI.
            if (r.startsWith("/") && !r.startsWith("//")) {
                uri = Path.of(r).toUri();
            } else {
                uri = new URI(r.replace(" ", "%20"));
            }
            return base == null ? uri : base.resolve(uri);
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw ErrorMessage.NOT_URI.error(what, ref, e.getMessage());
        }
    }

    private static Path realPathOfNearestAncestor(Path path) {
        Path existing = path;
        Path rest = null;
        while (existing != null && !Files.exists(existing)) {
            Path name = existing.getFileName();
            if (name == null) break;
            rest = rest == null ? name : name.resolve(rest);
            existing = existing.getParent();
        }
        if (existing == null) return path;
        try {
            Path real = existing.toRealPath();
            return rest == null ? real : real.resolve(rest).normalize();
        } catch (IOException e) {
            return path;
        }
    }

    @Override
    public String toString() {
        return roots.toString();
    }
}
