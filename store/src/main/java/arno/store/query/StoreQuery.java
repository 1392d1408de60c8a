package arno.store.query;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import javax.xml.transform.Source;

import arno.store.DocumentInfo;
import arno.store.Search;
import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import arno.xml.StoreDocumentPool;
import arno.xml.StoreFunctions;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.CollectionFinder;
import net.sf.saxon.lib.Resource;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.om.NodeInfo;
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
import net.sf.saxon.resource.XmlResource;
import net.sf.saxon.trans.XPathException;

/**
 * An XQuery 3.1 query over the store, compiled once ({@link #compile}) and run against one
 * snapshot ({@link #run}): the stored document {@code --context} is the context item, and every
 * stored document is {@code doc('store:/URI')}. Everything else it reads goes through the
 * {@link Access} it was compiled with (files under its roots, URLs by its outbound policy, XML
 * parsed by its policy, no environment variables): the admin console's queries get no files and
 * no private addresses, {@code ./arno query} its owner's ({@link #owners}). Compiling comes first,
 * so a mistake in the query is reported even when there is no store to run it on.
 *
 * <p>Limits ({@link Reporting}): the time limit and the caller's brake are checked at every
 * document read, every result written and at the {@link Checkpoints} compiled into the query
 * (each item of a range and of a {@code for} clause's sequence, each call of a function), so a
 * loop or a sort over a long sequence is stopped even when it reads and writes nothing.
 */
public final class StoreQuery {

    private final Processor processor;
    private final XQueryExecutable executable;
    private final String label;
    private final Access access;

    private StoreQuery(Processor processor, XQueryExecutable executable, String label, Access access) {
        this.processor = processor;
        this.executable = executable;
        this.label = label;
        this.access = access;
    }

    /**
     * As {@link #compile(String, URI, String, Access)} with the access of {@code ./arno query},
     * which the machine's owner runs: {@link #owners}.
     */
    public static StoreQuery compile(String text, URI base, String label, XmlPolicy policy) {
        return compile(text, base, label, owners(policy));
    }

    /**
     * What {@code ./arno query} may read besides the store: any file its user may (every root of
     * the file system), any URL, private addresses too, XML parsed by {@code policy}. Its user
     * could read all of that without Arno; environment variables stay hidden, as everywhere.
     */
    public static Access owners(XmlPolicy policy) {
        List<java.nio.file.Path> roots = new ArrayList<>();
        java.nio.file.FileSystems.getDefault().getRootDirectories().forEach(roots::add);
        return new Access(FileRoots.of(roots), FileRoots.none(), new Outbound(Outbound.Policy.DEFAULT.allowingPrivate()),
                policy);
    }

    /**
     * Compiles {@code text}; {@code base} resolves its relative URIs, {@code label} names it in
     * errors (the file, or "query" for an expression), {@code access} is all it may read besides
     * the store (modules it imports included). COMPILE_ERROR with the first static error's
     * location and the others as details.
     */
    public static StoreQuery compile(String text, URI base, String label, Access access) {
        return compile(text, base, label, access, config -> { });
    }

    /**
     * As {@link #compile(String, URI, String, Access)}, with more functions that {@code functions}
     * registers on the query's configuration before it is compiled (store:ft-search, which a module
     * beside the store offers).
     */
    public static StoreQuery compile(String text, URI base, String label, Access access,
                                     java.util.function.Consumer<Configuration> functions) {
        Processor processor = new Processor(false);
        Configuration config = processor.getUnderlyingConfiguration();
        // store: collections from the running query's snapshot, any other through the access
        access.install(config, access, access, new Collections(access, config));
        // store:lookup and store:range read the snapshot whose resolver run() installs
        StoreFunctions.register(config, VIEWS);
        functions.accept(config);
        XQueryCompiler compiler = processor.newXQueryCompiler();
        compiler.declareNamespace(StoreFunctions.PREFIX, StoreFunctions.NS);
        compiler.setBaseURI(base);
        List<XmlProcessingError> errors = new ArrayList<>();
        compiler.setErrorList(errors);  // collected, not printed: they become the error's details
        try {
            XQueryExecutable executable = compiler.compile(text);
            Checkpoints.install(executable.getUnderlyingCompiledQuery());
            return new StoreQuery(processor, executable, label, access);
        } catch (SaxonApiException e) {
            ArnoException failure = null;
            for (XmlProcessingError se : errors) {
                if (se.isWarning()) {
                    continue;
                }
                String code = arno.xml.ErrorXml.processorCode(se.getErrorCode());
                Where where = se.getLocation() == null ? Where.at(label)
                        : Where.at(label, se.getLocation().getLineNumber(), se.getLocation().getColumnNumber());
                if (failure == null) {
                    failure = (code == null ? ErrorCode.COMPILE_ERROR.error(e, se.getMessage())
                            : ErrorMessage.QUERY_NOT_COMPILED_CODE.error(e, code, se.getMessage()))
                            .at(where).processorCode(code);
                } else {
                    failure.detail(new ArnoException.Detail(code, se.getMessage(), where, false));
                }
            }
            if (failure == null) {
                failure = ErrorCode.COMPILE_ERROR.error(e, e.getMessage()).at(Where.at(label, e.getLineNumber(), -1));
            }
            throw failure;
        }
    }

    /**
     * What a run reports on {@code err} besides its result: the plan of each search before its
     * results and its counts and times after them ({@code explain}), a progress display of the
     * documents examined ({@code progress}; redrawn in place when {@code tty}), and its limits: a
     * time limit ({@code timeout}, null for none) and a {@code brake} (null for none), asked at
     * every check for a reason to stop (the server's heap nearly full, the server stopping), which
     * the run then throws. Both are checked at every document read, every result written and,
     * once in {@link Watch#TICKS}, at the query's {@link Checkpoints}.
     */
    public record Reporting(PrintWriter err, boolean explain, boolean progress, boolean tty, Duration timeout,
            LongSupplier clock, Supplier<ArnoException> brake) {
        /** Nothing reported, no limit. */
        public static final Reporting NONE = new Reporting(null, false, false, false, null, System::nanoTime);

        public Reporting(PrintWriter err, boolean explain, boolean progress, boolean tty, Duration timeout) {
            this(err, explain, progress, tty, timeout, System::nanoTime);
        }

        public Reporting(PrintWriter err, boolean explain, boolean progress, boolean tty, Duration timeout,
                LongSupplier clock) {
            this(err, explain, progress, tty, timeout, clock, null);
        }
    }

    /**
     * Runs the query on one snapshot of {@code store} and writes the result to {@code out}:
     * indented XML, one item per line, unless the query declares its own serialization. NOT_FOUND
     * when {@code context} (a store URI, or null for none) holds no document; TRANSFORMATION_ERROR
     * with the query's error code and location when it fails.
     */
    public void run(Store store, String context, Writer out) {
        run(store, context, out, Reporting.NONE);
    }

    /**
     * As {@link #run(Store, String, Writer)}, reporting as {@code reporting} says. Results stream:
     * {@code collection('store:/…')} reads its documents one at a time as the query asks for them,
     * {@code store:search} verifies one candidate at a time, and each item goes to {@code out} as it
     * is produced where the query allows (a sort, say, needs all its input first). Past the time
     * limit: QUERY_TIMEOUT saying what was done; stopped by the brake: its error; either way the
     * snapshot is released.
     */
    public void run(Store store, String context, Writer out, Reporting reporting) {
        Watch watch = new Watch(reporting);
        try (Snapshot s = store.read()) {
            XQueryEvaluator ev = executable.load();
            // The failure is raised below with its location; Saxon's reporter would print it (with a trace) on System.err.
            ev.setErrorReporter(error -> { });
            Configuration config = processor.getUnderlyingConfiguration();
            // store: from this snapshot, anything else through the access (the run's resolver is asked first)
            ev.setResourceResolver(new Watched(s, config, watch, access));
            if (context != null) {
                TreeInfo t = s.document(context, processor.getUnderlyingConfiguration());
                ev.setContextItem(new XdmNode(t.getRootNode()));
            }
            Serializer ser = processor.newSerializer(watch.output(out));
            ser.setOutputProperty(Serializer.Property.METHOD, "xml");
            ser.setOutputProperty(Serializer.Property.INDENT, "yes");
            ser.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
            ser.setOutputProperty(Serializer.Property.ITEM_SEPARATOR, "\n");
            Properties declared = executable.getUnderlyingCompiledQuery().getExecutable()
                    .getPrimarySerializationProperties().getProperties();
            for (String key : declared.stringPropertyNames()) {
                ser.setOutputProperty(QName.fromClarkName(key), declared.getProperty(key));
            }
            ev.run(ser);
        } catch (SaxonApiException e) {
            ArnoException found = ArnoException.find(e);
            if (found != null) {
                throw found;
            }
            String code = arno.xml.ErrorXml.processorCode(e.getErrorCode());
            throw (code == null ? ErrorMessage.QUERY_FAILED.error(e, e.getMessage())
                    : ErrorMessage.QUERY_FAILED_CODE.error(e, code, e.getMessage())).at(Where.at(label, e.getLineNumber(), -1)).processorCode(code);
        } catch (UncheckedIOException e) {
            ArnoException found = ArnoException.find(e);
            if (found != null) {
                throw found;
            }
            throw ErrorMessage.RESULT_NOT_WRITTEN.error(e, e.getMessage());
        } catch (RuntimeException e) {
            // a limit met inside a function call comes wrapped in Saxon's "internal error"
            ArnoException found = ArnoException.find(e);
            throw found != null ? found : e;
        } finally {
            watch.finish();
        }
    }

    /**
     * One run's accounting: documents examined, characters written, the deadline, the brake, the
     * progress display and the explanations. Every document read and every write passes through
     * it, and the query's {@link Checkpoints} tick it. Used by the run's thread only.
     */
    static final class Watch {
        /** Checkpoint ticks between two checks: a clock read costs more than a tick. */
        static final int TICKS = 1024;
        private final Reporting r;
        private final long start;
        private final long deadline;
        private final Progress progress;
        private long documents;
        private long written;
        private long searches;
        private int ticks;

        Watch(Reporting r) {
            this.r = r;
            this.start = r.clock().getAsLong();
            this.deadline = r.timeout() == null ? Long.MAX_VALUE : start + r.timeout().toNanos();
            this.progress = r.progress() && r.err() != null ? Progress.documents(r.err(), r.tty(), r.clock()) : null;
        }

        /** A document was read: {@code done} of {@code total} of the current collection or search (0 if none). */
        void examined(long done, long total, String uri) {
            documents++;
            if (progress != null) {
                progress.examined(done, total, uri);
            }
            check();
        }

        /** A document was read by doc() or the like. */
        void read() {
            documents++;
            check();
        }

        /** A checkpoint passed: an item of a long sequence, a function call. */
        void tick() {
            if (++ticks == TICKS) {
                ticks = 0;
                check();
            }
        }

        void check() {
            if (r.brake() != null) {
                ArnoException stop = r.brake().get();
                if (stop != null) {
                    if (progress != null) {
                        progress.finish();
                    }
                    throw stop;
                }
            }
            if (deadline != Long.MAX_VALUE && r.clock().getAsLong() - deadline > 0) {
                if (progress != null) {
                    progress.finish();
                }
                throw (searches > 0
                        ? ErrorMessage.QUERY_STOPPED_SEARCHES.error(r.timeout().toString().substring(2).toLowerCase(Locale.ROOT),
                                documents, written, searches)
                        : ErrorCode.QUERY_TIMEOUT.error(r.timeout().toString().substring(2).toLowerCase(Locale.ROOT),
                                documents, written));
            }
        }

        void explain(String line) {
            if (r.explain() && r.err() != null) {
                if (progress != null) {
                    progress.message(line.stripTrailing());
                } else {
                    r.err().print(line);
                    r.err().flush();
                }
            }
        }

        Search.Listener listener() {
            searches++;
            return new Search.Listener() {
                @Override
                public void planned(Search search) {
                    explain("search under " + search.under() + ": " + search.condition() + "\n" + search.plan().text());
                }

                @Override
                public void examined(long done, long total, String uri) {
                    Watch.this.examined(done, total, uri);
                }

                @Override
                public void finished(Search search) {
                    Search.Stats st = search.stats();
                    explain(String.format(Locale.ROOT, "  done: %d candidates examined, %d results; planning %.1f ms,"
                            + " verifying %.1f ms%n", st.examined(), st.results(), st.planNanos() / 1e6, st.runNanos() / 1e6));
                }
            };
        }

        Writer output(Writer out) {
            return new Writer() {
                @Override
                public void write(char[] buf, int off, int len) throws IOException {
                    out.write(buf, off, len);
                    written += len;
                    check();
                }

                @Override
                public void flush() throws IOException {
                    out.flush();
                }

                @Override
                public void close() throws IOException {
                    out.flush();
                }
            };
        }

        void finish() {
            if (progress != null) {
                progress.finish();
            }
        }
    }

    /**
     * The run's resolver: {@code store:} URIs from the snapshot, each read counted and checked
     * against the deadline; any other through the access; the view {@code store:search} reads
     * through, which reports to the watch.
     */
    private static final class Watched implements ResourceResolver {
        private final Snapshot snapshot;
        private final ResourceResolver store;
        private final View view;
        private final Watch watch;
        private final Access access;

        Watched(Snapshot s, Configuration config, Watch watch, Access access) {
            this.snapshot = s;
            this.store = s.resolver(config);
            this.view = new View(s, watch);
            this.watch = watch;
            this.access = access;
        }

        @Override
        public Source resolve(ResourceRequest request) throws XPathException {
            Source found = store.resolve(request);
            if (found != null) {
                watch.read();
                return found;
            }
            return access.resolve(request);
        }
    }

    /** The watch of the run {@code context} belongs to, or null outside a run. */
    static Watch watch(XPathContext context) {
        return context.getController() != null && context.getController().getResourceResolver() instanceof Watched w
                ? w.watch : null;
    }

    /**
     * {@code collection('store:/journals/ja/')}: the XML documents stored under that path, from
     * the running query's snapshot, one at a time; any other collection through the access.
     */
    private static final class Collections implements CollectionFinder {
        private final Access access;
        private final Configuration config;

        Collections(Access access, Configuration config) {
            this.access = access;
            this.config = config;
        }

        @Override
        public ResourceCollection findCollection(XPathContext context, String uri) throws XPathException {
            if (uri == null || !uri.startsWith(DocumentStore.SCHEME)) {
                return access.findCollection(context, uri);
            }
            if (!(context.getController().getResourceResolver() instanceof Watched w)) {
                throw new XPathException("collection " + uri + ": store: collections are read while the query runs",
                        "FODC0002");
            }
            return new Members(uri, w.snapshot, config, w.watch);
        }
    }

    /**
     * For store:lookup, store:range, store:search, and the functions a module adds through
     * {@link #compile(String, URI, String, Access, java.util.function.Consumer)} (store:ft-search):
     * the run's view, from its resolver.
     */
    public static final Function<XPathContext, DocumentStore.View> VIEWS = context -> {
        ResourceResolver r = context.getController() == null ? null : context.getController().getResourceResolver();
        return r instanceof Watched w ? w.view : Snapshot.FROM_RESOLVER.apply(context);
    };

    /** The snapshot as the query's functions see it: searches report to the watch. */
    private static final class View implements DocumentStore.View {
        private final Snapshot s;
        private final Watch watch;

        View(Snapshot s, Watch watch) {
            this.s = s;
            this.watch = watch;
        }

        @Override
        public long version() {
            return s.version();
        }

        @Override
        public boolean exists(String path) {
            return s.exists(path);
        }

        @Override
        public long documentVersion(String path) {
            return s.documentVersion(path);
        }

        @Override
        public TreeInfo document(String path, Configuration config) {
            return s.document(path, config);
        }

        @Override
        public TreeInfo documentIfStored(String path, Configuration config) {
            return s.documentIfStored(path, config);
        }

        @Override
        public List<String> uris(String prefix) {
            return s.uris(prefix);
        }

        @Override
        public List<String> children(String folder) {
            return s.children(folder);
        }

        @Override
        public List<NodeInfo> lookup(String index, String key, String low, String high, Configuration config) {
            return s.lookup(index, key, low, high, config);
        }

        @Override
        public Iterator<NodeInfo> search(String under, String condition, Map<String, String> namespaces,
                Configuration config) {
            return s.planSearch(under, condition, namespaces, config).iterator(watch.listener());
        }

        @Override
        public NodeInfo explain(String under, String condition, Map<String, String> namespaces, Configuration config) {
            return s.explain(under, condition, namespaces, config);
        }

        @Override
        public void close() {
            // the run closes the snapshot
        }
    }

    /**
     * {@code collection('store:/a/')}: the XML documents whose path starts with /a/, read one at a
     * time as the query asks for them (a page of paths at a time from the paths B+tree), so a report
     * over the whole store starts writing at once. Not "stable" in Saxon's sense, which would make
     * Saxon read them all before the first; each member is made available to {@code document-uri()}
     * and {@code doc()} as it is read, in a pool that holds it only while the query does
     * ({@link StoreDocumentPool}), and the snapshot gives the same tree for the same path anyway.
     */
    private static final class Members implements ResourceCollection {
        private static final int PAGE = 512;
        private final String uri;
        private final String prefix;
        private final Snapshot s;
        private final Configuration config;
        private final Watch watch;

        Members(String uri, Snapshot s, Configuration config, Watch watch) {
            this.uri = uri;
            this.prefix = uri.substring(DocumentStore.SCHEME.length());
            this.s = s;
            this.config = config;
            this.watch = watch;
        }

        @Override
        public String getCollectionURI() {
            return uri;
        }

        @Override
        public Iterator<String> getResourceURIs(XPathContext context) {
            Iterator<String> paths = paths();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return paths.hasNext();
                }

                @Override
                public String next() {
                    return DocumentStore.SCHEME + paths.next();
                }
            };
        }

        @Override
        public Iterator<? extends Resource> getResources(XPathContext context) {
            long total = s.count(prefix);
            Iterator<String> paths = paths();
            // the members go into the query's document pool (doc() and document-uri() need them
            // there), held weakly, so a report over the whole store keeps only those still in use
            if (context.getController() != null) StoreDocumentPool.install(context.getController().getDocumentPool());
            return new Iterator<Resource>() {
                long done;

                @Override
                public boolean hasNext() {
                    return paths.hasNext();
                }

                @Override
                public Resource next() {
                    String path = paths.next();
                    NodeInfo root = StoreFunctions.available(context, s.document(path, config).getRootNode());
                    watch.examined(++done, total, path);
                    return new XmlResource(root);
                }
            };
        }

        /** The XML documents' paths, a page at a time. */
        private Iterator<String> paths() {
            return new Iterator<>() {
                List<String> page;
                int at;
                boolean last;
                String next;

                @Override
                public boolean hasNext() {
                    while (next == null) {
                        if (page == null || (at == page.size() && !last)) {
                            String after = page == null || page.isEmpty() ? null : page.get(page.size() - 1);
                            page = s.uris(prefix, after, PAGE);
                            at = 0;
                            last = page.size() < PAGE;
                        }
                        if (at >= page.size()) {
                            return false;
                        }
                        String p = page.get(at++);
                        DocumentInfo info = s.info(p);
                        if (info != null && !info.binary()) {
                            next = p;
                        }
                    }
                    return true;
                }

                @Override
                public String next() {
                    if (!hasNext()) {
                        throw new java.util.NoSuchElementException();
                    }
                    String p = next;
                    next = null;
                    return p;
                }
            };
        }

        @Override
        public boolean isStable(XPathContext context) {
            return false;
        }
    }
}
