package arno.perf.cache;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Requests per second through ARC and through the LRU baseline on the same trace
 * ({@link Workload#standard()}), with the hits and misses counted as secondary results.
 * A request is a get, and on a miss a put of the value. Run by {@link CacheBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ArcVsLruBenchmark {

    /** 2^21 requests, replayed cyclically; long enough that scan pages never recur in a cache. */
    static final int TRACE_LENGTH = 1 << 21;

    @Param({"arc", "lru"})
    public String policy;

    @Param({"2000"})
    public int capacity;

    Integer[] trace;
    Policies.Policy cache;

    @Setup(Level.Trial)
    public void setUp() {
        trace = Workload.standard().trace(TRACE_LENGTH);
        cache = Policies.create(policy, capacity);
        // Warm the cache with one pass, so that measurement starts in the steady state.
        for (Integer key : trace) {
            Policies.request(cache, key);
        }
    }

    /** Per-thread cursor into the trace, and the hit counters JMH reports. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long hits;
        public long misses;
        int cursor;

        @Setup(Level.Iteration)
        public void reset() {
            hits = 0;
            misses = 0;
        }
    }

    @Benchmark
    public boolean request(Counters counters) {
        Integer key = trace[counters.cursor++ & (TRACE_LENGTH - 1)];
        boolean hit = Policies.request(cache, key);
        if (hit) {
            counters.hits++;
        } else {
            counters.misses++;
        }
        return hit;
    }
}
