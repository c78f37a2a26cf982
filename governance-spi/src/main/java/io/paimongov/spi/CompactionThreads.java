package io.paimongov.spi;

import java.util.concurrent.ThreadFactory;

/**
 * The threads the engine allows a write to compact with. The runtime builds the compaction
 * executor from {@link #threadFactory()} and never starts more than {@link #maxThreads()} threads.
 *
 * <p>Immutable; thread-safe.
 */
public interface CompactionThreads {

    /** Makes compaction threads (name, daemon flag, context class loader are the engine's call). */
    ThreadFactory threadFactory();

    /** The most compaction threads this write may run at once; at least 1. */
    int maxThreads();

    static CompactionThreads of(ThreadFactory factory, int maxThreads) {
        if (maxThreads < 1) {
            throw new IllegalArgumentException("maxThreads must be at least 1: " + maxThreads);
        }
        return new CompactionThreads() {
            @Override
            public ThreadFactory threadFactory() {
                return factory;
            }

            @Override
            public int maxThreads() {
                return maxThreads;
            }
        };
    }
}
