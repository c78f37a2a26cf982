package io.paimongov.runtime.memory;

import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemorySegment;

/**
 * A plain bounded allocator for the runtime's unit tests: counts what it gives, can be told to
 * refuse byte reservations. The real allocators are tested in their modules and by the TCK.
 */
final class BoundedTestAllocator implements SegmentAllocator {

    private final int pageSize;
    private final long capacity;
    private final AtomicLong used = new AtomicLong();
    volatile boolean refuseReservations;

    BoundedTestAllocator(int pageSize, long capacity) {
        this.pageSize = pageSize;
        this.capacity = capacity;
    }

    @Override
    public int pageSize() {
        return pageSize;
    }

    @Override
    public long capacityBytes() {
        return capacity;
    }

    @Override
    public long usedBytes() {
        return used.get();
    }

    @Override
    public synchronized void allocate(List<MemorySegment> target, int pages) {
        long bytes = (long) pages * pageSize;
        if (used.get() + bytes > capacity) {
            throw new ResourceExhaustedException(
                    ResourceExhaustedException.Resource.MEMORY, "test pages", bytes, used.get(), capacity, List.of());
        }
        used.addAndGet(bytes);
        List<MemorySegment> made = new ArrayList<>();
        for (int i = 0; i < pages; i++) {
            made.add(MemorySegment.wrap(new byte[pageSize]));
        }
        target.addAll(made);
    }

    @Override
    public void release(Collection<MemorySegment> pages) {
        used.addAndGet(-(long) pages.size() * pageSize);
    }

    @Override
    public synchronized boolean tryReserve(long bytes) {
        if (refuseReservations || used.get() + bytes > capacity) {
            return false;
        }
        used.addAndGet(bytes);
        return true;
    }

    @Override
    public void release(long bytes) {
        used.addAndGet(-bytes);
    }
}
