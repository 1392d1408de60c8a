package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.Where;
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
 * response writer, or any {@link Destination}). Saxon's exceptions are
 * translated here into {@link ArnoException}s whose {@link Where} names the
 * route, the stage and the stylesheet location.
 */
final class Pipeline {
    final List<Stage> stages;

    Pipeline(List<Stage> stages) {
        this.stages = List.copyOf(stages);
    }

    /** The first compile error among the stages, or null. */
    ArnoException compileError() {
        for (Stage s : stages) if (s instanceof Stage.Broken b) return b.error();
        return null;
    }

    interface Source {
        void write(org.xml.sax.ContentHandler out) throws SAXException;
    }

    void run(Configuration config, RequestScope scope, Source source, Destination sink) {
        try {
            // The Java stages at the head (a site's filters, ContentPeek) take the source's SAX
            // events as they come: each would otherwise cost a round trip through Saxon's events
            // (SAX to Receiver and back, names and attributes rebuilt twice) for every event of
            // req:request (perf/RESULTS.md, issue 25).
            int head = 0;
            while (head < stages.size() && stages.get(head) instanceof Stage.Java) head++;
            // The HTTP response's writer checks the deadline itself (ResponseWriter.guardedBy).
            Destination next = sink instanceof ResponseWriter w && w.guardedBy(scope) ? sink
                    : new Stage.Guard(sink, scope, -1, "response");
            for (int i = stages.size() - 1; i >= head; i--) {
                Stage stage = stages.get(i);
                next = new Stage.Guard(stage.open(scope, next, i), scope, i, stage.description);
            }
            PipelineConfiguration pipe = config.makePipelineConfiguration();
            Receiver first = next.getReceiver(pipe, new SerializationProperties());
            ReceivingContentHandler in = new ReceivingContentHandler();
            in.setPipelineConfiguration(pipe);
            in.setReceiver(first);
            org.xml.sax.ContentHandler into = in;
            for (int i = head - 1; i >= 0; i--) into = ((Stage.Java) stages.get(i)).open(scope, into, i);
            // Closing the first receiver (at endDocument) closes each stage's destination in
            // turn; Saxon's close notifiers then run the next stage. Nothing more to close here.
            source.write(into);
        } catch (SaxonApiException | SAXException | RuntimeException e) {
            // Saxon wraps what our callbacks throw (the deadline, compile failures) in its own
            // exceptions, sometimes in a bare RuntimeException: translate() looks underneath.
            throw translate(scope, e);
        }
    }

    /**
     * Finds what really happened under Saxon's wrappers: the deadline, a compile failure, our own
     * error (the request body, say), or else a stage's error, whose XPath error code and location
     * come from the processor and whose underlying refusal (a file outside the roots) is a detail.
     */
    private static ArnoException translate(RequestScope scope, Throwable e) {
        XPathException xpe = null;
        for (Throwable t = e; t != null; t = next(t)) {
            if (t instanceof RequestScope.TimeLimitExceeded || scope.expired) {
                return ErrorCode.TIMEOUT.error(e, scope.route, scope.timeoutMillis, scope.stage + 1, scope.stageName)
                        .at(Where.NOWHERE.inStage(scope.route, scope.stage + 1, scope.stageName));
            }
            if (t instanceof Stage.CompileFailure c) return c.error;
            if (xpe == null && t instanceof ArnoException a) return a;
            if (xpe == null && t instanceof XPathException x) xpe = x;
            if (xpe == null && t instanceof UncheckedXPathException u) xpe = u.getXPathException();
        }
        int stage = scope.stage + 1;
        String message = xpe != null ? xpe.getMessage() : String.valueOf(e.getMessage());
        ArnoException a = ErrorCode.STAGE_ERROR.error(e, stage, scope.stageName, scope.route, message);
        Where at = xpe != null ? Where.of(xpe.getLocator(), null) : Where.NOWHERE;
        a.at(at.inStage(scope.route, stage, scope.stageName));
        if (xpe != null && xpe.getErrorCodeQName() != null) a.processorCode(arno.xml.ErrorXml.processorCode(xpe.getErrorCodeQName()));
        ArnoException cause = ArnoException.find(xpe != null ? xpe : e);
        if (cause != null) {
            a.detail(new ArnoException.Detail(cause.code().code(), cause.getMessage(), cause.where(), false));
        }
        return a;
    }

    private static Throwable next(Throwable t) {
        if (t instanceof SAXException s && s.getException() != null && s.getException() != t) return s.getException();
        return t.getCause() == t ? null : t.getCause();
    }
}
