package io.paimongov.heap;

import io.paimongov.allocator.support.BoundedCounters;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One heap budget shared by many writes: the engine-level memory of a plain Java service. Put it
 * in the {@code EngineEnvironment} under {@code HeapMemoryPool.class}; every write the heap
 * provider opens with that environment takes its pages and reservations from it as well as from
 * its own {@code governance.memory.budget}, so the writes together never pass the pool.
 *
 * <p>Thread-safe (one bounded compare-and-set counter, {@code BoundedCounters}). {@link #usedBytes()} is the engine's own counter
 * that the TCK reads.
 */
public final class HeapMemoryPool {

    private final long capacity;
    private final AtomicLong used = new AtomicLong();

    public HeapMemoryPool(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("capacityBytes must be positive: " + capacityBytes);
        }
        this.capacity = capacityBytes;
    }

    public long capacityBytes() {
        return capacity;
    }

    /** Bytes taken by all writes now. */
    public long usedBytes() {
        return used.get();
    }

    boolean tryTake(long bytes) {
        return BoundedCounters.tryAdd(used, bytes, capacity) >= 0;
    }

    void give(long bytes) {
        used.addAndGet(-bytes);
    }
}
