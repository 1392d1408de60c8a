package arno.store.atom;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import arno.store.Snapshot;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * Loads a folder laid out like the store into it, through the service's write path (so every
 * entry is checked against the introspection and gets its managed links, ids and reciprocals,
 * exactly as if it had been posted): {@code _model/KIND.xml} introspection documents first, then
 * each folder's entries {@code x.atom}, their variants {@code x.EXT}, then their children
 * {@code x/}, parents before children. Names are the files' names (no naming rules).
 *
 * <p>Typed links in the files are store paths ({@code /journals/ja/v1/i1/a0001/f1.atom});
 * managed links in them are ignored. A link to an entry that is neither in the store nor loaded
 * yet (an article's link to its own figures, which come after it) is left out at first and the
 * entry is replaced with all its links in a second pass, once every entry exists.
 *
 * <p>Operations are queued without waiting for each (a window of them in flight), so the writer
 * commits them in groups: one commit for many entries.
 */
public final class TreeLoader {

    /** Told after each file: how many operations are done, of how many known so far. */
    public interface Progress {
        void update(long done, long total);
    }

    /** What was loaded. */
    public record Result(int models, int entries, int variants, int linked, long version) {
    }

    private final AtomStore atom;
    private final String user;
    private final Progress progress;
    private final Deque<CompletableFuture<WritePath.Done>> inFlight = new ArrayDeque<>();
    private final int window;
    private final Set<String> known = new HashSet<>();
    private final List<Deferred> deferred = new ArrayList<>();
    private long done;
    private long total;
    private long version;
    private ArnoException failure;

    private record Deferred(ResourcePath path, Entry entry, Path file) {
    }

    private TreeLoader(AtomStore atom, String user, Progress progress) {
        this.atom = atom;
        this.user = user;
        this.progress = progress == null ? (d, t) -> { } : progress;
        this.window = Math.max(16, 2 * atom.options().groupCommitMax());
    }

    /**
     * Loads {@code folder} into the store of {@code atom} as {@code user}. Existing entries at the
     * same paths are replaced; the first failure stops the load (what was committed before it
     * stays) and is thrown with the file it came from.
     */
    public static Result load(AtomStore atom, Path folder, String user, Progress progress) {
        if (!Files.isDirectory(folder)) {
            throw ErrorMessage.NO_FOLDER_TO_LOAD.error(folder).at(Where.at(folder.toUri().toString()));
        }
        return new TreeLoader(atom, user, progress).run(folder);
    }

    private Result run(Path folder) {
        int models = 0;
        int[] counts = new int[2];
        total = countFiles(folder);
        Path modelFolder = folder.resolve("_model");
        if (Files.isDirectory(modelFolder)) {
            for (Path f : sorted(modelFolder)) {
                String n = f.getFileName().toString();
                if (!Files.isRegularFile(f) || !n.endsWith(".xml")) continue;
                byte[] bytes = read(f);
                String kind = n.substring(0, n.length() - 4);
                submit(() -> atom.putModelAsync(kind, -1, bytes), f);
                models++;
            }
        }
        try (Snapshot s = atom.store().read()) {
            loadFolder(folder, ResourcePath.ROOT, s, counts);
        }
        int linked = 0;
        for (Deferred d : deferred) {
            if (failure != null) break;
            submit(() -> atom.putEntryAsync(d.path, d.entry, user), d.file);
            linked++;
        }
        drain(0);
        if (failure != null) throw failure;
        return new Result(models, counts[0], counts[1], linked, version);
    }

    private void loadFolder(Path dir, ResourcePath resource, Snapshot s, int[] counts) {
        List<Path> files = sorted(dir);
        List<Path> entries = new ArrayList<>();
        List<Path> variants = new ArrayList<>();
        List<Path> folders = new ArrayList<>();
        for (Path f : files) {
            String n = f.getFileName().toString();
            if (n.startsWith(".") || resource.isRoot() && n.startsWith("_")) continue;
            if (Files.isDirectory(f)) {
                folders.add(f);
            } else if (n.endsWith("." + Atom.ENTRY_EXTENSION)) {
                entries.add(f);
            } else {
                variants.add(f);
            }
        }
        for (Path f : entries) {
            if (failure != null) return;
            String n = f.getFileName().toString();
            ResourcePath p = childOf(resource, n.substring(0, n.length() - Atom.ENTRY_EXTENSION.length() - 1), f);
            Entry e = parse(f);
            if (e == null) return;
            List<Entry.Link> now = new ArrayList<>();
            for (Entry.Link l : e.links) {
                if (known.contains(l.href()) || s.exists(l.href())) now.add(l);
            }
            if (now.size() < e.links.size()) deferred.add(new Deferred(p, e, f));
            Entry first = now.size() < e.links.size() ? e.withLinks(now) : e;
            submit(() -> atom.putEntryAsync(p, first, user), f);
            known.add(p.entryDocument());
            counts[0]++;
        }
        for (Path f : variants) {
            if (failure != null) return;
            String n = f.getFileName().toString();
            int dot = n.lastIndexOf('.');
            if (dot <= 0) {
                fail(ErrorMessage.NOT_LOADABLE_FILE.error(f).at(Where.at(f.toUri().toString())));
                return;
            }
            ResourcePath p = childOf(resource, n.substring(0, dot), f);
            String ext = n.substring(dot + 1);
            submit(() -> {
                try (InputStream in = Files.newInputStream(f)) {
                    return atom.putVariantAsync(p, ext, null, -1, in, user);
                } catch (IOException x) {
                    throw ErrorCode.IO.error(x, f, x.getMessage());
                }
            }, f);
            counts[1]++;
        }
        for (Path d : folders) {
            if (failure != null) return;
            loadFolder(d, childOf(resource, d.getFileName().toString(), d), s, counts);
        }
    }

    private ResourcePath childOf(ResourcePath parent, String name, Path file) {
        if (!ResourcePath.isName(name)) {
            throw ErrorMessage.NOT_RESOURCE_NAME.error(file, name).at(Where.at(file.toUri().toString()));
        }
        return parent.child(name);
    }

    private Entry parse(Path f) {
        try {
            return atom.parseEntry(read(f), f.toString(), f.toUri().toString());
        } catch (ArnoException e) {
            fail(e);
            return null;
        }
    }

    private interface Submission {
        CompletableFuture<WritePath.Done> submit();
    }

    private void submit(Submission s, Path file) {
        if (failure != null) return;
        try {
            inFlight.add(s.submit());
        } catch (ArnoException e) {
            fail(e);
            return;
        }
        drain(window);
    }

    /** Waits for operations in flight until at most {@code keep} remain. */
    private void drain(int keep) {
        while (inFlight.size() > keep) {
            CompletableFuture<WritePath.Done> f = inFlight.poll();
            try {
                WritePath.Done d = WritePath.await(f);
                version = Math.max(version, d.version());
            } catch (ArnoException e) {
                fail(e);
            }
            done++;
            progress.update(done, Math.max(total + deferred.size(), done));
        }
    }

    private void fail(ArnoException e) {
        if (failure == null) failure = e;
    }

    private static List<Path> sorted(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            throw ErrorMessage.CANNOT_LIST.error(e, dir, e.getMessage());
        }
    }

    private static long countFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith(".")).count();
        } catch (IOException e) {
            throw ErrorMessage.CANNOT_LIST.error(e, dir, e.getMessage());
        }
    }

    private static byte[] read(Path f) {
        try {
            return Files.readAllBytes(f);
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, f, e.getMessage());
        }
    }
}
