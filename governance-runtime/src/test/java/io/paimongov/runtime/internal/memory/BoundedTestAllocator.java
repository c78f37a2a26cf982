package io.paimongov.runtime.internal.memory;

import io.paimongov.allocator.support.HeapPagedAllocator;

/**
 * A plain bounded allocator for the runtime's unit tests: heap pages and reservations within its
 * capacity alone, with {@link HeapPagedAllocator}'s bookkeeping; it can be told to refuse what it
 * would take from an engine (reservations, and pages too). The real allocators are tested in their
 * modules and by the TCK.
 */
final class BoundedTestAllocator extends HeapPagedAllocator {

    volatile boolean refuseReservations;

    BoundedTestAllocator(int pageSize, long capacity) {
        super("test", "test pages", pageSize, capacity, null);
    }

    @Override
    protected boolean reserveBytes(long bytes) {
        return !refuseReservations;
    }

    @Override
    protected void unreserveBytes(long bytes) {}
}
