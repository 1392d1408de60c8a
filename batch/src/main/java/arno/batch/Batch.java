package arno.batch;

import java.net.URI;
import java.util.List;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;

/**
 * What a batch document says, as {@link BatchParser} delivers it: first the
 * {@link Header} (everything before the first input), then the inputs one by
 * one. There is deliberately no class holding "the batch": a batch of 100,000
 * inputs is only ever a file and a stream of {@link Input}s.
 */
final class Batch {
    static final String NS = "urn:arno:batch";

    private Batch() {}

    enum Kind { XSLT, SCHEMATRON }

    /**
     * The stylesheet or Schematron schema: by URI ({@code href}) or inline (a
     * document node whose base URI is the batch's). {@code phase} only for Schematron.
     */
    record Code(Kind kind, Roots.Target href, XdmNode inline, String phase, String systemId, int line, int column) {
        /** How the code is named in reports and listings. */
        String label() {
            return href != null ? href.uri().toString() : "inline " + (kind == Kind.XSLT ? "stylesheet" : "schema")
                    + " at line " + line;
        }
    }

    record Param(QName name, XdmValue value) {}

    record Header(String name, int priority, Integer parallelism, URI base, Code code, List<Param> params) {}

    /** One transformation to run; {@code index} counts from 1 in document order. */
    record Input(long index, Roots.Target source, Roots.Target output, int line) {}

    /** Receives a batch as it is parsed. Either method MAY block (the parser waits) or throw to stop. */
    interface Listener {
        void header(Header header);

        void input(Input input);
    }
}
