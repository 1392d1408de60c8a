package arno.server.cli;

import picocli.CommandLine.Command;

/** Placeholder until its owner lands it (issue 10). */
@Command(name = "batch", mixinStandardHelpOptions = true, description = "the batch client: submit, status, report, list, cancel")
public final class BatchCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw arno.xml.ErrorCode.INTERNAL.error("'batch' is being rebuilt");
    }
}
