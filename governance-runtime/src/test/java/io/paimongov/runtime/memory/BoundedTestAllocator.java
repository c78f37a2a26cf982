package io.paimongov.runtime.memory;

import io.paimongov.spi.HeapPagedAllocator;

/**
 * A plain bounded allocator for the runtime's unit tests: heap pages and reservations within its
 * capacity alone, with {@link PagedAllocator}'s bookkeeping; it can be told to refuse byte
 * reservations. The real allocators are tested in their modules and by the TCK.
 */
final class BoundedTestAllocator extends HeapPagedAllocator {

    volatile boolean refuseReservations;

    BoundedTestAllocator(int pageSize, long capacity) {
        super("test", "test pages", pageSize, capacity, null);
    }

    @Override
    protected boolean admitPages(long bytes) {
        return true;
    }

    @Override
    protected void unadmitPages(long bytes) {}

    @Override
    protected boolean reserveBytes(long bytes) {
        return !refuseReservations;
    }

    @Override
    protected void unreserveBytes(long bytes) {}
}
