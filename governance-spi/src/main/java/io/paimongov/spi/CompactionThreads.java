package io.paimongov.spi;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads the engine allows a write to compact with. Contract: docs/spi.md, clauses
 * COMPACT.1-COMPACT.4.
 *
 * <p>Immutable; thread-safe. <b>Who calls:</b> the runtime, while the context is built and when a
 * compaction task needs a thread.
 */
public interface CompactionThreads {

    /** Makes compaction threads; never blocks or refuses (COMPACT.1). */
    ThreadFactory threadFactory();

    /** The most compaction threads this write may run at once; at least 1 (COMPACT.2). */
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

    /**
     * Daemon threads named {@code <namePrefix><n>}, {@code n} counting from 1 per prefix across the
     * process, at most {@code maxThreads} at once: what a provider whose engine sets no thread
     * policy of its own hands out.
     */
    static CompactionThreads daemons(String namePrefix, int maxThreads) {
        AtomicInteger counter = DaemonNames.COUNTERS.computeIfAbsent(namePrefix, p -> new AtomicInteger());
        return of(task -> {
            Thread t = new Thread(task, namePrefix + counter.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, maxThreads);
    }
}

