package io.paimongov.heap;

import io.paimongov.allocator.support.HeapPagedAllocator;

/**
 * {@code byte[]} pages and byte reservations from a fixed budget inside a {@link HeapMemoryPool}.
 * The bookkeeping (capacity, all-or-nothing, live pages by identity so that releasing a foreign
 * page or one twice changes nothing, the leak check at close) is {@link HeapPagedAllocator}'s; the
 * engine is the pool, which counts the bytes of pages and reservations alike. Releasing more bytes
 * than are reserved returns the reservation to zero. The pool gets bytes back before this
 * allocator's counters go down; a leak at close is kept in {@link #leakedBytes()} and in {@link
 * HeapGovernanceProvider#leakedBytes()}.
 *
 * <p>Thread-safe: one lock guards the counters and the live pages; the arrays are allocated outside
 * it.
 */
final class HeapSegmentAllocator extends HeapPagedAllocator {

    private final HeapMemoryPool pool;

    /** A private budget: the pool is this allocator alone. */
    HeapSegmentAllocator(int pageSize, long capacity) {
        this(pageSize, capacity, new HeapMemoryPool(capacity));
    }

    /** A budget of {@code capacity} inside a {@code pool} shared with other writes. */
    HeapSegmentAllocator(int pageSize, long capacity, HeapMemoryPool pool) {
        super("heap", "heap pages", pageSize, capacity, null, HeapGovernanceProvider.LEAKS);
        this.pool = pool;
    }

    @Override
    protected boolean reserveBytes(long bytes) {
        return pool.tryTake(bytes);
    }

    @Override
    protected void unreserveBytes(long bytes) {
        pool.give(bytes);
    }
}
