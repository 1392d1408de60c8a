package arno.server.cli;

import arno.server.Demo;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno generate}: demo content through the {@link Demo} plugin, which comes with the
 * source checkout (module {@code sites}); without it the command says so in one line.
 */
@Command(name = "generate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Write demo content: two journals of JATS-like articles with Atom feeds, the same for the same seed.",
                "Serve it with './arno serve --data DATA' when DIR is DATA/content, or load it with './arno store load'."},
        footer = {"", "Example:", "  ./arno generate --articles 1000 --out data/content"})
public final class GenerateCommand implements Callable<Integer> {
    static final int MAX_ARTICLES = 1_000_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--articles", paramLabel = "N", required = true, description = "articles to write (1 to 1000000)")
    int articles;

    @Option(names = "--out", paramLabel = "DIR", required = true,
            description = "folder to write into; it must not hold demo content already")
    Path out;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "seed of the content (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--size", paramLabel = "SIZE", defaultValue = "default",
            description = "default (articles of 30-100 KB) or large (50-150 KB, with many references, figures and tables)")
    String size;

    @Override
    public Integer call() {
        if (articles < 1 || articles > MAX_ARTICLES) {
            throw ErrorMessage.ARTICLES_RANGE.error(MAX_ARTICLES, articles);
        }
        if (!size.equals("default") && !size.equals("large")) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--size is default or large, not '" + size + "'");
        }
        Demo demo = Demo.find().orElseThrow(() -> ErrorMessage.NO_DEMO.error(Demo.MISSING));
        if (demo.hasContent(out)) {
            throw ErrorMessage.DEMO_EXISTS.error(out);
        }
        PrintWriter err = spec.commandLine().getErr();
        int step = Math.max(articles / 10, 1);
        long start = System.nanoTime();
        long bytes;
        try {
            bytes = demo.generate(out, articles, seed, size.equals("large"), n -> {
                if (articles >= 200 && (n % step == 0 || n == articles)) {
                    err.println("generate: " + n + "/" + articles + " articles");
                    err.flush();
                }
            });
        } catch (IOException | UncheckedIOException e) {
            throw ErrorMessage.DEMO_NOT_WRITTEN.error(e, out, e.getMessage());
        }
        spec.commandLine().getOut().printf("generated %d articles (%.1f MB) in %s in %.1f s%n", articles, bytes / 1e6,
                out, (System.nanoTime() - start) / 1e9);
        return 0;
    }
}
