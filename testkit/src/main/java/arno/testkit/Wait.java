package arno.testkit;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * The tests' one way to wait for what another thread or process does: Awaitility, set up as a
 * hand-written loop would be, without touching Awaitility's global defaults.
 *
 * <pre>{@code
 * String done = Wait.upTo(Duration.ofSeconds(60)).alias("job finished")
 *         .until(() -> server.get(job).body(), body -> body.contains("status=\"completed\""));
 * Wait.upTo(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(stats.invalidations()).isEqualTo(1));
 * }</pre>
 *
 * A condition that is not met in time fails the test with Awaitility's {@code
 * ConditionTimeoutException}, which names the alias, or carries the last failed assertion.
 */
public final class Wait {
    /** Often enough that a test waits little past the moment, seldom enough not to load the machine. */
    static final Duration POLL = Duration.ofMillis(10);

    private Wait() {
    }

    /**
     * Checks the condition at once and then every 10 ms for at most {@code atMost}, in the calling
     * thread (so a condition may use what that thread holds, as a browser driver). Exceptions of
     * other threads are theirs: they do not end the wait.
     */
    public static ConditionFactory upTo(Duration atMost) {
        return Awaitility.await().atMost(atMost).pollDelay(Duration.ZERO).pollInterval(POLL).pollInSameThread()
                .dontCatchUncaughtExceptions();
    }
}
