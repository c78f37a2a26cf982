package io.paimongov.offheap;

import java.util.concurrent.atomic.LongAdder;

/**
 * The process-wide leak metric of the off-heap provider: how many write allocators closed while
 * still holding memory, and how many bytes they held. Read through {@link
 * OffheapGovernanceProvider#leaksDetected()} and {@link OffheapGovernanceProvider#leakedBytes()}.
 *
 * <p>Thread-safe. Counters only grow; they change when an allocator's close finds a leak, just
 * before it throws.
 */
final class OffheapLeaks {

    private static final LongAdder LEAKS = new LongAdder();
    private static final LongAdder BYTES = new LongAdder();

    private OffheapLeaks() {}

    static void record(long bytes) {
        LEAKS.increment();
        BYTES.add(bytes);
    }

    static long count() {
        return LEAKS.sum();
    }

    static long bytes() {
        return BYTES.sum();
    }
}
