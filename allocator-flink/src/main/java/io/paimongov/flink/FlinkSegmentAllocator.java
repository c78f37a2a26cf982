package io.paimongov.flink;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.ResourceExhaustedException.Resource;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.memory.MemoryAllocationException;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.MemoryReservationException;
import org.apache.paimon.memory.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pages and byte reservations of one write, both taken from a Flink {@link MemoryManager} under an
 * owner object of this write alone, so Flink's own accounting ({@link
 * MemoryManager#availableMemory()}) shows the whole writer: live pages plus reservations, exactly.
 *
 * <p>How it works. A page is a Flink off-heap segment from {@link MemoryManager#allocatePages},
 * wrapped zero-copy as a Paimon segment over {@code getOffHeapBuffer()}; an identity map from Paimon
 * segment to Flink segment lets {@link #release(Collection)} give back the right one and ignore a
 * foreign or already released segment. A reservation is {@link MemoryManager#reserveMemory} and is
 * given back with {@link MemoryManager#releaseMemory}, which takes any part. Flink refuses with
 * {@link MemoryAllocationException}, {@link MemoryReservationException} or, for more pages than the
 * manager has at all, {@link IllegalArgumentException}; Flink checks and takes the whole request in
 * one compare-and-set before it allocates, so a refusal changes nothing. Requests are also held to
 * {@link #capacityBytes()}, the write's share, which may be less than what the manager has free.
 *
 * <p>Flink frees a segment's native memory when it is released, and a Paimon segment over freed
 * memory reads garbage silently: the runtime returns pages in use only after Paimon's write is
 * closed (see {@code GovernedSegmentPool}), and {@link #close()} frees what is left with {@link
 * MemoryManager#releaseAll(Object)} and {@link MemoryManager#releaseAllMemory(Object)} for this
 * write's owner (Flink's {@code releaseAll} alone does not undo reservations).
 *
 * <p><b>Thread-safety:</b> thread-safe; one lock serialises every change of this write's
 * accounting. No call here calls back into the runtime. <b>May throw:</b> {@link #allocate} throws
 * {@link ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases never throw; {@link #close()} throws {@link
 * IllegalStateException} on a leak, after releasing it.
 */
final class FlinkSegmentAllocator implements SegmentAllocator {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkSegmentAllocator.class);

    private final MemoryManager manager;
    private final WriteOwner owner;
    private final int pageSize;
    private final long capacity;
    private final Map<MemorySegment, org.apache.flink.core.memory.MemorySegment> pages = new IdentityHashMap<>();
    private long reserved;
    private volatile long used;
    private boolean closed;

    FlinkSegmentAllocator(MemoryManager manager, WriteOwner owner, long capacity) {
        this.manager = manager;
        this.owner = owner;
        this.pageSize = manager.getPageSize();
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

    /** Live pages plus reservations this write holds in the manager. */
    @Override
    public long usedBytes() {
        return used;
    }

    @Override
    public void allocate(List<MemorySegment> target, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("pages must be at least 1: " + count);
        }
        long bytes = (long) count * pageSize;
        List<org.apache.flink.core.memory.MemorySegment> taken = new ArrayList<>(count);
        List<MemorySegment> wrapped = new ArrayList<>(count);
        synchronized (this) {
            ensureOpen();
            if (used + bytes > capacity) {
                throw exhausted(bytes, null);
            }
            try {
                manager.allocatePages(owner, taken, count);
            } catch (MemoryAllocationException | IllegalArgumentException e) {
                manager.release(taken);
                throw exhausted(bytes, e);
            }
            for (org.apache.flink.core.memory.MemorySegment flinkPage : taken) {
                MemorySegment page = MemorySegment.wrapOffHeapMemory(flinkPage.getOffHeapBuffer());
                pages.put(page, flinkPage);
                wrapped.add(page);
            }
            used += bytes;
        }
        target.addAll(wrapped);
    }

    private ResourceExhaustedException exhausted(long bytes, Exception cause) {
        ResourceExhaustedException e =
                new ResourceExhaustedException(Resource.MEMORY, "flink managed memory pages", bytes, used, capacity, List.of());
        if (cause != null) {
            // Flink's message says how much the manager had and how much was asked.
            e.initCause(cause);
        }
        return e;
    }

    @Override
    public void release(Collection<MemorySegment> segments) {
        List<org.apache.flink.core.memory.MemorySegment> freed = new ArrayList<>(segments.size());
        synchronized (this) {
            for (MemorySegment segment : segments) {
                org.apache.flink.core.memory.MemorySegment flinkPage = pages.remove(segment);
                if (flinkPage != null) {
                    freed.add(flinkPage);
                }
            }
            used -= (long) freed.size() * pageSize;
            releaseQuietly(freed);
        }
    }

    /** Infallible: a manager already shut down (its slot is gone) has freed the memory itself. */
    private void releaseQuietly(List<org.apache.flink.core.memory.MemorySegment> freed) {
        try {
            manager.release(freed);
        } catch (RuntimeException e) {
            LOG.warn("Flink's memory manager refused to take back {} pages of {}", freed.size(), owner, e);
        }
    }

    @Override
    public boolean tryReserve(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        synchronized (this) {
            ensureOpen();
            if (bytes == 0) {
                return true;
            }
            if (used + bytes > capacity) {
                return false;
            }
            try {
                manager.reserveMemory(owner, bytes);
            } catch (MemoryReservationException e) {
                return false;
            }
            reserved += bytes;
            used += bytes;
            return true;
        }
    }

    /** Returns up to {@code bytes} of reservations; more than is reserved returns all of it. */
    @Override
    public synchronized void release(long bytes) {
        long given = Math.min(Math.max(bytes, 0), reserved);
        if (given == 0) {
            return;
        }
        reserved -= given;
        used -= given;
        try {
            manager.releaseMemory(owner, given);
        } catch (RuntimeException e) {
            LOG.warn("Flink's memory manager refused to take back {} reserved bytes of {}", given, owner, e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new GovernanceClosedException("flink allocator is closed");
        }
    }

    /**
     * Gives every page and reservation of this write's owner back to the manager. Idempotent.
     *
     * @throws IllegalStateException when pages or reservations were still held (a leak; they are
     *     released first, so the slot gets them back); counted in {@link FlinkGovernanceProvider#leaksDetected()}
     */
    void close() {
        long held;
        int leftPages;
        long leftReserved;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            held = used;
            leftPages = pages.size();
            leftReserved = reserved;
            pages.clear();
            reserved = 0;
            used = 0;
            // The owner is this write's own object: releaseAll(Object) takes any object, and the
            // operator's or task's owner would free memory other consumers of the slot hold.
            try {
                manager.releaseAll(owner);
                manager.releaseAllMemory(owner);
            } catch (RuntimeException e) {
                LOG.warn("Flink's memory manager refused to take back the memory of {}", owner, e);
            }
        }
        if (held == 0) {
            return;
        }
        FlinkGovernanceProvider.LEAKS.record(held);
        throw new IllegalStateException(
                "flink allocator of " + owner + " closed with " + held + " bytes still held (" + leftPages + " pages, "
                        + leftReserved + " reserved bytes); they were given back to Flink's memory manager");
    }

    /**
     * The owner under which one write's pages and reservations are registered in the manager; its
     * name shows in Flink's own leak messages.
     */
    static final class WriteOwner {
        private final String name;

        WriteOwner(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
