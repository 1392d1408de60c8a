package arno.server.cli;

import picocli.CommandLine.Command;

/** Placeholder until its owner lands it (issue 10). */
@Command(name = "query", mixinStandardHelpOptions = true, description = "XQuery 3.1 over the store")
public final class QueryCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw arno.xml.ErrorCode.INTERNAL.error("'query' is being rebuilt");
    }
}
