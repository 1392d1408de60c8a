package arno.pipeline;

import org.xml.sax.ContentHandler;

/**
 * A pipeline stage written in Java, for work that XSLT does badly (calling a
 * service, checking credentials, looking something up). Declared in site.xml
 * as {@code <filter java="com.example.MyFilter"/>}; the class needs a public
 * no-argument constructor.
 *
 * <p>Contract. One instance serves every request, concurrently: it MUST NOT
 * keep per-request state in fields. {@link #open} MUST return a handler that
 * passes the document on to {@code next} (an {@code XMLFilterImpl} over
 * {@code next} is the usual shape), and MAY amend it, typically by appending
 * {@code msg:attribute} elements to req:request just before its end tag. A
 * stage that has nothing to do for a request SHOULD return {@code next}
 * itself, which takes it off the event path at no cost. It MUST NOT block for
 * longer than the route's time limit.
 *
 * <p>The page cache keys a page on what its XSLT and XQuery stages read of the
 * HTTP request ({@link RequestParts}), but it cannot see what a Java stage does
 * with the events. A stage whose output depends on a header, cookie, parameter
 * or the client's address (a user looked up from a session cookie) MUST call
 * {@link RequestScope#uncacheable}, and MUST NOT move request parts elsewhere
 * in the document, where the stages after it would read them unseen. Passing
 * req:request on untouched is always safe: what the templates read of it is
 * recorded.
 */
public interface SaxStage {
    ContentHandler open(RequestScope scope, ContentHandler next);
}
