package io.paimongov.runtime.internal.memory;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write's place in a {@link MemoryArbiter shared memory}: its share, its ceiling, what it
 * waits with, and what the pool did to it and for it (the metrics of docs/metrics.md, "Shared
 * memory"). Its capacity is its {@link MemoryBudget}'s, which only the pool moves, under the pool's
 * lock.
 *
 * <p><b>Thread-safety:</b> fields marked "guarded" are read and written under the pool's lock; the
 * counters are read from any thread.
 */
final class PoolMember {

    private static final Logger LOG = LoggerFactory.getLogger(PoolMember.class);

    final MemoryArbiter pool;
    final String name;
    /** The capacity the member is guaranteed. */
    final long share;
    /** The most capacity the member may have: its allocator's capacity. */
    final long ceiling;
    final MemoryBudget budget;
    final long waitNanos;
    /** Whether the member's write is cancelled: a waiting asker stops waiting. */
    final BooleanSupplier stop;
    /** Bytes the member waits to reserve, kept from other askers. Guarded. */
    long pending;
    private final AtomicLong peakBorrowed = new AtomicLong();
    private final LongAdder reclaimedFromCount = new LongAdder();
    private final LongAdder reclaimedFromBytes = new LongAdder();
    private final LongAdder reclaimedByCount = new LongAdder();
    private final LongAdder reclaimedByBytes = new LongAdder();
    /** Raised each time the pool lowers this member below what it holds; see {@link MemoryBudget#takeReclaimRequest()}. */
    private final AtomicLong reclaimRequests = new AtomicLong();

    PoolMember(MemoryArbiter pool, String name, long share, long ceiling, MemoryBudget budget, long waitNanos, BooleanSupplier stop) {
        this.pool = pool;
        this.name = name;
        this.share = share;
        this.ceiling = ceiling;
        this.budget = budget;
        this.waitNanos = waitNanos;
        this.stop = stop;
    }

    /** Capacity the member holds and neither reserves nor waits for. Read under the pool's lock. */
    long unused() {
        return Math.max(0, budget.capacityBytes() - budget.reservedBytes() - pending);
    }

    /** Capacity above the share. Under the pool's lock. */
    long overShare() {
        return budget.capacityBytes() - share;
    }

    long borrowedBytes() {
        return Math.max(0, budget.capacityBytes() - share);
    }

    /** Under the pool's lock, after the capacity was raised. */
    void notePeakBorrowed() {
        long borrowed = borrowedBytes();
        if (borrowed > peakBorrowed.get()) {
            peakBorrowed.accumulateAndGet(borrowed, Math::max);
        }
    }

    long peakBorrowedBytes() {
        return peakBorrowed.get();
    }

    /**
     * The pool lowered this member by {@code bytes}: for another member taking its share back
     * ({@code reclaimed}, counted), or as the pool shrank when a member left. Either way the member
     * is asked to give back what it now holds above its capacity. Under the pool's lock.
     */
    void lowered(long bytes, boolean reclaimed) {
        if (reclaimed) {
            reclaimedFromCount.increment();
            reclaimedFromBytes.add(bytes);
        }
        reclaimRequests.incrementAndGet();
    }

    /** This member took {@code bytes} back from borrowers. Under the pool's lock. */
    void reclaimedBy(long bytes) {
        if (bytes > 0) {
            reclaimedByCount.increment();
            reclaimedByBytes.add(bytes);
        }
    }

    long reclaimedFromCount() {
        return reclaimedFromCount.sum();
    }

    long reclaimedFromBytes() {
        return reclaimedFromBytes.sum();
    }

    long reclaimedByCount() {
        return reclaimedByCount.sum();
    }

    long reclaimedByBytes() {
        return reclaimedByBytes.sum();
    }

    long reclaimRequests() {
        return reclaimRequests.get();
    }

    /**
     * Asks this member, from another thread, to give back what it owes: its reclaimer frees cached
     * pages, and flushes only when it gets the write's call lock at once (the write is idle). What
     * the reclaimer throws is logged and counts as nothing freed: the write meets the failure itself
     * at its next call. Never under the pool's lock.
     */
    void askBack() {
        long owed = budget.owedBytes();
        if (owed <= 0) {
            return;
        }
        try {
            budget.reclaim(owed);
        } catch (RuntimeException e) {
            LOG.warn("{} could not give {} bytes back to shared memory '{}'", name, owed, pool.name(), e);
        }
    }

    @Override
    public String toString() {
        return "PoolMember[" + name + ", share " + share + ", capacity " + budget.capacityBytes() + "]";
    }
}
