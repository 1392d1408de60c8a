package arno.server.cli;

import arno.server.config.Config;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --cluster URL} and {@code --cluster-password-file FILE} ({@code @Mixin}), the same for
 * {@code serve} and the commands that work on a cluster's database ({@code accounts}); they
 * override the configuration file's {@code <cluster>}, and {@link Config} checks them.
 */
public final class ClusterOptions {
    @Option(names = "--cluster", paramLabel = "URL",
            description = "cluster mode: the PostgreSQL database the nodes share, jdbc:postgresql://HOST[:PORT]/DB?user=NAME "
                    + "(never with a password; see --cluster-password-file)")
    String cluster;

    @Option(names = "--cluster-password-file", paramLabel = "FILE",
            description = "a file holding the cluster database's password (else the environment variable ARNO_CLUSTER_PASSWORD)")
    Path clusterPasswordFile;

    /** Sets what was given on {@code b}. */
    void apply(Config.Builder b) {
        if (cluster != null) b.clusterDatabase = cluster;
        if (clusterPasswordFile != null) b.clusterPasswordFile = clusterPasswordFile;
    }
}
