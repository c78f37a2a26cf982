package io.paimongov.heap;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.ResourceExhaustedException.Resource;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.paimon.memory.MemorySegment;

/**
 * {@code byte[]} pages and byte reservations from a fixed budget. Every live page is tracked by
 * identity, so releasing a foreign page or one twice changes nothing (release is infallible), and
 * {@link #close()} can tell a leak from a clean end. Releasing more bytes than are reserved returns
 * the reservation to zero.
 *
 * <p>Thread-safe: one lock guards the counters and the live set; allocation of the arrays happens
 * outside it.
 */
final class HeapSegmentAllocator implements SegmentAllocator {

    private final int pageSize;
    private final long capacity;
    private final HeapMemoryPool pool;
    private final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private long pageBytes;
    private long reserved;
    private boolean closed;

    /** A private budget: the pool is this allocator alone. */
    HeapSegmentAllocator(int pageSize, long capacity) {
        this(pageSize, capacity, new HeapMemoryPool(capacity));
    }

    /** A budget of {@code capacity} inside a {@code pool} shared with other writes. */
    HeapSegmentAllocator(int pageSize, long capacity, HeapMemoryPool pool) {
        this.pageSize = pageSize;
        this.capacity = capacity;
        this.pool = pool;
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
    public synchronized long usedBytes() {
        return pageBytes + reserved;
    }

    @Override
    public void allocate(List<MemorySegment> target, int pages) {
        if (pages < 1) {
            throw new IllegalArgumentException("pages must be at least 1: " + pages);
        }
        long bytes = (long) pages * pageSize;
        synchronized (this) {
            ensureOpen();
            if (usedBytes() + bytes > capacity || !pool.tryTake(bytes)) {
                throw new ResourceExhaustedException(
                        Resource.MEMORY, "heap pages", bytes, usedBytes(), capacity, List.of());
            }
            pageBytes += bytes;
        }
        List<MemorySegment> made = new ArrayList<>(pages);
        try {
            for (int i = 0; i < pages; i++) {
                made.add(MemorySegment.wrap(new byte[pageSize]));
            }
        } catch (OutOfMemoryError e) {
            synchronized (this) {
                pageBytes -= bytes;
                pool.give(bytes);
            }
            throw e;
        }
        synchronized (this) {
            live.addAll(made);
        }
        target.addAll(made);
    }

    @Override
    public void release(Collection<MemorySegment> pages) {
        synchronized (this) {
            for (MemorySegment page : pages) {
                if (live.remove(page)) {
                    pageBytes -= pageSize;
                    pool.give(pageSize);
                }
            }
        }
    }

    @Override
    public synchronized boolean tryReserve(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        ensureOpen();
        if (usedBytes() + bytes > capacity || !pool.tryTake(bytes)) {
            return false;
        }
        reserved += bytes;
        return true;
    }

    @Override
    public synchronized void release(long bytes) {
        long given = Math.min(bytes, reserved);
        reserved -= given;
        pool.give(given);
    }

    private void ensureOpen() {
        if (closed) {
            throw new GovernanceClosedException("heap allocator is closed");
        }
    }

    /**
     * Closes the allocator. Idempotent.
     *
     * @throws IllegalStateException when pages or reservations are still held (a leak); they are
     *     dropped first
     */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long leaked = usedBytes();
        int pages = live.size();
        live.clear();
        pool.give(leaked);
        pageBytes = 0;
        reserved = 0;
        if (leaked != 0) {
            throw new IllegalStateException(
                    "heap allocator closed with " + leaked + " bytes still held (" + pages + " pages)");
        }
    }
}
