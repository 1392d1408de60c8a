package arno.perf.pages;

import static io.gatling.javaapi.core.CoreDsl.constantConcurrentUsers;
import static io.gatling.javaapi.core.CoreDsl.csv;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.time.Duration;

/**
 * A closed workload: {@code users} clients each request a page, wait for it,
 * and request the next, for {@code seconds}. Pages come from the CSV file
 * {@code paths} (one "path" column), in random order; the empty-servlet
 * baseline uses a file with the single path /_perf/empty.
 */
public class PageSimulation extends Simulation {
    private final String base = System.getProperty("base", "http://127.0.0.1:18080");
    private final String paths = System.getProperty("paths");
    private final int users = Integer.getInteger("users", 32);
    private final int seconds = Integer.getInteger("seconds", 60);

    private final HttpProtocolBuilder protocol = http.baseUrl(base)
            .disableWarmUp()
            .disableCaching()
            .shareConnections();

    private final ScenarioBuilder pages = scenario("pages")
            .feed(csv(paths).random())
            .forever().on(http("page").get("#{path}").check(status().is(200)));

    {
        setUp(pages.injectClosed(constantConcurrentUsers(users).during(Duration.ofSeconds(seconds))))
                .protocols(protocol)
                .maxDuration(Duration.ofSeconds(seconds))
                .assertions(global().failedRequests().count().is(0L));
    }
}
