package arno.server.ops;

import arno.pipeline.RequestObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The pipeline's finished requests as Micrometer timers: {@code arno.requests} (Prometheus
 * {@code arno_requests_seconds}) tagged with the site, the route's name and the status class
 * (2xx ... 5xx), with a percentile histogram so that Prometheus computes quantiles across
 * servers. Tags are names from site.xml, never paths, so the number of series is bounded by the
 * sites' routes times five.
 *
 * <p>Per request: two lookups in concurrent maps keyed by the site's and route's own strings
 * (their hashes are cached) and an array index; the timer is registered once, on a series'
 * first request. Nothing is allocated here; Micrometer's recording adds to its histogram's
 * counters.
 */
final class RequestTimers implements RequestObserver {
    static final String NAME = "arno.requests";
    private static final String[] CLASSES = {"other", "1xx", "2xx", "3xx", "4xx", "5xx"};

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Timer[]>> bySite = new ConcurrentHashMap<>();

    RequestTimers(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void done(String site, String route, int status, long nanos) {
        ConcurrentHashMap<String, Timer[]> routes = bySite.get(site);
        if (routes == null) routes = bySite.computeIfAbsent(site, s -> new ConcurrentHashMap<>());
        Timer[] timers = routes.get(route);
        if (timers == null) timers = routes.computeIfAbsent(route, r -> new Timer[CLASSES.length]);
        int c = status >= 100 && status < 600 ? status / 100 : 0;
        Timer t = timers[c];
        if (t == null) {
            // Registration is idempotent in Micrometer: a race registers once and both keep the same timer.
            t = Timer.builder(NAME)
                    .description("Requests the sites answered, from arrival to the end of the response (waiting for a worker included)")
                    .tags("site", site, "route", route, "status", CLASSES[c])
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(60))
                    .register(registry);
            timers[c] = t;
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
    }
}
