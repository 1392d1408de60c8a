package arno.perf.pages;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.csv;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.FeederBuilder;
import io.gatling.javaapi.core.Simulation;
import java.time.Duration;
import java.util.List;

/**
 * Two servers under the same closed workload in turns, for comparing two builds or settings on a
 * machine whose speed drifts from minute to minute: {@code users} clients send pages to server A
 * for {@code phase} seconds, then to server B, {@code rounds} times over, after {@code warmup}
 * seconds on each. Requests are named A1, B1, A2, B2, ... (warm-up: wA, wB), so each turn has
 * its own row in the report; compare the medians of the turns.
 *
 * <p>{@code -Da=http://127.0.0.1:18081 -Db=http://127.0.0.1:18082 -Dpaths=CSV}.
 */
public class AlternatingSimulation extends Simulation {
    private final List<String> bases = List.of(System.getProperty("a"), System.getProperty("b"));
    private final int users = Integer.getInteger("users", 32);
    private final int phase = Integer.getInteger("phase", 10);
    private final int rounds = Integer.getInteger("rounds", 6);
    private final int warmup = Integer.getInteger("warmup", 30);
    private final FeederBuilder<String> feeder = csv(System.getProperty("paths")).random();

    private ChainBuilder turn(String name, int server, int seconds) {
        return exec(session -> session.set("base", bases.get(server)))
                .during(Duration.ofSeconds(seconds)).on(
                        feed(feeder).exec(http(name).get("#{base}#{path}").check(status().is(200))));
    }

    {
        ChainBuilder chain = turn("wA", 0, warmup).exec(turn("wB", 1, warmup));
        for (int r = 1; r <= rounds; r++) {
            chain = chain.exec(turn("A" + r, 0, phase)).exec(turn("B" + r, 1, phase));
        }
        setUp(scenario("alternating").exec(chain).injectOpen(atOnceUsers(users)))
                .protocols(http.disableWarmUp().disableCaching().shareConnections())
                .maxDuration(Duration.ofSeconds(2L * (warmup + rounds * phase) + 60))
                .assertions(global().failedRequests().count().is(0L));
    }
}
