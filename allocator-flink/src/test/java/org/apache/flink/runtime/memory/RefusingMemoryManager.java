package org.apache.flink.runtime.memory;

import java.util.Collection;
import org.apache.flink.core.memory.MemorySegment;

/**
 * A real Flink {@link MemoryManager} (its own accounting, its own pages) whose release calls can be
 * told to refuse, as a manager does whose task is being torn down: a refused call throws before it
 * changes anything. In Flink's package because the manager's constructor is package-private.
 */
public final class RefusingMemoryManager extends MemoryManager {

    /** How many of the next {@code release(Collection)} calls throw; -1 for all. */
    public volatile int refusePageReleases;
    public volatile boolean refuseReleaseMemory;
    public volatile boolean refuseReleaseAll;

    public RefusingMemoryManager(long memorySize, int pageSize) {
        super(memorySize, pageSize);
    }

    @Override
    public void release(Collection<MemorySegment> segments) {
        if (refusePageReleases != 0) {
            if (refusePageReleases > 0) {
                refusePageReleases--;
            }
            throw new IllegalStateException("injected: the memory manager refused to take pages back");
        }
        super.release(segments);
    }

    @Override
    public void releaseMemory(Object owner, long size) {
        if (refuseReleaseMemory) {
            throw new IllegalStateException("injected: the memory manager refused to take reserved bytes back");
        }
        super.releaseMemory(owner, size);
    }

    @Override
    public void releaseAll(Object owner) {
        if (refuseReleaseAll) {
            throw new IllegalStateException("injected: the memory manager refused releaseAll");
        }
        super.releaseAll(owner);
    }

    /** What the manager counts as taken, pages and reservations of every owner. */
    public long usedBytes() {
        return getMemorySize() - availableMemory();
    }
}
