package io.paimongov.heap;

import io.paimongov.spi.PagedAllocator;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * {@code byte[]} pages and byte reservations from a fixed budget inside a {@link HeapMemoryPool}.
 * The bookkeeping (capacity, all-or-nothing, live pages by identity so that releasing a foreign
 * page or one twice changes nothing, the leak check at close) is {@link PagedAllocator}'s; the
 * engine is the pool, which counts the bytes of pages and reservations alike. Releasing more bytes
 * than are reserved returns the reservation to zero.
 *
 * <p>Thread-safe: one lock guards the counters and the live pages; the arrays are allocated outside
 * it.
 */
final class HeapSegmentAllocator extends PagedAllocator<MemorySegment> {

    private final HeapMemoryPool pool;

    /** A private budget: the pool is this allocator alone. */
    HeapSegmentAllocator(int pageSize, long capacity) {
        this(pageSize, capacity, new HeapMemoryPool(capacity));
    }

    /** A budget of {@code capacity} inside a {@code pool} shared with other writes. */
    HeapSegmentAllocator(int pageSize, long capacity, HeapMemoryPool pool) {
        super("heap", "heap pages", pageSize, capacity, null);
        this.pool = pool;
    }

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

    /** The arrays go to the garbage collector; their bytes go back to the pool in {@link #unadmitPages}. */
    @Override
    protected void givePages(List<MemorySegment> pages) {}

    @Override
    protected boolean reserveBytes(long bytes) {
        return pool.tryTake(bytes);
    }

    @Override
    protected void unreserveBytes(long bytes) {
        pool.give(bytes);
    }
}
