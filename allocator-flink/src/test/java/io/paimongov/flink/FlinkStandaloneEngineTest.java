package io.paimongov.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone engine is Flink's: pages of the task manager's segment size, the cancel the
 * provider sees in a job, and the metrics read back from Flink's own registry.
 */
class FlinkStandaloneEngineTest {

    @TempDir
    Path dir;

    private EngineResources open(FlinkStandaloneEngine engine, String pageSize) {
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, Long.toString(4L << 20),
                GovernanceOptions.PAGE_SIZE, pageSize,
                GovernanceOptions.SPILL_DIRS, dir.toString()));
        return new FlinkGovernanceProvider().open(options.providerOptions(), engine.environment());
    }

    /** Flink documents 32 KiB as the default of taskmanager.memory.segment-size. */
    @Test
    void pagesAreFlinksDefaultSizeWhateverThePageSizeOption() {
        try (FlinkStandaloneEngine engine = new FlinkStandaloneEngine(4L << 20, dir)) {
            EngineResources resources = open(engine, "64k");
            assertThat(resources.memory().pageSize()).isEqualTo(32 << 10);
            assertThat(resources.memory().pageSizeFixedByEngine()).isTrue();
            List<MemorySegment> pages = new ArrayList<>();
            resources.memory().allocate(pages, 2);
            assertThat(pages).allSatisfy(p -> assertThat(p.size()).isEqualTo(32 << 10));
            assertThat(engine.engineUsedBytes()).isEqualTo(2 * (32 << 10));
            resources.memory().release(pages);
            resources.close();
        }
    }

    @Test
    void aConfiguredSegmentSizeIsThePageSize() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("16kb"));
        try (FlinkStandaloneEngine engine = new FlinkStandaloneEngine(4L << 20, dir, flink)) {
            EngineResources resources = open(engine, "64k");
            assertThat(resources.memory().pageSize()).isEqualTo(16 << 10);
            resources.close();
        }
    }

    @Test
    void aCancelReachesTheWriteThroughTheTasksCancellation() throws Exception {
        try (FlinkStandaloneEngine engine = new FlinkStandaloneEngine(4L << 20, dir)) {
            EngineResources resources = open(engine, "32k");
            assertThat(resources.cancellation()).isInstanceOf(FlinkTaskCancellation.class);
            AtomicInteger heard = new AtomicInteger();
            try (AutoCloseable handle = resources.cancellation().onCancel(heard::incrementAndGet)) {
                assertThat(resources.cancellation().cancelReason()).isEmpty();
                assertThat(engine.cancel("stop")).isTrue();
                assertThat(resources.cancellation().cancelReason()).contains("stop");
                assertThat(heard.get()).isEqualTo(1);
            }
            resources.close();
        }
    }

    /** The model is the snapshot the test hands the provider's reporter; Flink's registry gives it back. */
    @Test
    void theFinalSnapshotIsReadBackFromFlinksMetricRegistry() throws Exception {
        try (FlinkStandaloneEngine engine = new FlinkStandaloneEngine(4L << 20, dir)) {
            EngineResources resources = open(engine, "32k");
            assertThat(engine.reportedMetrics()).isEmpty();
            MetricsSnapshot live = snapshot(1, Map.of());
            MetricsSnapshot last = snapshot(100, Map.of("writerBuffer.numWriters", 3L, "compaction.maxLevel0FileCount", 7L));
            resources.metrics().writeOpened("w", () -> live);
            assertThat(engine.reportedMetrics()).contains(live);
            resources.metrics().writeClosed("w", last);
            assertThat(engine.reportedMetrics()).contains(last);
            resources.close();
        }
    }

    /**
     * Writes one after another on one engine: the gauges, registered once, show the write opened
     * last, and Flink's registry holds as many metrics after the third write as after the first.
     */
    @Test
    void laterWritesOnOneEngineAreReadBackAndAddNoGauges() throws Exception {
        try (FlinkStandaloneEngine engine = new FlinkStandaloneEngine(4L << 20, dir)) {
            int gaugesAfterFirst = -1;
            for (int write = 1; write <= 3; write++) {
                EngineResources resources = open(engine, "32k");
                MetricsSnapshot live = snapshot(1000L * write, Map.of());
                MetricsSnapshot last = snapshot(1000L * write + 100, write == 2
                        ? Map.of("writerBuffer.numWriters", 3L, "compaction.maxLevel0FileCount", 7L)
                        : Map.of("writerBuffer.numWriters", (long) write));
                resources.metrics().writeOpened("w" + write, () -> live);
                assertThat(engine.reportedMetrics()).as("write %d open", write).contains(live);
                resources.metrics().writeClosed("w" + write, last);
                assertThat(engine.reportedMetrics()).as("write %d closed", write).contains(last);
                resources.close();
                int gauges = engine.registrations().orElseThrow().get(FlinkStandaloneEngine.GAUGES);
                if (write == 1) {
                    gaugesAfterFirst = gauges;
                } else if (write == 3) {
                    // the second write's one extra paimon key is the only gauge added after the first write
                    assertThat(gauges).isEqualTo(gaugesAfterFirst + 1);
                }
            }
        }
    }

    /** A write closed after a later one opened into the same group leaves the gauges to the later one. */
    @Test
    void aWriteClosingAfterALaterOneOpenedLeavesTheGaugesToIt() throws Exception {
        try (FlinkStandaloneEngine engine = new FlinkStandaloneEngine(4L << 20, dir)) {
            EngineResources first = open(engine, "32k");
            EngineResources second = open(engine, "32k");
            MetricsSnapshot secondLive = snapshot(2000, Map.of());
            first.metrics().writeOpened("first", () -> snapshot0(1000));
            second.metrics().writeOpened("second", () -> secondLive);
            first.metrics().writeClosed("first", snapshot(1100, Map.of()));
            assertThat(engine.reportedMetrics()).contains(secondLive);
            first.close();
            second.close();
        }
    }

    private static MetricsSnapshot snapshot0(long base) {
        try {
            return snapshot(base, Map.of());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A snapshot whose numeric fields are {@code base}, {@code base + 1}, ... in order. */
    private static MetricsSnapshot snapshot(long base, Map<String, Object> paimon) throws Exception {
        RecordComponent[] components = MetricsSnapshot.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            values[i] = types[i] == long.class ? (Object) (base + i) : types[i] == double.class ? (Object) (base + i + 0.5) : paimon;
        }
        return MetricsSnapshot.class.getDeclaredConstructor(types).newInstance(values);
    }
}
