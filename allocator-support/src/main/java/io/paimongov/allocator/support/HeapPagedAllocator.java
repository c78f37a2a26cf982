package io.paimongov.allocator.support;

import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ResourceExhaustedException;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * A {@link PagedAllocator} whose pages are {@code byte[]} it makes itself, for an engine that only
 * counts bytes (a heap pool, Spark's task memory, a test's counter): a page's bytes are asked of
 * the engine through {@link #reserveBytes}, as for any reservation, the array comes from the Java
 * heap, outside the lock ({@link #newPage()}), and a page given back returns its bytes through
 * {@link #unreserveBytes}; the garbage collector takes the array.
 *
 * <p>A vendor implements the two byte hooks, and may override {@link #newPage()} and the close
 * hooks. Thread-safe, as {@link PagedAllocator} is.
 */
public abstract class HeapPagedAllocator extends PagedAllocator<MemorySegment> {

    /**
     * @param name what the allocator is called in its errors ({@code "heap"} gives {@code "heap
     *     allocator is closed"})
     * @param requester who asks in a {@link io.paimongov.spi.ResourceExhaustedException} ({@code
     *     "heap pages"})
     * @param pageSize the page size, a power of two
     * @param capacity the most bytes of pages and reservations together
     * @param lock the monitor to guard the counters with; null for this object
     * @param leaks where a leak found at close is recorded, before anything is given back; null for
     *     nowhere
     */
    protected HeapPagedAllocator(String name, String requester, int pageSize, long capacity, Object lock, LeakCounter leaks) {
        super(name, requester, pageSize, capacity, lock, leaks);
    }

    /** As the full form, recording leaks nowhere. */
    protected HeapPagedAllocator(String name, String requester, int pageSize, long capacity, Object lock) {
        this(name, requester, pageSize, capacity, lock, null);
    }

    /** One new page of {@link #pageSize()} bytes, outside the lock; may throw {@link OutOfMemoryError}. */
    protected MemorySegment newPage() {
        return MemorySegment.wrap(new byte[pageSize()]);
    }

    /** A page's bytes are the write buffer's ({@link ConsumerKind#WRITE_BUFFER}). */
    @Override
    final boolean admitPages(long bytes) {
        return reserveBytes(bytes, ConsumerKind.WRITE_BUFFER);
    }

    @Override
    final void unadmitPages(long bytes) {
        unreserveBytes(bytes, ConsumerKind.WRITE_BUFFER);
    }

    @Override
    final boolean takesPagesUnderLock() {
        return false;
    }

    @Override
    final void takePages(int count, List<MemorySegment> into) {
        for (int i = 0; i < count; i++) {
            into.add(newPage());
        }
    }

    @Override
    final MemorySegment segment(MemorySegment page) {
        return page;
    }

    /** The arrays go to the garbage collector; their bytes went back in {@link #unadmitPages}. */
    @Override
    final void givePages(List<MemorySegment> pages) {}

    /** A heap page is refused by {@link #reserveBytes} before it is made; what making it throws is no refusal. */
    @Override
    final boolean isRefusal(Throwable failure) {
        return false;
    }
}
