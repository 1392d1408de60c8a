package arno.server.store;

import arno.store.query.Progress;
import arno.xml.ErrorMessage;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import arno.store.atom.AtomStore;
import arno.store.atom.TreeLoader;
import java.util.stream.Stream;

import javax.xml.transform.stream.StreamSource;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreException;
import arno.store.WriteTransaction;
import arno.xml.ErrorCode;

/**
 * What the store's commands do, as plain library code with typed arguments: loading files with a
 * progress display, and checking a store. The command line itself (options, help, exit statuses)
 * is the server's {@code arno.server.cli.StoreCommand}; this class parses no arguments.
 */
public final class StoreTasks {

    /** Documents per load transaction: each commit is durable, a crash loses at most one batch. */
    public static final int DEFAULT_BATCH = 1000;
    /** XML bytes per load transaction, whatever the count. */
    static final long BATCH_BYTES = 256L << 20;

    private StoreTasks() {
    }

    /** One file to load and the URI it gets. */
    public record Input(Path file, String uri, long size) {
    }

    /** What a load did. */
    public record Loaded(long documents, long failed, long xmlBytes, long storedBytes, double seconds) {
    }

    /**
     * The prefix URIs are put under, normalized: "" for none or "/", else "/a/b" without a
     * trailing slash. BAD_PARAMETER unless it starts with '/'.
     */
    public static String prefix(String p) {
        if (p == null || p.isEmpty() || p.equals("/")) {
            return "";
        }
        if (!p.startsWith("/")) {
            throw ErrorMessage.PREFIX_NOT_ROOTED.error(p);
        }
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** XML files by the names XML vocabularies give them: .xml, and Atom, SVG and XHTML's own. */
    static boolean isXmlName(Path f) {
        String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".xml") || n.endsWith(".atom") || n.endsWith(".svg") || n.endsWith(".xhtml");
    }

    /**
     * The files to load: a folder's XML files (hidden files and folders skipped), each with its path
     * relative to the folder as URI, and a file given directly with its name, all under
     * {@code prefix}. Fails with NOT_FOUND or IO (before any store is opened) if a path cannot be read.
     */
    public static List<Input> inputs(List<Path> paths, String prefix) {
        String pre = prefix(prefix);
        List<Input> out = new ArrayList<>();
        for (Path p : paths) {
            collect(p, pre, out);
        }
        return out;
    }

    private static void collect(Path p, String prefix, List<Input> out) {
        try {
            if (Files.isDirectory(p)) {
                List<Path> files;
                try (Stream<Path> s = Files.walk(p)) {
                    files = s.filter(f -> Files.isRegularFile(f) && isXmlName(f) && !hidden(p.relativize(f)))
                            .sorted().toList();
                }
                for (Path f : files) {
                    StringBuilder uri = new StringBuilder(prefix);
                    for (Path part : p.relativize(f)) {
                        uri.append('/').append(part);
                    }
                    out.add(new Input(f, uri.toString(), Files.size(f)));
                }
            } else if (Files.isRegularFile(p)) {
                out.add(new Input(p, prefix + "/" + p.getFileName(), Files.size(p)));
            } else {
                throw new NoSuchFileException(p.toString());
            }
        } catch (NoSuchFileException e) {
            throw ErrorMessage.NO_SUCH_FILE_OR_FOLDER.error(p);
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, p, e.getMessage());
        }
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stores {@code inputs}, committing every {@code batch} documents or 256 MB of XML. A document
     * that cannot be stored is reported on {@code err} with its location and skipped (nothing of it
     * is kept); the others are stored. Progress goes to {@code err}: redrawn in place when
     * {@code tty}, one line every few seconds otherwise; then one summary line.
     */
    public static Loaded load(Store store, List<Input> inputs, int batch, PrintWriter err, boolean tty) {
        if (batch < 1) {
            throw ErrorMessage.BATCH_TOO_SMALL.error(batch);
        }
        refuseClusterCopy(store, "loading documents into it", "load them through the store API of any node "
                + "(./arno store load --resources through a running node, or POST and PUT to /store/)");
        long total = inputs.stream().mapToLong(Input::size).sum();
        Progress progress = new Progress(err, tty, System::nanoTime, inputs.size(), total);
        long stored = 0;
        long xml = 0;
        WriteTransaction w = null;
        int inBatch = 0;
        long batchBytes = 0;
        try {
            for (Input in : inputs) {
                if (w == null) {
                    w = store.write();
                }
                progress.file(in.uri());
                try (InputStream s = new Counting(Files.newInputStream(in.file()), progress)) {
                    DocumentInfo info = w.put(in.uri(), new StreamSource(s, in.file().toUri().toString()));
                    stored += info.storedBytes();
                    xml += in.size();
                    progress.done(true);
                } catch (StoreException e) {
                    if (e.code() == ErrorCode.STORE_FULL || e.code() == ErrorCode.CLOSED) {
                        throw e;  // the transaction can only be aborted: no further document would fit
                    }
                    progress.message("arno: " + e.describe());
                    progress.done(false);
                } catch (IOException e) {
                    progress.message("arno: cannot read " + in.file() + ": " + e.getMessage());
                    progress.done(false);
                }
                inBatch++;
                batchBytes += in.size();
                if (inBatch >= batch || batchBytes >= BATCH_BYTES) {
                    w.commit();
                    w = null;
                    inBatch = 0;
                    batchBytes = 0;
                }
            }
            if (w != null) {
                w.commit();
                w = null;
            }
        } finally {
            if (w != null) {
                w.abort();
            }
            progress.finish();
        }
        double seconds = progress.seconds();
        err.printf(Locale.ROOT, "arno: loaded %d document(s) into %s in %.1f s: %s of XML stored in %s (%.2f)%s%n",
                progress.files(), store.directory(), seconds, Progress.size(xml), Progress.size(stored),
                xml == 0 ? 0.0 : (double) stored / xml, progress.failed() == 0 ? "" : "; " + progress.failed() + " failed");
        err.flush();
        return new Loaded(progress.files(), progress.failed(), xml, stored, seconds);
    }

    /**
     * Loads a folder laid out as resources ({@code x.atom} entries, {@code x.EXT} variants,
     * {@code x/} children, {@code _model/} introspection) through the service's write path,
     * {@link TreeLoader}: every entry checked against its kind, links managed, commits grouped.
     * Progress on {@code err} as for {@link #load}: operations done of those found so far and the
     * rate, redrawn in place on a terminal, a line every few seconds in a log; then a summary.
     */
    public static TreeLoader.Result loadResources(AtomStore atom, Path folder, String user, PrintWriter err, boolean tty) {
        long start = System.nanoTime();
        long[] last = {start};
        TreeLoader.Result r;
        try {
            r = TreeLoader.load(atom, folder, user, (done, total) -> {
                long now = System.nanoTime();
                if (now - last[0] < (tty ? Progress.TTY_INTERVAL_NANOS : Progress.LOG_INTERVAL_NANOS)) return;
                last[0] = now;
                String line = String.format(Locale.ROOT, "arno: %,d of %,d written, %,.0f/s", done, total,
                        done / ((now - start) / 1e9));
                if (tty) {
                    err.print("\r" + line + "   ");
                } else {
                    err.println(line);
                }
                err.flush();
            });
        } finally {
            if (tty) err.print("\r");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        err.printf(Locale.ROOT, "arno: loaded %s into %s in %.1f s: %d entries, %d variants, %d models; store version %d%n",
                folder, atom.store().directory(), seconds, r.entries(), r.variants(), r.models(), r.version());
        err.flush();
        return r;
    }

    /**
     * Checks every document and entry of {@code store}, prints each problem and a summary line
     * ("store DIR: N document(s), version V, SIZE on disk: OK") to {@code out}; true when all is well.
     */
    public static boolean check(Store store, PrintWriter out) {
        List<String> problems = new java.util.ArrayList<>(store.check());
        // The full-text index beside the store (DATA/fulltext), against what the store holds.
        arno.fulltext.FulltextCheck.Report fulltext = arno.fulltext.FulltextCheck.check(store,
                store.directory().resolveSibling("fulltext"));
        problems.addAll(fulltext.problems());
        for (String note : fulltext.notes()) out.println(note);
        int docs;
        try (Snapshot s = store.read()) {
            docs = s.uris("").size();
        }
        for (String p : problems) {
            out.println(p);
        }
        out.printf(Locale.ROOT, "store %s: %d document(s), version %d, %s on disk: %s%n", store.directory(), docs,
                store.version(), Progress.size(store.diskBytes()), problems.isEmpty() ? "OK" : problems.size() + " problem(s)");
        out.flush();
        return problems.isEmpty();
    }

    /** Counts bytes into the progress display as the parser reads them (large files move too). */
    private static final class Counting extends FilterInputStream {
        private final Progress progress;

        Counting(InputStream in, Progress progress) {
            super(in);
            this.progress = progress;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                progress.bytes(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                progress.bytes(n);
            }
            return n;
        }
    }

    /**
     * Refuses to change a cluster node's copy directly (CLUSTER_COPY_WRITE): it would hold a commit
     * the cluster's log lacks, which no other node has, and which its own applier's positions do not
     * count. {@code what} says the change, {@code instead} how to make it through the log.
     */
    public static void refuseClusterCopy(Store store, String what, String instead) {
        if (clusterCopy(store)) throw ErrorMessage.CLUSTER_COPY_WRITE.error(store.directory(), what, instead);
    }

    /** Whether {@code store} is a cluster node's copy (it holds the position of the log it applied). */
    public static boolean clusterCopy(Store store) {
        try (arno.store.Snapshot s = store.read()) {
            return s.mark(arno.cluster.Applier.MARK).isPresent();
        }
    }
}
