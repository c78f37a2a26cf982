package io.paimongov.runtime.memory;

import io.paimongov.spi.PagedAllocator;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * A plain bounded allocator for the runtime's unit tests: heap pages and reservations within its
 * capacity alone, with {@link PagedAllocator}'s bookkeeping; it can be told to refuse byte
 * reservations. The real allocators are tested in their modules and by the TCK.
 */
final class BoundedTestAllocator extends PagedAllocator<MemorySegment> {

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
    protected void takePages(int count, List<MemorySegment> into) {
        for (int i = 0; i < count; i++) {
            into.add(MemorySegment.wrap(new byte[pageSize()]));
        }
    }

    @Override
    protected MemorySegment segment(MemorySegment page) {
        return page;
    }

    @Override
    protected void givePages(List<MemorySegment> pages) {}

    @Override
    protected boolean reserveBytes(long bytes) {
        return !refuseReservations;
    }

    @Override
    protected void unreserveBytes(long bytes) {}
}
