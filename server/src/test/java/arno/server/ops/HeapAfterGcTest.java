package arno.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Wait;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HeapAfterGcTest {

    @Test
    void theHeapAfterACollectionIsWhatSurvivedIt() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (HeapAfterGc h = new HeapAfterGc(registry)) {
            assertThat(registry.get("arno.jvm.heap.after.gc").gauge().value()).isNaN();
            assertThat(registry.get("arno.jvm.heap.after.old.gc").gauge().value()).isNaN();
            // 64 MB held across a full collection must be counted in what survived it
            byte[][] held = new byte[64][];
            for (int i = 0; i < held.length; i++) held[i] = new byte[1 << 20];
            double after = collect(registry);
            assertThat(after).isGreaterThan(64e6)
                    .isLessThanOrEqualTo(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted());
            assertThat(held[63]).hasSize(1 << 20);
            // System.gc() is a full collection: the floor is taken from it too
            assertThat(registry.get("arno.jvm.heap.after.old.gc").gauge().value()).isEqualTo(after);

            // let them go: the next collection's figure drops by at least as much
            held = null;
            assertThat(collect(registry)).isLessThan(after - 60e6);
            assertThat(registry.get("arno.jvm.heap.after.old.gc").gauge().value()).isLessThan(after - 60e6);
        }
    }

    @Test
    void aMinorCollectionCountsAsOldOnlyWhenTheOldGenerationShrankThroughIt() {
        // G1 reports its mixed collections as minor ones: the old generation shrinking tells them apart
        assertThat(HeapAfterGc.reclaimedOld("end of minor GC", 300 << 20, 120 << 20)).isTrue();
        assertThat(HeapAfterGc.reclaimedOld("end of minor GC", 120 << 20, 125 << 20)).isFalse();
        assertThat(HeapAfterGc.reclaimedOld("end of minor GC", 120 << 20, 120 << 20)).isFalse();
        // a full collection reclaims the old generation even when moving the young survivors there grows it
        assertThat(HeapAfterGc.reclaimedOld("end of major GC", 120 << 20, 130 << 20)).isTrue();
    }

    @Test
    void closedItHearsNoMore() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new HeapAfterGc(registry).close();
        System.gc();
        Thread.sleep(200); // notifications arrive on another thread
        assertThat(registry.get("arno.jvm.gc.collections").functionCounter().count()).isZero();
    }

    /** Runs a full collection and waits for its notification (they arrive on another thread). */
    private static double collect(SimpleMeterRegistry registry) throws InterruptedException {
        double seen = registry.get("arno.jvm.gc.collections").functionCounter().count();
        System.gc();
        Wait.upTo(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(registry.get("arno.jvm.gc.collections").functionCounter().count()).as("collections seen").isGreaterThan(seen));
        return registry.get("arno.jvm.heap.after.gc").gauge().value();
    }
}
