package io.paimongov.heap;

import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.spi.SpillLocations;
import io.paimongov.spi.config.GovernanceOptions;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Provider {@code heap}: the process is the engine. Pages are {@code byte[]} from a fixed budget of
 * {@code governance.memory.budget}; spill goes under {@code governance.spill.dirs}; cancellation
 * comes only through the write's token; metrics go nowhere but the snapshot. The embedded default.
 *
 * <p>Stateless and thread-safe: every {@link #open} makes an independent budget.
 */
public final class HeapGovernanceProvider implements GovernanceProvider {

    public static final String NAME = "heap";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public EngineResources open(GovernanceOptions options, EngineEnvironment environment) {
        HeapSegmentAllocator allocator = new HeapSegmentAllocator(options.pageSize(), options.budgetBytes());
        SpillLocations spill = SpillLocations.of(options.spillDirs(), options.spillMaxBytes());
        return new HeapResources(allocator, spill);
    }

    private record HeapResources(HeapSegmentAllocator memory, SpillLocations spill, CompactionThreads compaction)
            implements EngineResources {

        private static final AtomicInteger THREADS = new AtomicInteger();

        HeapResources(HeapSegmentAllocator memory, SpillLocations spill) {
            this(memory, spill, CompactionThreads.of(HeapResources::compactionThread, Runtime.getRuntime().availableProcessors()));
        }

        private static Thread compactionThread(Runnable task) {
            Thread t = new Thread(task, "paimon-gov-compaction-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        }

        @Override
        public CancellationSignal cancellation() {
            return CancellationSignal.never();
        }

        @Override
        public MetricsReporter metrics() {
            return MetricsReporter.none();
        }

        @Override
        public void close() {
            memory.close();
        }
    }
}
