package io.paimongov.offheap;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.ResourceExhaustedException.Resource;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.paimon.memory.MemorySegment;

/**
 * Pages and byte reservations of one write, both taken from one Arrow child allocator whose limit
 * is the write's budget, so Arrow's own counters ({@link BufferAllocator#getAllocatedMemory()} of
 * the child and of every ancestor) show the whole writer: live pages plus reservations, exactly.
 *
 * <p>How it works. A page is an {@link ArrowBuf} of exactly {@link #pageSize()} bytes, wrapped
 * zero-copy as a Paimon segment; an identity map from segment to buffer lets {@link
 * #release(Collection)} close the right buffer and ignore a foreign or already released segment.
 * A reservation allocates no memory: it is Arrow accounting only, taken with {@link
 * AllocationReservation#reserve(long)} (the accountant's all-or-nothing step, which does not round)
 * and returned with {@link BufferAllocator#releaseBytes(long)}, which can return any part, so
 * {@link #release(long)} is exact whatever chunk sizes the runtime returns. ({@link
 * AllocationReservation#add(long)} would round every request up to a power of two, and real
 * buffers per reservation would hold direct memory that nobody uses.) The reservation handle is
 * closed at once: its own size stays 0, so closing it gives nothing back.
 *
 * <p>Every request first checks the child's headroom (its limit and every ancestor's) and only then
 * asks Arrow. Arrow counts a request up the whole chain before it can refuse and unwinds it
 * afterwards, so a refused request would briefly show in the engine's counters; the check keeps
 * that from happening while this write is the only user of its parent. Requests still race with
 * other users of a shared parent: Arrow's {@link OutOfMemoryException} then becomes {@link
 * ResourceExhaustedException}, and buffers already taken for the call are closed first.
 *
 * <p><b>Thread-safety:</b> thread-safe; one lock serialises every change of this write's Arrow
 * accounting (no allocator call here calls back into the runtime). {@link #usedBytes()} reads
 * Arrow's counter without it. <b>May throw:</b> {@link #allocate} throws {@link
 * ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases never throw; {@link #close()} throws {@link
 * IllegalStateException} on a leak, after releasing it.
 */
final class ArrowSegmentAllocator implements SegmentAllocator {

    private final BufferAllocator arrow;
    private final int pageSize;
    private final long capacity;
    private final Map<MemorySegment, ArrowBuf> pages = new IdentityHashMap<>();
    private long reserved;
    private boolean closed;
    private volatile String writeName;

    /** Takes ownership of {@code arrow}, the write's child allocator, and closes it in {@link #close()}. */
    ArrowSegmentAllocator(BufferAllocator arrow, int pageSize, long capacity) {
        this.arrow = arrow;
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

    /** Arrow's own counter of the write's child allocator: live pages plus reservations. */
    @Override
    public long usedBytes() {
        return arrow.getAllocatedMemory();
    }

    @Override
    public void allocate(List<MemorySegment> target, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("pages must be at least 1: " + count);
        }
        long bytes = (long) count * pageSize;
        Map<MemorySegment, ArrowBuf> made = new IdentityHashMap<>(count);
        synchronized (this) {
            ensureOpen();
            if (arrow.getHeadroom() < bytes) {
                throw exhausted(bytes, null);
            }
            try {
                for (int i = 0; i < count; i++) {
                    ArrowBuf buf = arrow.buffer(pageSize);
                    made.put(MemorySegment.wrapOffHeapMemory(buf.nioBuffer(0, pageSize)), buf);
                }
            } catch (OutOfMemoryException e) {
                made.values().forEach(ArrowBuf::close);
                throw exhausted(bytes, e);
            } catch (RuntimeException | Error e) {
                made.values().forEach(ArrowBuf::close);
                throw e;
            }
            pages.putAll(made);
        }
        target.addAll(made.keySet());
    }

    private ResourceExhaustedException exhausted(long bytes, OutOfMemoryException cause) {
        ResourceExhaustedException e =
                new ResourceExhaustedException(Resource.MEMORY, "offheap pages", bytes, usedBytes(), capacity, List.of());
        if (cause != null) {
            // Arrow's message says which allocator of the chain refused and what each one held.
            e.initCause(cause);
        }
        return e;
    }

    @Override
    public void release(Collection<MemorySegment> segments) {
        List<ArrowBuf> freed = new ArrayList<>(segments.size());
        synchronized (this) {
            for (MemorySegment segment : segments) {
                ArrowBuf buf = pages.remove(segment);
                if (buf != null) {
                    freed.add(buf);
                }
            }
            freed.forEach(ArrowBuf::close);
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
            if (arrow.getHeadroom() < bytes) {
                return false;
            }
            boolean granted;
            try (AllocationReservation handle = arrow.newReservation()) {
                granted = handle.reserve(bytes);
            }
            if (granted) {
                reserved += bytes;
            }
            return granted;
        }
    }

    /** Returns up to {@code bytes} of reservations; more than is reserved returns all of it. */
    @Override
    public synchronized void release(long bytes) {
        long given = Math.min(Math.max(bytes, 0), reserved);
        if (given > 0) {
            reserved -= given;
            arrow.releaseBytes(given);
        }
    }

    /** The runtime names the write only when it opens; a leak message uses the name. */
    void nameWrite(String name) {
        this.writeName = name;
    }

    private void ensureOpen() {
        if (closed) {
            throw new GovernanceClosedException("offheap allocator is closed");
        }
    }

    /**
     * Releases every page and reservation still held, then closes the Arrow child allocator.
     * Idempotent.
     *
     * @throws IllegalStateException when pages or reservations were still held (a leak; they are
     *     released first, so the engine's allocator gets them back) or when Arrow's own check at
     *     close still finds memory; the leak is counted in {@link OffheapGovernanceProvider#leaksDetected()}
     */
    void close() {
        List<ArrowBuf> leftPages;
        long leftReserved;
        long held;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            held = arrow.getAllocatedMemory();
            leftPages = new ArrayList<>(pages.values());
            pages.clear();
            leftReserved = reserved;
            reserved = 0;
            leftPages.forEach(ArrowBuf::close);
            if (leftReserved > 0) {
                arrow.releaseBytes(leftReserved);
            }
        }
        IllegalStateException arrowLeak = null;
        try {
            arrow.close();
        } catch (IllegalStateException e) {
            arrowLeak = e;
        }
        if (held == 0 && arrowLeak == null) {
            return;
        }
        OffheapGovernanceProvider.LEAKS.record(held);
        throw new IllegalStateException(leakMessage(held, leftPages.size(), leftReserved, arrowLeak), arrowLeak);
    }

    private String leakMessage(long held, int leftPages, long leftReserved, IllegalStateException arrowLeak) {
        String name = writeName;
        String write = name == null ? "a write that never opened a resource context" : "write '" + name + "'";
        String message =
                "offheap allocator of " + write + " (Arrow allocator '" + arrow.getName() + "') closed with " + held
                        + " bytes still held (" + leftPages + " pages, " + leftReserved + " reserved bytes)";
        if (arrowLeak == null) {
            return message + "; they were released before the Arrow allocator closed";
        }
        String arrowSays = arrowLeak.getMessage() == null ? "" : arrowLeak.getMessage().lines().findFirst().orElse("");
        return message + "; Arrow still reports memory it could not get back: " + arrowSays;
    }
}
