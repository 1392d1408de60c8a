package arno.batch;

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
import net.sf.saxon.trans.XPathException;
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
 * <p>Thread rules: one instance per job, shared by the workers; {@link #run}
 * keeps all per-input state on the stack.
 */
final class Transformation {
    private final Processor processor;
    private final XsltExecutable executable;
    private final Map<QName, XdmValue> parameters;
    private final Job job;
    private final URI base;
    private final Roots roots;
    private final Fetcher fetcher;
    private final Clock clock;
    private final RuleStats ruleStats;
    private final Path scratch;

    /** What one input came to, for the counters. */
    record Outcome(boolean ok, long messages) {}

    Transformation(Processor processor, XsltExecutable executable, Map<QName, XdmValue> parameters, Job job,
                   URI base, Roots roots, Fetcher fetcher, Clock clock, RuleStats ruleStats) {
        this.processor = processor;
        this.executable = executable;
        this.parameters = parameters;
        this.job = job;
        this.base = base;
        this.roots = roots;
        this.fetcher = fetcher;
        this.clock = clock;
        this.ruleStats = ruleStats;
        this.scratch = job.dir.resolve("tmp");
    }

    /** One pending output: written to {@code temporary}, moved or PUT to {@code target} on success. */
    private record Pending(Path temporary, Roots.Target target) {}

    Outcome run(Batch.Input input, ReportWriter report, java.util.function.BooleanSupplier cancelled) {
        Instant start = clock.instant();
        long t0 = System.nanoTime();
        SpillBuffer body = new SpillBuffer(scratch);
        Xml xml = new Xml(body);
        List<Pending> pending = new ArrayList<>();
        long[] messages = {0};
        boolean ok = false;
        try {
            Xslt30Transformer transformer = executable.load30();
            transformer.setStylesheetParameters(parameters);
            transformer.setMessageHandler(m -> {
                messages[0]++;
                message(xml, body, m);
            });
            transformer.setErrorReporter(error -> {
                // Fatal errors arrive again as the exception; only warnings are reported from here.
                if (error.isWarning()) warning(xml, error);
            });
            transformer.setResultDocumentHandler(uri -> resultDocument(uri, pending, xml));
            // What the stylesheet reads (doc(), document(), unparsed-text()) is confined like the
            // inputs: files under the roots, or http(s). Returning null lets Saxon read it as usual.
            transformer.setResourceResolver(request -> {
                confineRead(request.uri);
                return null;
            });
            transformer.setUnparsedTextResolver((uri, encoding, config) -> {
                confineRead(uri.toString());
                return new net.sf.saxon.lib.StandardUnparsedTextResolver().resolve(uri, encoding, config);
            });
            URI outputBase = input.output() != null ? input.output().uri() : base;
            transformer.setBaseOutputURI(outputBase.toString());

            Destination destination;
            XdmDestination svrl = null;
            Pending principal = null;
            if (job.kind == Batch.Kind.SCHEMATRON) {
                destination = svrl = new XdmDestination();
            } else if (input.output() != null) {
                principal = temporaryFor(input.output());
                destination = transformer.newSerializer(principal.temporary().toFile());
            } else {
                destination = new NullDestination();
            }
            try (InputStream in = open(input.source())) {
                InputSource source = new InputSource(in);
                source.setSystemId(input.source().uri().toString());
                transformer.transform(new SAXSource(SecureXml.inputReader(), source), destination);
            }
            if (svrl != null) {
                XdmNode result = svrl.getXdmNode();
                if (input.output() != null) {
                    principal = temporaryFor(input.output());
                    try (OutputStream out = Files.newOutputStream(principal.temporary())) {
                        processor.newSerializer(out).serializeNode(result);
                    }
                }
                svrl(xml, input, result);
            }
            if (principal != null) pending.add(0, principal);
            commit(pending);
            ok = true;
        } catch (SaxonApiException e) {
            error(xml, e, input);
        } catch (BatchException e) {
            error(xml, e.problem, e.getMessage(), null, e.systemId, e.line, e.column);
        } catch (IOException e) {
            error(xml, Problem.INPUT_UNREADABLE, describe(e, input), null, input.source().uri().toString(), -1, -1);
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() instanceof BatchException b ? b : e;
            if (cause instanceof BatchException b) {
                error(xml, b.problem, b.getMessage(), null, b.systemId, b.line, b.column);
            } else {
                error(xml, Problem.TRANSFORMATION_ERROR, e.toString(), null, null, -1, -1);
            }
        } finally {
            if (!ok) {
                discard(pending);
                SecureXml.discardInputReader();
            }
        }
        long nanos = System.nanoTime() - t0;
        Instant stop = clock.instant();
        try {
            xml.flush();
            byte[] headBytes = entryHead(input, ok, start, stop, nanos, cancelled.getAsBoolean());
            report.append(headBytes, body, "</transformation>\n".getBytes(StandardCharsets.UTF_8));
        } finally {
            try {
                body.close();
            } catch (IOException ignored) {
                // A leftover spill file is removed with the job's tmp folder.
            }
        }
        return new Outcome(ok, messages[0]);
    }

    private byte[] entryHead(Batch.Input input, boolean ok, Instant start, Instant stop, long nanos, boolean afterCancel) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(256);
        Xml head = new Xml(bytes);
        head.start("transformation").attr("index", input.index()).attr("input", input.source().uri())
                .attr("output", input.output() == null ? null : input.output().uri())
                .attr("status", ok ? "ok" : "failed")
                .attr("start", start).attr("stop", stop)
                .attr("duration-ms", String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6))
                .attr("after-cancel", afterCancel ? "true" : null)
                .text("\n").flush();
        return bytes.toByteArray();
    }

    private InputStream open(Roots.Target source) throws IOException {
        if (source.isFile()) {
            try {
                return new BufferedInputStream(Files.newInputStream(source.file()), 1 << 16);
            } catch (NoSuchFileException e) {
                throw new BatchException(Problem.INPUT_UNREADABLE, "input " + source.file() + " does not exist");
            }
        }
        return fetcher.get(source.uri(), "input");
    }

    private Pending temporaryFor(Roots.Target target) throws IOException {
        Path temporary;
        if (target.isFile()) {
            Path parent = target.file().getParent();
            Files.createDirectories(parent);
            temporary = parent.resolve("." + target.file().getFileName() + "."
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        } else {
            Files.createDirectories(scratch);
            temporary = Files.createTempFile(scratch, "put-", ".tmp");
        }
        return new Pending(temporary, target);
    }

    private void confineRead(String uri) throws net.sf.saxon.trans.XPathException {
        if (uri == null) return;
        try {
            roots.resolve(uri, null, "document read by the stylesheet");
        } catch (BatchException e) {
            net.sf.saxon.trans.XPathException x = new net.sf.saxon.trans.XPathException(e.getMessage());
            x.setErrorCode("FODC0002");
            throw x;
        }
    }

    private Destination resultDocument(URI uri, List<Pending> pending, Xml xml) {
        Roots.Target target = roots.resolve(uri.toString(), null, "xsl:result-document");
        try {
            Pending p = temporaryFor(target);
            pending.add(p);
            xml.start("result-document").attr("href", target.uri()).end().newline();
            return processor.newSerializer(p.temporary().toFile());
        } catch (IOException e) {
            throw new BatchException(Problem.OUTPUT_FAILED, "result document " + uri + " cannot be written: " + e, e);
        }
    }

    private void commit(List<Pending> pending) throws IOException {
        for (Pending p : pending) {
            if (p.target().isFile()) {
                Files.move(p.temporary(), p.target().file(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                try {
                    fetcher.put(p.target().uri(), p.temporary(), "application/xml");
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
    private void message(Xml xml, OutputStream body, Message m) {
        var location = m.getLocation();
        xml.start("message").attr("terminate", m.isTerminate())
                .attr("code", m.getErrorCode() == null ? null : m.getErrorCode().getEQName())
                .attr("system-id", location == null ? null : location.getSystemId())
                .attr("line", location == null || location.getLineNumber() < 0 ? null : location.getLineNumber())
                .attr("column", location == null || location.getColumnNumber() < 0 ? null : location.getColumnNumber());
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

    private void warning(Xml xml, XmlProcessingError error) {
        BatchException.Detail d = StylesheetCache.detail(error);
        xml.start("warning").attr("code", d.code()).attr("system-id", d.systemId())
                .attr("line", d.line() > 0 ? d.line() : null).attr("column", d.column() > 0 ? d.column() : null)
                .text(d.message()).end().newline();
    }

    private void error(Xml xml, SaxonApiException e, Batch.Input input) {
        SAXParseException parse = find(e, SAXParseException.class);
        if (parse != null) {
            error(xml, Problem.INPUT_MALFORMED, "input is not well-formed XML: " + parse.getMessage(), null,
                    parse.getSystemId() != null ? parse.getSystemId() : input.source().uri().toString(),
                    parse.getLineNumber(), parse.getColumnNumber());
            return;
        }
        BatchException batch = find(e, BatchException.class);
        if (batch != null) {
            error(xml, batch.problem, batch.getMessage(), null, batch.systemId, batch.line, batch.column);
            return;
        }
        int column = -1;
        if (e.getCause() instanceof XPathException x && x.getLocator() != null) {
            column = x.getLocator().getColumnNumber();
        }
        error(xml, Problem.TRANSFORMATION_ERROR, e.getMessage(),
                e.getErrorCode() == null ? null : e.getErrorCode().getEQName(),
                e.getSystemId(), e.getLineNumber(), column);
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (int depth = 0; t != null && depth < 10; t = t.getCause(), depth++) {
            if (type.isInstance(t)) return type.cast(t);
        }
        return null;
    }

    private static void error(Xml xml, Problem problem, String message, String code, String systemId, int line, int column) {
        xml.start("error").attr("problem", problem.code).attr("code", code).attr("system-id", systemId)
                .attr("line", line > 0 ? line : null).attr("column", column > 0 ? column : null)
                .text(message).end().newline();
    }

    private static String describe(IOException e, Batch.Input input) {
        if (e instanceof NoSuchFileException) return "input " + input.source().uri() + " does not exist";
        return "input " + input.source().uri() + " cannot be read: " + e;
    }

    /** Keeps the SVRL in the job folder and summarises it into the entry and the job's rule counts. */
    private void svrl(Xml xml, Batch.Input input, XdmNode svrl) throws SaxonApiException, IOException {
        Path dir = job.dir.resolve(Job.SVRL);
        Files.createDirectories(dir);
        String name = input.index() + ".xml";
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(dir.resolve(name)))) {
            processor.newSerializer(out).serializeNode(svrl);
        }
        Svrl summary = Svrl.summarize(svrl);
        ruleStats.add(summary.perRule());
        summary.write(xml, Job.SVRL + "/" + name);
    }
}
