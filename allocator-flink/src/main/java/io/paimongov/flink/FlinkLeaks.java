package io.paimongov.flink;

import java.util.concurrent.atomic.LongAdder;

/**
 * The process-wide leak metric of the Flink provider: how many write allocators closed while still
 * holding managed memory, and how many bytes they held. Read through {@link
 * FlinkGovernanceProvider#leaksDetected()} and {@link FlinkGovernanceProvider#leakedBytes()}.
 *
 * <p>Thread-safe. Counters only grow; they change when an allocator's close finds a leak, just
 * before it throws.
 */
final class FlinkLeaks {

    private static final LongAdder LEAKS = new LongAdder();
    private static final LongAdder BYTES = new LongAdder();

    private FlinkLeaks() {}

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
