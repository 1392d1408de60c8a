package arno.batch;

import arno.store.atom.AtomStore;
import arno.xml.XmlPolicy;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import net.sf.saxon.s9api.Processor;

/**
 * The shared machinery every job runs on: one Saxon processor (parameters and
 * stylesheets must share its Configuration, on which {@link arno.xml.Access}
 * is installed), the compile cache, the worker pool, the targets (roots and
 * outbound policy) and the XML policy, and the store service ({@code store:} inputs and outputs; null
 * when the server has none) with the reads of it that each transformation is given ({@link StoreReads}), a transformation's time limit unless its batch sets one, and how workers give
 * way to pages ({@link Yield}). Immutable; its parts are thread-safe.
 */
record Engine(Processor processor, BatchParser parser, StylesheetCache cache, Targets targets, XmlPolicy policy,
              Clock clock, ExecutorService workers, int workerCount, AtomStore store, StoreReads reads,
              java.time.Duration timeLimit,
              Yield yielding) {
}
