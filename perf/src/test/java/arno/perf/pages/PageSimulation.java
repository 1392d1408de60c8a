package arno.perf.pages;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.csv;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.FeederBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.time.Duration;

/**
 * A closed workload: {@code users} clients each request a page, wait for it,
 * and request the next, first for {@code warmup} seconds as request "warm-up",
 * then for {@code seconds} as request "page". Pages come from the CSV file
 * {@code paths} (one "path" column), in random order; the empty-servlet
 * baseline uses a file with the single path /_perf/empty.
 *
 * <p>Warm-up and measurement run in one JVM, without a pause between them:
 * Gatling itself is compiled by the JIT during its first ten seconds or so,
 * taking CPU from the server on the same machine, and a measurement that
 * includes those seconds measures the load generator's start-up. Read the
 * "page" row of the report, not the global one.
 */
public class PageSimulation extends Simulation {
    private final String base = System.getProperty("base", "http://127.0.0.1:18080");
    private final String paths = System.getProperty("paths");
    private final int users = Integer.getInteger("users", 32);
    private final int seconds = Integer.getInteger("seconds", 60);
    private final int warmup = Integer.getInteger("warmup", 0);

    private final HttpProtocolBuilder protocol = http.baseUrl(base)
            .disableWarmUp()
            .disableCaching()
            .shareConnections();

    private final FeederBuilder<String> feeder = csv(paths).random();

    private final ScenarioBuilder pages = scenario("pages")
            .during(Duration.ofSeconds(warmup)).on(
                    feed(feeder).exec(http("warm-up").get("#{path}").check(status().is(200))))
            .during(Duration.ofSeconds(seconds)).on(
                    feed(feeder).exec(http("page").get("#{path}").check(status().is(200))));

    {
        setUp(pages.injectOpen(atOnceUsers(users)))
                .protocols(protocol)
                .maxDuration(Duration.ofSeconds(warmup + seconds + 30))
                .assertions(global().failedRequests().count().is(0L));
    }
}
