package io.paimongov.runtime.internal.memory;

/**
 * Makes room in a {@link MemoryBudget} when a reservation cannot grow: releases cached pages,
 * makes Paimon flush or spill a writer. Installed once by the runtime when a write opens.
 *
 * <p><b>Who calls:</b> {@link MemoryReservation#grow}, on the thread that asked for memory, which
 * may be any thread; an engine through {@link io.paimongov.spi.SegmentAllocator.MemoryRelief}; and, in a {@link
 * MemoryArbiter shared memory}, another write taking its share back from this one, on that write's
 * thread (to collect what this write owes): a reclaimer must be thread-safe and must not block. The governed write's reclaimer makes Paimon flush only
 * when it gets the write's call lock at once (the writing thread inside a call, or any thread while
 * the write is idle); otherwise it only releases cached pages. <b>Re-entrancy:</b> must not grow any reservation; it may shrink them. <b>May throw:</b>
 * what the flush throws (I/O errors, cancellation).
 */
@FunctionalInterface
public interface Reclaimer {

    Reclaimer NONE = bytes -> 0;

    /**
     * Tries to free at least {@code bytesNeeded} bytes of the budget.
     *
     * @return the bytes actually freed (may be less, or 0 when nothing can be freed)
     */
    long reclaim(long bytesNeeded) throws Exception;
}
