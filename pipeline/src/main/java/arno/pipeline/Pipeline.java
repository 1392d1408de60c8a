package arno.pipeline;

import java.util.List;
import net.sf.saxon.Configuration;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.event.Receiver;
import net.sf.saxon.event.ReceivingContentHandler;
import net.sf.saxon.s9api.Destination;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.serialize.SerializationProperties;
import net.sf.saxon.trans.UncheckedXPathException;
import net.sf.saxon.trans.XPathException;
import org.xml.sax.SAXException;

/**
 * Zero or more filters then one or more templates, run as one chain of
 * event streams: the request reader's SAX events feed the first stage, each
 * stage's output feeds the next, and the last one's feeds the sink (the
 * response writer). Saxon's exceptions are translated here into
 * {@link PipelineException}s that name the stage and the stylesheet location.
 */
final class Pipeline {
    final List<Stage> stages;

    Pipeline(List<Stage> stages) {
        this.stages = List.copyOf(stages);
    }

    /** The first compile error among the stages, or null. */
    PipelineException compileError() {
        for (Stage s : stages) if (s instanceof Stage.Broken b) return b.error();
        return null;
    }

    interface Source {
        void write(org.xml.sax.ContentHandler out) throws SAXException, PipelineException;
    }

    void run(Configuration config, RequestScope scope, Source source, Destination sink)
            throws PipelineException {
        try {
            Destination next = new Stage.Guard(sink, scope, -1, "response");
            for (int i = stages.size() - 1; i >= 0; i--) {
                Stage stage = stages.get(i);
                next = new Stage.Guard(stage.open(scope, next), scope, i, stage.description);
            }
            PipelineConfiguration pipe = config.makePipelineConfiguration();
            Receiver first = next.getReceiver(pipe, new SerializationProperties());
            ReceivingContentHandler in = new ReceivingContentHandler();
            in.setPipelineConfiguration(pipe);
            in.setReceiver(first);
            // Closing the first receiver (at endDocument) closes each stage's destination in
            // turn; Saxon's close notifiers then run the next stage. Nothing more to close here.
            source.write(in);
        } catch (PipelineException e) {
            throw e;
        } catch (SaxonApiException | SAXException | RuntimeException e) {
            // Saxon wraps what our callbacks throw (the deadline, compile failures) in its own
            // exceptions, sometimes in a bare RuntimeException: translate() looks underneath.
            throw translate(scope, e);
        }
    }

    /** Finds what really happened under Saxon's wrappers. */
    private PipelineException translate(RequestScope scope, Throwable e) {
        XPathException xpe = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RequestScope.TimeLimitExceeded || scope.expired) {
                return new PipelineException(Failure.TIMEOUT, e, scope.route, scope.timeoutMillis,
                        scope.stage + 1, scope.stageName).stage(scope.route, scope.stage + 1);
            }
            if (t instanceof Stage.CompileFailure c) return c.error;
            if (t instanceof PipelineException p) return p;
            if (t instanceof SAXException s && s.getException() != null && s.getException() != t) {
                PipelineException inner = translate(scope, s.getException());
                if (inner != null) return inner;
            }
            if (xpe == null && t instanceof XPathException x) xpe = x;
            if (xpe == null && t instanceof UncheckedXPathException u) xpe = u.getXPathException();
        }
        int stage = scope.stage + 1;
        String message = xpe != null ? xpe.getMessage() : String.valueOf(e.getMessage());
        PipelineException p = new PipelineException(Failure.STAGE_ERROR, e, stage, scope.stageName, scope.route, message)
                .stage(scope.route, stage);
        if (xpe != null) {
            p.at(xpe.getLocator());
            if (xpe.getErrorCodeQName() != null) p.code(xpe.getErrorCodeQName().getLocalPart());
        }
        return p;
    }
}
