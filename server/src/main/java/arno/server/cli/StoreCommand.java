package arno.server.cli;

import arno.server.LocalLoad;
import arno.server.RunFile;
import arno.server.config.Config;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomStore;
import arno.store.IndexConfig;
import arno.server.store.IndexTasks;
import arno.server.store.StoreTasks;
import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.XmlPolicy;
import java.io.Console;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./arno store load|export|check}: the persistent store in {@code DATA/store}. Parsing,
 * help and exit statuses are picocli's and {@link arno.server.Main}'s; the work is the store
 * module's library code ({@link StoreTasks}). {@code load} creates the store when there is none;
 * {@code export} and {@code check} never do (a mistyped {@code --data} must not leave an empty
 * store behind and report it healthy).
 */
@Command(name = "store", mixinStandardHelpOptions = true,
        description = "The persistent XML store in DATA/store: load XML files into it, export a document, check it,"
                + " list its element paths, configure its value indexes.",
        subcommands = {StoreCommand.Load.class, StoreCommand.Export.class, StoreCommand.Check.class,
                StoreCommand.Paths.class, StoreCommand.Index.class},
        footer = {"", "Examples:", "  ./arno store load --resources data/content --data data",
                "  ./arno store export /journals/ja.atom --data data",
                "  ./arno store check --data data",
                "  ./arno store index add indexes.xml --data data", "",
                "Exit status: 0 done, 1 failed, 2 wrong usage."})
public final class StoreCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a store command is needed: load, export, check, paths or index");
    }

    /**
     * The options of every command that opens the store ({@code @Mixin}): the configuration's
     * {@code --config} and {@code --data}, and {@code --map-size} over the configuration's store map size.
     */
    static final class Opening {
        @Mixin
        ConfigOptions config;

        @Option(names = "--map-size", paramLabel = "SIZE", converter = SizeConverter.class,
                description = "largest size the store may grow to, e.g. 64G (default 16G; a sparse file, not memory)")
        Long mapSize;

        /** The whole configuration, validated before the store is touched. */
        Config config() {
            Config.Builder b = config.builder();
            if (mapSize != null) b.storeMapSize = mapSize;
            return b.build();
        }

        static StoreOptions options(Config config) {
            return arno.server.Parts.storeOptions(config);
        }

        /** The store, created if there is none. */
        Store open() {
            Config c = config();
            return Store.open(c.store(), options(c));
        }

        /** The store; NO_STORE, creating nothing, if there is none. */
        Store openExisting() {
            Config c = config();
            return Store.openExisting(c.store(), options(c));
        }
    }

    /** Sizes as the configuration writes them (512M, 16G); a wrong one is a usage error. */
    static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Config.size(value, "a size");
            } catch (ArnoException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Whether stderr is a terminal the progress display can redraw in place. */
    static boolean interactive() {
        Console console = System.console();
        if (console == null) return false;
        try {
            // Java 22 and later give a Console for redirected streams too, and say whether it is a terminal.
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    @Command(name = "load", mixinStandardHelpOptions = true,
            description = {"Stores XML files (*.xml, *.atom, *.svg, *.xhtml). A folder's files get their path relative "
                    + "to it as URI, a file given directly its name, all under --prefix. Creates the store if there is none.",
                    "Every --batch documents (or 256 MB) are committed together; a document that cannot be stored is "
                    + "reported with its file, line and column and the others are loaded (exit status 1 if any failed).",
                    "While ./arno serve holds the store, the load runs in the server (found through DATA/arno-server),"
                    + " which keeps serving; its progress is shown here, and Ctrl-C stops it."},
            footer = {"", "Example:", "  ./arno store load content/journals --prefix /journals --data data",
                    "  stores content/journals/ja.atom as /journals/ja.atom"})
    static final class Load implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Opening store;

        @Parameters(arity = "1..*", paramLabel = "PATH", description = "XML files and folders to load")
        List<Path> paths;

        @Option(names = "--prefix", paramLabel = "URI", defaultValue = "",
                description = "put the URIs under this path, e.g. /journals (default: none)")
        String prefix;

        @Option(names = "--resources",
                description = "PATH is a folder laid out as the store's resources (x.atom entries, x.EXT variants, x/ children,"
                        + " _model/ introspection): load it through the store service, as the HTTP API would write it")
        boolean resources;

        @Option(names = "--batch", paramLabel = "N", defaultValue = "" + StoreTasks.DEFAULT_BATCH,
                description = "documents per transaction (default: ${DEFAULT-VALUE})")
        int batch;

        @Override
        public Integer call() {
            if (batch < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--batch must be at least 1, was " + batch);
            }
            try {
                StoreTasks.prefix(prefix);
            } catch (ArnoException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            if (resources && (paths.size() != 1 || !Files.isDirectory(paths.get(0)) || !prefix.isEmpty())) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--resources loads one folder laid out as the store, at the root (no --prefix)");
            }
            // Before the store is opened: a mistyped path creates nothing.
            List<StoreTasks.Input> inputs = resources ? List.of() : StoreTasks.inputs(paths, prefix);
            Config c = store.config();
            Optional<Integer> served = StoreCommand.throughServer(store,
                    new LocalLoad.Request(paths, resources, prefix, batch, user(), interactive()), spec, "loading through it",
                    spec.commandLine().getErr());
            if (served.isPresent()) return served.get();
            if (resources) return loadResources(c);
            try (Store s = store.open()) {
                StoreTasks.Loaded loaded = StoreTasks.load(s, inputs, batch, spec.commandLine().getErr(), interactive());
                return loaded.failed() == 0 ? 0 : 1;
            }
        }

        private static String user() {
            return System.getProperty("user.name", "arno");
        }

        private int loadResources(Config c) {
            try (Store s = Store.open(c.store(), Opening.options(c))) {
                // before the service opens: opening writes its default documents into a store that has none
                StoreTasks.refuseClusterCopy(s, "loading resources into it", "run the load while the node runs: "
                        + "it goes through the node's write path and the cluster's log");
            }
            try (Store s = Store.open(c.store(), Opening.options(c));
                    AtomStore atom = AtomStore.open(s, ServeCommand.atomOptions(c))) {
                StoreTasks.loadResources(atom, paths.get(0), user(),
                        spec.commandLine().getErr(), interactive());
                return 0;
            }
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Writes a stored document as XML, equal in infoset to what was loaded, to standard output or --out FILE.",
            footer = {"", "Example:", "  ./arno store export /journals/ja.atom --out ja.atom --data data"})
    static final class Export implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Opening store;

        @Parameters(paramLabel = "URI", description = "the stored document, e.g. /journals/ja.atom")
        String uri;

        @Option(names = "--out", paramLabel = "FILE", description = "write to FILE (UTF-8) instead of standard output")
        Path out;

        @Override
        public Integer call() {
            try (Store s = store.openExisting(); Snapshot snapshot = s.read()) {
                if (out == null) {
                    PrintWriter w = spec.commandLine().getOut();
                    snapshot.export(uri, w);
                    w.println();
                    w.flush();
                } else {
                    write(snapshot);
                }
            }
            return 0;
        }

        /** Into a temporary file beside FILE, then moved over it: a failed export leaves FILE as it was. */
        private void write(Snapshot snapshot) {
            Path target = out.toAbsolutePath();
            Path temp = null;
            try {
                temp = Files.createTempFile(target.getParent(), ".arno-export-", ".xml");
                try (OutputStream o = Files.newOutputStream(temp)) {
                    snapshot.export(uri, o);
                }
                try {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                }
                temp = null;
            } catch (IOException e) {
                throw ErrorMessage.EXPORT_NOT_WRITTEN.error(e, out, e.getMessage());
            } finally {
                if (temp != null) {
                    try {
                        Files.deleteIfExists(temp);
                    } catch (IOException ignored) {
                        // a temporary file that could not be removed is harmless
                    }
                }
            }
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Decodes every stored document and checks every entry; lists the problems. Never creates a store.",
                    "Exit status 1 if there is no store or any problem."},
            footer = {"", "Example:", "  ./arno store check --data data",
                    "  store /srv/arno/data/store: 1200 document(s), version 14, 96.0 MB on disk: OK"})
    static final class Check implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Opening store;

        @Override
        public Integer call() {
            try (Store s = store.openExisting()) {
                return StoreTasks.check(s, spec.commandLine().getOut()) ? 0 : 1;
            }
        }
    }

    @Command(name = "paths", mixinStandardHelpOptions = true,
            description = "Lists the path summary: every distinct element path of the stored XML documents, with the number"
                    + " of its elements and of the documents that have it. Never creates a store.",
            footer = {"", "Example:", "  ./arno store paths --data data",
                    "      elements  documents  path",
                    "          1200       1200  /atom:entry"})
    static final class Paths implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Opening store;

        @Override
        public Integer call() {
            Optional<Integer> served = throughServer(store, LocalLoad.Request.task("paths", List.of(), List.of(), false), spec,
                    spec.commandLine().getOut());
            if (served.isPresent()) return served.get();
            try (Store s = store.openExisting()) {
                IndexTasks.paths(s, spec.commandLine().getOut());
            }
            return 0;
        }
    }

    /**
     * Runs {@code request} in the server that holds the store, when one does, copying what it
     * prints to {@code to}; empty when no server holds it (the command opens the store itself).
     * Why through the server and not beside it: see {@link RunFile}.
     */
    static Optional<Integer> throughServer(Opening store, LocalLoad.Request request, CommandSpec spec, PrintWriter to) {
        return throughServer(store, request, spec, "asking it", to);
    }

    /** {@link #throughServer(Opening, LocalLoad.Request, CommandSpec, PrintWriter)}, saying {@code doing} on stderr. */
    static Optional<Integer> throughServer(Opening store, LocalLoad.Request request, CommandSpec spec, String doing, PrintWriter to) {
        Optional<RunFile> server = RunFile.find(store.config().data());
        if (server.isEmpty() || !server.get().store()) return Optional.empty();
        PrintWriter err = spec.commandLine().getErr();
        err.println("arno: the server (pid " + server.get().pid() + ") holds the store; " + doing);
        err.flush();
        return Optional.of(LocalLoad.request(server.get(), request, to));
    }

    @Command(name = "index", mixinStandardHelpOptions = true,
            description = {"The store's value indexes, configured in the store itself (" + IndexConfig.URI + ", schema "
                    + "arno/schema/indexes.xsd): add, remove, list. Templates and ./arno query use them through"
                    + " store:lookup and store:range."},
            subcommands = {Index.Add.class, Index.Remove.class, Index.ListIndexes.class},
            footer = {"", "Examples:", "  ./arno store index add indexes.xml --data data",
                    "  ./arno store index remove doi --data data", "  ./arno store index list --data data"})
    static final class Index implements Runnable {
        @Spec
        CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(), "an index command is needed: add, remove or list");
        }

        @Command(name = "add", mixinStandardHelpOptions = true,
                description = {"Adds the indexes of FILE (an <indexes xmlns=\"urn:arno:indexes\"> document) to the store's"
                        + " configuration, replacing indexes of the same names, and builds them over every stored document"
                        + " in one transaction, with progress on stderr. Unchanged indexes are kept as they are."},
                footer = {"", "Example:", "  ./arno store index add indexes.xml --data data", "  with indexes.xml:",
                        "  <indexes xmlns=\"urn:arno:indexes\" xmlns:atom=\"http://www.w3.org/2005/Atom\">",
                        "    <index name=\"category\" match=\"atom:entry/atom:category\" key=\"@scheme\" value=\"@term\"/>",
                        "  </indexes>"})
        static final class Add implements Callable<Integer> {
            @Spec
            CommandSpec spec;

            @Mixin
            Opening store;

            @Parameters(paramLabel = "FILE", description = "the index configuration to add")
            Path file;

            @Override
            public Integer call() {
                Config c = store.config();
                // read and validated before the store is opened: a mistake changes nothing
                IndexConfig added = IndexTasks.read(file, new XmlPolicy(c.xmlLimits()));
                Optional<Integer> served = throughServer(store, LocalLoad.Request.task("index-add",
                        List.of(file.toAbsolutePath().normalize()), List.of(), interactive()), spec, spec.commandLine().getErr());
                if (served.isPresent()) return served.get();
                try (Store s = store.openExisting()) {
                    IndexTasks.add(s, added, spec.commandLine().getErr(), interactive());
                }
                return 0;
            }
        }

        @Command(name = "remove", mixinStandardHelpOptions = true,
                description = "Removes the named indexes and their entries.",
                footer = {"", "Example:", "  ./arno store index remove doi surname --data data"})
        static final class Remove implements Callable<Integer> {
            @Spec
            CommandSpec spec;

            @Mixin
            Opening store;

            @Parameters(arity = "1..*", paramLabel = "NAME", description = "the indexes to remove")
            List<String> names;

            @Override
            public Integer call() {
                Optional<Integer> served = throughServer(store, LocalLoad.Request.task("index-remove", List.of(), names, false),
                        spec, spec.commandLine().getErr());
                if (served.isPresent()) return served.get();
                try (Store s = store.openExisting()) {
                    IndexTasks.remove(s, names, spec.commandLine().getErr());
                }
                return 0;
            }
        }

        @Command(name = "list", mixinStandardHelpOptions = true,
                description = "Prints the store's index configuration (a document that 'index add' accepts).",
                footer = {"", "Example:", "  ./arno store index list --data data > indexes.xml"})
        static final class ListIndexes implements Callable<Integer> {
            @Spec
            CommandSpec spec;

            @Mixin
            Opening store;

            @Override
            public Integer call() {
                Optional<Integer> served = throughServer(store, LocalLoad.Request.task("index-list", List.of(), List.of(), false),
                        spec, spec.commandLine().getOut());
                if (served.isPresent()) return served.get();
                try (Store s = store.openExisting()) {
                    IndexTasks.list(s, spec.commandLine().getOut());
                }
                return 0;
            }
        }
    }
}
