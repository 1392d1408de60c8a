package arno.server.cli;

import picocli.CommandLine.Command;

/** Placeholder until its owner lands it (issue 10). */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "start Arno serving the sites")
public final class ServeCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw arno.xml.ErrorCode.INTERNAL.error("'serve' is being rebuilt");
    }
}
