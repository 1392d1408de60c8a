package arno.server.cli;

import arno.server.config.Config;
import arno.store.Store;
import arno.store.query.StoreQuery;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno query}: XQuery 3.1 over the store ({@link StoreQuery}). The query is compiled
 * before the store is opened, so a mistake in it is reported even where there is no store; the
 * store is never created.
 */
@Command(name = "query", mixinStandardHelpOptions = true,
        description = {"Runs XQuery 3.1 over the store in DATA/store and prints the result: indented XML, one item per "
                + "line, unless the query declares its own output (declare option output:method 'text', say).",
                "The stored document --context is the context item; any stored document is doc('store:/URI'); "
                        + "collection('store:/FOLDER/') its documents, read as the query asks for them; "
                        + "store:search('/FOLDER/', \"CONDITION\") those for which an XPath condition is true, planned on the indexes; "
                        + "store:ft-search(\"WORDS\") a page of full-text hits from DATA/fulltext as the server last committed it."},
        footer = {"", "Examples:", "  ./arno query --data data --context /journals/ja.atom 'string(//*:title)'",
                "  ./arno query --data data -f report.xq",
                "  ./arno query --data data --explain --timeout 30s \\",
                "      \"declare namespace atom = 'http://www.w3.org/2005/Atom';",
                "       store:search('/journals/', \\\"atom:entry/atom:category[@term = 'physics']\\\") ! base-uri()\"", "",
                "Exit status: 0 done, 1 failed (the query's error with line and column), 2 wrong usage."})
public final class QueryCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    StoreCommand.Opening store;

    @Option(names = "--context", paramLabel = "URI", description = "the stored document that is the context item")
    String context;

    @Option(names = "-f", paramLabel = "FILE", description = "read the query from FILE")
    Path file;

    @Parameters(arity = "0..1", paramLabel = "EXPR", description = "the query (quote it), unless -f FILE gives it")
    String expression;

    @Option(names = "--explain", description = "print the plan of each store:search on stderr before its results,"
            + " and its counts and times after them")
    boolean explain;

    @Option(names = "--progress", description = "show the documents examined on stderr (by default only when stderr"
            + " is a terminal)")
    boolean progress;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "stop the query after DURATION (10s, 500ms, 5m, PT1M30S): an error saying what was done,"
                    + " the store released")
    Duration timeout;

    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                Duration d = Config.duration(value, "--timeout");
                if (d.isZero() || d.isNegative()) {
                    throw new CommandLine.TypeConversionException("--timeout needs a duration above 0, not '" + value + "'");
                }
                return d;
            } catch (arno.xml.ArnoException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    @Override
    public Integer call() {
        if ((file == null) == (expression == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), file == null
                    ? "query needs an expression (quote it) or -f FILE" : "give the query either as EXPR or with -f FILE, not both");
        }
        Config config = store.config();
        StoreQuery query;
        // store:ft-search reads the full-text index beside the store as last committed (read only, so
        // a server may hold it meanwhile), opened at the query's first search.
        java.util.concurrent.atomic.AtomicReference<Store> opened = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<arno.fulltext.CommittedIndex> fulltext = new java.util.concurrent.atomic.AtomicReference<>();
        Path folder = config.data().resolve("fulltext");
        java.util.function.Consumer<net.sf.saxon.Configuration> functions = arno.fulltext.FtSearchLibrary.forQueries(
                () -> fulltext.updateAndGet(i -> i != null ? i : arno.fulltext.CommittedIndex.open(opened.get(), folder)));
        XmlPolicy policy = new XmlPolicy(config.xmlLimits());
        if (file != null) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw ErrorMessage.NO_QUERY_FILE.error(file);
            } catch (IOException e) {
                throw ErrorMessage.QUERY_FILE_UNREADABLE.error(e, file, e.getMessage());
            }
            query = StoreQuery.compile(text, file.toAbsolutePath().toUri(), file.toString(), StoreQuery.owners(policy), functions);
        } else {
            query = StoreQuery.compile(expression, Path.of("").toAbsolutePath().toUri(), "query", StoreQuery.owners(policy),
                    functions);
        }
        PrintWriter out = spec.commandLine().getOut();
        boolean tty = StoreCommand.interactive();
        StoreQuery.Reporting reporting = new StoreQuery.Reporting(spec.commandLine().getErr(), explain,
                progress || tty, tty, timeout);
        try (Store s = Store.openExisting(config.store(), StoreCommand.Opening.options(config))) {
            opened.set(s);
            query.run(s, context, out, reporting);
        } finally {
            arno.fulltext.CommittedIndex index = fulltext.get();
            if (index != null) index.close();
        }
        out.println();
        out.flush();
        return 0;
    }
}
