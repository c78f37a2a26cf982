package io.paimongov.tck;

import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator.MemoryRelief;
import io.paimongov.spi.SegmentAllocator;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;

/**
 * The provider under test as the kit sees it: every call passes through to the vendor's provider
 * unchanged, while the kit records what it needs to judge (what the allocator held at close, the
 * threads the engine's factory made, how often each ran its runnable and how many ran at once,
 * grants past the capacity, refusals, the calls of allocate(), the pages live and, per allocator,
 * what it holds ({@link Held}) as the kit counts them) and can inject one failure, noting when it
 * fired.
 *
 * <p>Thread-safe.
 */
final class ObservedProvider implements GovernanceProvider {

    private final GovernanceProvider vendor;
    private final List<Observed> opened = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    /** Per thread of {@link #threads}: how many times it ran the runnable the factory was given. */
    private final java.util.Map<Thread, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger inRunnable = new AtomicInteger();
    private final AtomicInteger peakInRunnable = new AtomicInteger();
    private final AtomicLong capacityViolations = new AtomicLong();
    private final AtomicLong engineViolations = new AtomicLong();
    /** Runs on the granting thread after every reservation the allocators grant (READ-3 cancels from it). */
    volatile Runnable afterReserveGrant = () -> {};
    /** The engine's own counter and the most it may show; set by the subject. */
    volatile java.util.function.LongSupplier engineCounter = () -> 0;
    volatile long engineLimit = Long.MAX_VALUE;
    /** Throws from the Nth page allocation of any write when positive. */
    final AtomicInteger failAllocationAt = new AtomicInteger();
    /** Calls of allocate() so far, counted as each call enters (before the vendor's allocator runs). */
    private final AtomicInteger allocations = new AtomicInteger();
    /** The failure the kit injected, once it fired. */
    private final java.util.concurrent.atomic.AtomicReference<RuntimeException> injected =
            new java.util.concurrent.atomic.AtomicReference<>();
    /** Pages handed out and not yet released, as the kit sees them through the SPI: each counts once in {@link Held}. */
    private final java.util.Set<MemorySegment> livePages = java.util.concurrent.ConcurrentHashMap.newKeySet();

    ObservedProvider(GovernanceProvider vendor) {
        this.vendor = vendor;
    }

    GovernanceProvider vendor() {
        return vendor;
    }

    @Override
    public String name() {
        return vendor.name();
    }

    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        Observed resources = new Observed(vendor.open(options, environment));
        opened.add(resources);
        return resources;
    }

    /** Resources opened so far, oldest first. */
    List<Observed> opened() {
        return List.copyOf(opened);
    }

    /** Threads the engines' compaction thread factories made. */
    List<Thread> threads() {
        return List.copyOf(threads);
    }

    /**
     * Times {@code thread}, made by an engine's compaction factory, has entered the runnable it was
     * made with; 0 for a thread the factory did not make.
     */
    int runs(Thread thread) {
        AtomicInteger n = runs.get(thread);
        return n == null ? 0 : n.get();
    }

    /** The most threads of the compaction factories that were inside their runnables at once. */
    int peakRunningThreads() {
        return peakInRunnable.get();
    }

    /** The largest capacityBytes() of the allocators opened so far; 0 before the first. */
    long largestCapacity() {
        return opened.stream().mapToLong(o -> o.vendor.memory().capacityBytes()).max().orElse(0);
    }

    /** Times an allocator's usedBytes() passed its capacityBytes() right after a grant. */
    long capacityViolations() {
        return capacityViolations.get();
    }

    /** Times the engine's counter passed the engine budget right after a grant. */
    long engineViolations() {
        return engineViolations.get();
    }

    /** Calls of allocate() on any allocator so far, counted as each call enters. */
    int allocationCalls() {
        return allocations.get();
    }

    /** The failure injected at {@link #failAllocationAt}, once it fired; null before. */
    RuntimeException injected() {
        return injected.get();
    }

    /** What the open resources' allocators handed out and did not take back, as the kit counts it ({@link Held}). */
    long heldNow() {
        return opened.stream().filter(o -> !o.closed.get()).mapToLong(o -> o.held.now()).sum();
    }

    /** What the allocators hold now: live ones ask the allocator, closed ones what they held at close. */
    long allocatorsUsedBytes() {
        return opened.stream().mapToLong(o -> o.closed.get() ? o.usedAfterClose.get() : o.vendor.memory().usedBytes()).sum();
    }

    /** The vendor's resources with the kit's observations around them. */
    final class Observed implements EngineResources {
        final EngineResources vendor;
        /** What the allocator held when the runtime closed the resources, before they released it. */
        final AtomicLong usedAtClose = new AtomicLong(-1);
        /** What the allocator says it holds once closed: the stand-in engine counter reads this. */
        final AtomicLong usedAfterClose = new AtomicLong();
        final AtomicInteger closes = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        /** Requests the allocator refused: allocate threw ResourceExhaustedException or tryReserve said false. */
        final AtomicLong refusals = new AtomicLong();
        /**
         * The most the allocator said it held right after a grant, since the kit last set it (MEM-13
         * sets it to what the allocator holds when the engine shrinks).
         */
        final AtomicLong peakUsed = new AtomicLong();
        /** What the allocator handed out and did not take back, as the kit counts it. */
        final Held held = new Held();
        private final SegmentAllocator memory;
        private final CompactionThreads compaction;

        Observed(EngineResources vendor) {
            this.vendor = vendor;
            this.memory = new ObservedAllocator(vendor.memory(), refusals, peakUsed, held);
            CompactionThreads given = vendor.compaction();
            ThreadFactory recording =
                    task -> {
                        // The factory gets the runtime's runnable inside one that counts its runs and
                        // how many of the factory's threads are inside their runnables at once.
                        AtomicInteger count = new AtomicInteger();
                        Thread t = given.threadFactory().newThread(() -> {
                            count.incrementAndGet();
                            peakInRunnable.accumulateAndGet(inRunnable.incrementAndGet(), Math::max);
                            try {
                                task.run();
                            } finally {
                                inRunnable.decrementAndGet();
                            }
                        });
                        threads.add(t);
                        if (t != null) {
                            runs.put(t, count);
                        }
                        return t;
                    };
            this.compaction = CompactionThreads.of(recording, given.maxThreads());
        }

        @Override
        public SegmentAllocator memory() {
            return memory;
        }

        @Override
        public SpillLocations spill() {
            return vendor.spill();
        }

        @Override
        public CancellationSignal cancellation() {
            return vendor.cancellation();
        }

        @Override
        public MetricsReporter metrics() {
            return vendor.metrics();
        }

        @Override
        public CompactionThreads compaction() {
            return compaction;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            boolean first = closed.compareAndSet(false, true);
            if (first) {
                usedAtClose.set(vendor.memory().usedBytes());
            }
            try {
                vendor.close();
            } finally {
                if (first) {
                    usedAfterClose.set(vendor.memory().usedBytes());
                }
            }
        }
    }

    private final class ObservedAllocator implements SegmentAllocator {
        private final SegmentAllocator vendor;
        private final AtomicLong refusals;
        private final AtomicLong peakUsed;
        private final Held held;

        ObservedAllocator(SegmentAllocator vendor, AtomicLong refusals, AtomicLong peakUsed, Held held) {
            this.vendor = vendor;
            this.refusals = refusals;
            this.peakUsed = peakUsed;
            this.held = held;
        }

        @Override
        public int pageSize() {
            return vendor.pageSize();
        }

        @Override
        public boolean pageSizeFixedByEngine() {
            return vendor.pageSizeFixedByEngine();
        }

        @Override
        public long capacityBytes() {
            return vendor.capacityBytes();
        }

        @Override
        public long usedBytes() {
            return vendor.usedBytes();
        }

        @Override
        public void allocate(List<MemorySegment> target, int pages) {
            int call = allocations.incrementAndGet();
            int at = failAllocationAt.get();
            if (at > 0 && call == at) {
                RuntimeException failure = new IllegalStateException("failure injected by the TCK at page allocation " + at);
                injected.set(failure);
                throw failure;
            }
            int before = target.size();
            try {
                vendor.allocate(target, pages);
            } catch (ResourceExhaustedException e) {
                refusals.incrementAndGet();
                throw e;
            }
            // Paimon's MemorySegment keeps Object's identity equality, so the set counts each page once.
            long bytes = 0;
            for (MemorySegment page : target.subList(before, target.size())) {
                if (livePages.add(page)) {
                    bytes += page.size();
                }
            }
            held.pagesGranted(bytes);
            checkCapacity();
        }

        @Override
        public void release(Collection<MemorySegment> pages) {
            vendor.release(pages);
            long bytes = 0;
            for (MemorySegment page : pages) {
                if (livePages.remove(page)) {
                    bytes += page.size();
                }
            }
            held.pagesReleased(bytes);
        }

        @Override
        public boolean tryReserve(long bytes) {
            return observeReserve(bytes, vendor.tryReserve(bytes));
        }

        /** Passed through with its kind, so an engine that tracks memory by consumer sees it under the kit too. */
        @Override
        public boolean tryReserve(long bytes, ConsumerKind consumer) {
            return observeReserve(bytes, vendor.tryReserve(bytes, consumer));
        }

        private boolean observeReserve(long bytes, boolean granted) {
            if (granted) {
                held.bytesReserved(bytes);
                checkCapacity();
                afterReserveGrant.run();
            } else {
                refusals.incrementAndGet();
            }
            return granted;
        }

        @Override
        public void release(long bytes) {
            vendor.release(bytes);
            held.bytesReleased(bytes);
        }

        @Override
        public void release(long bytes, ConsumerKind consumer) {
            vendor.release(bytes, consumer);
            held.bytesReleased(bytes);
        }

        /** The vendor's class, so that an error about this allocator names it and not the kit's wrapper. */
        @Override
        public Class<?> implementation() {
            return vendor.implementation();
        }

        /** Passed through, so an engine that spills cooperatively is asked the same way under the kit. */
        @Override
        public void bindRelief(MemoryRelief relief) {
            vendor.bindRelief(relief);
        }

        private void checkCapacity() {
            long used = vendor.usedBytes();
            peakUsed.accumulateAndGet(used, Math::max);
            if (used > vendor.capacityBytes()) {
                capacityViolations.incrementAndGet();
            }
            if (engineCounter.getAsLong() > engineLimit) {
                engineViolations.incrementAndGet();
            }
        }
    }
}
