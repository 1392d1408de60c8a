package arno.batch;

import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URL;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.xml.transform.Source;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.s9api.Message;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmAtomicValue;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XmlProcessingError;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltExecutable;

/**
 * Compiled stylesheets, kept for the service's life. The key is the code's
 * identity and content: kind, URI (or "inline" and the batch's base URI),
 * Schematron phase, and the SHA-256 of the main module's bytes. Every module
 * read while compiling (xsl:include, xsl:import, sch:include, sch:extends) is
 * recorded with its own hash; a hit is used only if those still match, so an
 * edited imported module is recompiled even though the main module is not.
 * Compiling happens once per key: concurrent requests for the same key wait
 * for the one compile.
 *
 * <p>Everything the compiler reads goes through the service's one policy: modules by the
 * {@link Recorder} (files under the roots, URLs by the outbound policy, parsed by the
 * {@link XmlPolicy}), and whatever static expressions read by {@link Access}, installed on
 * the processor's configuration. A Schematron schema that SchXslt refuses fails with SchXslt's
 * own reasons, which it gives as terminating {@code xsl:message}s: they are captured as details.
 */
final class StylesheetCache {
    private static final String SCHXSLT = "/xslt/2.0/pipeline-for-svrl.xsl";

    private final Processor processor;
    private final Targets targets;
    private final XmlPolicy policy;
    private final Access access;
    private final Map<String, Compiled> entries = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private volatile XsltExecutable schxslt;
    private final java.util.concurrent.atomic.AtomicInteger compilations = new java.util.concurrent.atomic.AtomicInteger();

    /** An executable and the modules it was built from (URI → SHA-256). */
    record Compiled(XsltExecutable executable, String key, Map<URI, String> dependencies) {}

    StylesheetCache(Processor processor, Targets targets, XmlPolicy policy, Access access) {
        this.processor = processor;
        this.targets = targets;
        this.policy = policy;
        this.access = access;
    }

    int size() {
        return entries.size();
    }

    /** How many compiles have run (cache misses), for tests and statistics. */
    int compilations() {
        return compilations.get();
    }

    /**
     * The executable for {@code code}, compiled now if no valid entry exists.
     *
     * @throws ArnoException {@link ErrorCode#STYLESHEET_NOT_FOUND} when the code cannot be read,
     *         {@link ErrorCode#STYLESHEET_ERROR} with every compiler message when it does not compile
     */
    Compiled get(Batch.Code code) {
        byte[] content;
        String identity;
        if (code.href() != null) {
            try {
                content = read(code.href().uri(), code.kind() == Batch.Kind.XSLT ? "stylesheet" : "schematron");
            } catch (ArnoException e) {
                throw e.at(code.where());
            }
            identity = code.href().uri().toString();
        } else {
            content = serialize(code.inline());
            identity = "inline:" + code.inline().getBaseURI();
        }
        String key = code.kind() + " " + identity + " " + (code.phase() == null ? "" : code.phase()) + " " + sha256(content);
        Compiled hit = entries.get(key);
        if (hit != null && unchanged(hit)) {
            return hit;
        }
        synchronized (locks.computeIfAbsent(key, k -> new Object())) {
            hit = entries.get(key);
            if (hit != null && unchanged(hit)) {
                return hit;
            }
            Compiled compiled = compile(code, content, key);
            entries.put(key, compiled);
            return compiled;
        }
    }

    private boolean unchanged(Compiled compiled) {
        for (Map.Entry<URI, String> dependency : compiled.dependencies().entrySet()) {
            try {
                if (!sha256(read(dependency.getKey(), "module")).equals(dependency.getValue())) return false;
            } catch (ArnoException e) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of a stylesheet or module: a file under the roots, or a URL the outbound policy allows. */
    private byte[] read(URI uri, String what) {
        if ("file".equalsIgnoreCase(uri.getScheme())) {
            java.nio.file.Path file = targets.confine(uri, what);
            try {
                return java.nio.file.Files.readAllBytes(file);
            } catch (java.nio.file.NoSuchFileException e) {
                throw ErrorMessage.STYLESHEET_FILE_MISSING.error(what, file);
            } catch (IOException e) {
                throw ErrorMessage.STYLESHEET_CODE_UNREADABLE.error(e, what, file, e.getMessage());
            }
        }
        targets.resolve(uri.toString(), null, what, false);
        try {
            return targets.outbound().getBytes(uri, what);
        } catch (ArnoException e) {
            if (e.code() == ErrorCode.URI_REFUSED) throw e;
            throw e.as(ErrorCode.STYLESHEET_NOT_FOUND, e);
        }
    }

    private Compiled compile(Batch.Code code, byte[] content, String key) {
        compilations.incrementAndGet();
        String systemId = code.href() != null ? code.href().uri().toString() : code.inline().getBaseURI().toString();
        Recorder recorder = new Recorder();
        List<XmlProcessingError> errors = new ArrayList<>();
        XsltCompiler compiler = processor.newXsltCompiler();
        compiler.setErrorList(errors);
        compiler.setResourceResolver(recorder);
        // Where a running transformation checks its time limit and cancellation (see Guard).
        compiler.getUnderlyingCompilerInfo().setCodeInjector(Guard.INJECTOR);
        Source source = code.href() != null ? policy.source(new ByteArrayInputStream(content), systemId) : code.inline().asSource();
        try {
            if (code.kind() == Batch.Kind.SCHEMATRON) {
                source = schematronToXslt(source, code.phase(), recorder, code);
            }
            return new Compiled(compiler.compile(source), key, recorder.modules);
        } catch (SaxonApiException e) {
            throw compileError(code, errors.stream().map(StylesheetCache::detail).toList(), e);
        }
    }

    /**
     * Runs SchXslt (ISO Schematron → XSLT with SVRL output) over the schema. SchXslt refuses a
     * schema with {@code xsl:message terminate="yes"}; those messages are its reasons.
     */
    private Source schematronToXslt(Source schema, String phase, Recorder recorder, Batch.Code code) {
        List<ArnoException.Detail> reasons = new ArrayList<>();
        try {
            Xslt30Transformer transformer = schxslt().load30();
            transformer.setResourceResolver(recorder);
            transformer.setMessageHandler(m -> reasons.add(reason(m)));
            transformer.setErrorReporter(error -> reasons.add(detail(error)));
            if (phase != null) {
                transformer.setStylesheetParameters(Map.of(new QName("phase"), new XdmAtomicValue(phase)));
            }
            XdmDestination xslt = new XdmDestination();
            transformer.transform(schema, xslt);
            XdmNode result = xslt.getXdmNode();
            return result.asSource();
        } catch (SaxonApiException e) {
            // SchXslt's own words first; Saxon's "terminated by xsl:message" says only where SchXslt stopped.
            throw compileError(code, reasons, e);
        }
    }

    /** One of SchXslt's messages as a reason, its text with the white space of its template collapsed. */
    private static ArnoException.Detail reason(Message m) {
        String text = m.getStringValue() == null ? "" : m.getStringValue().strip().replaceAll("\\s+", " ");
        return new ArnoException.Detail(arno.xml.ErrorXml.processorCode(m.getErrorCode()),
                text.isEmpty() ? "SchXslt stopped without a message" : text, Where.of(m.getLocation(), null), !m.isTerminate());
    }

    private XsltExecutable schxslt() throws SaxonApiException {
        XsltExecutable x = schxslt;
        if (x == null) {
            synchronized (this) {
                if (schxslt == null) {
                    URL url = StylesheetCache.class.getResource(SCHXSLT);
                    if (url == null) throw new IllegalStateException("SchXslt is not on the classpath (" + SCHXSLT + ")");
                    try (InputStream in = url.openStream()) {
                        schxslt = processor.newXsltCompiler().compile(policy.source(in, url.toString()));
                    } catch (IOException e) {
                        throw new IllegalStateException("SchXslt cannot be read from " + url, e);
                    }
                }
                x = schxslt;
            }
        }
        return x;
    }

    private static ArnoException compileError(Batch.Code code, List<ArnoException.Detail> reported, SaxonApiException e) {
        // Saxon may report one error twice (once per phase that meets it); a reader wants it once.
        List<ArnoException.Detail> details = new ArrayList<>(new java.util.LinkedHashSet<>(reported));
        String saxonCode = arno.xml.ErrorXml.processorCode(e.getErrorCode());
        if (details.stream().noneMatch(d -> !d.warning())) {
            details.add(new ArnoException.Detail(saxonCode, e.getMessage(), Where.at(e.getSystemId(), e.getLineNumber(), -1), false));
        }
        boolean missing = details.stream().filter(d -> !d.warning()).allMatch(d -> d.code() != null && d.code().endsWith("XTSE0165"))
                || e.getMessage() != null && e.getMessage().contains("I/O error reported by XML parser");
        long count = details.stream().filter(d -> !d.warning()).count();
        String what = code.kind() == Batch.Kind.XSLT ? "stylesheet" : "schematron";
        ArnoException.Detail first = details.stream().filter(d -> !d.warning()).findFirst().orElse(details.get(0));
        ArnoException error = missing ? ErrorMessage.STYLESHEET_CODE_UNREADABLE.error(e, what, code.label(), first.message())
                : count == 1 ? ErrorCode.STYLESHEET_ERROR.error(e, what, code.label(), first)
                : ErrorMessage.CODE_ERRORS.error(e, what, code.label(), count, first);
        return error.at(code.where()).processorCode(saxonCode).details(details);
    }

    static ArnoException.Detail detail(XmlProcessingError error) {
        return new ArnoException.Detail(arno.xml.ErrorXml.processorCode(error.getErrorCode()),
                error.getMessage(), Where.of(error.getLocation(), null), error.isWarning());
    }

    private byte[] serialize(XdmNode node) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Serializer serializer = processor.newSerializer(out);
        try {
            serializer.serializeNode(node);
        } catch (SaxonApiException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads every module the compiler (or SchXslt) asks for itself, so that it can hash it:
     * files under the roots and URLs the outbound policy allows, parsed by the XML policy.
     * Anything else (SchXslt's own modules in its jar) goes to {@link Access}, never to Saxon's
     * defaults.
     */
    private final class Recorder implements ResourceResolver {
        final Map<URI, String> modules = new LinkedHashMap<>();

        @Override public Source resolve(ResourceRequest request) throws net.sf.saxon.trans.XPathException {
            URI uri = null;
            try {
                if (request.uri != null) uri = URI.create(request.uri);
            } catch (IllegalArgumentException e) {
                uri = null;
            }
            String scheme = uri == null || uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            boolean module = ResourceRequest.XSLT_NATURE.equals(request.nature) || ResourceRequest.XML_NATURE.equals(request.nature);
            if (!module || !(scheme.equals("file") || scheme.equals("http") || scheme.equals("https"))) {
                return access.resolve(request);
            }
            byte[] content;
            try {
                content = read(uri, "module");
            } catch (ArnoException e) {
                // Saxon reports it with the location of the xsl:include or document() call.
                throw Access.refusal(e, "FODC0002");
            }
            synchronized (modules) {
                modules.put(uri, sha256(content));
            }
            return policy.source(new ByteArrayInputStream(content), uri.toString());
        }
    }
}
