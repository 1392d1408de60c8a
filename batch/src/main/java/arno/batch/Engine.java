package arno.batch;

import java.time.Clock;
import java.util.concurrent.ExecutorService;
import net.sf.saxon.s9api.Processor;

/**
 * The shared machinery every job runs on: one Saxon processor (parameters and
 * stylesheets must share its Configuration), the compile cache, the worker
 * pool, and the roots. Immutable; its parts are thread-safe.
 */
record Engine(Processor processor, BatchParser parser, StylesheetCache cache, Roots roots, Fetcher fetcher,
              Clock clock, ExecutorService workers, int workerCount) {}
