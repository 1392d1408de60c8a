package arno.batch;

import arno.xml.XmlPolicy;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import net.sf.saxon.s9api.Processor;
import org.xml.sax.XMLReader;

/**
 * The shared machinery every job runs on: one Saxon processor (parameters and
 * stylesheets must share its Configuration, on which {@link arno.xml.Access}
 * is installed), the compile cache, the worker pool, the targets (roots and
 * outbound policy) and the XML policy. Immutable; its parts are thread-safe.
 */
record Engine(Processor processor, BatchParser parser, StylesheetCache cache, Targets targets, XmlPolicy policy,
              InputReaders readers, Clock clock, ExecutorService workers, int workerCount) {

    /**
     * The policy's readers for inputs, one per worker thread: workers parse thousands of
     * inputs each, and building a reader per input costs more than the parse of a small one.
     */
    static final class InputReaders {
        private final ThreadLocal<XMLReader> readers;

        InputReaders(XmlPolicy policy) {
            this.readers = ThreadLocal.withInitial(policy::newReader);
        }

        XMLReader get() {
            return readers.get();
        }

        /**
         * Forgets this thread's reader. Called after a failed parse: Saxon's error handler stays
         * on the reader and would count the old error against the next document.
         */
        void discard() {
            readers.remove();
        }
    }
}
