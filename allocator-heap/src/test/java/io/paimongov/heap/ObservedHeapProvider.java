package io.paimongov.heap;

import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.spi.SpillLocations;
import io.paimongov.runtime.config.GovernanceOptions;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;

/**
 * The heap provider as a test sees it: records what the engine held when the write closed, and can
 * inject a failure into page allocation.
 */
final class ObservedHeapProvider implements GovernanceProvider {

    /** What the engine still held when the runtime closed it; -1 until then. */
    final AtomicLong usedAtClose = new AtomicLong(-1);

    /** The relief the runtime handed the allocator of the last write opened. */
    final java.util.concurrent.atomic.AtomicReference<io.paimongov.spi.MemoryRelief> relief = new java.util.concurrent.atomic.AtomicReference<>();

    /** Throws from the Nth page allocation when positive. */
    final AtomicInteger failAllocationAt = new AtomicInteger();

    private final HeapGovernanceProvider heap = new HeapGovernanceProvider();

    @Override
    public String name() {
        return "observed-heap";
    }

    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        EngineResources inner = heap.open(options, environment);
        SegmentAllocator faulty = new FaultyAllocator(inner.memory());
        return new EngineResources() {
            @Override
            public SegmentAllocator memory() {
                return faulty;
            }

            @Override
            public SpillLocations spill() {
                return inner.spill();
            }

            @Override
            public CancellationSignal cancellation() {
                return inner.cancellation();
            }

            @Override
            public MetricsReporter metrics() {
                return inner.metrics();
            }

            @Override
            public CompactionThreads compaction() {
                return inner.compaction();
            }

            @Override
            public void close() {
                usedAtClose.set(inner.memory().usedBytes());
                inner.close();
            }
        };
    }

    private final class FaultyAllocator implements SegmentAllocator {
        private final SegmentAllocator inner;
        private final AtomicInteger allocations = new AtomicInteger();

        FaultyAllocator(SegmentAllocator inner) {
            this.inner = inner;
        }

        @Override
        public int pageSize() {
            return inner.pageSize();
        }

        @Override
        public long capacityBytes() {
            return inner.capacityBytes();
        }

        @Override
        public long usedBytes() {
            return inner.usedBytes();
        }

        @Override
        public void allocate(List<MemorySegment> target, int pages) {
            int at = failAllocationAt.get();
            if (at > 0 && allocations.incrementAndGet() == at) {
                throw new IllegalStateException("injected allocation failure");
            }
            inner.allocate(target, pages);
        }

        @Override
        public void release(Collection<MemorySegment> pages) {
            inner.release(pages);
        }

        @Override
        public boolean tryReserve(long bytes) {
            return inner.tryReserve(bytes);
        }

        @Override
        public void release(long bytes) {
            inner.release(bytes);
        }

        @Override
        public void bindRelief(io.paimongov.spi.MemoryRelief given) {
            relief.set(given);
        }
    }
}
