package arno.store.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Stream;

import javax.xml.transform.stream.StreamSource;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreException;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XQueryCompiler;
import net.sf.saxon.s9api.XQueryEvaluator;
import net.sf.saxon.s9api.XQueryExecutable;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XmlProcessingError;

/**
 * The store's command line, wired by the launcher to {@code ./arno store …} and
 * {@code ./arno query …}:
 *
 * <pre>
 * arno store load PATH... [--data DIR] [--prefix URI] [--batch N] [--map-size SIZE]
 * arno store export URI [--data DIR] [--out FILE]
 * arno store check [--data DIR]
 * arno query [--data DIR] [--context URI] (EXPR | -f FILE)
 * </pre>
 *
 * The store lives in {@code DIR/store} ({@code DIR} defaults to {@code data}). Exit codes: 0 done,
 * 1 failed (bad documents, check problems, query errors), 2 bad usage.
 */
public final class StoreCli {

    static final String USAGE = String.join("\n",
            "usage: arno store load PATH... [--data DIR] [--prefix URI] [--batch N] [--map-size SIZE]",
            "       arno store export URI [--data DIR] [--out FILE]",
            "       arno store check [--data DIR]",
            "       arno query [--data DIR] [--context URI] (EXPR | -f FILE)",
            "  load     stores XML files; a folder's XML files (*.xml, *.atom, *.svg, *.xhtml) get their",
            "           path relative to it as URI,",
            "           a file given directly its name, under --prefix (e.g. /journals)",
            "  export   writes the stored document as XML to stdout (or --out FILE)",
            "  check    decodes every document and checks every entry; exit 1 if any problem",
            "  query    runs XQuery 3.1 with the stored document --context as context item;",
            "           stored documents are also reachable as doc('store:/URI')",
            "  --data DIR      data directory, the store is DIR/store (default: data)",
            "  --map-size SIZE largest size the store may grow to, e.g. 64G (default 16G)");

    /** Documents per load transaction: each commit is durable, a crash loses at most one batch. */
    static final int DEFAULT_BATCH = 1000;
    /** XML bytes per load transaction, whatever the count. */
    static final long BATCH_BYTES = 256L << 20;

    private StoreCli() {
    }

    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out, System.err));
    }

    /** Runs a command; args[0] is {@code store} or {@code query}. Returns the exit code. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        try {
            if (args.isEmpty()) {
                throw new Usage("no command");
            }
            if (args.get(0).equals("query")) {
                return query(new Args(args.subList(1, args.size())), out, err);
            }
            if (!args.get(0).equals("store") || args.size() < 2) {
                throw new Usage("expected 'store load|export|check' or 'query'");
            }
            Args a = new Args(args.subList(2, args.size()));
            return switch (args.get(1)) {
                case "load" -> load(a, err, err == System.err && System.console() != null);
                case "export" -> export(a, out, err);
                case "check" -> check(a, out, err);
                default -> throw new Usage("unknown store command '" + args.get(1) + "'");
            };
        } catch (Usage u) {
            err.println("arno: " + u.getMessage());
            err.println(USAGE);
            return 2;
        } catch (StoreException | Failure e) {
            err.println("arno: " + e.getMessage());
            return 1;
        }
    }

    // ---- load ----

    record Input(Path file, String uri, long size) {
    }

    static int load(Args a, PrintStream err, boolean tty) {
        storeOptions(a);
        String prefix = prefix(a.option("--prefix", ""));
        int batch = a.intOption("--batch", DEFAULT_BATCH);
        List<String> paths = a.positional();
        if (paths.isEmpty()) {
            throw new Usage("store load needs at least one file or folder");
        }
        List<Input> inputs = new ArrayList<>();
        for (String p : paths) {
            collect(Path.of(p), prefix, inputs);
        }
        long total = inputs.stream().mapToLong(Input::size).sum();
        Progress progress = new Progress(err, tty, System::nanoTime, inputs.size(), total);
        long stored = 0;
        long xml = 0;
        try (Store store = open(a)) {
            WriteTransaction w = null;
            int inBatch = 0;
            long batchBytes = 0;
            try {
                for (Input in : inputs) {
                    if (w == null) {
                        w = store.write();
                    }
                    progress.file(in.uri());
                    try (InputStream s = new Counting(Files.newInputStream(in.file()), progress)) {
                        StreamSource src = new StreamSource(s, in.file().toUri().toString());
                        DocumentInfo info = w.put(in.uri(), src);
                        stored += info.storedBytes();
                        xml += in.size();
                        progress.done(true);
                    } catch (StoreException e) {
                        progress.message("arno: " + e.getMessage());
                        progress.done(false);
                    } catch (IOException e) {
                        progress.message("arno: cannot read " + in.file() + ": " + e);
                        progress.done(false);
                    }
                    inBatch++;
                    batchBytes += in.size();
                    if (inBatch >= batch || batchBytes >= BATCH_BYTES) {
                        w.commit();
                        w = null;
                        inBatch = 0;
                        batchBytes = 0;
                    }
                }
                if (w != null) {
                    w.commit();
                    w = null;
                }
            } finally {
                if (w != null) {
                    w.abort();
                }
            }
            double seconds = progress.finish();
            err.printf(Locale.ROOT, "arno: loaded %d document(s) into %s in %.1f s: %s of XML stored in %s (%.2f)%s%n",
                    progress.files(), store.directory(), seconds, Progress.size(xml), Progress.size(stored),
                    xml == 0 ? 0.0 : (double) stored / xml,
                    progress.failed() == 0 ? "" : "; " + progress.failed() + " failed");
        }
        return progress.failed() == 0 ? 0 : 1;
    }

    static String prefix(String p) {
        if (p.isEmpty() || p.equals("/")) {
            return "";
        }
        if (!p.startsWith("/")) {
            throw new Usage("--prefix must start with '/', was '" + p + "'");
        }
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** XML files by the names XML vocabularies give them: .xml, and Atom, SVG and XHTML's own. */
    static boolean isXmlName(Path f) {
        String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".xml") || n.endsWith(".atom") || n.endsWith(".svg") || n.endsWith(".xhtml");
    }

    private static void collect(Path p, String prefix, List<Input> out) {
        try {
            if (Files.isDirectory(p)) {
                List<Path> files;
                try (Stream<Path> s = Files.walk(p)) {
                    files = s.filter(f -> Files.isRegularFile(f) && isXmlName(f) && !hidden(p.relativize(f)))
                            .sorted().toList();
                }
                for (Path f : files) {
                    StringBuilder uri = new StringBuilder(prefix);
                    for (Path part : p.relativize(f)) {
                        uri.append('/').append(part);
                    }
                    out.add(new Input(f, uri.toString(), Files.size(f)));
                }
            } else if (Files.isRegularFile(p)) {
                out.add(new Input(p, prefix + "/" + p.getFileName(), Files.size(p)));
            } else {
                throw new NoSuchFileException(p.toString());
            }
        } catch (IOException e) {
            throw new Failure("cannot read " + p + ": " + (e instanceof NoSuchFileException ? "no such file or folder"
                    : e.toString()));
        }
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** Counts bytes into the progress display as the parser reads them (large files move too). */
    private static final class Counting extends FilterInputStream {
        private final Progress progress;

        Counting(InputStream in, Progress progress) {
            super(in);
            this.progress = progress;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                progress.bytes(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                progress.bytes(n);
            }
            return n;
        }
    }

    // ---- export, check ----

    static int export(Args a, PrintStream out, PrintStream err) {
        List<String> uris = a.positional();
        if (uris.size() != 1) {
            throw new Usage("store export needs exactly one URI");
        }
        String target = a.option("--out", null);
        try (Store store = open(a); Snapshot s = store.read()) {
            if (target == null) {
                s.export(uris.get(0), out);
                out.println();
                out.flush();
            } else {
                try (OutputStream o = Files.newOutputStream(Path.of(target))) {
                    s.export(uris.get(0), o);
                } catch (IOException e) {
                    err.println("arno: cannot write " + target + ": " + e);
                    return 1;
                }
            }
        }
        return 0;
    }

    static int check(Args a, PrintStream out, PrintStream err) {
        a.positionalNone("store check");
        try (Store store = open(a)) {
            List<String> problems = store.check();
            int docs;
            try (Snapshot s = store.read()) {
                docs = s.uris("").size();
            }
            for (String p : problems) {
                out.println(p);
            }
            out.printf(Locale.ROOT, "store %s: %d document(s), version %d, %s on disk: %s%n", store.directory(), docs,
                    store.version(), Progress.size(store.diskBytes()),
                    problems.isEmpty() ? "OK" : problems.size() + " problem(s)");
            return problems.isEmpty() ? 0 : 1;
        }
    }

    // ---- query ----

    static int query(Args a, PrintStream out, PrintStream err) {
        String file = a.option("-f", null);
        String context = a.option("--context", null);
        List<String> rest = a.positional();
        String text;
        String base;
        if (file != null) {
            if (!rest.isEmpty()) {
                throw new Usage("give the query either as EXPR or with -f FILE, not both");
            }
            try {
                text = Files.readString(Path.of(file), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("arno: cannot read query " + file + ": " + e);
                return 1;
            }
            base = Path.of(file).toUri().toString();
        } else {
            if (rest.size() != 1) {
                throw new Usage("query needs one expression (quote it) or -f FILE");
            }
            text = rest.get(0);
            base = Path.of("").toAbsolutePath().toUri().toString();
        }
        Processor processor = new Processor(false);
        XQueryCompiler compiler = processor.newXQueryCompiler();
        compiler.setBaseURI(java.net.URI.create(base));
        List<XmlProcessingError> errors = new ArrayList<>();
        compiler.setErrorList(errors);
        XQueryExecutable exec;
        try {
            exec = compiler.compile(text);
        } catch (SaxonApiException e) {
            boolean reported = false;
            for (XmlProcessingError se : errors) {
                if (se.isWarning()) {
                    continue;
                }
                reported = true;
                err.println("arno: query " + (file != null ? file + " " : "") + "line " + se.getLocation().getLineNumber()
                        + ", column " + se.getLocation().getColumnNumber() + ": "
                        + (se.getErrorCode() == null ? "" : se.getErrorCode().getLocalName() + " ") + se.getMessage());
            }
            if (!reported) {
                err.println("arno: query: " + e.getMessage());
            }
            return 1;
        }
        try (Store store = open(a); Snapshot s = store.read()) {
            XQueryEvaluator ev = exec.load();
            ev.setResourceResolver(s.resolver(processor.getUnderlyingConfiguration()));
            if (context != null) {
                TreeInfo t = s.document(context, processor.getUnderlyingConfiguration());
                ev.setContextItem(new XdmNode(t.getRootNode()));
            }
            Serializer ser = processor.newSerializer(out);
            ser.setOutputProperty(Serializer.Property.METHOD, "xml");
            ser.setOutputProperty(Serializer.Property.INDENT, "yes");
            ser.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
            ser.setOutputProperty(Serializer.Property.ITEM_SEPARATOR, "\n");
            Properties declared = exec.getUnderlyingCompiledQuery().getExecutable()
                    .getPrimarySerializationProperties().getProperties();
            for (String key : declared.stringPropertyNames()) {
                ser.setOutputProperty(QName.fromClarkName(key), declared.getProperty(key));
            }
            ev.run(ser);
            out.println();
            out.flush();
            return 0;
        } catch (SaxonApiException e) {
            String where = e.getLineNumber() > 0 ? " line " + e.getLineNumber() : "";
            err.println("arno: query failed" + where + ": " + (e.getErrorCode() == null ? "" : e.getErrorCode().getLocalName() + " ")
                    + e.getMessage());
            return 1;
        }
    }

    // ---- options ----

    static Store open(Args a) {
        Path data = Path.of(a.option("--data", "data"));
        return Store.open(data.resolve("store"), storeOptions(a));
    }

    static StoreOptions storeOptions(Args a) {
        StoreOptions options = StoreOptions.defaults();
        String size = a.option("--map-size", null);
        if (size != null) {
            try {
                options = options.mapSize(size(size));
            } catch (IllegalArgumentException e) {
                throw new Usage(e.getMessage());
            }
        }
        return options;
    }

    static long size(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
        switch (last) {
            case 'K' -> mult = 1L << 10;
            case 'M' -> mult = 1L << 20;
            case 'G' -> mult = 1L << 30;
            case 'T' -> mult = 1L << 40;
            default -> mult = 1;
        }
        try {
            return Long.parseLong(mult == 1 ? t : t.substring(0, t.length() - 1)) * mult;
        } catch (NumberFormatException e) {
            throw new Usage("--map-size must be a size like 64G, was '" + s + "'");
        }
    }

    /** Options are {@code --name value} anywhere; everything else is positional. */
    static final class Args {
        private final List<String> positional = new ArrayList<>();
        private final java.util.Map<String, String> options = new java.util.HashMap<>();
        private static final List<String> KNOWN = List.of("--data", "--prefix", "--batch", "--map-size", "--out",
                "--context", "-f");

        Args(List<String> args) {
            for (int i = 0; i < args.size(); i++) {
                String s = args.get(i);
                if (KNOWN.contains(s)) {
                    if (i + 1 >= args.size()) {
                        throw new Usage(s + " needs a value");
                    }
                    options.put(s, args.get(++i));
                } else if (s.startsWith("--")) {
                    throw new Usage("unknown option " + s);
                } else {
                    positional.add(s);
                }
            }
        }

        String option(String name, String def) {
            return options.getOrDefault(name, def);
        }

        int intOption(String name, int def) {
            String v = options.get(name);
            if (v == null) {
                return def;
            }
            try {
                int n = Integer.parseInt(v);
                if (n < 1) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new Usage(name + " must be a positive number, was '" + v + "'");
            }
        }

        List<String> positional() {
            return positional;
        }

        void positionalNone(String command) {
            if (!positional.isEmpty()) {
                throw new Usage(command + " takes no argument, got '" + positional.get(0) + "'");
            }
        }
    }

    /** A failure outside the store (an unreadable input path): exit 1 with its message. */
    static final class Failure extends RuntimeException {
        Failure(String message) {
            super(message);
        }
    }

    static final class Usage extends RuntimeException {
        Usage(String message) {
            super(message);
        }
    }
}
