package io.paimongov.spark;

import io.paimongov.spi.GovernanceClosedException;
import io.paimongov.spi.MemoryRelief;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.ResourceExhaustedException.Resource;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.apache.paimon.memory.MemorySegment;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write's memory as a Spark {@link MemoryConsumer} of the task: every page and every byte
 * reservation is granted by the task's {@link TaskMemoryManager} ({@code acquireMemory}) before it
 * is handed out, and given back with {@code freeMemory}, so Spark's execution-memory pool, its
 * spill decisions and its peak execution memory see the whole writer.
 *
 * <p>How it works. Spark's own on-heap pages are {@code long[]}, which Paimon cannot wrap, so a page
 * here is a {@code byte[]} of {@link #pageSize()} bytes that only Spark's accounting knows about. A
 * request that Spark grants only in part is given back at once and refused with {@link
 * ResourceExhaustedException}, which the runtime turns into "no page" for Paimon (spill or flush).
 * The write's own capacity is checked first, so Spark is never asked for more than the budget.
 *
 * <p>Cooperative spill. When another consumer of the task needs memory, Spark calls {@link
 * #spill(long, MemoryConsumer)} on the requesting thread inside the TaskMemoryManager's lock; this
 * asks the {@link MemoryRelief} the runtime bound, which releases cached pages and, when the write
 * is idle, makes Paimon flush or spill (returning pages through {@link #release(Collection)}). It
 * returns the bytes actually given back to Spark. When Spark asks this consumer itself to spill
 * while it is the requester, the request came from inside a page or reservation request of this
 * write, in the middle of a Paimon call: nothing is flushed there (Paimon's writers are not
 * re-entrant) and the refusal that follows makes Paimon spill on its own.
 *
 * <p>Locking. The one lock is the TaskMemoryManager itself, which Spark already holds around every
 * {@code acquireExecutionMemory} and every {@code spill} callback. Counters and every call into
 * Spark run under it, so there is a single lock order (the write's call lock, then the
 * TaskMemoryManager) and a spill callback that releases pages re-enters a lock its thread holds.
 * Page arrays are allocated outside it.
 *
 * <p><b>Thread-safety:</b> thread-safe. <b>May throw:</b> {@link #allocate} throws {@link
 * ResourceExhaustedException}; {@link #allocate} and {@link #tryReserve} throw {@link
 * GovernanceClosedException} once closed; releases and {@link #spill} never throw; {@link #close()}
 * throws {@link IllegalStateException} when memory was still held, after giving it back to Spark.
 */
final class SparkSegmentAllocator extends MemoryConsumer implements SegmentAllocator {

    private static final Logger LOG = LoggerFactory.getLogger(SparkSegmentAllocator.class);

    /** Bytes every open allocator of this process holds from Spark; see {@link SparkGovernanceProvider#heldBytes()}. */
    static final LongAdder HELD = new LongAdder();

    private final TaskMemoryManager tmm;
    private final int pageSize;
    private final long capacity;
    private final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private final LongAdder givenBackBySpill = new LongAdder();
    private long pageBytes;
    private long reserved;
    private long freedTotal;
    private boolean closed;
    private volatile MemoryRelief relief = MemoryRelief.NONE;

    SparkSegmentAllocator(TaskMemoryManager tmm, int pageSize, long capacity) {
        super(tmm, pageSize, MemoryMode.ON_HEAP);
        this.tmm = tmm;
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

    @Override
    public long usedBytes() {
        synchronized (tmm) {
            return pageBytes + reserved;
        }
    }

    @Override
    public void bindRelief(MemoryRelief relief) {
        this.relief = relief == null ? MemoryRelief.NONE : relief;
    }

    @Override
    public void allocate(List<MemorySegment> target, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("pages must be at least 1: " + count);
        }
        long bytes = (long) count * pageSize;
        synchronized (tmm) {
            if (!take(bytes)) {
                throw new ResourceExhaustedException(
                        Resource.MEMORY, "spark task memory pages", bytes, pageBytes + reserved, capacity, List.of());
            }
            pageBytes += bytes;
        }
        List<MemorySegment> made = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                made.add(MemorySegment.wrap(new byte[pageSize]));
            }
        } catch (OutOfMemoryError e) {
            synchronized (tmm) {
                pageBytes -= bytes;
                give(bytes);
            }
            throw e;
        }
        synchronized (tmm) {
            live.addAll(made);
        }
        target.addAll(made);
    }

    @Override
    public void release(Collection<MemorySegment> pages) {
        synchronized (tmm) {
            long bytes = 0;
            for (MemorySegment page : pages) {
                if (live.remove(page)) {
                    bytes += pageSize;
                }
            }
            pageBytes -= bytes;
            give(bytes);
        }
    }

    @Override
    public boolean tryReserve(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        synchronized (tmm) {
            if (!take(bytes)) {
                return false;
            }
            reserved += bytes;
            return true;
        }
    }

    /** Returns up to {@code bytes} of reservations; more than is reserved returns all of it. */
    @Override
    public void release(long bytes) {
        synchronized (tmm) {
            long given = Math.min(Math.max(bytes, 0), reserved);
            reserved -= given;
            give(given);
        }
    }

    /**
     * Asks Spark for {@code bytes} within the capacity, all or nothing. Caller holds the TMM lock.
     * Spark may call {@link #spill} on this thread from inside {@code acquireMemory}.
     */
    private boolean take(long bytes) {
        if (closed) {
            throw new GovernanceClosedException("spark allocator is closed");
        }
        if (bytes == 0) {
            return true;
        }
        if (pageBytes + reserved + bytes > capacity) {
            return false;
        }
        long granted = acquireMemory(bytes);
        if (granted < bytes) {
            freeMemory(granted);
            return false;
        }
        HELD.add(bytes);
        return true;
    }

    /** Gives {@code bytes} back to Spark. Caller holds the TMM lock. */
    private void give(long bytes) {
        if (bytes > 0 && !closed) {
            freeMemory(bytes);
            HELD.add(-bytes);
            freedTotal += bytes;
        }
    }

    /**
     * Spark asks for memory back. Never acquires, never blocks on the writing thread (the relief
     * only flushes when it gets the write's lock at once), never throws: a failing flush counts as
     * what it freed before failing, and the write sees the failure itself at its next call.
     *
     * @return the bytes given back to Spark during this call
     */
    @Override
    public long spill(long size, MemoryConsumer trigger) {
        if (trigger == this) {
            return 0;
        }
        long before;
        synchronized (tmm) {
            if (closed) {
                return 0;
            }
            before = freedTotal;
        }
        try {
            relief.relieve(size);
        } catch (RuntimeException e) {
            LOG.warn("giving {} bytes back to Spark failed; the write will see the failure itself", size, e);
        }
        long freed;
        synchronized (tmm) {
            freed = freedTotal - before;
        }
        givenBackBySpill.add(freed);
        return freed;
    }

    /** Bytes {@link #spill} gave back to Spark so far (exact). */
    long givenBackBySpill() {
        return givenBackBySpill.sum();
    }

    /**
     * Gives every byte still held back to Spark, so the task's memory is clean when Spark checks for
     * leaks. Idempotent. Pages are heap arrays: a Paimon write that still holds one keeps a valid
     * array, only Spark's accounting is returned.
     *
     * @throws IllegalStateException when pages or reservations were still held, after freeing them
     */
    void close() {
        long leftPages;
        long leftReserved;
        synchronized (tmm) {
            if (closed) {
                return;
            }
            leftPages = pageBytes;
            leftReserved = reserved;
            give(pageBytes + reserved);
            pageBytes = 0;
            reserved = 0;
            live.clear();
            closed = true;
        }
        if (leftPages + leftReserved > 0) {
            throw new IllegalStateException(
                    "spark allocator closed with " + (leftPages + leftReserved) + " bytes still held (" + leftPages / pageSize
                            + " pages, " + leftReserved + " reserved bytes); they were given back to the task's memory manager");
        }
    }

    /** Whether {@link #close()} ran. */
    boolean isClosed() {
        synchronized (tmm) {
            return closed;
        }
    }
}
