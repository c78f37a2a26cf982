package io.paimongov.runtime.read;

/**
 * What a governed read did, at one moment: an immutable snapshot of {@link GovernedTableRead#metrics()}.
 * Counters only grow; byte figures of memory are the read's own reservations, all of them measured
 * estimates (docs/reads.md, "What a read is charged"). The names are stable: the CLI's JSON and
 * docs/metrics.md use them.
 *
 * @param planBytes charged for the plans made, summed over them (an estimate per file entry of the snapshot's manifests)
 * @param splitsRead splits whose reader was opened
 * @param filesOpened data files whose reader was opened (merged sections count each file once)
 * @param bytesOpened the sizes of those files, as their metadata gives them
 * @param rowsRead rows the read handed out (after merging and dropping deletes)
 * @param sectionsMerged sections of overlapping sorted runs merged
 * @param runsMerged sorted runs in those sections
 * @param mostRunsInASection the most sorted runs one section merged
 * @param sectionsInPasses sections that did not fit the budget at once and were merged in passes
 * @param mergePasses intermediate merges of those sections, each writing one spilled run
 * @param spilledRuns runs written to the spill scope
 * @param spillBytes bytes written to them (compressed)
 * @param reservedBytes held now for the last plan, readers and merges (consumer kind {@code read})
 * @param peakReservedBytes the most held at once for them
 * @param outputBytesHeld held now for output batches the engine has not let go of (kind {@code read output})
 * @param peakOutputBytes the most held at once for output batches
 * @param outputBatches output batches handed out
 * @param outputBatchesReleased of those, the ones let go of (each counted once)
 * @param cancelled whether the read was stopped by a cancel
 * @param smallerBatchSplits splits read in batches smaller than the table's {@code read.batch-size},
 *     because the budget's free memory could not hold their readers at that size
 */
public record ReadSnapshot(
        long planBytes,
        long splitsRead,
        long filesOpened,
        long bytesOpened,
        long rowsRead,
        long sectionsMerged,
        long runsMerged,
        long mostRunsInASection,
        long sectionsInPasses,
        long mergePasses,
        long spilledRuns,
        long spillBytes,
        long reservedBytes,
        long peakReservedBytes,
        long outputBytesHeld,
        long peakOutputBytes,
        long outputBatches,
        long outputBatchesReleased,
        boolean cancelled,
        long smallerBatchSplits) {}
