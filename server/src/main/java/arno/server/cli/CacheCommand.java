package arno.server.cli;

import arno.server.LocalCache;
import arno.server.RunFile;
import arno.server.config.Config;
import arno.xml.ErrorMessage;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno cache stats|clear}: the running server's caches (pages in memory and on disk,
 * fragments, external sources, the table of files, per site). The caches live in the server's
 * memory, so the command asks the server ({@link LocalCache}), which it finds through the data
 * folder's {@link RunFile}; with no server running there is nothing to show or clear.
 */
@Command(name = "cache", mixinStandardHelpOptions = true,
        description = "The running server's caches, per site and tier: show their figures, or drop their entries.",
        subcommands = {CacheCommand.Stats.class, CacheCommand.Clear.class},
        footer = {"", "Examples:", "  ./arno cache stats --data data", "  ./arno cache clear journal-a --data data", "",
                "Exit status: 0 done, 1 failed (no server running on the data folder, no such site), 2 wrong usage."})
public final class CacheCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a cache command is needed: stats or clear");
    }

    /** The server holding {@code c}'s data folder, or a one-line error saying how to start one. */
    static RunFile server(Config c) {
        return RunFile.find(c.data()).orElseThrow(() -> ErrorMessage.NO_SERVER_RUNNING.error(c.data(), RunFile.NAME, c.data()));
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = {"Show the running server's cache figures: per site, per tier (pages-memory, pages-disk,",
                    "fragments, sources, files) the entries, bytes, hits, misses, evictions, invalidations and ARC's",
                    "target size p for the list of entries seen once."},
            footer = {"", "Example:", "  ./arno cache stats --data data"})
    static final class Stats implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConfigOptions config;

        @Override
        public Integer call() {
            List<String[]> rows = LocalCache.stats(server(config.builder().build()));
            PrintWriter out = spec.commandLine().getOut();
            if (rows.isEmpty()) {
                out.println("no site has caches (the server runs with --page-caches off)");
            } else {
                List<String[]> table = new ArrayList<>();
                table.add(LocalCache.COLUMNS.toArray(String[]::new));
                table.addAll(rows);
                print(out, table);
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true,
            description = "Drop every cached page (memory and disk), fragment and external source of SITE, or of every site.",
            footer = {"", "Examples:", "  ./arno cache clear --data data", "  ./arno cache clear journal-a --data data"})
    static final class Clear implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConfigOptions config;

        @Parameters(arity = "0..1", paramLabel = "SITE", description = "the site whose caches to clear (default: every site)")
        String site;

        @Override
        public Integer call() {
            List<String[]> rows = LocalCache.clear(server(config.builder().build()), site);
            PrintWriter out = spec.commandLine().getOut();
            for (String[] r : rows) out.println("arno: cleared " + r[1] + " entries of site " + r[0]);
            if (rows.isEmpty()) out.println("arno: no site has caches (the server runs with --page-caches off)");
            out.flush();
            return 0;
        }
    }

    /** Columns padded to their widest cell; numbers right-aligned, words left-aligned; the last column as it is. */
    static void print(PrintWriter out, List<String[]> table) {
        int columns = table.get(0).length;
        int[] width = new int[columns];
        for (String[] r : table) for (int i = 0; i < Math.min(columns, r.length); i++) width[i] = Math.max(width[i], r[i].length());
        for (String[] r : table) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < Math.min(columns, r.length); i++) {
                if (i > 0) line.append("  ");
                boolean last = i == columns - 1;
                boolean number = i >= 2 && !last && !r[i].isEmpty() && (Character.isDigit(r[i].charAt(0)) || r[i].equals("-"));
                String pad = " ".repeat(width[i] - r[i].length());
                line.append(last ? r[i] : number ? pad + r[i] : r[i] + pad);
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
