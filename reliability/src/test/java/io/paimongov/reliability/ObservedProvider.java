package io.paimongov.reliability;

import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.CompactionThreads;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MemoryRelief;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.spi.SpillLocations;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.runtime.config.GovernanceOptions;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;

/**
 * A real provider as the matrix sees it: every call goes to the allocator module unchanged, while
 * it records what each write's allocator held when the runtime closed it and where its spill roots
 * are, and can make the allocator throw on one page allocation.
 *
 * <p>The throw is the only thing added: it stands for an allocator (or the engine's memory manager
 * under it) failing with an unexpected exception. <b>Thread-safety:</b> thread-safe.
 */
final class ObservedProvider implements GovernanceProvider {

    private final GovernanceProvider real;
    private final List<Opened> opened = new CopyOnWriteArrayList<>();
    private final AtomicInteger failAllocationAt = new AtomicInteger();
    private final AtomicInteger allocations = new AtomicInteger();
    private final AtomicInteger thrown = new AtomicInteger();

    ObservedProvider(GovernanceProvider real) {
        this.real = real;
    }

    /** The allocator module's own provider. */
    GovernanceProvider real() {
        return real;
    }

    /** From now on the {@code nth} page allocation (counted from this call) throws. */
    void failAllocation(int nth) {
        allocations.set(0);
        failAllocationAt.set(nth);
    }

    /** No allocation throws from now on; the counts stay. */
    void stopFailing() {
        failAllocationAt.set(0);
    }

    /** Page allocations passed to the allocator since the last {@link #failAllocation}. */
    int allocations() {
        return allocations.get();
    }

    /** Allocations that threw the injected failure. */
    int thrown() {
        return thrown.get();
    }

    /** Resources opened so far, oldest first. */
    List<Opened> opened() {
        return List.copyOf(opened);
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        Opened resources = new Opened(real.open(options, environment));
        opened.add(resources);
        return resources;
    }

    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return real.standalone(budgetBytes, tempDir);
    }

    /** One write's engine resources, observed. */
    final class Opened implements EngineResources {
        private final EngineResources real;
        private final SegmentAllocator memory;
        private final AtomicLong usedAtClose = new AtomicLong(-1);

        Opened(EngineResources real) {
            this.real = real;
            this.memory = new Allocator(real.memory());
        }

        /** What the allocator held when the runtime closed these resources; -1 while open. */
        long usedAtClose() {
            return usedAtClose.get();
        }

        @Override
        public SegmentAllocator memory() {
            return memory;
        }

        @Override
        public SpillLocations spill() {
            return real.spill();
        }

        @Override
        public CancellationSignal cancellation() {
            return real.cancellation();
        }

        @Override
        public MetricsReporter metrics() {
            return real.metrics();
        }

        @Override
        public CompactionThreads compaction() {
            return real.compaction();
        }

        @Override
        public void close() {
            usedAtClose.compareAndSet(-1, real.memory().usedBytes());
            real.close();
        }
    }

    private final class Allocator implements SegmentAllocator {
        private final SegmentAllocator real;

        Allocator(SegmentAllocator real) {
            this.real = real;
        }

        @Override
        public int pageSize() {
            return real.pageSize();
        }

        @Override
        public long capacityBytes() {
            return real.capacityBytes();
        }

        @Override
        public long usedBytes() {
            return real.usedBytes();
        }

        @Override
        public void allocate(List<MemorySegment> target, int pages) {
            int at = failAllocationAt.get();
            if (allocations.incrementAndGet() == at) {
                thrown.incrementAndGet();
                throw new IllegalStateException("injected: the allocator failed on page allocation " + at);
            }
            real.allocate(target, pages);
        }

        @Override
        public void release(Collection<MemorySegment> pages) {
            real.release(pages);
        }

        @Override
        public boolean tryReserve(long bytes) {
            return real.tryReserve(bytes);
        }

        @Override
        public void release(long bytes) {
            real.release(bytes);
        }

        @Override
        public void bindRelief(MemoryRelief relief) {
            real.bindRelief(relief);
        }
    }
}
