package io.paimongov.spi;

import java.util.Collection;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * The engine's memory manager as the writer sees it: fixed-size pages for Paimon's write buffer
 * and byte reservations for memory the writer uses outside pages (format encoders, spill I/O
 * buffers, compaction). Both count against one engine budget of {@link #capacityBytes()}.
 *
 * <p><b>Contract</b> (checked by the TCK, rules MEM-*):
 *
 * <ul>
 *   <li>{@link #allocate} and {@link #tryReserve} either completely succeed or completely fail; if
 *       they fail, no changes are made to accounting.
 *   <li>Pages are {@link #pageSize()} bytes, writable, and never alias each other while live.
 *   <li>{@link #release(Collection)} and {@link #release(long)} never throw and never block on
 *       another thread that may wait on this allocator.
 *   <li>{@link #usedBytes()} is what the engine sees as taken: live pages plus reservations.
 * </ul>
 *
 * <p><b>Thread-safety:</b> all methods may be called from any thread concurrently. <b>Who
 * calls:</b> the runtime only: the writing thread (pages, reservations), and the threads that open,
 * cancel or close a write (reservations and releases). The only lock of the runtime's held during
 * such a call is the write's call lock, which the writing thread holds for the length of a write
 * call and a cleanup holds while it releases; nothing the runtime does on another thread waits for
 * it except a later call of the same write. <b>Re-entrancy:</b> an allocator must not call back
 * into the write from inside these methods.
 */
public interface SegmentAllocator {

    /** Page size in bytes: a power of two, constant for the allocator's life. */
    int pageSize();

    /** The engine budget this allocator hands out, in bytes. */
    long capacityBytes();

    /** Bytes currently taken from the engine (live pages plus reservations). */
    long usedBytes();

    /**
     * Allocates {@code pages} pages and appends them to {@code target}, all or nothing.
     *
     * @param target where the pages go; unchanged when this throws
     * @param pages how many, at least 1
     * @throws ResourceExhaustedException when the engine cannot give all of them; accounting is
     *     unchanged
     */
    void allocate(List<MemorySegment> target, int pages);

    /**
     * Returns pages that {@link #allocate} handed out. Infallible: never throws. The caller must
     * not touch the pages afterwards.
     */
    void release(Collection<MemorySegment> pages);

    /**
     * Reserves {@code bytes} of non-page memory.
     *
     * @return true when reserved; false leaves accounting unchanged
     */
    boolean tryReserve(long bytes);

    /** Returns bytes that {@link #tryReserve} reserved. Infallible: never throws. */
    void release(long bytes);

    /**
     * Receives, once when the write opens, how to ask the write for memory back; an allocator over
     * an engine that spills cooperatively keeps it and calls it from its spill callback. The
     * default ignores it.
     */
    default void bindRelief(MemoryRelief relief) {}
}
