package arno.server.cli;

import picocli.CommandLine.Command;

/** Placeholder until its owner lands it (issue 10). */
@Command(name = "generate", mixinStandardHelpOptions = true, description = "write demo content")
public final class GenerateCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw arno.xml.ErrorCode.INTERNAL.error("'generate' is being rebuilt");
    }
}
