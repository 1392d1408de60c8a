package arno.batch;

import arno.xml.Where;
import java.net.URI;
import java.nio.file.Path;
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
    record Code(Kind kind, Target href, XdmNode inline, String phase, Where where) {
        /** How the code is named in reports and listings. */
        String label() {
            return href != null ? href.uri().toString() : "inline " + (kind == Kind.XSLT ? "stylesheet" : "schema")
                    + " at line " + where.line();
        }
    }

    record Param(QName name, XdmValue value) {}

    /** The batch's settings; {@code timeLimit} is null when the batch leaves it to the service. */
    record Header(String name, int priority, Integer parallelism, URI base, Code code, List<Param> params,
                  java.time.Duration timeLimit) {}

    /** One transformation to run; {@code index} counts from 1 in document order. */
    record Input(long index, Target source, Target output, int line) {}

    /**
     * What a batch URI names once resolved ({@link Targets}): a confined file, an http(s) URL, or a
     * document of the server's store ({@code store:/journals/ja/v1/i1/a0001.xml}; {@code store} is its
     * path in the store, {@code /journals/ja/v1/i1/a0001.xml}).
     */
    record Target(URI uri, Path file, String store) {
        Target(URI uri, Path file) {
            this(uri, file, null);
        }

        boolean isFile() {
            return file != null;
        }

        boolean isStore() {
            return store != null;
        }
    }

    /** Receives a batch as it is parsed. Either method MAY block (the parser waits) or throw to stop. */
    interface Listener {
        void header(Header header);

        void input(Input input);
    }
}
