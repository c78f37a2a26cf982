package io.paimongov.runtime.internal.metrics;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The live counters of one write. The runtime's parts record into it from any thread; {@link
 * #snapshot()} builds an immutable {@link MetricsSnapshot} from any thread.
 *
 * <p>Memory and spill numbers are read from their owners (the budget, the pool, the I/O manager)
 * through suppliers, so there is one source of truth for each. <b>Thread-safety:</b> thread-safe;
 * counters are {@link LongAdder}s.
 */
public final class WriterMetrics {

    /** Where the memory and spill numbers come from; all suppliers must be thread-safe. */
    public record Sources(
            LongSupplier budgetBytes,
            LongSupplier reservedBytes,
            LongSupplier peakReservedBytes,
            LongSupplier shareBytes,
            LongSupplier borrowedBytes,
            LongSupplier peakBorrowedBytes,
            LongSupplier reclaimedFromCount,
            LongSupplier reclaimedFromBytes,
            LongSupplier reclaimedByCount,
            LongSupplier reclaimedByBytes,
            LongSupplier pageBytes,
            LongSupplier resourceExhaustedCount,
            LongSupplier spillCount,
            LongSupplier spillFiles,
            LongSupplier spillBytes,
            LongSupplier spillFilesLeft,
            LongSupplier bufferFullCount,
            LongSupplier compactionsQueued,
            LongSupplier compactionsRunning,
            LongSupplier compactionThreads,
            LongSupplier compactionPeakRunning,
            LongSupplier compactionBucketOverlaps,
            LongSupplier compactionInputBytes,
            LongSupplier compactionOutputBytes,
            LongSupplier compactionAdmissionWaits,
            LongSupplier compactionFirstStartNanos) {}

    private final Sources sources;
    /**
     * Written by one thread at a time, the writing thread inside a write call (under the write's
     * call lock, which orders successive writers): a read and a release store per row, not the
     * atomic add of a counter several threads write, which was 9% of an 8-writer Avro append write's
     * time in a profile. Read from any thread.
     */
    private final AtomicLong inputRows = new AtomicLong();
    private final AtomicLong inputBytes = new AtomicLong();
    private final AtomicLong outputFiles = new AtomicLong();
    private final AtomicLong outputBytes = new AtomicLong();
    private final LongAdder flushCount = new LongAdder();
    private final LongAdder flushNanos = new LongAdder();
    private final LongAdder compactionCount = new LongAdder();
    private final LongAdder compactionNanos = new LongAdder();
    private final LongAdder prepareCommitNanos = new LongAdder();
    private final LongAdder prepareCommitCompactionWaitNanos = new LongAdder();
    private final AtomicLong cancellations = new AtomicLong();
    private final AtomicLong writersOpen = new AtomicLong();
    private final AtomicLong peakWritersOpen = new AtomicLong();
    private final LongAdder writersClosedEarly = new LongAdder();
    private final LongAdder filesRolledEarly = new LongAdder();
    private final LongAdder sortedRows = new LongAdder();
    private final LongAdder cleanupFailures = new LongAdder();
    private volatile Map<String, Object> paimon = Map.of();

    public WriterMetrics(Sources sources) {
        this.sources = sources;
    }

    /** Counts rows passed to {@code write}; called only by the writing thread inside a write call (see the fields). */
    public void recordInput(long rows, long bytes) {
        inputRows.lazySet(inputRows.get() + rows);
        inputBytes.lazySet(inputBytes.get() + bytes);
    }

    /** Adds output data files seen in prepared commit messages. */
    public void recordOutput(long files, long bytes) {
        outputFiles.addAndGet(files);
        outputBytes.addAndGet(bytes);
    }

    public void recordFlush(long nanos) {
        flushCount.increment();
        flushNanos.add(nanos);
    }

    public void recordCompaction(long nanos) {
        compactionCount.increment();
        compactionNanos.add(nanos);
    }

    /**
     * One prepareCommit took {@code nanos}, of which {@code compactionWaitNanos} waiting for
     * compaction tasks to end.
     */
    public void recordPrepareCommit(long nanos, long compactionWaitNanos) {
        prepareCommitNanos.add(nanos);
        prepareCommitCompactionWaitNanos.add(compactionWaitNanos);
    }

    public void recordCancelled() {
        cancellations.set(1);
    }

    /** Sets the writers open now (and raises the peak). */
    public void recordWritersOpen(long open) {
        writersOpen.set(open);
        peakWritersOpen.accumulateAndGet(open, Math::max);
    }

    /** One writer closed early to make room; {@code files} data files its flush wrote. */
    public void recordClosedEarly(long files) {
        writersClosedEarly.increment();
        filesRolledEarly.add(files);
    }

    /** Rows that went into the shared sort. */
    public void recordSorted(long rows) {
        sortedRows.add(rows);
    }

    /** Cleanup steps that failed (see {@code MetricsSnapshot.cleanupFailures}). */
    public void recordCleanupFailures(long steps) {
        cleanupFailures.add(steps);
    }

    /** Keeps the last values read from Paimon's own metrics (on the writing thread). */
    public void recordPaimon(Map<String, Object> values) {
        paimon = Map.copyOf(values);
    }

    private double busyRatio() {
        long first = sources.compactionFirstStartNanos().getAsLong();
        long threads = sources.compactionThreads().getAsLong();
        long elapsed = System.nanoTime() - first;
        if (first == 0 || threads == 0 || elapsed <= 0) {
            return 0;
        }
        return Math.min(1.0, (double) compactionNanos.sum() / ((double) elapsed * threads));
    }

    /** An immutable snapshot; cheap, callable from any thread. */
    public MetricsSnapshot snapshot() {
        long reserved = sources.reservedBytes().getAsLong();
        long pages = sources.pageBytes().getAsLong();
        return new MetricsSnapshot(
                sources.budgetBytes().getAsLong(),
                reserved,
                // The budget raises its peak just after its current value: never report below current.
                Math.max(sources.peakReservedBytes().getAsLong(), reserved),
                pages,
                Math.max(0, reserved - pages),
                sources.shareBytes().getAsLong(),
                sources.borrowedBytes().getAsLong(),
                sources.peakBorrowedBytes().getAsLong(),
                sources.reclaimedFromCount().getAsLong(),
                sources.reclaimedFromBytes().getAsLong(),
                sources.reclaimedByCount().getAsLong(),
                sources.reclaimedByBytes().getAsLong(),
                inputRows.get(),
                inputBytes.get(),
                outputFiles.get(),
                outputBytes.get(),
                sources.spillCount().getAsLong(),
                sources.spillFiles().getAsLong(),
                sources.spillBytes().getAsLong(),
                sources.spillFilesLeft().getAsLong(),
                flushCount.sum(),
                flushNanos.sum() / 1_000_000,
                sources.bufferFullCount().getAsLong(),
                compactionCount.sum(),
                compactionNanos.sum() / 1_000_000,
                sources.compactionsQueued().getAsLong(),
                sources.compactionsRunning().getAsLong(),
                sources.compactionThreads().getAsLong(),
                sources.compactionPeakRunning().getAsLong(),
                sources.compactionBucketOverlaps().getAsLong(),
                sources.compactionInputBytes().getAsLong(),
                sources.compactionOutputBytes().getAsLong(),
                sources.compactionAdmissionWaits().getAsLong(),
                busyRatio(),
                prepareCommitNanos.sum() / 1_000_000,
                prepareCommitCompactionWaitNanos.sum() / 1_000_000,
                cancellations.get(),
                sources.resourceExhaustedCount().getAsLong(),
                writersOpen.get(),
                peakWritersOpen.get(),
                writersClosedEarly.sum(),
                filesRolledEarly.sum(),
                sortedRows.sum(),
                cleanupFailures.sum(),
                paimon);
    }
}
