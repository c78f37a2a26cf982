package io.paimongov.allocator.support;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.MetricsReporter;

/**
 * The {@link EngineResources} of a provider whose allocator extends {@link PagedAllocator}: the
 * five parts as given, and {@link #close()} closes the allocator (its leak check runs there).
 *
 * <p>Immutable; thread-safe as every part is. {@link #close()} is idempotent, as {@link
 * PagedAllocator#close()} is, and throws what it throws.
 */
public record PagedResources(
        PagedAllocator<?> memory,
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
