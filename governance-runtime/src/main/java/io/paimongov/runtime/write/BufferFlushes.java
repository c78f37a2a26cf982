package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.GovernedSegmentPool;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemoryPoolFactory;

/**
 * Frees budget held by the write's buffers: cached pages first, then Paimon flushes or spills the
 * write buffers that hold most pages, largest first, as Paimon's own writers make room for a new
 * one.
 *
 * <p><b>Thread-safety:</b> {@link #reclaim} runs on any thread but makes Paimon flush only while it
 * holds the write's call lock without waiting for it (the writing thread inside a call, or any thread
 * while the write is idle), since Paimon's writers are not thread-safe. {@link #flushLargestOnce}
 * runs on the writing thread inside a write call.
 */
final class BufferFlushes {

    private final GovernedSegmentPool pool;
    private final MemoryPoolFactory owners;
    private final ReentrantLock callLock;

    BufferFlushes(GovernedSegmentPool pool, MemoryPoolFactory owners, ReentrantLock callLock) {
        this.pool = pool;
        this.owners = owners;
        this.callLock = callLock;
    }

    /**
     * Makes room: cached pages first, then, when the write's call lock can be had at once, Paimon
     * flushes or spills the writers holding most memory, largest first.
     *
     * @return the bytes freed
     */
    long reclaim(long needed) throws Exception {
        long freed = pool.releaseCached();
        if (freed >= needed || !callLock.tryLock()) {
            return freed;
        }
        try {
            return freed + flushLargest(needed - freed);
        } finally {
            callLock.unlock();
        }
    }

    private long flushLargest(long needed) throws Exception {
        long freed = 0;
        while (freed < needed) {
            MemoryOwner largest = largestOwner();
            if (largest == null) {
                break;
            }
            long before = largest.memoryOccupancy();
            largest.flushMemory();
            freed += pool.releaseCached();
            if (largest.memoryOccupancy() >= before) {
                break;
            }
        }
        return freed;
    }

    /** Spills or flushes the open writer that holds most pages; whether it gave any back to the pool. */
    boolean flushLargestOnce() throws Exception {
        MemoryOwner largest = largestOwner();
        if (largest == null) {
            return false;
        }
        long before = largest.memoryOccupancy();
        largest.flushMemory();
        return largest.memoryOccupancy() < before;
    }

    private MemoryOwner largestOwner() {
        MemoryOwner largest = null;
        for (MemoryOwner owner : owners.memoryOwners()) {
            if (owner != null && owner.memoryOccupancy() > 0
                    && (largest == null || owner.memoryOccupancy() > largest.memoryOccupancy())) {
                largest = owner;
            }
        }
        return largest;
    }
}
