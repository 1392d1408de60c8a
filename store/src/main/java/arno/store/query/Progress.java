package arno.store.query;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress display on stderr, redrawn in place on a terminal every {@link #TTY_INTERVAL_NANOS},
 * or one line every {@link #LOG_INTERVAL_NANOS} in a log: a load's files, bytes and rate; a query's
 * documents examined out of those its collection or search will examine ({@link #documents}).
 * Time comes from an injected clock so tests can drive it.
 */
public final class Progress {

    public static final long TTY_INTERVAL_NANOS = 200_000_000L;
    public static final long LOG_INTERVAL_NANOS = 5_000_000_000L;

    private final PrintWriter err;
    private final boolean tty;
    private final LongSupplier clock;
    private long totalFiles;
    private final boolean query;
    private final long totalBytes;
    private final long start;
    private long lastDraw;
    private long files;
    private long failed;
    private long bytes;
    private String current = "";
    private int drawn;
    private long end = -1;

    public Progress(PrintWriter err, boolean tty, LongSupplier clock, long totalFiles, long totalBytes) {
        this(err, tty, clock, totalFiles, totalBytes, false);
    }

    private Progress(PrintWriter err, boolean tty, LongSupplier clock, long totalFiles, long totalBytes, boolean query) {
        this.query = query;
        this.err = err;
        this.tty = tty;
        this.clock = clock;
        this.totalFiles = totalFiles;
        this.totalBytes = totalBytes;
        this.start = clock.getAsLong();
        this.lastDraw = start;
    }

    /** A query's display: documents examined, of how many, for how long. */
    public static Progress documents(PrintWriter err, boolean tty, LongSupplier clock) {
        return new Progress(err, tty, clock, 0, 0, true);
    }

    /** A query has examined {@code done} of the {@code total} documents of its current collection or search. */
    public void examined(long done, long total, String name) {
        files = done;
        totalFiles = total;
        current = name;
        tick();
    }

    public void file(String name) {
        current = name;
        tick();
    }

    public void bytes(long n) {
        bytes += n;
        tick();
    }

    public void done(boolean ok) {
        if (ok) {
            files++;
        } else {
            failed++;
        }
        tick();
    }

    /** Prints a line (an error) without garbling the redrawn status line. */
    public void message(String line) {
        clearLine();
        err.println(line);
        err.flush();
        lastDraw = 0;
    }

    public void tick() {
        long now = clock.getAsLong();
        if (now - lastDraw < (tty ? TTY_INTERVAL_NANOS : LOG_INTERVAL_NANOS)) {
            return;
        }
        lastDraw = now;
        String s = status(now);
        if (tty) {
            clearLine();
            err.print(s);
            drawn = s.length();
        } else {
            err.println(s);
        }
        err.flush();
    }

    private void clearLine() {
        if (tty && drawn > 0) {
            err.print('\r' + " ".repeat(drawn) + '\r');
            drawn = 0;
        }
    }

    String status(long now) {
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        if (query) {
            String name = current.length() > 40 ? "…" + current.substring(current.length() - 39) : current;
            String pct = totalFiles > 0 ? String.format(Locale.ROOT, " %3.0f%%", 100.0 * files / totalFiles) : "";
            return String.format(Locale.ROOT, "[query]%s %d/%d documents  %.1f s  %s", pct, files, totalFiles, seconds,
                    name);
        }
        String pct = totalBytes > 0 ? String.format(Locale.ROOT, " %3.0f%%", 100.0 * bytes / totalBytes) : "";
        String name = current.length() > 40 ? "…" + current.substring(current.length() - 39) : current;
        return String.format(Locale.ROOT, "[store]%s %d/%d files  %s  %s/s  %s", pct, files + failed, totalFiles,
                size(bytes), size((long) (bytes / seconds)), name);
    }

    /** Ends the display (clears a redrawn line); returns the elapsed seconds. */
    public double finish() {
        if (end < 0) {
            clearLine();
            err.flush();
            end = clock.getAsLong();
        }
        return seconds();
    }

    /** Seconds from the start to {@link #finish()}, or to now while running. */
    public double seconds() {
        return ((end < 0 ? clock.getAsLong() : end) - start) / 1e9;
    }

    public long files() {
        return files;
    }

    public long failed() {
        return failed;
    }

    public long bytes() {
        return bytes;
    }

    public static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
        }
        if (bytes < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
        }
        return String.format(Locale.ROOT, "%.2f GB", bytes / (1024.0 * 1024 * 1024));
    }
}
