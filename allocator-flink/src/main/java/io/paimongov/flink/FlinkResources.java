package io.paimongov.flink;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.SpillLocations;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.List;
import java.util.function.Supplier;

/**
 * The Flink provider's resources of one write. Every accessor returns the same object; {@link
 * #close()} gives the write's managed memory back (see {@link FlinkSegmentAllocator#close()}).
 *
 * <p>Thread-safe, as every part is. {@link #close()} is idempotent and throws {@link
 * IllegalStateException} on a leak, after releasing it.
 */
record FlinkResources(
        FlinkSegmentAllocator memory,
        SpillLocations spill,
        CancellationSignal cancellation,
        MetricsReporter metrics,
        CompactionThreads compaction)
        implements EngineResources {

    @Override
    public void close() {
        memory.close();
    }

    /** Reports to each of {@code reporters} in turn: the engine's sink and Flink's metric group. */
    record AllReporters(List<MetricsReporter> reporters) implements MetricsReporter {

        @Override
        public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
            reporters.forEach(r -> r.writeOpened(writeName, live));
        }

        @Override
        public void writeClosed(String writeName, MetricsSnapshot last) {
            reporters.forEach(r -> r.writeClosed(writeName, last));
        }
    }
}
