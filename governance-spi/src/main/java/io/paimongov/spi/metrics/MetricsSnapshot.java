package io.paimongov.spi.metrics;

import java.util.Map;

/**
 * An immutable view of one write's metrics at one moment. Each component says whether it is
 * exact or an estimate and when it changes; {@code docs/metrics.md} has the same table. Received
 * through {@link io.paimongov.spi.MetricsReporter} (docs/spi.md, clauses METRICS.1-METRICS.4).
 *
 * @param budgetBytes the write's memory budget now: what its reservations may grow to. Exact. Fixed
 *     for a write outside a shared memory; inside one, {@code shareBytes} plus what it borrowed less
 *     what it lent, moved by the pool (docs/memory-sharing.md).
 * @param reservedBytes memory accounted now: pages plus reserved estimates. Exact as accounting;
 *     the estimate part is {@code estimatedBytes}. Changes on every page taken or given back and on
 *     every writer opened or closed. May pass {@code budgetBytes} for a moment when a shared memory
 *     took capacity back, until the write gives the memory back at its next row.
 * @param peakReservedBytes the most ever accounted at once. Exact; never above the largest {@code
 *     budgetBytes} the write had ({@code shareBytes + peakBorrowedBytes} in a shared memory).
 * @param pageBytes write-buffer pages held (in use or cached). Exact.
 * @param estimatedBytes reserved estimates for memory outside pages: open file writers with their
 *     format buffers, spill I/O buffers, compaction working memory. Estimate (see docs/metrics.md).
 * @param shareBytes the budget the write is guaranteed: its share of the shared memory it joined,
 *     else its fixed budget ({@code budgetBytes}). Exact; fixed for the write.
 * @param borrowedBytes budget held above the share now, lent by other writes of the shared memory.
 *     Exact; changes when the pool grants or takes back capacity; 0 outside a shared memory.
 * @param peakBorrowedBytes the most {@code borrowedBytes} ever. Exact; cumulative maximum.
 * @param reclaimedFromCount times another consumer took memory from this write: another write of
 *     the shared memory lowering this write's budget to get its share back, and the engine asking
 *     the write for memory back (Spark's spill of the write's consumer for another consumer of the
 *     task). Exact; cumulative. The pool shrinking as a write leaves is not counted.
 * @param reclaimedFromBytes what those took: budget the pool lowered, plus the bytes the engine's
 *     requests freed. Exact; cumulative.
 * @param reclaimedByCount times this write took budget back from borrowers to get its share. Exact;
 *     cumulative; 0 outside a shared memory.
 * @param reclaimedByBytes the budget it took back so. Exact; cumulative.
 * @param inputRows rows passed to {@code write}. Exact; changes on every accepted row.
 * @param inputBytes bytes of the rows passed to {@code write} in Paimon's binary row format. Exact
 *     for {@code BinaryRow} input, otherwise the size after conversion to one.
 * @param outputFiles data files in the prepared commit messages, flushed and compacted. Exact;
 *     changes at {@code prepareCommit}.
 * @param outputBytes bytes of those files. Exact; changes at {@code prepareCommit}.
 * @param spillCount sort-buffer spill runs written by primary-key writers (one per spill of a
 *     write buffer). Exact. Buffered append writers spill too; their files count in {@code
 *     spillFiles} only.
 * @param spillFiles spill files created, runs and merge outputs. Exact.
 * @param spillBytes bytes written to spill files (blocks plus 4-byte headers). Exact.
 * @param spillFilesLeft spill files present in the write's spill scope now. Exact (reads the dir).
 * @param flushCount data files ({@code data-*}, not changelog files) written by the writing thread:
 *     flushes of the write buffer; a flush that rolls over {@code target-file-size} writes more than
 *     one. Exact.
 * @param flushMillis time spent writing those files. Exact (wall clock).
 * @param bufferFullCount times the pool had no page to give (Paimon then spilled or flushed).
 *     Exact.
 * @param compactionCount compaction tasks that completed normally. Exact.
 * @param compactionMillis time those tasks ran. Exact (wall clock).
 * @param compactionsQueued compaction tasks waiting for a thread now. Exact.
 * @param compactionsRunning compaction tasks running now. Exact.
 * @param compactionThreads the most compaction threads this write may use: the {@code
 *     task-threads} setting ({@code max-threads} for -1), bounded by the engine. Exact; fixed once
 *     the write opens.
 * @param compactionPeakRunning the most compaction tasks that ran at once. Exact; never above
 *     {@code compactionThreads}.
 * @param compactionBucketOverlaps times a compaction task worked on a (partition, bucket) that
 *     another running task was working on. Exact; 0 in a correct run (each bucket is serial).
 * @param compactionInputBytes bytes of the files completed compactions read. Exact.
 * @param compactionOutputBytes bytes of the files completed compactions wrote. Exact.
 * @param compactionAdmissionWaits times a compaction task waited for working memory before it
 *     started. Exact.
 * @param compactionBusyRatio time compaction tasks ran divided by the thread bound times the time
 *     since the first task started: 1.0 means every thread compacted all the time. Exact (wall
 *     clock); 0 before the first task.
 * @param prepareCommitMillis time spent in {@code prepareCommit}. Exact (wall clock).
 * @param prepareCommitCompactionWaitMillis the part of {@code prepareCommitMillis} spent waiting
 *     for compaction tasks to end (Paimon waiting for a bucket's compaction result). Exact (wall
 *     clock); cumulative.
 * @param cancellations 1 once the write was cancelled, else 0. Exact.
 * @param resourceExhaustedCount requests refused with {@code ResourceExhaustedException}: memory
 *     (after making room) and spill disk. Exact.
 * @param writersOpen (partition, bucket) writers open now in the write's memory (admitted and not
 *     closed). Exact.
 * @param peakWritersOpen the most writers open at once. Exact; cumulative maximum.
 * @param writersClosedEarly writers closed before prepareCommit to make room for others (their
 *     files flushed and kept for the commit). Exact; cumulative.
 * @param filesRolledEarly data files those early closes wrote. Exact; cumulative.
 * @param sortedRows rows that went through the write's shared sort rather than straight to an open
 *     writer (see docs/architecture.md, "Many writers"). Exact; cumulative.
 * @param cleanupFailures cleanup steps of the write that failed: a spill scope that could not be
 *     deleted, compaction threads still running at the stop deadline, pages or reservations the
 *     engine would not take back, a Paimon write that would not close. Exact; cumulative; 0 in a
 *     clean close. Each one is also a step of the {@code CleanupException} the close threw.
 * @param paimon Paimon's own writer metrics ({@code writerBuffer.*}, {@code compaction.*}) as last
 *     read on the writing thread: at each prepareCommit and at close, before Paimon's write closes.
 *     Empty before the first of those. Values as Paimon defines them.
 */
public record MetricsSnapshot(
        long budgetBytes,
        long reservedBytes,
        long peakReservedBytes,
        long pageBytes,
        long estimatedBytes,
        long shareBytes,
        long borrowedBytes,
        long peakBorrowedBytes,
        long reclaimedFromCount,
        long reclaimedFromBytes,
        long reclaimedByCount,
        long reclaimedByBytes,
        long inputRows,
        long inputBytes,
        long outputFiles,
        long outputBytes,
        long spillCount,
        long spillFiles,
        long spillBytes,
        long spillFilesLeft,
        long flushCount,
        long flushMillis,
        long bufferFullCount,
        long compactionCount,
        long compactionMillis,
        long compactionsQueued,
        long compactionsRunning,
        long compactionThreads,
        long compactionPeakRunning,
        long compactionBucketOverlaps,
        long compactionInputBytes,
        long compactionOutputBytes,
        long compactionAdmissionWaits,
        double compactionBusyRatio,
        long prepareCommitMillis,
        long prepareCommitCompactionWaitMillis,
        long cancellations,
        long resourceExhaustedCount,
        long writersOpen,
        long peakWritersOpen,
        long writersClosedEarly,
        long filesRolledEarly,
        long sortedRows,
        long cleanupFailures,
        Map<String, Object> paimon) {

    public MetricsSnapshot {
        paimon = Map.copyOf(paimon);
    }
}
