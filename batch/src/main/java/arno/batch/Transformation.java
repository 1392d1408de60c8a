package arno.batch;

import arno.store.atom.AtomStore;
import arno.store.atom.Put;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.ErrorXml;
import arno.xml.OwnerOnly;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import arno.xml.XmlWriter;
import java.io.BufferedInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.xml.transform.sax.SAXSource;
import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.Message;
import net.sf.saxon.s9api.NullDestination;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;
import net.sf.saxon.s9api.XmlProcessingError;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;

/**
 * Runs the job's stylesheet over one input and writes the report entry for it.
 *
 * <p>Outputs are written to a temporary file beside their target and renamed
 * into place only when the whole transformation succeeded, principal result
 * and every {@code xsl:result-document} alike, so a failing input leaves no
 * half-written files and a rerun (after a restart) simply replaces them.
 * Outputs that are http(s) URLs are PUT once complete.
 *
 * <p>The store. An input {@code store:/…} is the stored tree itself, navigated in place (never
 * serialized and parsed again): its document node is the global context item and the initial match
 * selection. It, and whatever the stylesheet reads with {@code doc('store:…')} or
 * {@code collection('store:…')}, come from one read view per transformation ({@link StoreReads.Scope}),
 * given to it as its resolvers and closed when the transformation ends. Outputs {@code store:/…} (principal result and result documents)
 * are written to temporary files like the others, then committed through the store service in ONE
 * transaction ({@link AtomStore#putAll}), and only when the transformation succeeded: before the
 * files are moved, so a refusal by the store (no entry for a variant, a variant its kind does not
 * declare) fails the input with nothing of it written anywhere. The report entry names the commit's
 * version ({@code store-version}).
 *
 * <p>What the stylesheet reads ({@code doc()}, {@code collection()}, {@code unparsed-text()}, ...)
 * is confined by {@link arno.xml.Access} on the processor's configuration; inputs are parsed by
 * the XML policy's readers; every error is an {@link ArnoException}, written as {@code err:error}.
 *
 * <p>Thread rules: one instance per job, shared by the workers; {@link #run}
 * keeps all per-input state on the stack.
 */
final class Transformation {
    private final Processor processor;
    private final XsltExecutable executable;
    private final Map<QName, XdmValue> parameters;
    private final Job job;
    private final URI base;
    private final Targets targets;
    private final XmlPolicy policy;
    private final Clock clock;
    private final RuleStats ruleStats;
    private final Path scratch;
    /** The store service, or null when the server has none. */
    private final AtomStore store;
    /** Where each run's view of the store comes from. */
    private final StoreReads reads;

    /** What one input came to, for the counters. */
    record Outcome(Status status, long messages) {
        boolean ok() {
            return status == Status.OK;
        }
    }

    /**
     * How a transformation ended: OK and FAILED count as done; CANCELLED (stopped by its job's
     * cancellation) is reported as such and counts as not run; STOPPED (by the service stopping)
     * leaves no report entry, so the input runs again when the job resumes.
     */
    enum Status { OK, FAILED, CANCELLED, STOPPED }

    Transformation(Processor processor, XsltExecutable executable, Map<QName, XdmValue> parameters, Job job,
                   URI base, Targets targets, XmlPolicy policy, Clock clock, RuleStats ruleStats, AtomStore store,
                   StoreReads reads) {
        this.processor = processor;
        this.executable = executable;
        this.parameters = parameters;
        this.job = job;
        this.base = base;
        this.targets = targets;
        this.policy = policy;
        this.clock = clock;
        this.ruleStats = ruleStats;
        this.scratch = job.dir.resolve("tmp");
        this.store = store;
        this.reads = reads;
    }

    /** One pending output: written to {@code temporary}, moved or PUT to {@code target} on success. */
    private record Pending(Path temporary, Batch.Target target) {}

    /**
     * Transforms one input within {@code limit}; stops early when {@code cancelled} or
     * {@code stopping} becomes true (checked by a {@link Guard} as the stylesheet runs). The entry is
     * written unless the service stopped it or the job no longer {@code owned} it (abandoned). At the
     * guard's checkpoints it gives way to pages through {@code giveWay} ({@link Yield.Turn#checkpoint}).
     */
    Outcome run(Batch.Input input, ReportWriter report, java.time.Duration limit, java.util.function.BooleanSupplier cancelled,
                java.util.function.BooleanSupplier stopping, java.util.function.BooleanSupplier owned,
                java.util.function.LongSupplier giveWay) {
        Instant start = clock.instant();
        Guard guard = new Guard(limit, input.source().uri().toString(), cancelled, stopping, giveWay);
        Guard.Reason stoppedBy = null;
        long t0 = System.nanoTime();
        SpillBuffer body = new SpillBuffer(scratch);
        XmlWriter xml = new XmlWriter(body);
        List<Pending> pending = new ArrayList<>();
        long[] messages = {0};
        long storeVersion = -1;
        boolean ok = false;
        StoreReads.Scope scope = reads.open();
        OutputStream principalOut = null;
        try {
            guard.check();
            Xslt30Transformer transformer = executable.load30();
            // This run's view of the store, given as its resolvers: doc(), collection() and the input read from it.
            scope.give(transformer);
            transformer.setStylesheetParameters(parameters);
            transformer.setTraceListener(guard);
            transformer.setMessageHandler(m -> {
                messages[0]++;
                message(xml, body, m);
                guard.check();
            });
            transformer.setErrorReporter(error -> {
                // Fatal errors arrive again as the exception; only warnings are reported from here.
                if (error.isWarning()) warning(xml, error);
            });
            transformer.setResultDocumentHandler(uri -> resultDocument(uri, pending, xml));
            URI outputBase = input.output() != null ? input.output().uri() : base;
            transformer.setBaseOutputURI(outputBase.toString());

            Destination destination;
            XdmDestination svrl = null;
            if (job.kind == Batch.Kind.SCHEMATRON) {
                destination = svrl = new XdmDestination();
            } else if (input.output() != null) {
                Pending principal = temporaryFor(input.output());
                // first in the list (result documents come after), and discarded with them on failure
                pending.add(principal);
                if (input.output().isFile()) {
                    destination = transformer.newSerializer(principal.temporary().toFile());
                } else {
                    // A stream, not the file: Saxon would resolve result documents' relative hrefs against
                    // the temporary file in the job's folder instead of the base output URI (the output).
                    principalOut = new java.io.BufferedOutputStream(Files.newOutputStream(principal.temporary()), 1 << 16);
                    destination = transformer.newSerializer(principalOut);
                }
            } else {
                destination = new NullDestination();
            }
            if (input.source().isStore()) {
                // The stored tree itself: nothing is serialized or parsed.
                XdmNode document = new XdmNode(scope.document(input.source().store(), input.source().uri().toString(),
                        processor.getUnderlyingConfiguration(), "input").getRootNode());
                transformer.setGlobalContextItem(document);
                transformer.applyTemplates(document, destination);
            } else {
                try (InputStream in = open(input.source())) {
                    InputSource source = new InputSource(in);
                    source.setSystemId(input.source().uri().toString());
                    // The thread's policy reader: workers parse thousands of inputs, and a reader costs more to
                    // build than a small input to parse. One whose parse failed is not reused.
                    transformer.transform(new SAXSource(policy.borrowReader(), source), destination);
                }
            }
            if (svrl != null) {
                XdmNode result = svrl.getXdmNode();
                if (input.output() != null) {
                    Pending principal = temporaryFor(input.output());
                    pending.add(0, principal);
                    try (OutputStream out = Files.newOutputStream(principal.temporary())) {
                        processor.newSerializer(out).serializeNode(result);
                    }
                }
                svrl(xml, input, result);
            }
            if (principalOut != null) {
                principalOut.close();
                principalOut = null;
            }
            // The last moment to stop: after this the outputs are written.
            guard.checkWithoutGivingWay();
            // Nothing reads the store any more: the view need not pin its pages while the outputs commit.
            scope.close();
            storeVersion = commitStore(pending);
            commit(pending);
            ok = true;
        } catch (SaxonApiException e) {
            stoppedBy = stopped(e);
            if (stoppedBy == null) error(xml, timedOut(e) ? Guard.timeout(limit, input.source().uri().toString()) : translate(e, input));
        } catch (IOException e) {
            error(xml, (e instanceof NoSuchFileException ? ErrorMessage.INPUT_MISSING.error(e, input.source().uri())
                    : ErrorCode.INPUT_UNREADABLE.error(e, "input", input.source().uri(), e)).at(Where.at(input.source().uri().toString())));
        } catch (RuntimeException | StackOverflowError e) {
            stoppedBy = stopped(e);
            if (stoppedBy == null) {
                ArnoException arno = ArnoException.find(e);
                error(xml, arno != null ? arno : e instanceof StackOverflowError
                        ? ErrorMessage.STACK_OVERFLOW.error()
                                .at(Where.at(input.source().uri().toString()))
                        : ErrorCode.TRANSFORMATION_ERROR.error(e, e));
            }
        } finally {
            scope.close();
            if (principalOut != null) {
                try {
                    principalOut.close();
                } catch (IOException ignored) {
                    // the input failed already; its temporary file is discarded below
                }
            }
            if (!ok) {
                discard(pending);
            }
        }
        long nanos = System.nanoTime() - t0;
        Instant stop = clock.instant();
        Status status = ok ? Status.OK : stoppedBy == Guard.Reason.CANCELLED ? Status.CANCELLED
                : stoppedBy == Guard.Reason.STOPPING ? Status.STOPPED : Status.FAILED;
        try {
            // Stopped with the service, or abandoned (and reported) by the job: no entry from here.
            if (status == Status.STOPPED || !owned.getAsBoolean()) return new Outcome(status, messages[0]);
            xml.flush();
            byte[] headBytes = entryHead(input, status, start, stop, nanos, cancelled.getAsBoolean(), storeVersion);
            report.append(headBytes, body, "</transformation>\n".getBytes(StandardCharsets.UTF_8));
        } finally {
            try {
                body.close();
            } catch (IOException ignored) {
                // A leftover spill file is removed with the job's tmp folder.
            }
        }
        return new Outcome(status, messages[0]);
    }

    /** Why the transformation that failed with {@code e} was stopped by its {@link Guard}, or null when it failed by itself. */
    private static Guard.Reason stopped(Throwable e) {
        Guard.Stopped s = find(e, Guard.Stopped.class);
        return s == null ? null : s.reason;
    }

    /** Whether {@code e} is the guard's time limit (Saxon may have wrapped it in a dynamic error of its own). */
    private static boolean timedOut(Throwable e) {
        ArnoException a = ArnoException.find(e);
        return a != null && a.code() == ErrorCode.TRANSFORMATION_TIMEOUT;
    }

    private byte[] entryHead(Batch.Input input, Status status, Instant start, Instant stop, long nanos, boolean afterCancel,
                             long storeVersion) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(256);
        XmlWriter head = new XmlWriter(bytes);
        head.start("transformation").attr("index", input.index()).attr("input", input.source().uri())
                .attr("output", input.output() == null ? null : input.output().uri())
                .attr("status", status.name().toLowerCase(java.util.Locale.ROOT))
                .attr("start", start).attr("stop", stop)
                .attr("duration-ms", String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6))
                .attr("after-cancel", afterCancel && status != Status.CANCELLED ? "true" : null)
                .attr("store-version", storeVersion >= 0 ? storeVersion : null)
                .text("\n").flush();
        return bytes.toByteArray();
    }

    private InputStream open(Batch.Target source) throws IOException {
        if (source.isFile()) {
            try {
                return new BufferedInputStream(Files.newInputStream(source.file()), 1 << 16);
            } catch (NoSuchFileException e) {
                throw ErrorMessage.INPUT_MISSING.error(source.file())
                        .at(Where.at(source.uri().toString()));
            }
        }
        return targets.outbound().get(source.uri(), "input");
    }

    private Pending temporaryFor(Batch.Target target) throws IOException {
        Path temporary;
        if (target.isFile()) {
            Path parent = target.file().getParent();
            Files.createDirectories(parent);
            temporary = parent.resolve("." + target.file().getFileName() + "."
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        } else {
            OwnerOnly.folder(scratch);
            temporary = Files.createTempFile(scratch, "put-", ".tmp");
        }
        return new Pending(temporary, target);
    }

    private Destination resultDocument(URI uri, List<Pending> pending, XmlWriter xml) {
        Batch.Target target = targets.resolve(uri.toString(), null, "xsl:result-document", false);
        try {
            Pending p = temporaryFor(target);
            pending.add(p);
            xml.start("result-document").attr("href", target.uri()).end().newline();
            return processor.newSerializer(p.temporary().toFile());
        } catch (IOException e) {
            throw ErrorMessage.RESULT_DOCUMENT_NOT_WRITTEN.error(e, uri, e);
        }
    }

    /**
     * Commits the store outputs among {@code pending} in one transaction, as the job's account, and
     * takes them out of the list; returns the commit's version, or -1 when there were none.
     */
    private long commitStore(List<Pending> pending) {
        List<Put> puts = new ArrayList<>();
        for (Pending p : pending) {
            // the media type is the one the entry's kind declares for the extension
            if (p.target().isStore()) puts.add(Put.of(p.target().store(), null, p.temporary()));
        }
        if (puts.isEmpty()) return -1;
        List<AtomStore.Written> written = store.putAll(puts, job.user);
        for (Pending p : List.copyOf(pending)) {
            if (p.target().isStore()) {
                pending.remove(p);
                try {
                    Files.deleteIfExists(p.temporary());
                } catch (IOException ignored) {
                    // in the job's tmp folder, removed with the job
                }
            }
        }
        return written.get(0).version();
    }

    private void commit(List<Pending> pending) throws IOException {
        for (Pending p : pending) {
            if (p.target().isFile()) {
                Files.move(p.temporary(), p.target().file(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                try {
                    targets.outbound().put(p.target().uri(), p.temporary(), "application/xml", "output");
                } finally {
                    Files.deleteIfExists(p.temporary());
                }
            }
        }
    }

    private static void discard(List<Pending> pending) {
        for (Pending p : pending) {
            try {
                Files.deleteIfExists(p.temporary());
            } catch (IOException ignored) {
                // Named ".<name>.<random>.tmp": recognisable, harmless, and replaced by a rerun.
            }
        }
    }

    /** An xsl:message with its content as XML, location, code and terminate flag. */
    private void message(XmlWriter xml, OutputStream body, Message m) {
        Where where = Where.of(m.getLocation(), null);
        xml.start("message").attr("terminate", m.isTerminate())
                .attr("code", arno.xml.ErrorXml.processorCode(m.getErrorCode()))
                .attr("system-id", where.uri())
                .attr("line", where.line() > 0 ? where.line() : null)
                .attr("column", where.column() > 0 ? where.column() : null);
        xml.flush();
        XdmNode content = m.getContent();
        if (content != null) {
            Serializer serializer = processor.newSerializer(new FilterOutputStream(body) {
                @Override public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }

                @Override public void close() throws IOException {
                    flush();
                }
            });
            serializer.setOutputProperty(Serializer.Property.METHOD, "xml");
            serializer.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
            serializer.setOutputProperty(Serializer.Property.INDENT, "no");
            try {
                serializer.serializeNode(content);
            } catch (SaxonApiException e) {
                xml.text(m.getStringValue());
            }
        }
        xml.end().newline();
    }

    private void warning(XmlWriter xml, XmlProcessingError error) {
        ArnoException.Detail d = StylesheetCache.detail(error);
        xml.start("warning").attr("code", d.code()).attr("system-id", d.where().uri())
                .attr("line", d.where().line() > 0 ? d.where().line() : null)
                .attr("column", d.where().column() > 0 ? d.where().column() : null)
                .text(d.message()).end().newline();
    }

    /**
     * What went wrong with one input, in the catalogue's terms: the XML policy's refusal or a
     * malformed document (the input's, or one the stylesheet read) with its own place; a read
     * the roots or the outbound policy refused, at the stylesheet's place that asked for it;
     * else the stylesheet's own error with Saxon's code.
     */
    private static ArnoException translate(SaxonApiException e, Batch.Input input) {
        String inputUri = input.source().uri().toString();
        SAXParseException parse = find(e, SAXParseException.class);
        if (XmlPolicy.refusal(e) != null || parse != null && ArnoException.find(e) == null) {
            String what = parse != null && parse.getSystemId() != null ? parse.getSystemId() : inputUri;
            return XmlPolicy.translate(e, what);
        }
        if (find(e, java.io.UnsupportedEncodingException.class) != null || find(e, java.io.CharConversionException.class) != null) {
            return XmlPolicy.translate(e, "input " + inputUri);
        }
        Where stylesheet = Where.at(e.getSystemId(), e.getLineNumber(),
                e.getCause() instanceof net.sf.saxon.trans.XPathException x && x.getLocator() != null
                        ? x.getLocator().getColumnNumber() : -1);
        String code = arno.xml.ErrorXml.processorCode(e.getErrorCode());
        ArnoException refused = ArnoException.find(e);
        if (refused != null) {
            if (!refused.where().isKnown()) refused.at(stylesheet);
            return refused.processorCode() == null ? refused.processorCode(code) : refused;
        }
        return ErrorCode.TRANSFORMATION_ERROR.error(e, e.getMessage()).processorCode(code).at(stylesheet);
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (int depth = 0; t != null && depth < 10; t = t.getCause(), depth++) {
            if (type.isInstance(t)) return type.cast(t);
        }
        return null;
    }

    private static void error(XmlWriter xml, ArnoException e) {
        ErrorXml.write(xml, e, null, true);
        xml.newline();
    }

    /** Keeps the SVRL in the job folder and summarises it into the entry and the job's rule counts. */
    private void svrl(XmlWriter xml, Batch.Input input, XdmNode svrl) throws SaxonApiException, IOException {
        Path dir = job.dir.resolve(Job.SVRL);
        OwnerOnly.folder(dir);
        String name = input.index() + ".xml";
        try (OutputStream out = new java.io.BufferedOutputStream(OwnerOnly.newOutputStream(dir.resolve(name)))) {
            processor.newSerializer(out).serializeNode(svrl);
        }
        java.util.Queue<Long> written = job.svrlWritten;
        if (written != null) written.add(input.index());
        Svrl summary = Svrl.summarize(svrl);
        ruleStats.add(summary.perRule());
        summary.write(xml, Job.SVRL + "/" + name);
    }
}
