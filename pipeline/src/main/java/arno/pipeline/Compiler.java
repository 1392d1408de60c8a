package arno.pipeline;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XQueryCompiler;
import net.sf.saxon.s9api.XmlProcessingError;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltExecutable;

/**
 * Compiles one site's stages. A stylesheet used by several routes (in
 * different modes) is compiled once. In development mode a stage that does
 * not compile becomes a {@link Stage.Broken} that shows the compiler's
 * messages on every request until it is fixed; in production it stops the
 * start-up.
 */
final class Compiler {
    private static final System.Logger LOG = System.getLogger("arno");
    private final Processor processor;
    private final Packages packages;
    private final boolean development;
    private final Map<Path, Object> xslt = new HashMap<>();

    Compiler(Processor processor, Packages packages, boolean development) {
        this.processor = processor;
        this.packages = packages;
        this.development = development;
    }

    Stage xslt(Path file, QName mode, String description) {
        Object compiled = xslt.computeIfAbsent(file, this::compileXslt);
        if (compiled instanceof PipelineException e) return broken(description, e);
        return new Stage.Xslt(description, (XsltExecutable) compiled, mode);
    }

    private Object compileXslt(Path file) {
        List<XmlProcessingError> errors = new ArrayList<>();
        XsltCompiler c = packages.compiler(processor, errors);
        try {
            return c.compile(new StreamSource(file.toFile()));
        } catch (SaxonApiException e) {
            return compileError(errors, e);
        }
    }

    Stage xquery(Path file, String description) {
        List<XmlProcessingError> errors = new ArrayList<>();
        XQueryCompiler c = processor.newXQueryCompiler();
        c.setErrorList(errors);
        c.setBaseURI(file.toUri());
        try {
            return new Stage.XQuery(description, c.compile(file.toFile()));
        } catch (SaxonApiException | java.io.IOException e) {
            return broken(description, compileError(errors, e));
        }
    }

    private Stage broken(String description, PipelineException e) {
        if (!development) throw new SiteException(e.getMessage(), e);
        LOG.log(System.Logger.Level.ERROR, description + ": " + e.getMessage()
                + "\n(development mode: the routes using it answer with these messages until it is fixed)");
        return new Stage.Broken(description, e);
    }

    private static PipelineException compileError(List<XmlProcessingError> errors, Exception e) {
        PipelineException p = new PipelineException(Failure.COMPILE_ERROR, e, describe(errors, e));
        for (XmlProcessingError x : errors) {
            if (x.isWarning()) continue;
            if (x.getLocation() != null) p.at(x.getLocation());
            if (x.getErrorCode() != null) p.code(x.getErrorCode().getLocalName());
            break;
        }
        return p;
    }

    /** Every compiler error as "file line L column C: CODE message", one per line. */
    static String describe(List<XmlProcessingError> errors, Exception fallback) {
        StringBuilder b = new StringBuilder();
        for (XmlProcessingError x : errors) {
            if (x.isWarning()) continue;
            if (b.length() > 0) b.append('\n');
            if (x.getLocation() != null && x.getLocation().getSystemId() != null) {
                b.append(x.getLocation().getSystemId())
                 .append(" line ").append(x.getLocation().getLineNumber())
                 .append(" column ").append(x.getLocation().getColumnNumber()).append(": ");
            }
            if (x.getErrorCode() != null) b.append(x.getErrorCode().getLocalName()).append(' ');
            b.append(x.getMessage());
        }
        return b.length() > 0 ? b.toString() : String.valueOf(fallback.getMessage());
    }
}
