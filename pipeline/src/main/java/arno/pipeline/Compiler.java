package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import java.net.URI;
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
 * not compile becomes a {@link Stage.Broken} that answers every request with
 * the compiler's messages until it is fixed; in production it stops the
 * start-up ({@link ErrorCode#SITE_ERROR}). Either way the compiler's own
 * reasons travel as the error's details, each with its location.
 */
final class Compiler {
    private static final System.Logger LOG = System.getLogger("arno");
    private final Processor processor;
    private final Packages packages;
    private final boolean development;
    private final Map<URI, Object> xslt = new HashMap<>();

    Compiler(Processor processor, Packages packages, boolean development) {
        this.processor = processor;
        this.packages = packages;
        this.development = development;
    }

    Stage xslt(URI source, QName mode, String description) {
        Object compiled = xslt.computeIfAbsent(source, this::compileXslt);
        if (compiled instanceof ArnoException e) return broken(description, e);
        return new Stage.Xslt(description, (XsltExecutable) compiled, mode);
    }

    private Object compileXslt(URI source) {
        List<XmlProcessingError> errors = new ArrayList<>();
        XsltCompiler c = packages.compiler(processor, errors);
        try (java.io.InputStream in = Packages.open(source.toString())) {
            return c.compile(new StreamSource(in, source.toString()));
        } catch (java.io.IOException e) {
            return ErrorMessage.SOURCE_NOT_COMPILED.error(e, source, e.getMessage()).at(Where.at(source.toString()));
        } catch (SaxonApiException e) {
            return compileError(errors, e);
        }
    }

    Stage xquery(java.nio.file.Path file, String description) {
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

    private Stage broken(String description, ArnoException e) {
        if (!development) {
            throw ErrorMessage.CODE_NOT_COMPILED.error(e, description, summary(e.details(), e))
                    .at(e.where()).processorCode(e.processorCode()).details(e.details());
        }
        LOG.log(System.Logger.Level.ERROR, description + ": " + e.describe()
                + "\n(development mode: the routes using it answer with these messages until it is fixed)");
        return new Stage.Broken(description, e);
    }

    /** COMPILE_ERROR at the first error, with every compiler message as a detail. */
    static ArnoException compileError(List<XmlProcessingError> errors, Exception e) {
        List<ArnoException.Detail> details = details(errors);
        ArnoException a = ErrorCode.COMPILE_ERROR.error(e, details.isEmpty() ? String.valueOf(e.getMessage())
                : details.get(0).toString());
        a.details(details);
        for (XmlProcessingError x : errors) {
            if (x.isWarning()) continue;
            if (x.getLocation() != null) a.at(Where.of(x.getLocation(), null));
            if (x.getErrorCode() != null) a.processorCode(arno.xml.ErrorXml.processorCode(x.getErrorCode()));
            break;
        }
        return a;
    }

    /** Each compiler message, warnings too (marked so), with its location. */
    static List<ArnoException.Detail> details(List<XmlProcessingError> errors) {
        List<ArnoException.Detail> out = new ArrayList<>();
        for (XmlProcessingError x : errors) {
            Where at = x.getLocation() == null ? Where.NOWHERE : Where.of(x.getLocation(), null);
            out.add(new ArnoException.Detail(arno.xml.ErrorXml.processorCode(x.getErrorCode()),
                    x.getMessage(), at, x.isWarning()));
        }
        return out;
    }

    /**
     * "1 error", "3 errors", or the compiler's own message when it gave no details: the reasons
     * themselves travel as the exception's details, which {@link ArnoException#describe()} lists
     * (once) and err:error carries as err:detail.
     */
    static String summary(List<ArnoException.Detail> details, Exception fallback) {
        long n = details.stream().filter(d -> !d.warning()).count();
        return n == 0 ? String.valueOf(fallback.getMessage()) : n == 1 ? "1 error" : n + " errors";
    }
}
