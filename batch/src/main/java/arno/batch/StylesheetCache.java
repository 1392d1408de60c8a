package arno.batch;

import java.io.ByteArrayInputStream;
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
import javax.xml.transform.sax.SAXSource;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
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
import org.xml.sax.InputSource;

/**
 * Compiled stylesheets, kept for the service's life. The key is the code's
 * identity and content: kind, URI (or "inline" and the batch's base URI),
 * Schematron phase, and the SHA-256 of the main module's bytes. Every module
 * read while compiling (xsl:include, xsl:import, sch:include, sch:extends) is
 * recorded with its own hash; a hit is used only if those still match, so an
 * edited imported module is recompiled even though the main module is not.
 * Compiling happens once per key: concurrent requests for the same key wait
 * for the one compile.
 */
final class StylesheetCache {
    private static final String SCHXSLT = "/xslt/2.0/pipeline-for-svrl.xsl";

    private final Processor processor;
    private final Roots roots;
    private final Fetcher fetcher;
    private final Map<String, Compiled> entries = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private volatile XsltExecutable schxslt;
    private final java.util.concurrent.atomic.AtomicInteger compilations = new java.util.concurrent.atomic.AtomicInteger();

    /** An executable and the modules it was built from (URI → SHA-256). */
    record Compiled(XsltExecutable executable, String key, Map<URI, String> dependencies) {}

    StylesheetCache(Processor processor, Roots roots, Fetcher fetcher) {
        this.processor = processor;
        this.roots = roots;
        this.fetcher = fetcher;
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
     * @throws BatchException STYLESHEET_NOT_FOUND when the code cannot be read,
     *         STYLESHEET_ERROR with every compiler message when it does not compile
     */
    Compiled get(Batch.Code code) {
        byte[] content;
        String identity;
        if (code.href() != null) {
            content = read(code.href().uri(), code.kind() == Batch.Kind.XSLT ? "stylesheet" : "schematron");
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
            } catch (BatchException e) {
                return false;
            }
        }
        return true;
    }

    private byte[] read(URI uri, String what) {
        if ("file".equals(uri.getScheme())) {
            return Fetcher.readFile(roots.resolve(uri.toString(), null, what).file(), what);
        }
        try {
            return fetcher.getBytes(uri, what);
        } catch (BatchException e) {
            throw new BatchException(Problem.STYLESHEET_NOT_FOUND, e.getMessage(), e);
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
        Source source = code.href() != null ? secureSource(content, systemId) : code.inline().asSource();
        try {
            if (code.kind() == Batch.Kind.SCHEMATRON) {
                source = schematronToXslt(source, code.phase(), recorder, code);
            }
            return new Compiled(compiler.compile(source), key, recorder.modules);
        } catch (SaxonApiException e) {
            throw compileError(code, errors, e);
        }
    }

    /** Runs SchXslt (ISO Schematron → XSLT with SVRL output) over the schema. */
    private Source schematronToXslt(Source schema, String phase, Recorder recorder, Batch.Code code) {
        List<XmlProcessingError> errors = new ArrayList<>();
        try {
            Xslt30Transformer transformer = schxslt().load30();
            transformer.setResourceResolver(recorder);
            transformer.setErrorReporter(errors::add);
            if (phase != null) {
                transformer.setStylesheetParameters(Map.of(new QName("phase"), new XdmAtomicValue(phase)));
            }
            XdmDestination xslt = new XdmDestination();
            transformer.transform(schema, xslt);
            XdmNode result = xslt.getXdmNode();
            return result.asSource();
        } catch (SaxonApiException e) {
            throw compileError(code, errors, e);
        }
    }

    private XsltExecutable schxslt() throws SaxonApiException {
        XsltExecutable x = schxslt;
        if (x == null) {
            synchronized (this) {
                if (schxslt == null) {
                    URL url = StylesheetCache.class.getResource(SCHXSLT);
                    if (url == null) throw new IllegalStateException("SchXslt is not on the classpath (" + SCHXSLT + ")");
                    schxslt = processor.newXsltCompiler().compile(new javax.xml.transform.stream.StreamSource(url.toString()));
                }
                x = schxslt;
            }
        }
        return x;
    }

    private static BatchException compileError(Batch.Code code, List<XmlProcessingError> errors, SaxonApiException e) {
        // Saxon may report one error twice (once per phase that meets it); a reader wants it once.
        List<BatchException.Detail> details = new ArrayList<>(new java.util.LinkedHashSet<>(
                errors.stream().map(StylesheetCache::detail).toList()));
        if (details.isEmpty()) {
            details.add(new BatchException.Detail(e.getErrorCode() == null ? null : e.getErrorCode().getEQName(),
                    e.getMessage(), e.getSystemId(), e.getLineNumber(), -1, false));
        }
        boolean missing = details.stream().allMatch(d -> d.code() != null && d.code().endsWith("XTSE0165"))
                || e.getMessage() != null && e.getMessage().contains("I/O error reported by XML parser");
        long count = details.stream().filter(d -> !d.warning()).count();
        String what = code.kind() == Batch.Kind.XSLT ? "stylesheet " : "schematron ";
        String message = what + code.label() + (missing
                ? " cannot be read: " + details.get(0).message()
                : " does not compile: " + count + (count == 1 ? " error" : " errors") + "; first: " + firstError(details));
        return new BatchException(missing ? Problem.STYLESHEET_NOT_FOUND : Problem.STYLESHEET_ERROR, message,
                code.systemId(), code.line(), code.column(), details, e);
    }

    private static String firstError(List<BatchException.Detail> details) {
        for (BatchException.Detail d : details) {
            if (!d.warning()) {
                return d.message() + (d.line() > 0 ? " (" + d.systemId() + ", line " + d.line()
                        + (d.column() > 0 ? ", column " + d.column() : "") + ")" : "");
            }
        }
        return details.get(0).message();
    }

    static BatchException.Detail detail(XmlProcessingError error) {
        var location = error.getLocation();
        return new BatchException.Detail(
                error.getErrorCode() == null ? null : error.getErrorCode().getEQName(),
                error.getMessage(),
                location == null ? null : location.getSystemId(),
                location == null ? -1 : location.getLineNumber(),
                location == null ? -1 : location.getColumnNumber(),
                error.isWarning());
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

    static SAXSource secureSource(byte[] content, String systemId) {
        InputSource input = new InputSource(new ByteArrayInputStream(content));
        input.setSystemId(systemId);
        return new SAXSource(SecureXml.newReader(true), input);
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads every module the compiler (or SchXslt) asks for itself, so that it
     * can hash it and parse it with the secure reader. Files must lie under the
     * allowed roots like everything else a batch names; classpath resources
     * (SchXslt's own modules) are left to Saxon.
     */
    private final class Recorder implements ResourceResolver {
        final Map<URI, String> modules = new LinkedHashMap<>();

        @Override public Source resolve(ResourceRequest request) throws net.sf.saxon.trans.XPathException {
            if (request.uri == null) return null;
            URI uri;
            try {
                uri = URI.create(request.uri);
            } catch (IllegalArgumentException e) {
                return null;
            }
            String scheme = uri.getScheme();
            if (!"file".equals(scheme) && !"http".equals(scheme) && !"https".equals(scheme)) {
                return null;
            }
            if (!ResourceRequest.XSLT_NATURE.equals(request.nature) && !ResourceRequest.XML_NATURE.equals(request.nature)) {
                return null;
            }
            byte[] content;
            try {
                content = read(uri, "module");
            } catch (BatchException e) {
                // Saxon reports it with the location of the xsl:include or document() call.
                throw new net.sf.saxon.trans.XPathException(e.getMessage());
            }
            synchronized (modules) {
                modules.put(uri, sha256(content));
            }
            return secureSource(content, uri.toString());
        }
    }
}
