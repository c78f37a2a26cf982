package io.paimongov.spi;

import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * A {@link PagedAllocator} whose pages are {@code byte[]} the allocator makes itself, for an
 * engine that only counts bytes (a heap pool, Spark's task memory, a test's counter): the engine
 * is asked for a page's bytes through {@link #reserveBytes} as for any reservation, the array
 * comes from the Java heap, outside the lock, and a page given back returns its bytes through
 * {@link #unreserveBytes}; the garbage collector takes the array.
 *
 * <p>Thread-safe, as {@link PagedAllocator} is; a subclass implements the two byte hooks.
 */
public abstract class HeapPagedAllocator extends PagedAllocator<MemorySegment> {

    /** As {@link PagedAllocator#PagedAllocator}. */
    protected HeapPagedAllocator(String name, String requester, int pageSize, long capacity, Object lock) {
        super(name, requester, pageSize, capacity, lock);
    }

    @Override
    protected final void takePages(int count, List<MemorySegment> into) {
        for (int i = 0; i < count; i++) {
            into.add(newPage());
        }
    }

    /** One new page of {@link #pageSize()} bytes; may throw {@link OutOfMemoryError}. */
    protected MemorySegment newPage() {
        return MemorySegment.wrap(new byte[pageSize()]);
    }

    @Override
    protected final MemorySegment segment(MemorySegment page) {
        return page;
    }

    /** The arrays go to the garbage collector; their bytes went back in {@link #unadmitPages}. */
    @Override
    protected final void givePages(List<MemorySegment> pages) {}
}
