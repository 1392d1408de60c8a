package arno.server.store;

import arno.store.query.Progress;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

import arno.store.IndexConfig;
import arno.store.IndexDefinition;
import arno.store.PathCount;
import arno.store.Snapshot;
import arno.store.atom.AtomStore;
import arno.store.Store;
import arno.store.ValueIndexes;
import arno.store.WriteTransaction;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.XmlPolicy;

/**
 * What {@code ./arno store index add|remove|list} and {@code ./arno store paths} do, as library
 * code: the command line is the server's {@code StoreCommand}. Adding builds the new indexes over
 * every stored document in one transaction, with a progress display on {@code err} (redrawn in
 * place on a terminal, a line every few seconds in a log), so a store is never seen half-indexed.
 */
public final class IndexTasks {

    private IndexTasks() {
    }

    /** Reads an index configuration file (validated against its schema). NOT_FOUND, IO, INVALID_XML, BAD_CONFIGURATION. */
    public static IndexConfig read(Path file, XmlPolicy policy) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw ErrorMessage.NO_INDEX_CONFIGURATION.error(file);
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, file, e.getMessage());
        }
        return IndexConfig.parse(bytes, file.toString(), policy);
    }

    /**
     * Adds the indexes of {@code added} to the store's configuration (replacing those of the same
     * names) and builds what is new or changed; prints one summary line on {@code err}.
     */
    public static IndexConfig add(Store store, IndexConfig added, PrintWriter err, boolean tty) {
        return change(store, current -> current.with(added), err, tty, System::nanoTime);
    }

    /** Removes the indexes named (NOT_FOUND, changing nothing, if one is not configured). */
    public static IndexConfig remove(Store store, List<String> names, PrintWriter err) {
        return change(store, current -> {
            IndexConfig c = current;
            for (String n : names) {
                c = c.without(n);
            }
            return c;
        }, err, false, System::nanoTime);
    }

    /**
     * As {@link #add} and {@link #remove} on a running cluster node: the new definitions are written
     * through the node's write path, so they go through the cluster's log, and every node's store
     * builds the indexes as it applies that commit (this node's before the command returns).
     */
    public static IndexConfig changeThroughLog(AtomStore atom, java.util.function.UnaryOperator<IndexConfig> how,
            PrintWriter err) {
        IndexConfig target;
        try (Snapshot s = atom.store().read()) {
            target = how.apply(s.indexes());
        }
        long t0 = System.nanoTime();
        AtomStore.Written w = atom.putConfiguration(IndexConfig.URI, target.toXml());
        err.printf(Locale.ROOT, "arno: %d index(es) configured: %s; written through the cluster's log, each node builds"
                + " them as it applies it (store version %d here, %.1f s)%n", target.indexes().size(), names(target),
                w.version(), (System.nanoTime() - t0) / 1e9);
        err.flush();
        return target;
    }

    static IndexConfig change(Store store, java.util.function.UnaryOperator<IndexConfig> how, PrintWriter err,
            boolean tty, LongSupplier clock) {
        StoreTasks.refuseClusterCopy(store, "changing its index definitions", "change them with ./arno store index "
                + "add|remove while the node runs: they go through the cluster's log, and every node builds them");
        try (WriteTransaction w = store.write()) {
            IndexConfig target = how.apply(w.view().indexes());
            Display display = new Display(err, tty, clock);
            ValueIndexes.install(w, target, display::document);
            long version = w.commit();
            double seconds = display.finish();
            err.printf(Locale.ROOT, "arno: %d index(es) configured: %s; %d document(s) indexed in %.1f s (store version %d)%n",
                    target.indexes().size(), names(target), display.done, seconds, version);
            err.flush();
            return target;
        }
    }

    /**
     * Adds the indexes of the class path resource {@code resource} (e.g. the demo's
     * {@code /arno/demo/indexes.xml}) as {@link #add} does; false, changing nothing, when the
     * resource is not on the class path.
     */
    public static boolean addResource(Store store, String resource, XmlPolicy policy, PrintWriter err) {
        IndexConfig c = resource(resource, policy);
        if (c == null) {
            return false;
        }
        add(store, c, err, false);
        return true;
    }

    /**
     * The index configuration of the class path resource {@code resource}, validated; null when
     * it is not on the class path.
     */
    public static IndexConfig resource(String resource, XmlPolicy policy) {
        java.net.URL url = IndexTasks.class.getResource(resource);
        if (url == null) {
            return null;
        }
        try (java.io.InputStream in = url.openStream()) {
            return IndexConfig.parse(in.readAllBytes(), url.toString(), policy);
        } catch (IOException e) {
            throw ErrorCode.IO.error(e, url, e.getMessage());
        }
    }

    /** The names of the configuration's indexes, in order, comma-separated ("none" without any). */
    public static String names(IndexConfig c) {
        if (c.indexes().isEmpty()) {
            return "none";
        }
        StringBuilder b = new StringBuilder();
        for (IndexDefinition d : c.indexes()) {
            b.append(b.length() == 0 ? "" : ", ").append(d.name());
        }
        return b.toString();
    }

    /** Prints the configuration (the document a later {@code add} accepts as it is). */
    public static void list(Store store, PrintWriter out) {
        try (Snapshot s = store.read()) {
            out.print(new String(s.indexes().toXml(), StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** Prints the path summary: occurrences, documents and path, one path a line, in path order. */
    public static void paths(Store store, PrintWriter out) {
        try (Snapshot s = store.read()) {
            List<PathCount> paths = s.paths();
            out.printf(Locale.ROOT, "%12s %10s  %s%n", "elements", "documents", "path");
            for (PathCount p : paths) {
                out.printf(Locale.ROOT, "%12d %10d  %s%n", p.occurrences(), p.documents(), p.path());
            }
            out.flush();
        }
    }

    /** The build's display: documents done of all, and the current one. */
    static final class Display {
        private final PrintWriter err;
        private final boolean tty;
        private final LongSupplier clock;
        private final long start;
        private long last;
        private int drawn;
        long done;

        Display(PrintWriter err, boolean tty, LongSupplier clock) {
            this.err = err;
            this.tty = tty;
            this.clock = clock;
            this.start = clock.getAsLong();
            this.last = start;
        }

        void document(long n, long total, String uri) {
            done = n;
            long now = clock.getAsLong();
            if (now - last < (tty ? Progress.TTY_INTERVAL_NANOS : Progress.LOG_INTERVAL_NANOS)) {
                return;
            }
            last = now;
            String s = String.format(Locale.ROOT, "arno: indexing %3.0f%% %d/%d documents  %s", 100.0 * n / Math.max(1, total),
                    n, total, uri.length() > 50 ? "…" + uri.substring(uri.length() - 49) : uri);
            if (tty) {
                clear();
                err.print(s);
                drawn = s.length();
            } else {
                err.println(s);
            }
            err.flush();
        }

        private void clear() {
            if (tty && drawn > 0) {
                err.print('\r' + " ".repeat(drawn) + '\r');
                drawn = 0;
            }
        }

        double finish() {
            clear();
            err.flush();
            return (clock.getAsLong() - start) / 1e9;
        }
    }
}
