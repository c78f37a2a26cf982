package io.paimongov.offheap;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.SpillLocations;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.function.Supplier;

/**
 * The off-heap provider's resources of one write. Every accessor returns the same object; {@link
 * #close()} closes the write's Arrow child allocator (see {@link ArrowSegmentAllocator#close()}).
 *
 * <p>Thread-safe, as every part is. {@link #close()} is idempotent and throws {@link
 * IllegalStateException} on a leak, after releasing it.
 */
record OffheapResources(
        ArrowSegmentAllocator memory,
        SpillLocations spill,
        CancellationSignal cancellation,
        MetricsReporter metrics,
        CompactionThreads compaction)
        implements EngineResources {

    /** Resources whose metrics reporter also tells {@code memory} the write's name. */
    static OffheapResources of(
            ArrowSegmentAllocator memory,
            SpillLocations spill,
            CancellationSignal cancellation,
            MetricsReporter engineMetrics,
            CompactionThreads compaction) {
        return new OffheapResources(memory, spill, cancellation, new NamingReporter(engineMetrics, memory), compaction);
    }

    @Override
    public void close() {
        memory.close();
    }

    /**
     * The engine's reporter, unchanged, plus the write's name for the allocator: {@link
     * MetricsReporter#writeOpened} is the only place the runtime names the write to a provider.
     */
    private record NamingReporter(MetricsReporter engine, ArrowSegmentAllocator memory) implements MetricsReporter {

        @Override
        public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
            memory.nameWrite(writeName);
            engine.writeOpened(writeName, live);
        }

        @Override
        public void writeClosed(String writeName, MetricsSnapshot last) {
            engine.writeClosed(writeName, last);
        }
    }
}
