package arno.server.cli;

import arno.server.config.Config;
import arno.server.config.ConfigFile;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options every command that touches the data folder shares ({@code @Mixin}), so that
 * {@code --data} and {@code --config} mean the same everywhere: the configuration is the
 * defaults, then the file, then the flags.
 */
public final class ConfigOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "configuration file (XML; schema arno/schema/config.xsd); flags override it")
    Path file;

    @Option(names = "--data", paramLabel = "DIR",
            description = "data folder: content/, store/, batch/ (default: data/ of the installation)")
    Path data;

    /** The installation folder: where ./arno lives (its script passes -Darno.home), else the working folder. */
    public static Path home() {
        return Path.of(System.getProperty("arno.home", ".")).toAbsolutePath().normalize();
    }

    /** Defaults, then the configuration file, then {@code --data}; the caller applies its own flags and builds. */
    public Config.Builder builder() {
        Config base = Config.defaults(home());
        if (file != null) base = ConfigFile.read(file, base);
        Config.Builder b = base.toBuilder();
        if (data != null) b.data = data;
        return b;
    }
}
