package io.paimongov.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone engine is a Spark task: the provider sees its kill through the task context and
 * publishes its spill into the task's metrics, from which the engine reads it back.
 */
class SparkStandaloneEngineTest {

    @TempDir
    Path dir;

    private EngineResources open(SparkStandaloneEngine engine) {
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, Long.toString(4L << 20),
                GovernanceOptions.PAGE_SIZE, "32k",
                GovernanceOptions.SPILL_DIRS, dir.toString()));
        return new SparkGovernanceProvider().open(options.providerOptions(), engine.environment());
    }

    @Test
    void aKillReachesTheWriteThroughTheTaskContext() throws Exception {
        try (SparkStandaloneEngine engine = new SparkStandaloneEngine(64L << 20, dir)) {
            EngineResources resources = open(engine);
            assertThat(resources.cancellation()).isInstanceOf(SparkTaskCancellation.class);
            AtomicInteger heard = new AtomicInteger();
            try (AutoCloseable handle = resources.cancellation().onCancel(heard::incrementAndGet)) {
                assertThat(resources.cancellation().cancelReason()).isEmpty();
                assertThat(engine.cancel("stop")).isTrue();
                assertThat(resources.cancellation().cancelReason()).hasValueSatisfying(r -> assertThat(r).contains("stop"));
                assertThat(heard.get()).isEqualTo(1);
            }
            resources.close();
        }
    }

    /** The model is the snapshots the test hands the provider's reporter, one write after another. */
    @Test
    void spillBytesAreReadBackFromTheTasksMetrics() {
        try (SparkStandaloneEngine engine = new SparkStandaloneEngine(64L << 20, dir)) {
            assertThat(engine.reportedMetrics()).isEmpty();
            MetricsSnapshot first = snapshot(10);
            MetricsSnapshot second = snapshot(1000);
            EngineResources a = open(engine);
            a.metrics().writeClosed("a", first);
            a.close();
            assertThat(engine.reportedMetrics()).contains(first);
            EngineResources b = open(engine);
            b.metrics().writeClosed("b", second);
            b.close();
            assertThat(engine.reportedMetrics()).contains(second);
        }
    }

    /** A snapshot whose numeric fields are {@code base}, {@code base + 1}, ... in order. */
    private static MetricsSnapshot snapshot(long base) {
        RecordComponent[] components = MetricsSnapshot.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            values[i] = types[i] == long.class ? (Object) (base + i) : types[i] == double.class ? (Object) (base + i + 0.5) : Map.of();
        }
        try {
            return MetricsSnapshot.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
