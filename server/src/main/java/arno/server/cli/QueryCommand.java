package arno.server.cli;

import arno.server.config.Config;
import arno.store.Store;
import arno.store.cli.StoreQuery;
import arno.xml.ErrorCode;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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
                "The stored document --context is the context item; any stored document is doc('store:/URI')."},
        footer = {"", "Examples:", "  ./arno query --data data --context /journals/ja.atom 'string(//*:title)'",
                "  ./arno query --data data -f report.xq", "",
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

    @Override
    public Integer call() {
        if ((file == null) == (expression == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), file == null
                    ? "query needs an expression (quote it) or -f FILE" : "give the query either as EXPR or with -f FILE, not both");
        }
        Config config = store.config();
        StoreQuery query;
        if (file != null) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw ErrorCode.NOT_FOUND.error("query file " + file + " does not exist");
            } catch (IOException e) {
                throw ErrorCode.IO.error(e, "cannot read query file " + file + ": " + e.getMessage());
            }
            query = StoreQuery.compile(text, file.toAbsolutePath().toUri(), file.toString(), new XmlPolicy(config.xmlLimits()));
        } else {
            query = StoreQuery.compile(expression, Path.of("").toAbsolutePath().toUri(), "query",
                    new XmlPolicy(config.xmlLimits()));
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Store s = Store.openExisting(config.store(), StoreCommand.Opening.options(config))) {
            query.run(s, context, out);
        }
        out.println();
        out.flush();
        return 0;
    }
}
