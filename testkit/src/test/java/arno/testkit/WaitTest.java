package arno.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

class WaitTest {

    @Test
    void returnsAsSoonAsTheConditionHoldsWithTheValueThatMetIt() {
        AtomicInteger calls = new AtomicInteger();
        Thread caller = Thread.currentThread();
        long t0 = System.nanoTime();
        int seen = Wait.upTo(Duration.ofSeconds(10)).until(() -> {
            assertThat(Thread.currentThread()).as("asked in the calling thread").isSameAs(caller);
            return calls.incrementAndGet();
        }, n -> n >= 3);
        assertThat(seen).isEqualTo(3);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aConditionNeverMetFailsAfterTheTimeNamingIt() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Wait.upTo(Duration.ofMillis(200)).alias("the job finished").until(() -> false))
                .isInstanceOf(ConditionTimeoutException.class).hasMessageContaining("the job finished");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(200), Duration.ofSeconds(5));
    }

    @Test
    void anAssertionNeverMetFailsWithItsLastMessage() {
        AtomicInteger n = new AtomicInteger();
        assertThatThrownBy(() -> Wait.upTo(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(n.incrementAndGet()).as("invalidations").isZero()))
                .isInstanceOf(ConditionTimeoutException.class).hasMessageContaining("invalidations");
    }

    @Test
    void anotherThreadsFailureDoesNotEndTheWait() throws InterruptedException {
        Thread failing = new Thread(() -> {
            throw new IllegalStateException("a thread of the test's own that fails on purpose");
        });
        AtomicInteger calls = new AtomicInteger();
        Wait.upTo(Duration.ofSeconds(10)).until(() -> {
            if (calls.incrementAndGet() == 1) {
                failing.start();
                failing.join();
            }
            return calls.get() >= 3;
        });
        assertThat(calls.get()).isEqualTo(3);
    }
}
