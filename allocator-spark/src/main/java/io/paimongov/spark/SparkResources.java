package io.paimongov.spark;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.SpillLocations;

/**
 * The Spark provider's resources of one write. Every accessor returns the same object; {@link
 * #close()} gives the consumer's memory back to the task (see {@link SparkSegmentAllocator#close()}).
 *
 * <p>Thread-safe, as every part is. {@link #close()} is idempotent and throws {@link
 * IllegalStateException} when memory was still held, after giving it back.
 */
record SparkResources(
        SparkSegmentAllocator memory,
        SpillLocations spill,
        CancellationSignal cancellation,
        MetricsReporter metrics,
        CompactionThreads compaction)
        implements EngineResources {

    @Override
    public void close() {
        memory.close();
    }
}
