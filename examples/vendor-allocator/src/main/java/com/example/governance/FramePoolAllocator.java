package com.example.governance;

import com.example.engine.FramePool;
import io.paimongov.allocator.support.EnginePagedAllocator;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * One write's pages and reservations, taken from the engine's {@link FramePool}. The pool counts
 * a frame when it lends it and uncounts it when it takes it back, so this is an {@link
 * EnginePagedAllocator}: the base class keeps the write's capacity, the live pages, the
 * all-or-nothing rule and the leak check at close; this class only says how to ask the engine.
 *
 * <p>Thread-safe, as its base class is.
 */
final class FramePoolAllocator extends EnginePagedAllocator<byte[]> {

    private final FramePool pool;

    FramePoolAllocator(FramePool pool, int pageSize, long capacity) {
        super(FramePoolProvider.NAME, "frame pool pages", pageSize, capacity, null);
        this.pool = pool;
    }

    @Override
    protected void takePages(int count, List<byte[]> into) {
        for (int i = 0; i < count; i++) {
            byte[] frame = pool.lend(pageSize());
            if (frame == null) {
                throw new PoolRefusal(pageSize(), pool.usedBytes(), pool.capacityBytes());
            }
            into.add(frame);
        }
    }

    @Override
    protected MemorySegment segment(byte[] page) {
        return MemorySegment.wrap(page);
    }

    @Override
    protected void givePages(List<byte[]> pages) {
        pages.forEach(pool::giveBack);
    }

    @Override
    protected boolean isRefusal(Throwable failure) {
        return failure instanceof PoolRefusal;
    }

    @Override
    protected boolean reserveBytes(long bytes) {
        return pool.reserve(bytes);
    }

    @Override
    protected void unreserveBytes(long bytes) {
        pool.release(bytes);
    }

    /** The pool had no frame left; the base class turns it into the SPI's ResourceExhaustedException. */
    private static final class PoolRefusal extends RuntimeException {
        PoolRefusal(int frame, long used, long capacity) {
            super("the frame pool cannot lend " + frame + " bytes: " + used + " of " + capacity + " are lent");
        }
    }
}
