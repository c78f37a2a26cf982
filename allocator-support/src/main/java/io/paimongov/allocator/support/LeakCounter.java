package io.paimongov.allocator.support;

import java.util.concurrent.atomic.LongAdder;

/**
 * A provider's leak metric: how many of its write allocators closed while still holding engine
 * memory, and how many bytes they held. A provider keeps one per process (a static field) and
 * records into it when an allocator's close finds memory still held, just before that close throws
 * (docs/spi.md, clause RES.4): a {@link PagedAllocator} given one does that itself.
 *
 * <p><b>Thread-safety:</b> thread-safe. Counters only grow.
 */
public final class LeakCounter {

    private final LongAdder leaks = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    /** One allocator closed holding {@code heldBytes}. */
    public void record(long heldBytes) {
        leaks.increment();
        bytes.add(heldBytes);
    }

    /** Leaking closes recorded so far (exact). */
    public long count() {
        return leaks.sum();
    }

    /** Bytes the leaking allocators held when they closed (exact). */
    public long bytes() {
        return bytes.sum();
    }
}
