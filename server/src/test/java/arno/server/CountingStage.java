package arno.server;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.xml.sax.ContentHandler;

/** A Java filter that counts its runs per route (the scope's route name), and passes events on. */
public final class CountingStage implements SaxStage {
    static final ConcurrentHashMap<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    static int runs(String route) {
        AtomicInteger n = RUNS.get(route);
        return n == null ? 0 : n.get();
    }

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        RUNS.computeIfAbsent(scope.route(), r -> new AtomicInteger()).incrementAndGet();
        return next;
    }
}
