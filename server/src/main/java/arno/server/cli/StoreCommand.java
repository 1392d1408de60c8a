package arno.server.cli;

import picocli.CommandLine.Command;

/** Placeholder until its owner lands it (issue 10). */
@Command(name = "store", mixinStandardHelpOptions = true, description = "the persistent store: load, export, check")
public final class StoreCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw arno.xml.ErrorCode.INTERNAL.error("'store' is being rebuilt");
    }
}
