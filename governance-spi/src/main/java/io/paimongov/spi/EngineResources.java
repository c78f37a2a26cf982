package io.paimongov.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's resources for one logical write, one accessor per concern. Contract: docs/spi.md,
 * clauses RES.1-RES.5.
 *
 * <p><b>Thread-safety:</b> thread-safe, each accessor returns the same object every time (RES.1).
 * <b>Who calls:</b> the runtime, which owns it and closes it once (RES.2). <b>May throw:</b>
 * {@link #close()}, {@link IllegalStateException} on a leak, after releasing what it can (RES.4);
 * closing twice is harmless (RES.3). Whatever the write registered with the engine's objects is
 * gone once it closed (RES.5).
 */
public interface EngineResources extends AutoCloseable {

    /** Pages and byte reservations against the engine's memory budget. */
    SegmentAllocator memory();

    /** Where spill files may go and how many bytes they may take. */
    SpillLocations spill();

    /** The engine's cancel state for this write. */
    CancellationSignal cancellation();

    /** Where the write's metrics go. */
    MetricsReporter metrics();

    /** The threads the engine allows for compaction. */
    CompactionThreads compaction();

    @Override
    void close();

    /**
     * The engine's temp directories for spill files and the byte budget they may take. Contract:
     * docs/spi.md, clauses SPILL.1-SPILL.3 and SPILL.8 (spill
     * only there); what the runtime does with them, SPILL.4-SPILL.7.
     *
     * <p>Immutable values; thread-safe. <b>Who calls:</b> the runtime, on the opening thread. {@link
     * #of} builds one from plain values.
     */
    interface SpillLocations {

        /** Directories spill scopes may be created in; at least one, each absolute (SPILL.1). */
        List<Path> roots();

        /** The most bytes this write's spill files may take on disk at once (SPILL.2). */
        long maxBytes();

        static SpillLocations of(List<Path> roots, long maxBytes) {
            if (roots.isEmpty()) {
                throw new IllegalArgumentException("spill roots must not be empty");
            }
            if (maxBytes <= 0) {
                throw new IllegalArgumentException("spill max bytes must be positive: " + maxBytes);
            }
            List<Path> absolute = roots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
            return new SpillLocations() {
                @Override
                public List<Path> roots() {
                    return absolute;
                }

                @Override
                public long maxBytes() {
                    return maxBytes;
                }
            };
        }
    }

    /**
     * The threads the engine allows a write to compact with. Contract: docs/spi.md, clauses
     * COMPACT.1-COMPACT.4.
     *
     * <p>Immutable; thread-safe. <b>Who calls:</b> the runtime, while the context is built and when a
     * compaction task needs a thread.
     */
    interface CompactionThreads {

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
}
